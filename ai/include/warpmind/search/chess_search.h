// warpmind::search::chess — evaluation and the CPU searches.
//
// evaluate(): a classical integer evaluation in centipawns from the side to move's point of view:
// material and piece-square tables (PeSTO's), safe mobility, pawn structure (doubled, isolated, passed,
// with the kings' distances to a passer's path in the end game), rooks on open files, pawn threats on
// pieces, king safety (pawn shield, open files and pawn storms at the king, attackers on its zone), the
// bishop pair, tapered between middle game and end game by the material left, drawish end games scaled
// down. Deterministic and integer, so a GPU port can match it exactly.
//
// Searcher: negamax alpha-beta with iterative deepening, aspiration windows at the root (from depth 5),
// principal variation search, a transposition table shared by all threads, move ordering (table move,
// captures by the victim's value and a capture history with those that lose material by static exchange
// evaluation (SEE) after the quiet moves, killers, counter moves, history and continuation history with
// gravity), a static evaluation corrected by a correction history (by side to move and pawn structure),
// quiescence on captures and promotions (captures losing by SEE or short of alpha skipped), check and
// singular extensions,
// reverse futility, razoring, adaptive null-move pruning, ProbCut, internal iterative reduction,
// futility, late-move, SEE and history pruning at shallow depths, logarithmic late-move reductions,
// repetition and 50-move draws. threads == 1 is the serial reference; more threads run Lazy SMP (every
// thread searches the root on the shared table, helpers at staggered depths), the multi-threaded CPU
// baseline. Histories (the correction history too), counter moves and an evaluation cache carry over from one search to the next, so
// a search's result can depend on the searches before it; clear() (a new game) resets them with the
// table, after which the same search gives the same result.
// Limits: depth, nodes, time (a deadline, and a soft limit after which no new iteration starts, scaled
// by the best move's stability), or none (until stop()). Never returns an illegal move: with
// any legal move available the best move is legal, from the last completed iteration at the least.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/gpu_batch.h"

namespace warpmind::search::chess {

int evaluate(const Position& p);
// With a network (chess_network.h): its output, plus evaluate(p) when it is residual, clamped to
// ±Network::kMaxValue; without one (null): evaluate(p). What the searcher evaluates with.
int evaluate(const Position& p, const Network* network);

constexpr int kMate = 32000;
constexpr int kMateBound = kMate - 1000;  // |score| above this: a mate in (kMate - |score|) plies

struct SearchLimits {
  int depth = 64;                 // plies
  std::uint64_t nodes = 0;        // 0: no limit
  std::int64_t time_ms = 0;       // 0: no limit; else the search stops after about this long
  std::int64_t soft_time_ms = 0;  // 0: none; else no new iteration starts after this long
  bool infinite = false;          // search until stop() (the limits above still cap it when set)
};

struct SearchReport {  // after each completed iteration
  int depth = 0, seldepth = 0;
  int score = 0;  // centipawns from the root side's view; mate scores beyond kMateBound
  std::uint64_t nodes = 0;
  std::int64_t time_ms = 0;
  std::vector<Move> pv;
};

struct SearchResult {
  Move best{};
  bool has_move = false;  // false only when the root has no legal move (mate or stalemate)
  int score = 0, depth = 0;
  std::uint64_t nodes = 0;
};

// The chess game for the hybrid node-based search (search/hybrid.h): legal moves with captures and
// promotions first, mates scored by distance from the root.
struct ChessGame {
  using State = Position;
  using Move = chess::Move;
  static int evaluate(const Position& p) { return chess::evaluate(p); }
  static void children(const Position& p, std::vector<Move>& out);
  static bool over(const Position& p) {  // no legal move: mate or stalemate
    MoveList list;
    generate_legal(p, list);
    return list.size == 0;
  }
  static int terminal(const Position& p, int ply) { return p.in_check() ? -(kMate - ply) : 0; }
  static Position apply(const Position& p, const Move& m) {
    Position q = p;
    Undo u;
    make_move(q, m, u);
    return q;
  }
};

// The hybrid search's batches on the GPU (search/gpu_batch.h): legal moves in ChessGame::children's order.
using GpuBatch = search::GpuBatch<ChessGame>;
using MinimaxResult = search::MinimaxResult<Move>;

// Perft on the GPU by breadth-first levels, one position per thread (the last two plies counted without
// being written); the level buffers are kept for the next run(). create() needs the CUDA backend
// (Unavailable otherwise); the Context must outlive it. Blocking; one thread at a time.
class GpuPerft {
 public:
  static Status create(Context& ctx, std::unique_ptr<GpuPerft>& out);
  ~GpuPerft();
  // The leaf nodes of p at `depth` (0..20, else InvalidArgument); ms: device time.
  // transposition_table: each position's count below it is kept in a device hash table (keyed by a
  // 128-bit hash of the position and the depth left, up to 32 GiB and 45% of the free memory) and taken
  // from there, or from an equal position of the same level, instead of being computed again: the same
  // counts, far less work from depth 7 on. Positions differing only in an en passant square no pawn can
  // take are equal. *reused: the positions whose count was taken rather than computed.
  Status run(const Position& p, int depth, std::uint64_t& nodes, double* ms = nullptr, bool transposition_table = false,
             std::uint64_t* reused = nullptr);

  struct Impl;

 private:
  GpuPerft() = default;
  std::unique_ptr<Impl> impl_;
};

// Perft on the GPU on a device set up for this call (GpuPerft keeps one); ms: device time. Unavailable
// without the CUDA backend.
Status perft_gpu(Context& ctx, const Position& p, int depth, std::uint64_t& nodes, double* ms = nullptr);

class Searcher {
 public:
  // hash_mb: transposition table size (1..65536); threads >= 1.
  Searcher(int hash_mb, int threads);
  ~Searcher();
  void set_hash(int hash_mb);
  void set_threads(int threads);
  void clear();  // forget the table, histories, counter moves and evaluation cache (a new game)

  // `history`: the keys of the positions before `root` in this game (for repetition draws).
  SearchResult search(const Position& root, const std::vector<std::uint64_t>& history, const SearchLimits& limits,
                      const std::function<void(const SearchReport&)>& on_iteration = {});
  void stop();  // from another thread: the running search returns soon
  // The evaluation of the searches from now on: a network (chess_network.h), or null for the classical
  // evaluate() (the default). Changing it clears the table and histories as clear() does; waits for a
  // running search to end. The network is shared, not copied. `incremental`: its accumulators are updated
  // along the search path (the fast way); false evaluates every position from scratch (the reference:
  // the same values, so the same search).
  void set_network(std::shared_ptr<const Network> network, bool incremental = true);
  std::shared_ptr<const Network> network() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::search::chess

// Compiled once in the library (ai/src/search/gpu_batch.cpp).
extern template class warpmind::search::GpuBatch<warpmind::search::chess::ChessGame>;
