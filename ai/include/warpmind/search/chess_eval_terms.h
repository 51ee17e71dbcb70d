// warpmind::search::chess::eval_terms — the classical chess evaluation (chess::evaluate) as a linear
// function of its weights, for fitting them to labelled positions (warpmind-tune, Texel-style).
//
// The evaluation has count() parameters, each a middle-game and an end-game weight in centipawns:
//   [kMaterial, kMaterial + 6)       material of pawn, knight, bishop, rook, queen, king (the king's is 0);
//   [kPieceSquare, kTerms)           piece-square values, parameter kPieceSquare + type * 64 + square, the
//                                    square seen from the piece's side (a1 = 0 for White, a8 = 0 for Black);
//   [kTerms, count())                the other terms (mobility, king safety, pawn structure, ...): groups()
//                                    names them in the order the weight tables list them.
// linearize() records how often each parameter counts for White minus for Black. With the weights w and
// the integer sums M = Σ counts · w_mg, E = Σ counts · w_eg taken from the side to move's point of view
// (negated when Black is to move), the engine's value is
//   evaluate(p) = (M · phase + (E / divisor) · (24 − phase)) / 24 + tempo()
// in C++ integer arithmetic (division truncating towards zero), where phase and divisor are linearize()'s.
// The divisor (drawish end games: 1, 2 or 4) is the one the built-in weights select; a fit that moves the
// weights far may change it for some positions, which a tuner accepts as noise.
// Thread-safe: no state. Contract held by tests/search/chess_test.cpp (every count × built-in weight gives
// chess::evaluate back, position for position).
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "warpmind/search/chess.h"

namespace warpmind::search::chess::eval_terms {

inline constexpr int kMaterial = 0;
inline constexpr int kPieceSquare = 6;
inline constexpr int kTerms = kPieceSquare + 6 * 64;

// The number of parameters: kTerms plus the other terms.
int count();

// The built-in weights of parameter `param` (0 <= param < count(); else both 0).
void weight(int param, int& mg, int& eg);

// The side to move's bonus in centipawns.
int tempo();

struct Linear {
  int phase = 0;    // 0..24: the material left (24 and more: the middle game's weights alone)
  int divisor = 1;  // the end game's divisor: 1, 2 or 4
  // (parameter, White's count minus Black's) for every parameter whose difference is not 0, by parameter.
  std::vector<std::pair<int, int>> counts;
};

// The counts, phase and divisor of p's evaluation. Reuses out's memory.
void linearize(const Position& p, Linear& out);

// The terms past kTerms in the layout of the weight tables: a run of `count` parameters from kTerms +
// first, and what they weigh.
struct Group {
  int first, count;
  const char* what;
};
std::span<const Group> groups();

}  // namespace warpmind::search::chess::eval_terms
