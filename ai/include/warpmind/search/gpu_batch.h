// warpmind::search::GpuBatch<G> — the hybrid search's batches on the GPU (search/hybrid.h's BatchBackend),
// one class for every game: chess::GpuBatch is GpuBatch<chess::ChessGame>, connect6::GpuBatch is
// GpuBatch<connect6::Connect6Game> (declared by chess_search.h and connect6.h).
//
// Leaf evaluation and branch calculation (the children in G::children's order) run in CUDA kernels that
// compute the same rules and evaluation as the CPU (ai/src/search/<game>/<game>_rules.h, compiled for
// both). Should a batch meet a device error, it is computed on the CPU instead (the search stays correct),
// the first error is kept in error() and the later batches stay on the CPU.
//
// create() needs the CUDA backend (Unavailable otherwise); the Context must outlive the backend.
// Blocking: every call returns with its results in host memory. Not thread-safe: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/core/status.h"
#include "warpmind/search/hybrid.h"
#include "warpmind/search/search_many.h"

namespace warpmind::search {

// A search to a fixed depth without pruning: the negamax value from the side to move, the first best root
// move in the search's order, the nodes of the whole tree (the root included).
template <class Move>
struct MinimaxResult {
  int value = 0;
  Move best{};
  bool has_move = false;
  std::uint64_t nodes = 0;
  double ms = 0;  // device time
};

template <Game G>
class GpuBatch {
 public:
  using State = typename G::State;
  using Move = typename G::Move;

  // `game`: the settings every batch computes with (Connect6: the width, 1..128, the most turns the
  // device generates; InvalidArgument otherwise).
  static Status create(Context& ctx, std::unique_ptr<GpuBatch>& out, G game = {});
  ~GpuBatch();
  const G& game() const;
  // Changes the settings of the batches that follow; a value the device cannot take is InvalidArgument
  // and changes nothing.
  Status set_game(G game);

  // values[i] = leaf_value<G>(*in[i], ply) (search/hybrid.h): positions without moves scored as terminal,
  // the others evaluated.
  void leaves(const std::vector<const State*>& in, int ply, std::vector<int>& values);
  // values[i] = G::evaluate(*in[i]): the evaluation alone.
  void leaves(const std::vector<const State*>& in, std::vector<int>& values);
  // moves[i] = the children of *in[i] in the game's order.
  void branches(const std::vector<const State*>& in, std::vector<std::vector<Move>>& moves);
  // The subtrees under a hybrid search's horizon (search/hybrid.h SubtreeLeaves): values[i] =
  // subtree_value(game(), *in[i], ply, plies) — the negamax of `plies` more plies without pruning,
  // terminal scores counted from `ply` — all of the batch's trees built and scored on the device in one
  // pass (positions below the horizon never come back); nodes += their nodes, device_ms += device time.
  void subtrees(const std::vector<const State*>& in, int ply, int plies, std::vector<int>& values, std::uint64_t& nodes,
                double& device_ms);
  // From now on subtrees() searches the last min(plies, tail, max_tail()) plies of every subtree by
  // alpha-beta, one thread a node (the plies above breadth-first, as search_many): the same values, far
  // fewer nodes (`nodes` then counts the alpha-beta's). 0 (the default): the whole width. Negative: 0.
  void set_subtree_tail(int tail);
  // The device-resident search without pruning: the whole tree of `depth` plies (0..32) built and scored
  // on the device level by level (children in the game's order, the horizon by leaf_value, positions
  // without a move by terminal), one launch per level; the value equals the serial negamax's. The tree
  // must fit half the free device memory (chess depth 5 from the start: 5 M nodes); fails otherwise.
  Status minimax(const State& root, int depth, MinimaxResult<Move>& out);
  // search_many (search/search_many.h) on the device: out[i] for positions[i], the value and move the
  // CPU's search_many gives. `tail`: how many of the last plies each node's own thread searches by
  // alpha-beta, below the levels searched together (0..min(depth - 1, max_tail())); -1: 0, every ply by
  // levels, the fastest measured (docs/search.md). Memory: chess expands at most a million nodes at a
  // time below the positions; Connect6 (whole trees) runs batches too large for a quarter of the
  // device memory in parts. A device error (OutOfMemory included) is returned with nothing written, and
  // does not switch the backend to the CPU.
  Status search_many(std::span<const State> positions, int depth, std::span<TableMove<Move>> out,
                     SearchManyStats* stats = nullptr, int tail = -1);
  // The most plies search_many's one-thread alpha-beta takes for this game (chess 4; Connect6 0: its
  // trees are searched whole, the horizon evaluated a warp a node).
  static int max_tail();
  // The first device error (ok while none; the batches then run on the CPU).
  const Status& error() const;

  struct Impl;

 private:
  GpuBatch() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::search
