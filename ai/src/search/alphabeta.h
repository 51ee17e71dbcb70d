// Fixed-depth alpha-beta, one thread a search, written once for host and device: the CPU side of
// search_many (ai/src/search/tables.cpp, every position on the thread pool) and the GPU's plies below the
// breadth-first levels of its trees (gpu/src/search/minimax.cuh). Iterative, its frames in a fixed array
// of kMaxPlies, no allocation: the same code and the same node counts wherever it runs.
//
// R, a game's one-thread search rules (<game>_rules.h, SearchRules):
//   using Pos; using Move; static constexpr int kMaxMoves;
//   int moves(const Pos&, Move* out) const;       // the moves in the search's order; 0: the game is over
//   int root_moves(const Pos&, Move* out) const;  // the moves in the game's order (the result's tie rule)
//   Pos child(const Pos&, const Move&) const;
//   int leaf(const Pos&, int ply) const;          // a horizon node: terminal when over, else evaluated
//   int terminal(const Pos&, int ply) const;      // a node without moves above the horizon
// Scores lie strictly inside ±kInfinity.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace warpmind::search {

constexpr int kAlphaBetaInfinity = 1 << 20;

// A value of `root`, `ply` plies below the search's root, searched `plies` more plies (0..kMaxPlies) with
// the window (alpha, beta), fail-soft: the negamax value when it lies strictly inside the window, a value
// <= alpha when the negamax value is <= alpha, >= beta when it is >= beta. With the window
// (-kAlphaBetaInfinity, kAlphaBetaInfinity) it is the negamax value. nodes += the nodes visited below root.
template <int kMaxPlies, class R>
WM_HD int alphabeta(const R& r, const typename R::Pos& root, int plies, int ply, int alpha, int beta,
                    std::uint64_t& nodes) {
  using Pos = typename R::Pos;
  struct Frame {
    Pos pos;
    typename R::Move moves[R::kMaxMoves];
    int n, next, alpha, beta, best;
  };
  if (plies <= 0) return r.leaf(root, ply);
  Frame st[kMaxPlies];
  int d = 0;
  st[0].n = r.moves(root, st[0].moves);
  if (st[0].n == 0) return r.terminal(root, ply);
  st[0].pos = root;
  st[0].next = 0;
  st[0].alpha = alpha;
  st[0].beta = beta;
  st[0].best = -kAlphaBetaInfinity;
  int value = 0;
  bool folded = true;  // false: `value` is a child's value from its own side, still to fold into st[d]
  for (;;) {
    Frame& f = st[d];
    if (!folded) {
      folded = true;
      const int v = -value;
      if (v > f.best) {
        f.best = v;
        if (v > f.alpha) f.alpha = v;
      }
    }
    if (f.next == f.n || f.best >= f.beta) {  // done (or cut off): its value goes to the parent
      value = f.best;
      if (d == 0) return value;
      --d;
      folded = false;
      continue;
    }
    const Pos c = r.child(f.pos, f.moves[f.next++]);
    ++nodes;
    const int cply = ply + d + 1;
    folded = false;
    if (d + 1 == plies) {
      value = r.leaf(c, cply);
      continue;
    }
    Frame& g = st[d + 1];
    g.n = r.moves(c, g.moves);
    if (g.n == 0) {
      value = r.terminal(c, cply);
      continue;
    }
    folded = true;
    g.pos = c;
    g.next = 0;
    g.alpha = -f.beta;
    g.beta = -f.alpha;
    g.best = -kAlphaBetaInfinity;
    ++d;
  }
}

// The search of one table (search_many): the negamax value of `root` to `depth` plies (0..kMaxPlies + 1)
// and `best`, the index in root_moves' order of the first move with that value (-1: depth 0 or no move;
// then the value is leaf(root, 0), or terminal(root, 0)). Each root move is searched with the window
// (best so far, infinity), so a later move of equal value is never taken. moves: room for R::kMaxMoves.
template <int kMaxPlies, class R>
WM_HD int root_search(const R& r, const typename R::Pos& root, int depth, typename R::Move* moves, int& best,
                      std::uint64_t& nodes) {
  best = -1;
  if (depth <= 0) return r.leaf(root, 0);
  const int n = r.root_moves(root, moves);
  if (n == 0) return r.terminal(root, 0);
  int alpha = -kAlphaBetaInfinity;
  for (int i = 0; i < n; ++i) {
    const typename R::Pos c = r.child(root, moves[i]);
    ++nodes;
    const int v = -alphabeta<kMaxPlies>(r, c, depth - 1, 1, -kAlphaBetaInfinity, -alpha, nodes);
    if (v > alpha) {
      alpha = v;
      best = i;
    }
  }
  return alpha;
}

}  // namespace warpmind::search
