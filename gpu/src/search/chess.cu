// CUDA chess: the hybrid search's batch kernels (leaf values, move lists) and the device-resident search's
// tree, on the rules of chess_rules.h compiled for the device (the tree's move lists and counts with
// chess_sliders.h's tables, whose moves and order are the fills' own). The perft kernels: chess_perft.cu.
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

// chess_sliders.h's tables for the search's kernels, copied in by Kernels<chess::Device>::prepare.
__device__ chess::Bits g_slider_words[chess::SliderTables::kWords];

__device__ chess::SliderTables slider_tables() { return chess::slider_tables_at(g_slider_words); }
__device__ chess::TableSearchRules search_rules() { return {chess::TableAttacks{slider_tables()}}; }

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
  __device__ int count(const DPos& p) const { return chess::count_moves(p, slider_tables()); }
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
    const int n = search_rules().moves(p, m);
    for (int i = from; i < to && i < n; ++i) out[i - from] = chess::apply(p, m[i]);
    return n;
  }
  __device__ int leaf(const DPos& p, int ply) const { return search_rules().leaf(p, ply); }
  __device__ int terminal(const DPos& p, int ply) const { return chess::terminal(p, ply); }
  // The last plies by alpha-beta, one thread a node (search_many's breadth-first levels above them).
  static constexpr int kMaxTail = 4;
  __device__ int tail(const DPos& p, int plies, int ply, int alpha, int beta, std::uint64_t& nodes) const {
    return search::alphabeta<kMaxTail>(search_rules(), p, plies, ply, alpha, beta, nodes);
  }
};

}  // namespace

// The batch kernels of GameDevice<chess::Device> (game_device.cuh).
template <>
struct Kernels<chess::Device> {
  // Once per GameDevice, on its stream and waited for (a copy from pageable memory may still be in flight
  // when a plain copy returns).
  static Status prepare(cudaStream_t s) {
    WM_CUDA(cudaMemcpyToSymbolAsync(g_slider_words, chess::host_slider_words(),
                                    chess::SliderTables::kWords * sizeof(chess::Bits), 0, cudaMemcpyHostToDevice, s));
    WM_CUDA(cudaStreamSynchronize(s));
    return Status::Ok();
  }
  static Status leaf_values(const DPos* in, unsigned n, int ply, int* values, cudaStream_t s) {
    k_evaluate<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(in, n, ply, values);
    WM_CUDA_LAUNCH(k_evaluate);
    return Status::Ok();
  }
  static Status branches(const DPos* in, unsigned n, const chess::Device::Params&, std::uint32_t* rows, int* counts,
                         cudaStream_t s) {
    k_branches<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(in, n, rows, counts);
    WM_CUDA_LAUNCH(k_branches);
    return Status::Ok();
  }
  static MinimaxRules tree(const chess::Device::Params&) { return {}; }
};

template class GameDevice<chess::Device>;

}  // namespace warpmind::gpu
