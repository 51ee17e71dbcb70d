// The Connect6 evaluation and move generation the GPU kernels run (gpu/src/search/connect6.cu), written once
// for host and device like chess_rules.h, so the test suite holds them against ai/'s
// (tests/search/connect6_device_rules_test.cpp) without a GPU.
//
// A C6Pos is the board's cells (0 empty, 1 black, 2 white), the side to move, the winner and the stone
// count. Windows are enumerated in ai/'s order (directions (1,0), (0,1), (1,1), (1,-1); rows, then
// columns), and computed from their index, so no table is needed. evaluate() and candidates() are
// ai/'s rules::evaluate and candidate_turns term for term; window counts are recounted from the
// board (the CPU keeps them incrementally).
#pragma once

#include <cstdint>

#include "search/connect6/connect6_eval.h"
#include "core/hd.h"

namespace warpmind::search::connect6::rules {

constexpr int kSize = 19, kCells = kSize * kSize;
constexpr int kWindows = 2 * 14 * 19 + 2 * 14 * 14;  // 924
constexpr int kMaxTurns = 128;                       // widths above this are cut to it
using eval::kWin;

struct C6Pos {
  std::uint8_t cell[kCells];
  std::uint8_t to_move, winner;  // 1 black, 2 white; winner 0 while nobody has six
  std::uint16_t stones;
};

struct C6Turn {
  std::int32_t a, b;  // b = -1: one stone
};

// From any board type with at(cell), to_move(), winner() and stones(), such as ai/'s rules::Board.
template <class B>
C6Pos from_board(const B& b) {
  C6Pos p{};
  for (int c = 0; c < kCells; ++c) p.cell[c] = static_cast<std::uint8_t>(b.at(c));
  p.to_move = static_cast<std::uint8_t>(b.to_move());
  p.winner = static_cast<std::uint8_t>(b.winner());
  p.stones = static_cast<std::uint16_t>(b.stones());
  return p;
}

WM_HD int other(int s) { return s == 1 ? 2 : 1; }

// The six cells of window w (ai/'s enumeration order).
WM_HD void window_cells(int w, int* c) {
  int dx, dy, x, y;
  if (w < 266) {
    dx = 1, dy = 0, y = w / 14, x = w % 14;
  } else if (w < 532) {
    w -= 266;
    dx = 0, dy = 1, y = w / 19, x = w % 19;
  } else if (w < 728) {
    w -= 532;
    dx = 1, dy = 1, y = w / 14, x = w % 14;
  } else {
    w -= 728;
    dx = 1, dy = -1, y = w / 14 + 5, x = w % 14;
  }
  for (int k = 0; k < 6; ++k) c[k] = (y + k * dy) * kSize + x + k * dx;
}

// The window index starting at (x, y) in direction d (0..3), or -1 when it does not fit.
WM_HD int window_at(int d, int x, int y) {
  switch (d) {
    case 0:
      return x >= 0 && x <= 13 && y >= 0 && y <= 18 ? y * 14 + x : -1;
    case 1:
      return x >= 0 && x <= 18 && y >= 0 && y <= 13 ? 266 + y * 19 + x : -1;
    case 2:
      return x >= 0 && x <= 13 && y >= 0 && y <= 13 ? 532 + y * 14 + x : -1;
    default:
      return x >= 0 && x <= 13 && y >= 5 && y <= 18 ? 728 + (y - 5) * 14 + x : -1;
  }
}

// Owner (1, 2 or 0) and stones of window w.
WM_HD void owner(const C6Pos& b, int w, int& who, int& n) {
  int c[6], k[3] = {0, 0, 0};
  window_cells(w, c);
  for (int i = 0; i < 6; ++i) ++k[b.cell[c[i]]];
  if (k[1] && !k[2])
    who = 1, n = k[1];
  else if (k[2] && !k[1])
    who = 2, n = k[2];
  else
    who = 0, n = 0;
}

WM_HD void count_windows(const C6Pos& b, int w[3][7]) {
  for (int s = 0; s < 3; ++s)
    for (int k = 0; k < 7; ++k) w[s][k] = 0;
  for (int i = 0; i < kWindows; ++i) {
    int who, n;
    owner(b, i, who, n);
    if (who) ++w[who][n];
  }
}

using eval::weight;

WM_HD bool window_has(int w, int cell) {
  int c[6];
  window_cells(w, c);
  for (int i = 0; i < 6; ++i)
    if (c[i] == cell) return true;
  return false;
}

// Windows of s with 4 or 5 stones (threats to complete six), in window order; returns their number.
WM_HD int threat_windows(const C6Pos& b, int s, std::int16_t* out) {
  int n = 0;
  for (int i = 0; i < kWindows; ++i) {
    int who, k;
    owner(b, i, who, k);
    if (who == s && k >= 4) out[n++] = static_cast<std::int16_t>(i);
  }
  return n;
}

// The distinct empty cells of the windows, in order; returns their number.
WM_HD int threat_cells(const C6Pos& b, const std::int16_t* windows, int nw, std::int16_t* cells) {
  int n = 0;
  for (int i = 0; i < nw; ++i) {
    int c[6];
    window_cells(windows[i], c);
    for (int k = 0; k < 6; ++k) {
      if (b.cell[c[k]]) continue;
      bool seen = false;
      for (int j = 0; j < n && !seen; ++j) seen = cells[j] == c[k];
      if (!seen) cells[n++] = static_cast<std::int16_t>(c[k]);
    }
  }
  return n;
}

// Every window holds x or y (y = -1: x alone).
WM_HD bool covers(const std::int16_t* windows, int nw, int x, int y) {
  for (int i = 0; i < nw; ++i)
    if (!window_has(windows[i], x) && (y < 0 || !window_has(windows[i], y))) return false;
  return true;
}

// True when two stones can hit every threat window of s.
WM_HD bool blockable(const C6Pos& b, int s) {
  std::int16_t threats[kWindows], cells[kCells];
  const int nt = threat_windows(b, s, threats);
  if (nt == 0) return true;
  const int nc = threat_cells(b, threats, nt, cells);
  for (int i = 0; i < nc; ++i)
    for (int j = i; j < nc; ++j)
      if (covers(threats, nt, cells[i], cells[j])) return true;
  return false;
}

using eval::kLines;
using eval::kShapeKinds;

// Line l's shapes added to shapes[colour][shape] (eval::line_shapes).
WM_HD void add_line_shapes(const C6Pos& b, int l, int (&shapes)[3][kShapeKinds]) {
  int x, y, dx, dy, n;
  eval::line_geometry(l, x, y, dx, dy, n);
  unsigned black = 0, white = 0, empty = 0;  // the line's cells as bit masks, in registers
  for (int i = 0; i < n; ++i) {
    const int c = b.cell[(y + i * dy) * kSize + x + i * dx];
    const unsigned bit = 1u << i;
    black |= c == 1 ? bit : 0u;
    white |= c == 2 ? bit : 0u;
    empty |= c == 0 ? bit : 0u;
  }
  eval::line_shapes(black, white, empty, n, shapes);
}

WM_HD void count_shapes(const C6Pos& b, int (&shapes)[3][kShapeKinds]) {
  for (int s = 0; s < 3; ++s)
    for (int k = 0; k < kShapeKinds; ++k) shapes[s][k] = 0;
  for (int l = 0; l < kLines; ++l) add_line_shapes(b, l, shapes);
}

// evaluate() from the window counts w[side][stones] (count_windows'), the shape counts (count_shapes')
// and them_blockable = blockable(b, opponent), which only matters when the opponent has windows of four
// or five: the part a warp computes once its lanes have counted the windows and lines between them.
WM_HD int evaluate_counts(const C6Pos& b, const int (&w)[3][7], const int (&shapes)[3][kShapeKinds],
                          bool them_blockable) {
  return eval::from_counts(w, shapes, b.to_move, other(b.to_move), them_blockable);
}

WM_HD int evaluate(const C6Pos& b) {
  int w[3][7], shapes[3][kShapeKinds];
  count_windows(b, w);
  count_shapes(b, shapes);
  const int them = other(b.to_move);
  return evaluate_counts(b, w, shapes, !eval::needs_blockable(w, b.to_move, them) || blockable(b, them));
}

// The hybrid search's leaves (ai's Connect6Game::over / terminal and search::leaf_value): a board with a
// six or full is over; `ply` plies below the root it scores kWin - ply for the winner, 0 when full.
WM_HD bool over(const C6Pos& b) { return b.winner != 0 || b.stones == kCells; }
WM_HD int terminal(const C6Pos& b, int ply) {
  if (b.winner == 0) return 0;
  return b.winner == b.to_move ? kWin - ply : -(kWin - ply);
}
WM_HD int leaf_value(const C6Pos& b, int ply) { return over(b) ? terminal(b, ply) : evaluate(b); }

// How much a stone of `me` on `cell` builds for us and blocks of them.
WM_HD int cell_value(const C6Pos& b, int cell, int me) {
  const int x = cell % kSize, y = cell / kSize;
  const int dx[4] = {1, 0, 1, 1}, dy[4] = {0, 1, 1, -1};
  int v = 0;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 6; ++k) {
      const int w = window_at(d, x - k * dx[d], y - k * dy[d]);
      if (w < 0) continue;
      int who, n;
      owner(b, w, who, n);
      v += eval::window_gain(who, n, me);
    }
  return v;
}

// Whether side s has six or more in a row through `cell` (a window of six of its stones there).
WM_HD bool six_through(const C6Pos& b, int cell, int s) {
  const int x = cell % kSize, y = cell / kSize;
  const int dx[4] = {1, 0, 1, 1}, dy[4] = {0, 1, 1, -1};
  for (int d = 0; d < 4; ++d) {
    int run = 1;
    for (int k = 1; k < 6; ++k) {
      const int xx = x + k * dx[d], yy = y + k * dy[d];
      if (xx < 0 || xx >= kSize || yy < 0 || yy >= kSize || b.cell[yy * kSize + xx] != s) break;
      ++run;
    }
    for (int k = 1; k < 6; ++k) {
      const int xx = x - k * dx[d], yy = y - k * dy[d];
      if (xx < 0 || xx >= kSize || yy < 0 || yy >= kSize || b.cell[yy * kSize + xx] != s) break;
      ++run;
    }
    if (run >= 6) return true;
  }
  return false;
}

// The board after turn t by the side to move (ai/'s Connect6Game::apply: each stone placed, a six
// recorded as the winner, the side to move from the stone count: Black opens with one stone, then two
// stones a turn).
WM_HD C6Pos apply(const C6Pos& b, const C6Turn& t) {
  C6Pos c = b;
  const int s = b.to_move;
  for (int k = 0; k < 2; ++k) {
    const int cell = k == 0 ? t.a : t.b;
    if (cell < 0) continue;
    c.cell[cell] = static_cast<std::uint8_t>(s);
    ++c.stones;
    if (six_through(c, cell, s)) c.winner = static_cast<std::uint8_t>(s);
    c.to_move = static_cast<std::uint8_t>(c.stones == 0 ? 1 : (((c.stones + 1) / 2) % 2 == 1 ? 2 : 1));
  }
  return c;
}

// The search's candidate turns for the side to move, best first (ai/'s candidate_turns): at most
// `width` (<= kMaxTurns); 0 when the game is over.
WM_HD int candidates(const C6Pos& b, int width, C6Turn* out) {
  if (width > kMaxTurns) width = kMaxTurns;
  if (b.winner || b.stones == kCells || width < 1) return 0;
  int n = 0;
  const int me = b.to_move, them = other(me);
  const int need = b.stones == 0 ? 1 : (kCells - b.stones < 2 ? kCells - b.stones : 2);
  if (b.stones == 0) {
    out[0] = {kCells / 2, -1};
    return 1;
  }
  // The best 14 cells near the stones (value descending, then cell ascending).
  int top_cell[14], top_value[14], top = 0;
  for (int c = 0; c < kCells; ++c) {
    if (b.cell[c]) continue;
    bool near = false;
    const int x = c % kSize, y = c / kSize;
    for (int dy = -2; dy <= 2 && !near; ++dy)
      for (int dx = -2; dx <= 2 && !near; ++dx) {
        const int xx = x + dx, yy = y + dy;
        near = xx >= 0 && xx < kSize && yy >= 0 && yy < kSize && b.cell[yy * kSize + xx] != 0;
      }
    if (!near) continue;
    const int v = cell_value(b, c, me);
    int at = top;
    while (at > 0 && top_value[at - 1] < v) --at;  // equal values keep the lower cell first
    if (at >= 14) continue;
    for (int k = (top < 14 ? top : 13); k > at; --k) top_cell[k] = top_cell[k - 1], top_value[k] = top_value[k - 1];
    top_cell[at] = c;
    top_value[at] = v;
    if (top < 14) ++top;
  }
  const auto filler = [&](int not_this) {
    for (int i = 0; i < top; ++i)
      if (top_cell[i] != not_this) return top_cell[i];
    for (int c = 0; c < kCells; ++c)
      if (!b.cell[c] && c != not_this) return c;
    return -1;
  };
  std::int16_t windows[kWindows], cells[kCells];
  if (threat_windows(b, me, windows) > 0) {  // win now: fill our first threat window
    int c[6], empty[6], ne = 0;
    window_cells(windows[0], c);
    for (int k = 0; k < 6; ++k)
      if (!b.cell[c[k]]) empty[ne++] = c[k];
    const int a = empty[0], second = ne > 1 ? empty[1] : filler(a);
    out[0] = {a, need == 2 ? second : -1};
    return 1;
  }
  const int nt = threat_windows(b, them, windows);
  if (nt > 0) {  // every threat window needs a stone of ours
    const int nc = threat_cells(b, windows, nt, cells);
    for (int i = 0; i < nc && n < width; ++i) {
      if (covers(windows, nt, cells[i], -1)) {
        out[n++] = {cells[i], need == 2 ? filler(cells[i]) : -1};
        continue;
      }
      for (int j = i + 1; j < nc && need == 2 && n < width; ++j)
        if (covers(windows, nt, cells[i], cells[j])) out[n++] = {cells[i], cells[j]};
    }
    if (n == 0)  // lost anyway: block what we can
      out[n++] = {cells[0], need == 2 && nc > 1 ? cells[1] : (need == 2 ? filler(cells[0]) : -1)};
    return n;
  }
  if (need == 1) {
    for (int i = 0; i < top && n < width; ++i) out[n++] = {top_cell[i], -1};
    return n;
  }
  // Pairs of the top cells by summed value, stable (generation order among equal sums).
  int sum[91];
  C6Turn pair[91];
  int np = 0;
  for (int i = 0; i < top; ++i)
    for (int j = i + 1; j < top; ++j) {
      const int v = top_value[i] + top_value[j];
      int at = np;
      while (at > 0 && sum[at - 1] < v) {
        sum[at] = sum[at - 1];
        pair[at] = pair[at - 1];
        --at;
      }
      sum[at] = v;
      pair[at] = {top_cell[i], top_cell[j]};
      ++np;
    }
  for (int i = 0; i < np && n < width; ++i) out[n++] = pair[i];
  if (n == 0 && top == 1) out[n++] = {top_cell[0], filler(top_cell[0])};
  return n;
}

// The one-thread search rules of search/alphabeta.h (search_many on the CPU): candidate turns at `width`,
// best first, at the root too; leaves as leaf_value.
struct SearchRules {
  using Pos = C6Pos;
  using Move = C6Turn;
  static constexpr int kMaxMoves = kMaxTurns;
  int width = 16;
  WM_HD int moves(const C6Pos& b, C6Turn* out) const { return candidates(b, width, out); }
  WM_HD int root_moves(const C6Pos& b, C6Turn* out) const { return candidates(b, width, out); }
  WM_HD C6Pos child(const C6Pos& b, const C6Turn& t) const { return apply(b, t); }
  WM_HD int leaf(const C6Pos& b, int ply) const { return leaf_value(b, ply); }
  WM_HD int terminal(const C6Pos& b, int ply) const { return rules::terminal(b, ply); }
};

// The rules as the GPU backend sees them (GameDevice<Device>, ai/src/search/game_device.h).
struct Device {
  using Pos = C6Pos;
  using Move = C6Turn;
  struct Params {
    int width = 16;  // candidate turns per node, 1..kMaxTurns
  };
  static constexpr int kMaxMoves = kMaxTurns;
};

}  // namespace warpmind::search::connect6::rules
