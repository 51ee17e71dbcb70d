// The Connect6 evaluation's weights and scoring, written once for the CPU engine (ai/src/search/connect6/connect6.cpp)
// and the GPU rules (connect6_rules.h): a score from the counts of windows (six cells in a line) holding
// k stones of one colour and none of the other, w[colour][k] (colours 1 black, 2 white; k = 1..6), and
// from the named shapes on the board's lines (live and sleeping twos to fives, line_shapes), and the
// value of a stone in one window for candidate ordering.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace warpmind::search::connect6::eval {

inline constexpr int kWin = 1000000;  // a six; kWin / 2: a six next turn (or lost next turn)

// The weight of a window holding k stones of one colour.
WM_HD int weight(int k) {
  constexpr int v[7] = {0, 1, 6, 30, 200, 400, 0};
  return v[k];
}

// ---- Named shapes ----
//
// On one line (a row, a column or a diagonal of six cells or more), a colour's stones form groups: the
// windows of the line holding stones of that colour and none of the other, taken in runs of consecutive
// windows (stones of two different runs never share a window, so they never help each other). A group's
// size m is the most stones one of its windows holds. With m = 4 or 5 the group threatens to complete
// six, and it is a *live* four or five when the defender needs two stones to stop every such window
// (no one empty cell lies in all of them), a *sleeping* one when one stone does. With m = 2 or 3 it is
// live when 4 - m more stones of its colour (two for a two, one for a three) can make it a live four,
// sleeping when they can make only a sleeping four or none. Groups of one stone and sixes (a win,
// counted by the windows) are not shapes.
enum Shape : int {
  kLiveTwo,
  kSleepingTwo,
  kLiveThree,
  kSleepingThree,
  kLiveFour,
  kSleepingFour,
  kLiveFive,
  kSleepingFive,
  kShapeKinds
};

constexpr int kLines = 92;  // 19 rows, 19 columns, 27 diagonals and 27 anti-diagonals of 6 cells or more
constexpr int kMaxLineLength = 19;

// Line l's first cell (x, y), direction (dx, dy) and length: rows 0..18 (y = l), columns 19..37, then the
// diagonals up-right from (k, 0) for k = 0..13 and from (0, k) for k = 1..13, then the anti-diagonals
// down-right from (k, 18) for k = 0..13 and from (0, k) for k = 17 down to 5.
WM_HD void line_geometry(int l, int& x, int& y, int& dx, int& dy, int& length) {
  if (l < 19) {
    x = 0, y = l, dx = 1, dy = 0, length = 19;
  } else if (l < 38) {
    x = l - 19, y = 0, dx = 0, dy = 1, length = 19;
  } else if (l < 65) {
    const int k = l - 38;
    dx = 1, dy = 1;
    if (k < 14)
      x = k, y = 0, length = 19 - k;
    else
      x = 0, y = k - 13, length = 19 - (k - 13);
  } else {
    const int k = l - 65;
    dx = 1, dy = -1;
    if (k < 14)
      x = k, y = 18, length = 19 - k;
    else
      x = 0, y = 18 - (k - 13), length = 19 - (k - 13);
  }
}

WM_HD int popc32(unsigned x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#elif defined(__POPCNT__)
  return __builtin_popcount(x);
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return static_cast<int>((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
#endif
}

// Adds the shapes of one line to count[colour][shape] (colours 1 and 2), from its cells as bit masks
// (bit i: cell i of the line) of black stones, white stones and empty cells; n cells, 6 <= n <= 19.
WM_HD void line_shapes(unsigned black, unsigned white, unsigned empty, int n, int (&count)[3][kShapeKinds]) {
  // Cells from..to (inclusive) as a mask; empty when from > to.
  const auto range = [](int from, int to) { return from > to ? 0u : ((2u << to) - 1u) & ~((1u << from) - 1u); };
  const auto empties = [&](int from, int to) { return popc32(empty & range(from, to)); };
  const int last = n - 6;  // the last window's start
  for (int p = 1; p <= 2; ++p) {
    const unsigned mine = p == 1 ? black : white, theirs = p == 1 ? white : black;
    // Window s (cells s..s+5): its stones of p when it holds none of the other colour, else 0.
    const auto stones = [&](int s) { return (theirs >> s) & 63u ? 0 : popc32((mine >> s) & 63u); };
    for (int s = 0; s <= last;) {
      if (!stones(s)) {
        ++s;
        continue;
      }
      const int g0 = s;
      int m = 0;
      while (s <= last && stones(s)) {
        const int k = stones(s++);
        m = k > m ? k : m;
      }
      const int g1 = s - 1;
      if (m < 2 || m > 5) continue;
      bool live = false;
      if (m >= 4) {
        // The windows of four or more meet in the cells from the last one's start to the first one's
        // end: stopped by one stone when an empty cell is among them.
        int lo = -1, hi = -1;
        for (int t = g0; t <= g1; ++t)
          if (stones(t) >= 4) hi = t, lo = lo < 0 ? t : lo;
        live = hi - lo >= 6 || empties(hi, lo + 5) == 0;
      } else {
        // Live when 4 - m added stones make two windows of four or more whose common cells (a, b: from
        // b's start to a's end) are all ours: fill those cells, then top each window up from its own cells.
        const int budget = 4 - m;
        for (int a = g0; a <= g1 && !live; ++a)
          for (int b = a + 1; b <= g1 && b <= a + 5 && !live; ++b) {
            const int common = empties(b, a + 5);
            const int need_a = 4 - stones(a) - common, need_b = 4 - stones(b) - common;
            const int add_a = need_a > 0 ? need_a : 0, add_b = need_b > 0 ? need_b : 0;
            live = common + add_a + add_b <= budget && add_a <= empties(a, b - 1) && add_b <= empties(a + 6, b + 5);
          }
      }
      ++count[p][(m - 2) * 2 + (live ? 0 : 1)];
    }
  }
}

// The same from the cells v[0..n) (0 empty, 1 black, 2 white).
WM_HD void line_shapes(const std::uint8_t* v, int n, int (&count)[3][kShapeKinds]) {
  unsigned black = 0, white = 0, empty = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned bit = 1u << i;
    black |= v[i] == 1 ? bit : 0u;
    white |= v[i] == 2 ? bit : 0u;
    empty |= v[i] == 0 ? bit : 0u;
  }
  line_shapes(black, white, empty, n, count);
}

// The weight of a shape of the side to move (mine) or of the other side. Only the mover's twos and threes
// count: a live three of the side to move becomes a live four with one stone and keeps the other for a
// second threat; the opponent's threats are the window counts' and the forced defence's (its fours and
// fives make the score's threat charge, or a loss when two stones cannot stop them). Set by matches
// against the engine without shapes (docs/search.md): weights on the opponent's shapes measured no
// better.
WM_HD int shape_weight(int shape, bool mine) {
  constexpr int kMine[kShapeKinds] = {10, 2, 40, 8, 0, 0, 0, 0};  // a four or five of the mover wins now
  return mine ? kMine[shape] : 0;
}

// Whether the score depends on `them_blockable` (whether two stones can hit every window of the
// opponent's holding four or five): no six on the board, no four or five of ours, some of theirs.
template <class W>
WM_HD bool needs_blockable(const W& w, int me, int them) {
  return !w[1][6] && !w[2][6] && w[me][4] + w[me][5] == 0 && w[them][4] + w[them][5] > 0;
}

// The score from the side to move's (me) point of view, from the window counts w and the shape counts
// shapes[colour][shape].
// The positions whose value the window counts decide: a six on the board, a six we complete this turn,
// threats of theirs two stones cannot all block (lost next turn). True with `score` set for those.
template <class W>
WM_HD bool decided(const W& w, int me, int them, bool them_blockable, int& score) {
  if (w[me][6]) return score = kWin, true;
  if (w[them][6]) return score = -kWin, true;
  if (w[me][4] + w[me][5] > 0) return score = kWin / 2, true;
  if (w[them][4] + w[them][5] > 0 && !them_blockable) return score = -kWin / 2, true;
  return false;
}

template <class W, class S>
WM_HD int from_counts(const W& w, const S& shapes, int me, int them, bool them_blockable) {
  int score = 0;
  if (decided(w, me, them, them_blockable, score)) return score;
  for (int k = 1; k <= 5; ++k) score += weight(k) * (w[me][k] - w[them][k]);
  for (int k = 0; k < kShapeKinds; ++k)
    score += shape_weight(k, true) * shapes[me][k] - shape_weight(k, false) * shapes[them][k];
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

}  // namespace warpmind::search::connect6::eval
