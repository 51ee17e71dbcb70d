// CUDA Connect6: the hybrid search's batch kernels (leaves one position per thread, branches one per
// warp) and the device-resident searches. The evaluation and the candidate generation are
// connect6_rules.h, compiled for the device here and for the host by the tests; connect6_warp.cuh
// computes the same for one board with a whole warp.
#include "core/buffer.cuh"
#include "core/check.cuh"
#include "search/connect6_warp.cuh"
#include "search/game_device.cuh"
#include "search/minimax.cuh"
#include "core/primitives.cuh"
#include "search/connect6/connect6_rules.h"

namespace warpmind::gpu {
namespace {

using connect6::C6Pos;
using connect6::C6Turn;
constexpr int kThreads = 64;  // the rules keep a few kilobytes of lists per thread

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

// The batch kernels of GameDevice<connect6::Device> (game_device.cuh).
template <>
struct Kernels<connect6::Device> {
  static Status leaf_values(const C6Pos* in, unsigned n, int ply, int* values, cudaStream_t s) {
    k_evaluate<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(in, n, ply, values);
    WM_CUDA_LAUNCH(k_evaluate);
    return Status::Ok();
  }
  static Status branches(const C6Pos* in, unsigned n, const connect6::Device::Params& p, C6Turn* rows, int* counts,
                         cudaStream_t s) {
    k_branches_warp<<<(n + kBranchWarps - 1) / kBranchWarps, kBranchWarps * 32, 0, s>>>(in, n, p.width, rows, counts);
    WM_CUDA_LAUNCH(k_branches_warp);
    return Status::Ok();
  }
  static WarpRules tree(const connect6::Device::Params& p) { return {p.width}; }
};

template class GameDevice<connect6::Device>;

}  // namespace warpmind::gpu
