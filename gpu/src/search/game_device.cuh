// GameDevice<R> (ai/src/search/game_device.h) for every game, from the game's kernels. A game's .cu
// specialises Kernels<R> and instantiates `template class GameDevice<R>;`:
//
//   template <> struct Kernels<R> {
//     // values[i] = the leaf value of in[i] at `ply` (ply < 0: the evaluation alone), in device memory.
//     static Status leaf_values(const Pos* in, unsigned n, int ply, int* values, cudaStream_t);
//     // Each position's moves in the search's order into its row of kMaxMoves, counts[i] of them.
//     static Status branches(const Pos* in, unsigned n, const Params&, Move* rows, int* counts, cudaStream_t);
//     // The tree's rules for minimax.cuh (one thread or one warp a node).
//     static auto tree(const Params&);
//     // Optional: what the kernels need on the device before the first call (run by create).
//     static Status prepare(cudaStream_t);
//   };
//
// Batches are uploaded, computed and copied back on the device's stream; buffers only grow.
#pragma once

#include <memory>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "search/game_device.h"
#include "search/minimax.cuh"
#include "search/pvs.cuh"

namespace warpmind::gpu {

template <class R>
struct Kernels;

template <class R>
struct GameDevice<R>::Impl {
  cudaStream_t stream = nullptr;
  DeviceBuffer<Pos> in;
  DeviceBuffer<int> ints, offset;
  DeviceBuffer<Move> rows, packed;
  DeviceBuffer<unsigned char> temp;  // CUB
  LevelMinimax<Pos> tree;
  WindowedSearch<Pos> windowed;    // search_many for rules with an alpha-beta tail
  std::size_t subtree_budget = 0;  // bytes the subtrees of one batch may take (a quarter of the free memory)
};

template <class R>
Status GameDevice<R>::create(void* stream, std::unique_ptr<GameDevice>& out) {
  std::unique_ptr<GameDevice> d(new GameDevice());
  d->impl_ = std::make_unique<Impl>();
  d->impl_->stream = static_cast<cudaStream_t>(stream);
  if constexpr (requires { Kernels<R>::prepare(d->impl_->stream); })
    WM_RETURN_IF_ERROR(Kernels<R>::prepare(d->impl_->stream));
  out = std::move(d);
  return Status::Ok();
}

template <class R>
GameDevice<R>::~GameDevice() = default;

template <class R>
Status GameDevice<R>::leaf_values(const Pos* in, std::size_t n, int ply, int* values) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (n == 0) return Status::Ok();
  if (n >= (std::size_t{1} << 31)) return Status::Invalid("evaluate: batch too large");
  WM_RETURN_IF_ERROR(im.in.reserve(n));
  WM_RETURN_IF_ERROR(im.ints.reserve(n));
  WM_CUDA(cudaMemcpyAsync(im.in.get(), in, n * sizeof(Pos), cudaMemcpyHostToDevice, s));
  WM_RETURN_IF_ERROR(Kernels<R>::leaf_values(im.in.get(), static_cast<unsigned>(n), ply, im.ints.get(), s));
  WM_CUDA(cudaMemcpyAsync(values, im.ints.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  return Status::Ok();
}

template <class R>
Status GameDevice<R>::branches(const Pos* in, std::size_t n, const Params& params, Move* moves, int* counts) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (n == 0) return Status::Ok();
  if (n >= (std::size_t{1} << 22)) return Status::Invalid("branches: batch too large");
  WM_RETURN_IF_ERROR(im.in.reserve(n));
  WM_RETURN_IF_ERROR(im.ints.reserve(n + 1));
  WM_RETURN_IF_ERROR(im.offset.reserve(n + 1));
  WM_RETURN_IF_ERROR(im.rows.reserve(n * R::kMaxMoves));
  WM_RETURN_IF_ERROR(im.packed.reserve(n * R::kMaxMoves));
  WM_CUDA(cudaMemcpyAsync(im.in.get(), in, n * sizeof(Pos), cudaMemcpyHostToDevice, s));
  WM_RETURN_IF_ERROR(
      Kernels<R>::branches(im.in.get(), static_cast<unsigned>(n), params, im.rows.get(), im.ints.get(), s));
  return pack_rows(im.rows.get(), R::kMaxMoves, im.ints.get(), im.offset.get(), static_cast<unsigned>(n),
                   im.packed.get(), im.temp, s, counts, moves);
}

template <class R>
Status GameDevice<R>::minimax(const Pos& root, int depth, const Params& params, MinimaxOutcome& out,
                              std::size_t budget_bytes) {
  Impl& im = *impl_;
  std::size_t free_bytes = 0, total_bytes = 0;
  WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return im.tree.run(Kernels<R>::tree(params), root, depth, im.stream, budget_bytes ? budget_bytes : free_bytes / 2,
                     out);
}

template <class R>
Status GameDevice<R>::subtrees(const Pos* roots, std::size_t n, int depth, int ply, const Params& params, int* values,
                               std::uint64_t& nodes, double& ms, std::size_t budget_bytes, int tail) {
  Impl& im = *impl_;
  if (!im.subtree_budget) {
    std::size_t free_bytes = 0, total_bytes = 0;
    WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    im.subtree_budget = free_bytes / 4;
  }
  return im.tree.run_many(Kernels<R>::tree(params), roots, n, depth, ply, im.stream,
                          budget_bytes ? budget_bytes : im.subtree_budget, values, nodes, ms, tail);
}

template <class R>
Status GameDevice<R>::search_many(const Pos* roots, std::size_t n, int depth, int tail, const Params& params,
                                  int* values, int* best, std::uint64_t& nodes, double& ms, std::size_t budget_bytes) {
  Impl& im = *impl_;
  if (depth < 1 || depth > 32) return Status::Invalid("search_many: depth must be 1..32");
  if (!im.subtree_budget) {
    std::size_t free_bytes = 0, total_bytes = 0;
    WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    im.subtree_budget = free_bytes / 4;
  }
  const auto rules = Kernels<R>::tree(params);
  if constexpr (minimax_detail::MaxTail<decltype(rules)>::value > 0) {
    (void)budget_bytes;
    return im.windowed.run(rules, roots, n, depth, tail, im.stream, values, best, nodes, ms);
  } else {
    return im.tree.run_many(rules, roots, n, depth, 0, im.stream, budget_bytes ? budget_bytes : im.subtree_budget,
                            values, nodes, ms, tail, best);
  }
}

template <class R>
int GameDevice<R>::tail_plies() {
  return minimax_detail::MaxTail<decltype(Kernels<R>::tree(Params{}))>::value;
}

template <class R>
Status GameDevice<R>::leaf_kernel_resources(const Params& params, KernelResources& out) const {
  using Tree = decltype(Kernels<R>::tree(params));
  cudaFuncAttributes a{};
  if constexpr (minimax_detail::WarpPerNode<Tree>::value) {
    WM_CUDA(cudaFuncGetAttributes(&a, minimax_detail::k_leaf_warp<Pos, Tree>));
  } else {
    WM_CUDA(cudaFuncGetAttributes(&a, minimax_detail::k_leaf<Pos, Tree>));
  }
  out.registers = a.numRegs;
  out.local_bytes = a.localSizeBytes;
  return Status::Ok();
}

}  // namespace warpmind::gpu
