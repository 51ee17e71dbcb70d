// The serial reference the hybrid search is measured against (bench suites hybrid, chess, connect6):
// negamax, or alpha-beta with pruning, over the game's ordered children (search/hybrid.h's game shape),
// counting the nodes it computes. Like the hybrid search, it scores a node at depth 0 with
// search::leaf_value (terminal when the game is over there, mate or stalemate, a six or a full board;
// else the evaluation) rather than expanding it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "warpmind/search/hybrid.h"

namespace warpmind::bench {

template <class G>
constexpr int kInf = search::HybridSearch<G, search::CpuBatch<G>>::kInfinity;

template <class G>
int serial(const G& game, const typename G::State& p, int depth, int ply, int alpha, int beta, bool prune,
           std::uint64_t& nodes) {
  ++nodes;
  if (depth == 0) return search::leaf_value<G>(p, ply);
  std::vector<typename G::Move> moves;
  game.children(p, moves);
  if (moves.empty()) return G::terminal(p, ply);
  int best = -kInf<G>;
  for (const auto& m : moves) {
    best =
        std::max(best, -serial(game, G::apply(p, m), depth - 1, ply + 1, -beta, -std::max(alpha, best), prune, nodes));
    if (prune && best >= beta) break;
  }
  return best;
}

}  // namespace warpmind::bench
