// warpmind::search::search_many — a move for each of many independent positions in one call: a game
// server's AI opponents, thousands of tables at a time.
//
// Every position gets the negamax of a fixed `depth` (1..16 plies) with the hybrid search's rules
// (search/hybrid.h): leaf_value at the horizon, terminal scores (counted in plies from that position)
// where a side has no move; no extensions, reductions or quiescence. TableMove::best is the first move
// in the game's order (G::children's: chess captures and promotions first, Connect6's candidate turns at
// the game's width) whose value equals the position's, so a later move of equal value is never chosen.
// The CPU and the GPU return the same value and move for every position, whatever the batch; their node
// counts differ, since they reach the values by different searches:
//   CPU (search_many below): alpha-beta, one position a task on the thread pool — the root's moves in the
//     game's order, each searched with the window (best so far, infinity); below the root the moves in
//     the game's search order (chess: captures by most valuable victim, then least valuable attacker).
//   GPU (GpuBatch<G>::search_many, search/gpu_batch.h): all the positions at once. Chess: alpha-beta by
//     levels, every node with its window, the eldest child of every node searched before its younger
//     brothers (which then search together, bounded by it), the last `tail` plies by the same alpha-beta
//     as the CPU's, a thread a node. Connect6: the whole trees breadth-first, a warp a node.
// Positions are copied in; a call with a bad argument (depth out of range, `out` not the size of
// `positions`) returns InvalidArgument and writes nothing. Thread-safe for distinct `out`s.
#pragma once

#include <cstdint>
#include <span>

#include "warpmind/core/status.h"
#include "warpmind/core/thread_pool.h"
#include "warpmind/search/hybrid.h"

namespace warpmind::search {

constexpr int kSearchManyMaxDepth = 16;

template <class Move>
struct TableMove {
  int value = 0;          // from the side to move
  Move best{};            // meaningful when has_move
  bool has_move = false;  // false: the game is over at this position
};

struct SearchManyStats {
  std::uint64_t nodes = 0;  // every node visited (the positions themselves included)
  double ms = 0;            // wall time of the call
  double device_ms = 0;     // GPU: device time from the upload to the last value (0 on the CPU)
};

// The CPU search: out[i] for positions[i], the pool's threads sharing the positions.
template <Game G>
Status search_many(ThreadPool& pool, const G& game, std::span<const typename G::State> positions, int depth,
                   std::span<TableMove<typename G::Move>> out, SearchManyStats* stats = nullptr);

}  // namespace warpmind::search
