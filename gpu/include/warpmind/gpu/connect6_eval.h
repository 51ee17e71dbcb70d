// The Connect6 evaluation's weights and scoring, written once for the CPU engine (ai/src/search/connect6.cpp)
// and the GPU rules (connect6_rules.h): a score from the counts of windows (six cells in a line) holding
// k stones of one colour and none of the other, w[colour][k] (colours 1 black, 2 white; k = 1..6), and
// the value of a stone in one window for candidate ordering.
#pragma once

#include "warpmind/gpu/hd.h"

namespace warpmind::gpu::connect6_eval {

inline constexpr int kWin = 1000000;  // a six; kWin / 2: a six next turn (or lost next turn)

// The weight of a window holding k stones of one colour.
WM_HD int weight(int k) {
  constexpr int v[7] = {0, 1, 6, 30, 200, 400, 0};
  return v[k];
}

// Whether the score depends on `them_blockable` (whether two stones can hit every window of the
// opponent's holding four or five): no six on the board, no four or five of ours, some of theirs.
template <class W>
WM_HD bool needs_blockable(const W& w, int me, int them) {
  return !w[1][6] && !w[2][6] && w[me][4] + w[me][5] == 0 && w[them][4] + w[them][5] > 0;
}

// The score from the side to move's (me) point of view.
template <class W>
WM_HD int from_counts(const W& w, int me, int them, bool them_blockable) {
  if (w[me][6]) return kWin;
  if (w[them][6]) return -kWin;
  if (w[me][4] + w[me][5] > 0) return kWin / 2;  // we complete six this turn
  // Threats two stones cannot all block: lost next turn.
  if (w[them][4] + w[them][5] > 0 && !them_blockable) return -kWin / 2;
  int score = 0;
  for (int k = 1; k <= 5; ++k) score += weight(k) * (w[me][k] - w[them][k]);
  // Threats we must answer: two or more windows that need separate blocks are worse than one.
  const int threats = w[them][4] + w[them][5];
  if (threats > 0) score -= 300 * threats;
  return score;
}

// What a stone of `me` adds in a window held by `who` (0: empty) with n stones: building ours, taking
// theirs, or opening an empty one.
WM_HD int window_gain(int who, int n, int me) {
  if (who == me) return weight(n + 1) - weight(n);
  if (who) return (weight(n) * 3) / 2;
  return 1;
}

}  // namespace warpmind::gpu::connect6_eval
