// CUDA chess: perft by breadth-first levels and the hybrid search's batch kernels. The rules and the
// evaluation are chess_rules.h, the perft generator chess_movegen.h, both compiled for the device here
// and for the host by the tests.
//
// perft: level k holds positions; one thread per position counts its legal moves, a CUB scan turns the
// counts into offsets, and a second pass writes the children (copy-make, 72 bytes each) into level k+1.
// The last two plies are not written: one thread per position two plies above the leaves lists its
// legal moves and, for each, counts the child's legal moves without generating them (count_moves), and
// the counts are summed (warp shuffles, one atomic per warp). Legal moves come from check and pin masks
// (chess_movegen.h), not from making each move. A level whose children would not fit in the memory
// budget is processed in halves, depth first, so any depth runs in bounded memory.
#include <algorithm>
#include <vector>

#include "buffer.cuh"
#include "check.cuh"
#include "minimax.cuh"
#include "prefix.cuh"
#include "warpmind/gpu/chess.h"
#include "warpmind/gpu/chess_movegen.h"

namespace warpmind::gpu {
namespace {

using chess::DPos;
constexpr int kThreads = 128;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__global__ void k_count(const DPos* __restrict__ in, unsigned long long n, unsigned long long* __restrict__ counts) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) counts[i] = static_cast<unsigned long long>(chess::count_moves(in[i]));
}

__global__ void k_expand(const DPos* __restrict__ in, unsigned long long n, const unsigned long long* __restrict__ offset,
                         DPos* __restrict__ out) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const DPos p = in[i];
  unsigned long long o = offset[i];
  chess::for_each_legal(p, [&](std::uint32_t m) { out[o++] = chess::apply(p, m); });
}

__device__ void add_warp_total(unsigned long long c, unsigned long long* total) {
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(total, c);
}

// Adds the legal moves of every position to *total (perft 1 of each).
__global__ void k_leaf_sum(const DPos* __restrict__ in, unsigned long long n, unsigned long long* __restrict__ total) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  add_warp_total(i < n ? static_cast<unsigned long long>(chess::count_moves(in[i])) : 0ull, total);
}

// Adds perft 2 of every position to *total: its legal moves listed, each child's moves counted. The
// list keeps the warp together over the counts, which are most of the work.
__global__ void __launch_bounds__(kThreads) k_perft2(const DPos* __restrict__ in, unsigned long long n,
                                                     unsigned long long* __restrict__ total) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long c = 0;
  if (i < n) {
    const DPos p = in[i];
    std::uint32_t moves[chess::kMaxLegalMoves];
    int k = 0;
    chess::for_each_legal(p, [&](std::uint32_t m) { moves[k++] = m; });
    for (int j = 0; j < k; ++j) c += static_cast<unsigned long long>(chess::count_moves(chess::apply(p, moves[j])));
  }
  add_warp_total(c, total);
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

struct Level {
  DeviceBuffer<DPos> pos;  // this level's positions (level 0: the root)
  DeviceBuffer<unsigned long long> count, offset;
};

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
  __device__ int leaf(const DPos& p, int ply) const {
    return chess::count_moves(p) == 0 ? chess::terminal(p, ply) : chess::evaluate(p);
  }
  __device__ int terminal(const DPos& p, int ply) const { return chess::terminal(p, ply); }
};

}  // namespace

struct ChessDevice::Impl {
  cudaStream_t stream = nullptr;
  std::vector<std::unique_ptr<Level>> levels;
  DeviceBuffer<unsigned long long> total;
  DeviceBuffer<unsigned char> temp;
  std::size_t budget = 0;  // bytes of children one level may hold
  // batch kernels
  DeviceBuffer<DPos> batch_in;
  DeviceBuffer<int> batch_int;
  DeviceBuffer<int> batch_offset;
  DeviceBuffer<std::uint32_t> batch_moves, batch_packed;
  LevelMinimax<DPos> tree;
  std::size_t subtree_budget = 0;  // bytes the subtrees of one batch may take (a quarter of the free memory)
  cudaEvent_t ev[2] = {};

  ~Impl() {
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
  }
  std::string run(std::size_t level, const DPos* in, unsigned long long n, int depth);
};

std::string ChessDevice::Impl::run(std::size_t level, const DPos* in, unsigned long long n, int depth) {
  cudaStream_t s = stream;
  if (n == 0) return {};
  if (depth == 1) {
    k_leaf_sum<<<blocks_for(n), kThreads, 0, s>>>(in, n, total.get());
    WM_CUDA_LAUNCH(k_leaf_sum);
    return {};
  }
  if (depth == 2) {
    k_perft2<<<blocks_for(n), kThreads, 0, s>>>(in, n, total.get());
    WM_CUDA_LAUNCH(k_perft2);
    return {};
  }
  while (levels.size() < level + 2) levels.push_back(std::make_unique<Level>());
  Level& here = *levels[level];
  std::string err;
  if (!(err = here.count.reserve(n + 1)).empty()) return err;
  if (!(err = here.offset.reserve(n + 1)).empty()) return err;
  k_count<<<blocks_for(n), kThreads, 0, s>>>(in, n, here.count.get());
  WM_CUDA_LAUNCH(k_count);
  WM_CUDA(cudaMemsetAsync(here.count.get() + n, 0, sizeof(unsigned long long), s));
  unsigned long long children = 0;
  if (!(err = exclusive_scan(here.count.get(), here.offset.get(), n + 1, temp, s, &children)).empty()) return err;
  const std::size_t per_child = sizeof(DPos) + 2 * sizeof(unsigned long long);
  if (children * per_child > budget && n > 1) {  // too many children at once: halves, depth first
    const unsigned long long half = n / 2;
    if (!(err = run(level, in, half, depth)).empty()) return err;
    return run(level, in + half, n - half, depth);
  }
  Level& next = *levels[level + 1];
  if (!(err = next.pos.reserve(std::max<unsigned long long>(children, 1))).empty()) return err;
  k_expand<<<blocks_for(n), kThreads, 0, s>>>(in, n, here.offset.get(), next.pos.get());
  WM_CUDA_LAUNCH(k_expand);
  return run(level + 1, next.pos.get(), children, depth - 1);
}

std::string ChessDevice::create(void* stream, std::unique_ptr<ChessDevice>& out) {
  std::unique_ptr<ChessDevice> d(new ChessDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  for (cudaEvent_t& e : im.ev) WM_CUDA(cudaEventCreate(&e));
  std::string err = im.total.reserve(1);
  if (!err.empty()) return err;
  out = std::move(d);
  return {};
}

ChessDevice::~ChessDevice() = default;

std::string ChessDevice::perft(const DPos& root, int depth, std::uint64_t& nodes, double& ms, std::size_t budget_bytes) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (depth < 0 || depth > 20) return "perft: depth must be 0..20";
  if (depth == 0) {
    nodes = 1;
    ms = 0;
    return {};
  }
  // A level's children may take a share of the free memory such that every level fits at once.
  std::size_t free_bytes = 0, total_bytes = 0;
  WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  im.budget = budget_bytes ? budget_bytes
                           : std::max<std::size_t>(free_bytes / 2 / static_cast<std::size_t>(depth), std::size_t{1} << 20);
  while (im.levels.empty()) im.levels.push_back(std::make_unique<Level>());
  std::string err = im.levels[0]->pos.reserve(1);
  if (!err.empty()) return err;
  WM_CUDA(cudaMemcpyAsync(im.levels[0]->pos.get(), &root, sizeof root, cudaMemcpyHostToDevice, s));
  WM_CUDA(cudaMemsetAsync(im.total.get(), 0, sizeof(unsigned long long), s));
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  if (!(err = im.run(0, im.levels[0]->pos.get(), 1, depth)).empty()) return err;
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  unsigned long long total = 0;
  WM_CUDA(cudaMemcpyAsync(&total, im.total.get(), sizeof total, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  float t = 0;
  WM_CUDA(cudaEventElapsedTime(&t, im.ev[0], im.ev[1]));
  nodes = total;
  ms = t;
  return {};
}

std::string ChessDevice::minimax(const DPos& root, int depth, MinimaxOutcome& out, std::size_t budget_bytes) {
  Impl& im = *impl_;
  std::size_t free_bytes = 0, total_bytes = 0;
  WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return im.tree.run(MinimaxRules{}, root, depth, im.stream, budget_bytes ? budget_bytes : free_bytes / 2, out);
}

std::string ChessDevice::subtrees(const DPos* roots, std::size_t n, int depth, int ply, int* values, std::uint64_t& nodes,
                                  double& ms, std::size_t budget_bytes) {
  Impl& im = *impl_;
  if (!im.subtree_budget) {
    std::size_t free_bytes = 0, total_bytes = 0;
    WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    im.subtree_budget = free_bytes / 4;
  }
  return im.tree.run_many(MinimaxRules{}, roots, n, depth, ply, im.stream, budget_bytes ? budget_bytes : im.subtree_budget, values, nodes, ms);
}

std::string ChessDevice::evaluate(const DPos* in, std::size_t n, int* values) { return leaf_values(in, n, -1, values); }

std::string ChessDevice::leaf_values(const DPos* in, std::size_t n, int ply, int* values) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (n == 0) return {};
  if (n >= (std::size_t{1} << 31)) return "evaluate: batch too large";
  std::string err;
  if (!(err = im.batch_in.reserve(n)).empty()) return err;
  if (!(err = im.batch_int.reserve(n)).empty()) return err;
  WM_CUDA(cudaMemcpyAsync(im.batch_in.get(), in, n * sizeof(DPos), cudaMemcpyHostToDevice, s));
  k_evaluate<<<blocks_for(n), kThreads, 0, s>>>(im.batch_in.get(), static_cast<unsigned>(n), ply, im.batch_int.get());
  WM_CUDA_LAUNCH(k_evaluate);
  WM_CUDA(cudaMemcpyAsync(values, im.batch_int.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  return {};
}

std::string ChessDevice::branches(const DPos* in, std::size_t n, std::uint32_t* moves, int* counts) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (n == 0) return {};
  if (n >= (std::size_t{1} << 22)) return "branches: batch too large";
  std::string err;
  if (!(err = im.batch_in.reserve(n)).empty()) return err;
  if (!(err = im.batch_int.reserve(n + 1)).empty()) return err;
  if (!(err = im.batch_offset.reserve(n + 1)).empty()) return err;
  if (!(err = im.batch_moves.reserve(n * chess::kMaxMoves)).empty()) return err;
  if (!(err = im.batch_packed.reserve(n * chess::kMaxMoves)).empty()) return err;
  WM_CUDA(cudaMemcpyAsync(im.batch_in.get(), in, n * sizeof(DPos), cudaMemcpyHostToDevice, s));
  k_branches<<<blocks_for(n), kThreads, 0, s>>>(im.batch_in.get(), static_cast<unsigned>(n), im.batch_moves.get(),
                                                im.batch_int.get());
  WM_CUDA_LAUNCH(k_branches);
  return pack_rows(im.batch_moves.get(), chess::kMaxMoves, im.batch_int.get(), im.batch_offset.get(),
                   static_cast<unsigned>(n), im.batch_packed.get(), im.temp, s, counts, moves);
}

}  // namespace warpmind::gpu
