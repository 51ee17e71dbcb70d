// Host-only interface to the CUDA chess kernels (gpu/src/search/chess.cu): perft by breadth-first levels,
// and the hybrid search's batch kernels — leaf evaluation and branch calculation (legal moves in the
// search's order). The rules and evaluation are chess_rules.h, shared with the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "search/chess/chess_rules.h"
#include "search/minimax_device.h"

#include "warpmind/core/status.h"

namespace warpmind::gpu {

// Not thread-safe.
class ChessDevice {
 public:
  static Status create(void* stream, std::unique_ptr<ChessDevice>& out);
  ~ChessDevice();
  // Leaf nodes of `root` at `depth` (>= 0): one position per thread, level by level (count the legal
  // moves, scan, write the children), the last level counted without being written. A level too large
  // for the memory budget is processed in slices. ms: device time. budget_bytes: memory one level's
  // children may take (0: half the free memory shared by the levels).
  // merge_transpositions: before a level of 4,096 positions or more is expanded, its equal positions
  // (all 72 bytes) are merged into one carrying the number of paths that reach it (sort by a hash,
  // runs of equal positions summed), and the counts below are multiplied by it — a transposition table
  // made of whole levels; *merged: the positions merged away.
  Status perft(const search::chess::rules::DPos& root, int depth, std::uint64_t& nodes, double& ms,
               std::size_t budget_bytes = 0, bool merge_transpositions = false, std::uint64_t* merged = nullptr);
  // values[i] = evaluate(in[i]), from the side to move.
  Status evaluate(const search::chess::rules::DPos* in, std::size_t n, int* values);
  // values[i] = leaf_value(in[i], ply): positions without a legal move scored as terminal, `ply` plies
  // below the root; the others evaluated.
  Status leaf_values(const search::chess::rules::DPos* in, std::size_t n, int ply, int* values);
  // Negamax of `root` to `depth` plies without pruning, the whole tree on the device (level by level:
  // children in the search's order, the horizon scored by leaf_value, positions without a move by
  // terminal). The tree must fit `budget_bytes` of device memory (0: half the free memory).
  Status minimax(const search::chess::rules::DPos& root, int depth, MinimaxOutcome& out, std::size_t budget_bytes = 0);
  // The subtrees under a host search's horizon, without pruning, in one pass over all of them:
  // values[i] = the negamax value of roots[i] searched `depth` more plies (as minimax(), terminal scores
  // counted from `ply`, roots[i]'s distance from the search's root). nodes += the trees' nodes, the roots
  // included; ms += device time. A batch whose trees exceed `budget_bytes` (0: a quarter of the free
  // memory at the first call) runs in halves; a single tree that does not fit is an error.
  Status subtrees(const search::chess::rules::DPos* roots, std::size_t n, int depth, int ply, int* values,
                  std::uint64_t& nodes, double& ms, std::size_t budget_bytes = 0);
  // The legal moves of every position, in the search's order: counts[i] of them for in[i], packed
  // position after position into `moves` (room for n * kMaxMoves).
  Status branches(const search::chess::rules::DPos* in, std::size_t n, std::uint32_t* moves, int* counts);

  struct Impl;

 private:
  ChessDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
