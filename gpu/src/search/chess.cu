// CUDA chess: perft by breadth-first levels and the hybrid search's batch kernels. The rules and the
// evaluation are chess_rules.h, the perft generator chess_movegen.h and its table-driven count
// chess_sliders.h, all compiled for the device here and for the host by the tests.
//
// perft: level k holds positions; one thread per position counts its legal moves, a CUB scan turns the
// counts into offsets, and a second pass writes the children (copy-make, 72 bytes each) into level k+1.
// The last two plies are not written: one thread per position two plies above the leaves lists its
// legal moves and, for each, counts the child's legal moves without generating them, and the counts are
// summed (warp shuffles, one atomic per warp). Counts take checks, pins and the king's danger from
// magic-bitboard tables (chess_sliders.h, 897 KB copied to the device once, read through the read-only
// cache); the lists come from check and pin masks (chess_movegen.h), not from making each move. A level
// whose children would not fit in the memory budget is processed in halves, depth first, so any depth
// runs in bounded memory. With transpositions merged, every position carries the number of paths that
// reach it, and a level's equal positions are merged (radix sort by a hash of all 72 bytes, runs of
// byte-equal positions summed) before it is expanded: a transposition table of whole levels.
#include <algorithm>
#include <vector>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "search/game_device.cuh"
#include "search/minimax.cuh"
#include "core/primitives.cuh"
#include "search/chess/chess_device.h"
#include "search/chess/chess_movegen.h"
#include "search/chess/chess_sliders.h"

namespace warpmind::gpu {

namespace chess = search::chess::rules;  // the module's rules, compiled for the device here

namespace {

using chess::DPos;
constexpr int kThreads = 128;

unsigned blocks_for(std::size_t n) { return blocks_of(n, kThreads); }

// Legal moves counted with the slider tables (chess_sliders.h), the device's copy.
struct TableCount {
  chess::SliderTables t;
  __device__ int operator()(const DPos& p) const { return chess::count_moves(p, t); }
};

__global__ void k_count(TableCount count, const DPos* __restrict__ in, unsigned long long n,
                        unsigned long long* __restrict__ counts) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) counts[i] = static_cast<unsigned long long>(count(in[i]));
}

// Level k+1: the children of every position (and its weight, where there are weights).
__global__ void k_expand(const DPos* __restrict__ in, const unsigned long long* __restrict__ w, unsigned long long n,
                         const unsigned long long* __restrict__ offset, DPos* __restrict__ out,
                         unsigned long long* __restrict__ out_w) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const DPos p = in[i];
  const unsigned long long weight = w ? w[i] : 0;
  unsigned long long o = offset[i];
  chess::for_each_legal(p, [&](std::uint32_t m) {
    if (w) out_w[o] = weight;
    out[o++] = chess::apply(p, m);
  });
}

__device__ void add_warp_total(unsigned long long c, unsigned long long* total) {
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(total, c);
}

// Adds the legal moves of every position (times its weight) to *total: perft 1 of each.
__global__ void k_leaf_sum(TableCount count, const DPos* __restrict__ in, const unsigned long long* __restrict__ w,
                           unsigned long long n, unsigned long long* __restrict__ total) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long c = 0;
  if (i < n) c = static_cast<unsigned long long>(count(in[i])) * (w ? w[i] : 1ull);
  add_warp_total(c, total);
}

// Adds perft 2 of every position (times its weight) to *total: its legal moves listed, then each child's
// moves counted. The list keeps the warp together over the counts, which are most of the work. Eight
// blocks an SM (64 registers a thread): the counts wait on table loads, and more warps hide them.
__global__ void __launch_bounds__(kThreads, 8)
    k_perft2(TableCount count, const DPos* __restrict__ in, const unsigned long long* __restrict__ w,
             unsigned long long n, unsigned long long* __restrict__ total) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long c = 0;
  if (i < n) {
    const DPos p = in[i];
    std::uint32_t moves[chess::kMaxLegalMoves];
    int k = 0;
    chess::for_each_legal(p, [&](std::uint32_t m) { moves[k++] = m; });
    for (int j = 0; j < k; ++j) c += static_cast<unsigned long long>(count(chess::apply(p, moves[j])));
    c *= w ? w[i] : 1ull;
  }
  add_warp_total(c, total);
}

__device__ __forceinline__ unsigned long long mix64(unsigned long long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

// A hash of every byte of the position (equal positions, equal keys) and the identity permutation.
__global__ void k_hash(const DPos* __restrict__ in, unsigned long long n, unsigned long long* __restrict__ key,
                       unsigned* __restrict__ index) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long* word = reinterpret_cast<const unsigned long long*>(in + i);
  unsigned long long h = 0x9e3779b97f4a7c15ull;
  for (int k = 0; k < 9; ++k) h = mix64(h ^ word[k]) + static_cast<unsigned long long>(k);
  key[i] = h;
  index[i] = static_cast<unsigned>(i);
}

// head[j] = 1 where sorted position j starts a run of equal positions (the key and all 72 bytes equal to
// the one before; equal keys of different positions only split a run, so merging stays exact).
__global__ void k_heads(const DPos* __restrict__ in, const unsigned long long* __restrict__ key,
                        const unsigned* __restrict__ index, unsigned long long n, unsigned* __restrict__ head) {
  const unsigned long long j = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j > n) return;
  if (j == n) {
    head[j] = 0;  // the scan's trailing zero
    return;
  }
  unsigned h = j == 0 || key[j] != key[j - 1];
  if (!h) {
    const unsigned long long* a = reinterpret_cast<const unsigned long long*>(in + index[j]);
    const unsigned long long* b = reinterpret_cast<const unsigned long long*>(in + index[j - 1]);
    for (int k = 0; k < 9 && !h; ++k) h = a[k] != b[k];
  }
  head[j] = h;
}

// The merged level: one position per run, its weight the sum of the run's weights.
__global__ void k_merge(const DPos* __restrict__ in, const unsigned long long* __restrict__ w,
                        const unsigned* __restrict__ index, const unsigned* __restrict__ head,
                        const unsigned* __restrict__ run_start, unsigned long long n, DPos* __restrict__ out,
                        unsigned long long* __restrict__ out_w) {
  const unsigned long long j = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const unsigned g = run_start[j] + head[j] - 1;  // this position's run (the inclusive count of heads, minus one)
  if (head[j]) out[g] = in[index[j]];
  atomicAdd(out_w + g, w[index[j]]);
}

// ply < 0: the evaluation alone; else the hybrid search's leaf value at that ply.
__global__ void k_evaluate(const DPos* __restrict__ in, unsigned n, int ply, int* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ply < 0 ? chess::evaluate(in[i]) : chess::leaf_value(in[i], ply);
}

__global__ void k_branches(const DPos* __restrict__ in, unsigned n, std::uint32_t* __restrict__ moves,
                           int* __restrict__ counts) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t* m = moves + static_cast<std::size_t>(i) * chess::kMaxMoves;
  const int c = chess::generate_legal(in[i], m);
  chess::order_moves(m, c);
  counts[i] = c;
}

// The search's tree for the device-resident negamax (minimax.cuh): children in the search's order.
struct MinimaxRules {
  __device__ int count(const DPos& p) const { return chess::count_moves(p); }
  __device__ int expand(const DPos& p, DPos* out) const {
    std::uint32_t m[chess::kMaxMoves];
    const int n = chess::generate_legal(p, m);
    chess::order_moves(m, n);
    for (int i = 0; i < n; ++i) out[i] = chess::apply(p, m[i]);
    return n;
  }
  // Below search_many's roots, the children in the alpha-beta's order (chess::SearchRules: captures by
  // most valuable victim first): how many, and those in [from, to) made.
  __device__ int search_children(const DPos& p, int from, int to, DPos* out) const {
    std::uint32_t m[chess::kMaxLegalMoves];
    const int n = chess::SearchRules{}.moves(p, m);
    for (int i = from; i < to && i < n; ++i) out[i - from] = chess::apply(p, m[i]);
    return n;
  }
  __device__ int leaf(const DPos& p, int ply) const {
    return chess::count_moves(p) == 0 ? chess::terminal(p, ply) : chess::evaluate(p);
  }
  __device__ int terminal(const DPos& p, int ply) const { return chess::terminal(p, ply); }
  // The last plies by alpha-beta, one thread a node (search_many's breadth-first levels above them).
  static constexpr int kMaxTail = 4;
  __device__ int tail(const DPos& p, int plies, int ply, int alpha, int beta, std::uint64_t& nodes) const {
    return search::alphabeta<kMaxTail>(chess::SearchRules{}, p, plies, ply, alpha, beta, nodes);
  }
};

}  // namespace

struct Level {
  DeviceBuffer<DPos> pos;  // this level's positions (level 0: the root)
  DeviceBuffer<unsigned long long> count, offset;
  // perft with transpositions merged: weights, and the merge's keys, permutation, heads and merged level
  DeviceBuffer<unsigned long long> weight, key, key_sorted, merged_weight;
  DeviceBuffer<unsigned> index, index_sorted, head, run_start;
  DeviceBuffer<DPos> merged;
};

struct ChessPerftDevice::Impl {
  cudaStream_t stream = nullptr;
  std::vector<std::unique_ptr<Level>> levels;
  DeviceBuffer<unsigned long long> total;
  DeviceBuffer<unsigned char> temp;
  DeviceBuffer<chess::Bits> slider_words;  // chess_sliders.h's tables, copied once
  TableCount count;
  std::size_t budget = 0;  // bytes of children one level may hold
  cudaEvent_t ev[2] = {};

  ~Impl() {
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
  }
  Status run(std::size_t level, const DPos* in, const unsigned long long* w, unsigned long long n, int depth,
             bool merge_first = true);
  Status merge(Level& here, const DPos*& in, const unsigned long long*& w, unsigned long long& n);
  std::uint64_t merged_away = 0;  // positions merged into an equal one, over the run
};

// Adds the leaves `depth` plies below in[0..n) (weights w: how many paths reach each position; null:
// one each) to total, level by level. With weights, a level of at least 4,096 positions is merged before
// it is expanded (merge_first false: already merged). A level whose children would not fit in the budget
// is expanded in halves, depth first, each half's children merged on their own: exact, merging a little less.
Status ChessPerftDevice::Impl::run(std::size_t level, const DPos* in, const unsigned long long* w, unsigned long long n,
                                   int depth, bool merge_first) {
  cudaStream_t s = stream;
  if (n == 0) return Status::Ok();
  while (levels.size() < level + 2) levels.push_back(std::make_unique<Level>());
  Level& here = *levels[level];
  Status err;
  if (w && merge_first && n >= 4096 && !(err = merge(here, in, w, n)).ok()) return err;
  if (depth == 1) {
    k_leaf_sum<<<blocks_for(n), kThreads, 0, s>>>(count, in, w, n, total.get());
    WM_CUDA_LAUNCH(k_leaf_sum);
    return Status::Ok();
  }
  if (depth == 2) {
    k_perft2<<<blocks_for(n), kThreads, 0, s>>>(count, in, w, n, total.get());
    WM_CUDA_LAUNCH(k_perft2);
    return Status::Ok();
  }
  if (!(err = here.count.reserve(n + 1)).ok()) return err;
  if (!(err = here.offset.reserve(n + 1)).ok()) return err;
  k_count<<<blocks_for(n), kThreads, 0, s>>>(count, in, n, here.count.get());
  WM_CUDA_LAUNCH(k_count);
  WM_CUDA(cudaMemsetAsync(here.count.get() + n, 0, sizeof(unsigned long long), s));
  unsigned long long children = 0;
  if (!(err = exclusive_scan(here.count.get(), here.offset.get(), n + 1, temp, s, &children)).ok()) return err;
  // a child: its position (and weight), its level's count and offset (and the merge's buffers and sort)
  const std::size_t per_child = w ? 2 * sizeof(DPos) + 8 * sizeof(unsigned long long) + 6 * sizeof(unsigned)
                                  : sizeof(DPos) + 2 * sizeof(unsigned long long);
  if (children * per_child > budget && n > 1) {  // halves, depth first (a merged level stays in `here`)
    const unsigned long long half = n / 2;
    if (!(err = run(level, in, w, half, depth, false)).ok()) return err;
    return run(level, in + half, w ? w + half : nullptr, n - half, depth, false);
  }
  Level& next = *levels[level + 1];
  if (!(err = next.pos.reserve(std::max<unsigned long long>(children, 1))).ok()) return err;
  if (w && !(err = next.weight.reserve(std::max<unsigned long long>(children, 1))).ok()) return err;
  k_expand<<<blocks_for(n), kThreads, 0, s>>>(in, w, n, here.offset.get(), next.pos.get(),
                                              w ? next.weight.get() : nullptr);
  WM_CUDA_LAUNCH(k_expand);
  return run(level + 1, next.pos.get(), w ? next.weight.get() : nullptr, children, depth - 1);
}

// Replaces in[0..n) (weights w) by its distinct positions with summed weights, in here.merged.
Status ChessPerftDevice::Impl::merge(Level& here, const DPos*& in, const unsigned long long*& w,
                                     unsigned long long& n) {
  cudaStream_t s = stream;
  if (n >= (1ull << 32)) return Status::Ok();  // the permutation is 32-bit: such a level is expanded as it is
  Status err;
  for (auto* b : {&here.key, &here.key_sorted}) {
    if (!(err = b->reserve(n)).ok()) return err;
  }
  for (auto* b : {&here.index, &here.index_sorted, &here.head, &here.run_start}) {
    if (!(err = b->reserve(n + 1)).ok()) return err;
  }
  k_hash<<<blocks_for(n), kThreads, 0, s>>>(in, n, here.key.get(), here.index.get());
  WM_CUDA_LAUNCH(k_hash);
  if (n > 0x7fffffffull) return Status::Ok();  // beyond one sort: the level stays unmerged (the counts are the same)
  WM_RETURN_IF_ERROR(
      sort_pairs(here.key.get(), here.key_sorted.get(), here.index.get(), here.index_sorted.get(), n, temp, s));
  k_heads<<<blocks_for(n + 1), kThreads, 0, s>>>(in, here.key_sorted.get(), here.index_sorted.get(), n,
                                                 here.head.get());
  WM_CUDA_LAUNCH(k_heads);
  unsigned runs = 0;
  if (!(err = exclusive_scan(here.head.get(), here.run_start.get(), n + 1, temp, s, &runs)).ok()) return err;
  if (!(err = here.merged.reserve(std::max(runs, 1u))).ok()) return err;
  if (!(err = here.merged_weight.reserve(std::max(runs, 1u))).ok()) return err;
  WM_CUDA(cudaMemsetAsync(here.merged_weight.get(), 0, runs * sizeof(unsigned long long), s));
  k_merge<<<blocks_for(n), kThreads, 0, s>>>(in, w, here.index_sorted.get(), here.head.get(), here.run_start.get(), n,
                                             here.merged.get(), here.merged_weight.get());
  WM_CUDA_LAUNCH(k_merge);
  merged_away += n - runs;
  in = here.merged.get();
  w = here.merged_weight.get();
  n = runs;
  return Status::Ok();
}

Status ChessPerftDevice::create(void* stream, const chess::Bits* slider_words, std::unique_ptr<ChessPerftDevice>& out) {
  std::unique_ptr<ChessPerftDevice> d(new ChessPerftDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  for (cudaEvent_t& e : im.ev) WM_CUDA(cudaEventCreate(&e));
  Status err = im.total.reserve(1);
  if (err.ok()) err = im.slider_words.reserve(chess::SliderTables::kWords);
  if (!err.ok()) return err;
  WM_CUDA(cudaMemcpy(im.slider_words.get(), slider_words, chess::SliderTables::kWords * sizeof(chess::Bits),
                     cudaMemcpyHostToDevice));
  im.count = TableCount{chess::slider_tables_at(im.slider_words.get())};
  out = std::move(d);
  return Status::Ok();
}

ChessPerftDevice::~ChessPerftDevice() = default;

Status ChessPerftDevice::perft(const DPos& root, int depth, std::uint64_t& nodes, double& ms, std::size_t budget_bytes,
                               bool merge_transpositions, std::uint64_t* merged) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (depth < 0 || depth > 20) return Status::Invalid("perft: depth must be 0..20");
  if (depth == 0) {
    nodes = 1;
    ms = 0;
    return Status::Ok();
  }
  // A level's children may take a share of the free memory such that every level fits at once.
  std::size_t free_bytes = 0, total_bytes = 0;
  WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Merged, the levels above the largest are small (their equal positions merged): that one may take
  // two fifths of the free memory.
  im.budget = budget_bytes ? budget_bytes
              : merge_transpositions
                  ? std::max<std::size_t>(free_bytes / 5 * 2, std::size_t{1} << 20)
                  : std::max<std::size_t>(free_bytes / 2 / static_cast<std::size_t>(depth), std::size_t{1} << 20);
  while (im.levels.empty()) im.levels.push_back(std::make_unique<Level>());
  Status err = im.levels[0]->pos.reserve(1);
  if (!err.ok()) return err;
  WM_CUDA(cudaMemcpyAsync(im.levels[0]->pos.get(), &root, sizeof root, cudaMemcpyHostToDevice, s));
  WM_CUDA(cudaMemsetAsync(im.total.get(), 0, sizeof(unsigned long long), s));
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  im.merged_away = 0;
  if (merge_transpositions) {
    const unsigned long long one = 1;
    if (!(err = im.levels[0]->weight.reserve(1)).ok()) return err;
    WM_CUDA(cudaMemcpyAsync(im.levels[0]->weight.get(), &one, sizeof one, cudaMemcpyHostToDevice, s));
    err = im.run(0, im.levels[0]->pos.get(), im.levels[0]->weight.get(), 1, depth);
  } else {
    err = im.run(0, im.levels[0]->pos.get(), nullptr, 1, depth);
  }
  if (!err.ok()) return err;
  if (merged) *merged = im.merged_away;
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  unsigned long long total = 0;
  WM_CUDA(cudaMemcpyAsync(&total, im.total.get(), sizeof total, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  float t = 0;
  WM_CUDA(cudaEventElapsedTime(&t, im.ev[0], im.ev[1]));
  nodes = total;
  ms = t;
  return Status::Ok();
}

// The batch kernels of GameDevice<chess::Device> (game_device.cuh).
template <>
struct Kernels<chess::Device> {
  static Status leaf_values(const DPos* in, unsigned n, int ply, int* values, cudaStream_t s) {
    k_evaluate<<<blocks_for(n), kThreads, 0, s>>>(in, n, ply, values);
    WM_CUDA_LAUNCH(k_evaluate);
    return Status::Ok();
  }
  static Status branches(const DPos* in, unsigned n, const chess::Device::Params&, std::uint32_t* rows, int* counts,
                         cudaStream_t s) {
    k_branches<<<blocks_for(n), kThreads, 0, s>>>(in, n, rows, counts);
    WM_CUDA_LAUNCH(k_branches);
    return Status::Ok();
  }
  static MinimaxRules tree(const chess::Device::Params&) { return {}; }
};

template class GameDevice<chess::Device>;

}  // namespace warpmind::gpu
