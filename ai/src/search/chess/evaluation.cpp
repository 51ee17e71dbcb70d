// The chess evaluation on the CPU (evaluate() of chess_search.h): chess_eval.h's terms read from a Position
// through an adaptor, or the learned network's value.
#include <algorithm>

#include "search/chess/chess_eval.h"
#include "search/chess/chess_internal.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::search::chess {

namespace {

using Bits = std::uint64_t;

// The evaluation is ai/src/search/chess/chess_eval.h, shared with the GPU rules; here it reads a
// Position, with the piece-square values from a table built once from eval::pst.
struct PstTable {
  int mg[6][64], eg[6][64];
  PstTable() {
    for (int t = 0; t < 6; ++t)
      for (int sq = 0; sq < 64; ++sq) eval::pst(t, sq, mg[t][sq], eg[t][sq]);
  }
};
const PstTable& pst_table() {
  static const PstTable t;
  return t;
}

struct EvalBoard {
  const Position& p;
  const PstTable& t = pst_table();
  Bits pieces(int c, int type) const { return p.pieces[c][type]; }
  Bits occupied(int c) const { return p.occupied[c]; }
  int king_square(int c) const { return p.king_square(static_cast<Color>(c)); }
  int side() const { return p.side; }
  Bits knight(int sq) const { return detail::knight_attacks(sq); }
  Bits bishop(int sq, Bits occ) const { return detail::bishop_attacks(sq, occ); }
  Bits rook(int sq, Bits occ) const { return detail::rook_attacks(sq, occ); }
  Bits king_zone(int sq) const { return detail::king_attacks(sq) | (Bits{1} << sq); }
  void pst(int type, int rel, int& mg, int& eg) const {
    mg = t.mg[type][rel];
    eg = t.eg[type][rel];
  }
};

}  // namespace

int evaluate(const Position& p) { return eval::evaluate(EvalBoard{p}); }

int evaluate(const Position& p, const Network* network) {
  if (!network) return evaluate(p);
  const int output = network->evaluate(p);
  return network->residual() ? std::clamp(output + evaluate(p), -Network::kMaxValue, Network::kMaxValue) : output;
}

}  // namespace warpmind::search::chess
