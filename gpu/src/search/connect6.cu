// CUDA Connect6: the hybrid search's batch kernels (leaves one position per thread, branches one per
// warp) and the device-resident searches. The evaluation and the candidate generation are
// connect6_rules.h, compiled for the device here and for the host by the tests; connect6_warp.cuh
// computes the same for one board with a whole warp.
#include "core/buffer.cuh"
#include "core/check.cuh"
#include "search/connect6_warp.cuh"
#include "search/minimax.cuh"
#include "core/primitives.cuh"
#include "search/connect6/connect6_device.h"

namespace warpmind::gpu {
namespace {

using connect6::C6Pos;
using connect6::C6Turn;
constexpr int kThreads = 64;  // the rules keep a few kilobytes of lists per thread

unsigned blocks_for(std::size_t n) { return blocks_of(n, kThreads); }

// ply < 0: the evaluation alone; else the hybrid search's leaf value at that ply.
__global__ void k_evaluate(const C6Pos* __restrict__ in, unsigned n, int ply, int* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ply < 0 ? connect6::evaluate(in[i]) : connect6::leaf_value(in[i], ply);
}

// Branch calculation, a warp per board (connect6::candidates' turns; microseconds where one thread
// takes milliseconds).
constexpr int kBranchWarps = 4;
__global__ void k_branches_warp(const C6Pos* __restrict__ in, unsigned n, int width, C6Turn* __restrict__ turns,
                                int* __restrict__ counts) {
  __shared__ connect6::WarpScratch scratch[kBranchWarps];
  const unsigned i = blockIdx.x * kBranchWarps + threadIdx.x / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (i >= n) return;
  connect6::WarpScratch& sc = scratch[threadIdx.x / 32];
  connect6::load_board(in[i], sc, lane);
  const int c = connect6::candidates_warp(sc, width, lane);
  for (int t = lane; t < c; t += 32) turns[static_cast<std::size_t>(i) * connect6::kMaxTurns + t] = sc.turns[t];
  if (lane == 0) counts[i] = c;
}

// The device-resident searches' trees (minimax.cuh, a warp per node: candidate turns at `width`) — the
// whole tree without pruning, and the subtrees below a host search's horizon, where every node waits for
// its children, so a node's latency decides.
struct WarpRules {
  static constexpr bool kWarpPerNode = true;
  using Scratch = connect6::WarpScratch;
  int width;
  __device__ int count_warp(const C6Pos& p, Scratch& s, int lane) const {
    connect6::load_board(p, s, lane);
    return connect6::candidates_warp(s, width, lane);
  }
  __device__ void expand_warp(const C6Pos& p, C6Pos* out, Scratch& s, int lane) const {
    connect6::load_board(p, s, lane);
    const int n = connect6::candidates_warp(s, width, lane);
    for (int i = lane; i < n; i += 32) out[i] = connect6::apply(s.board, s.turns[i]);
  }
  __device__ int leaf_warp(const C6Pos& p, int ply, Scratch& s, int lane) const {
    connect6::load_board(p, s, lane);
    return connect6::leaf_value_warp(s, ply, lane);
  }
  __device__ int terminal(const C6Pos& p, int ply) const { return connect6::terminal(p, ply); }
};

}  // namespace

struct Connect6Device::Impl {
  cudaStream_t stream = nullptr;
  DeviceBuffer<C6Pos> in;
  DeviceBuffer<int> ints, offset;
  DeviceBuffer<C6Turn> turns, packed;
  DeviceBuffer<unsigned char> temp;  // CUB
  LevelMinimax<C6Pos> tree;
  std::size_t subtree_budget = 0;  // bytes the subtrees of one batch may take (a quarter of the free memory)
};

Status Connect6Device::create(void* stream, std::unique_ptr<Connect6Device>& out) {
  std::unique_ptr<Connect6Device> d(new Connect6Device());
  d->impl_ = std::make_unique<Impl>();
  d->impl_->stream = static_cast<cudaStream_t>(stream);
  out = std::move(d);
  return Status::Ok();
}

Connect6Device::~Connect6Device() = default;

Status Connect6Device::evaluate(const C6Pos* in, std::size_t n, int* values) { return leaf_values(in, n, -1, values); }

Status Connect6Device::leaf_values(const C6Pos* in, std::size_t n, int ply, int* values) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (n == 0) return Status::Ok();
  if (n >= (std::size_t{1} << 31)) return Status::Invalid("evaluate: batch too large");
  Status err;
  if (!(err = im.in.reserve(n)).ok()) return err;
  if (!(err = im.ints.reserve(n)).ok()) return err;
  WM_CUDA(cudaMemcpyAsync(im.in.get(), in, n * sizeof(C6Pos), cudaMemcpyHostToDevice, s));
  k_evaluate<<<blocks_for(n), kThreads, 0, s>>>(im.in.get(), static_cast<unsigned>(n), ply, im.ints.get());
  WM_CUDA_LAUNCH(k_evaluate);
  WM_CUDA(cudaMemcpyAsync(values, im.ints.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  return Status::Ok();
}

Status Connect6Device::branches(const C6Pos* in, std::size_t n, int width, C6Turn* turns, int* counts) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (n == 0) return Status::Ok();
  if (n >= (std::size_t{1} << 22)) return Status::Invalid("branches: batch too large");
  Status err;
  if (!(err = im.in.reserve(n)).ok()) return err;
  if (!(err = im.ints.reserve(n + 1)).ok()) return err;
  if (!(err = im.offset.reserve(n + 1)).ok()) return err;
  if (!(err = im.turns.reserve(n * connect6::kMaxTurns)).ok()) return err;
  if (!(err = im.packed.reserve(n * connect6::kMaxTurns)).ok()) return err;
  WM_CUDA(cudaMemcpyAsync(im.in.get(), in, n * sizeof(C6Pos), cudaMemcpyHostToDevice, s));
  k_branches_warp<<<static_cast<unsigned>((n + kBranchWarps - 1) / kBranchWarps), kBranchWarps * 32, 0, s>>>(
      im.in.get(), static_cast<unsigned>(n), width, im.turns.get(), im.ints.get());
  WM_CUDA_LAUNCH(k_branches_warp);
  return pack_rows(im.turns.get(), connect6::kMaxTurns, im.ints.get(), im.offset.get(), static_cast<unsigned>(n),
                   im.packed.get(), im.temp, s, counts, turns);
}

Status Connect6Device::minimax(const C6Pos& root, int depth, int width, MinimaxOutcome& out, std::size_t budget_bytes) {
  Impl& im = *impl_;
  std::size_t free_bytes = 0, total_bytes = 0;
  WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return im.tree.run(WarpRules{width}, root, depth, im.stream, budget_bytes ? budget_bytes : free_bytes / 2, out);
}

Status Connect6Device::subtrees(const C6Pos* roots, std::size_t n, int depth, int width, int ply, int* values,
                                std::uint64_t& nodes, double& ms, std::size_t budget_bytes) {
  Impl& im = *impl_;
  if (!im.subtree_budget) {
    std::size_t free_bytes = 0, total_bytes = 0;
    WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    im.subtree_budget = free_bytes / 4;
  }
  return im.tree.run_many(WarpRules{width}, roots, n, depth, ply, im.stream,
                          budget_bytes ? budget_bytes : im.subtree_budget, values, nodes, ms);
}

}  // namespace warpmind::gpu
