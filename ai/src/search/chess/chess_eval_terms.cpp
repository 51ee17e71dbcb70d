// The evaluation's counts for tuning (contract in chess_eval_terms.h): chess_eval.h's side_terms run with
// an accumulator that records counts instead of adding weights — the very code the engine evaluates with.
#include "warpmind/search/chess_eval_terms.h"

#include <array>

#include "search/chess/chess_rules.h"

namespace warpmind::search::chess::eval_terms {

namespace {

namespace ce = chess::eval;

constexpr int kCount = kTerms + ce::kTermCount;

struct Recorder {
  std::array<int, kCount> n{};
  template <class B>
  void piece(const B&, int type, int rel) {
    ++n[static_cast<std::size_t>(kMaterial + type)];
    ++n[static_cast<std::size_t>(kPieceSquare + type * 64 + rel)];
  }
  void term(int t, int count) { n[static_cast<std::size_t>(kTerms + t)] += count; }
};

// Dynamic initialisation: the mobility offsets are functions of the rules header.
const Group kGroups[] = {
    {ce::kPawnThreat, 1, "pawn threat"},
    {ce::kRookOpenFile, 2, "rook on an open, half-open file"},
    {ce::kMobility + ce::mobility_offset(1), 9, "mobility: knight, 0..8 safe squares"},
    {ce::kMobility + ce::mobility_offset(2), 14, "mobility: bishop, 0..13 safe squares"},
    {ce::kMobility + ce::mobility_offset(3), 15, "mobility: rook, 0..14 safe squares"},
    {ce::kMobility + ce::mobility_offset(4), 28, "mobility: queen, 0..27 safe squares"},
    {ce::kKingAttack, 1, "king attack"},
    {ce::kShieldPawn, 4, "shield pawn, half-open and open king file, storm"},
    {ce::kDoubledPawn, 2, "doubled, isolated"},
    {ce::kPassedPawn, 8, "passed by advance"},
    {ce::kPassedFree, 3, "passed: free stop square, king distances"},
    {ce::kBishopPair, 1, "bishop pair"},
};

}  // namespace

int count() { return kCount; }

void weight(int param, int& mg, int& eg) {
  mg = eg = 0;
  if (param < 0 || param >= kCount) return;
  if (param < kPieceSquare) {
    mg = ce::value_mg(param - kMaterial);
    eg = ce::value_eg(param - kMaterial);
  } else if (param < kTerms) {
    ce::pst((param - kPieceSquare) / 64, (param - kPieceSquare) % 64, mg, eg);
  } else {
    ce::term_weight(param - kTerms, mg, eg);
  }
}

int tempo() { return ce::kTempo; }

void linearize(const Position& p, Linear& out) {
  const rules::DPos d = rules::from_position(p);
  const rules::EvalBoard board{d};
  Recorder rec[2];
  int phase = 0;
  ce::side_terms(board, 0, rec[0], phase);
  ce::side_terms(board, 1, rec[1], phase);
  out.counts.clear();
  long e = 0;  // the end-game sum under the built-in weights, White's point of view
  for (int k = 0; k < kCount; ++k)
    if (const int diff = rec[0].n[static_cast<std::size_t>(k)] - rec[1].n[static_cast<std::size_t>(k)]; diff) {
      out.counts.emplace_back(k, diff);
      int wm = 0, we = 0;
      weight(k, wm, we);
      e += static_cast<long>(diff) * we;
    }
  out.phase = phase < 24 ? phase : 24;
  // evaluate()'s choice: the side ahead in the end game, from the side to move's point of view.
  const int us = p.side, them = us ^ 1;
  if (us != 0) e = -e;
  out.divisor = ce::endgame_divisor(board, e >= 0 ? us : them);
}

std::span<const Group> groups() { return kGroups; }

}  // namespace warpmind::search::chess::eval_terms
