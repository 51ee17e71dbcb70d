// Connect6's evaluation and candidate turns computed by a whole warp for one board — the same results as
// connect6_rules.h's one-thread evaluate() and candidates(), which the warp versions fall back to on the
// rare boards they do not handle themselves (fewer than two empty cells or two candidate cells, more
// than 64 threat windows). One thread needs up to milliseconds for a board's candidates on the device;
// the warp's lanes split the cells, the windows, the threat cells and the pairs, so a search that waits
// for one node's children waits microseconds. Threats (windows of four or five of one side) are kept
// as a bit mask per threat cell — which of the threat windows it lies in — so "these stones cover every
// threat" is one OR and one compare.
#pragma once

#include "search/connect6/connect6_rules.h"

namespace warpmind::gpu::connect6 {

// The rules (C6Pos, evaluation, candidates) are the module's; this file adds their warp versions.
using namespace search::connect6::rules;

constexpr unsigned kFullMask = 0xffffffffu;

// Shared memory one warp works in.
struct WarpScratch {
  C6Pos board;        // the board, copied from global memory
  int value[kCells];  // a candidate cell's value, -1 for the others
  int sum[91];        // the pairs' summed values, in generation order
  int top_cell[14], top_value[14];
  C6Turn turns[kMaxTurns];  // candidates_warp's result
  // threats of one side (threats_warp): windows in window order, their distinct empty cells in
  // threat_cells' order, and per cell the windows holding it
  std::int16_t threat_window[64], threat_cell[6 * 64];
  unsigned long long threat_mask[6 * 64];
  int nt, nc;
  std::uint8_t window[kWindows];  // every window's owner * 8 + its stones (owner()), for cell values
};

// s.window from s.board.
__device__ __forceinline__ void owners_warp(WarpScratch& s, int lane) {
  for (int i = lane; i < kWindows; i += 32) {
    int who, n;
    owner(s.board, i, who, n);
    s.window[i] = static_cast<std::uint8_t>(who * 8 + n);
  }
  __syncwarp();
}

// cell_value(s.board, cell, me) from s.window.
__device__ __forceinline__ int cell_value_warp(const WarpScratch& s, int cell, int me) {
  const int x = cell % kSize, y = cell / kSize;
  const int dx[4] = {1, 0, 1, 1}, dy[4] = {0, 1, 1, -1};
  int v = 0;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 6; ++k) {
      const int w = window_at(d, x - k * dx[d], y - k * dy[d]);
      if (w < 0) continue;
      const int who = s.window[w] >> 3, n = s.window[w] & 7;
      if (who == me)
        v += weight(n + 1) - weight(n);
      else if (who)
        v += (weight(n) * 3) / 2;
      else
        v += 1;
    }
  return v;
}

// The threat windows of side `side` (4 or 5 of its stones, no other) and their cells, as
// threat_windows() and threat_cells() list them, with the masks. Returns false (nothing else set) when
// there are more than 64 windows; s.nt = 0 when there is none.
__device__ __forceinline__ bool threats_warp(WarpScratch& s, int side, int lane) {
  const C6Pos& b = s.board;
  int nt = 0;
  for (int base = 0; base < kWindows; base += 32) {
    const int w = base + lane;
    int who = 0, n = 0;
    if (w < kWindows) owner(b, w, who, n);
    const bool hit = who == side && n >= 4;
    const unsigned mask = __ballot_sync(kFullMask, hit);
    const int at = nt + __popc(mask & ((1u << lane) - 1u));
    if (hit && at < 64) s.threat_window[at] = static_cast<std::int16_t>(w);
    nt += __popc(mask);
  }
  if (nt > 64) return false;
  if (lane == 0) {
    s.nt = nt;
    s.nc = threat_cells(b, s.threat_window, nt, s.threat_cell);
  }
  __syncwarp();
  for (int i = lane; i < s.nc; i += 32) {
    unsigned long long m = 0;
    for (int j = 0; j < nt; ++j)
      if (window_has(s.threat_window[j], s.threat_cell[i])) m |= 1ull << j;
    s.threat_mask[i] = m;
  }
  __syncwarp();
  return true;
}

__device__ __forceinline__ unsigned long long all_threats(int nt) { return nt == 64 ? ~0ull : (1ull << nt) - 1ull; }

// s.board = g (every lane takes part).
__device__ __forceinline__ void load_board(const C6Pos& g, WarpScratch& s, int lane) {
  const unsigned char* from = reinterpret_cast<const unsigned char*>(&g);
  unsigned char* to = reinterpret_cast<unsigned char*>(&s.board);
  for (int i = lane; i < static_cast<int>(sizeof(C6Pos)); i += 32) to[i] = from[i];
  __syncwarp();
}

// evaluate(s.board), every lane returning it (s's threat lists are overwritten).
__device__ __forceinline__ int evaluate_warp(WarpScratch& s, int lane) {
  const C6Pos& b = s.board;
  // Windows of side s with k stones, counted per lane in 5-bit fields (a lane sees at most 29 windows).
  unsigned long long packed = 0;
  bool six = false;
  for (int i = lane; i < kWindows; i += 32) {
    int who, n;
    owner(b, i, who, n);
    if (who && n < 6) packed += 1ull << (5 * ((who - 1) * 5 + (n - 1)));
    six |= who && n == 6;
  }
  int w[3][7] = {};
  for (int s = 1; s <= 2; ++s)
    for (int k = 1; k <= 5; ++k)
      w[s][k] = __reduce_add_sync(kFullMask, static_cast<unsigned>((packed >> (5 * ((s - 1) * 5 + (k - 1)))) & 31u));
  if (__any_sync(kFullMask, six)) {  // a six on the board: count those windows exactly, as evaluate() does
    int me6 = 0, them6 = 0;
    for (int i = lane; i < kWindows; i += 32) {
      int who, n;
      owner(b, i, who, n);
      me6 += who == 1 && n == 6;
      them6 += who == 2 && n == 6;
    }
    w[1][6] = __reduce_add_sync(kFullMask, static_cast<unsigned>(me6));
    w[2][6] = __reduce_add_sync(kFullMask, static_cast<unsigned>(them6));
  }
  const int me = b.to_move, them = other(me);
  bool them_blockable = true;
  if (!w[1][6] && !w[2][6] && w[me][4] + w[me][5] == 0 && w[them][4] + w[them][5] > 0) {
    // blockable(b, them): two stones (or one) of ours lying in every threat window
    if (threats_warp(s, them, lane)) {
      const unsigned long long all = all_threats(s.nt);
      bool hit = false;
      for (int i = lane; i < s.nc && !hit; i += 32)
        for (int j = i; j < s.nc && !hit; ++j) hit = (s.threat_mask[i] | s.threat_mask[j]) == all;
      them_blockable = __any_sync(kFullMask, hit);
    } else {
      int v = 0;
      if (lane == 0) v = blockable(b, them);
      them_blockable = __shfl_sync(kFullMask, v, 0);
    }
  }
  // The shapes: a lane per line (92 lines, three rounds), then the counts summed over the warp.
  int mine[3][kShapeKinds] = {};
  for (int l = lane; l < kLines; l += 32) add_line_shapes(b, l, mine);
  int shapes[3][kShapeKinds] = {};
  for (int c = 1; c <= 2; ++c)
    for (int k = 0; k < kShapeKinds; ++k)
      shapes[c][k] = static_cast<int>(__reduce_add_sync(kFullMask, static_cast<unsigned>(mine[c][k])));
  return evaluate_counts(b, w, shapes, them_blockable);
}

__device__ __forceinline__ int leaf_value_warp(WarpScratch& s, int ply, int lane) {
  return over(s.board) ? terminal(s.board, ply) : evaluate_warp(s, lane);
}

// candidates(s.board, width, s.turns) on lane 0, every lane returning the count.
__device__ __forceinline__ int one_thread_candidates(WarpScratch& s, int width, int lane) {
  int n = 0;
  if (lane == 0) n = candidates(s.board, width, s.turns);
  n = __shfl_sync(kFullMask, n, 0);
  __syncwarp();
  return n;
}

// candidates()'s filler: the best top cell other than not_this, else the first empty cell (one lane).
__device__ __forceinline__ int filler(const WarpScratch& s, int top, int not_this) {
  for (int i = 0; i < top; ++i)
    if (s.top_cell[i] != not_this) return s.top_cell[i];
  for (int c = 0; c < kCells; ++c)
    if (!s.board.cell[c] && c != not_this) return c;
  return -1;
}

constexpr int kNoCell = -2147483647 - 1;  // s.value of a cell that is not a candidate
constexpr int kValueBias = 16384;         // |cell_value| < 24 * 600 < kValueBias

// candidates(s.board, width, s.turns), every lane returning the count.
__device__ __forceinline__ int candidates_warp(WarpScratch& s, int width, int lane) {
  const C6Pos& b = s.board;
  if (width > kMaxTurns) width = kMaxTurns;
  if (b.winner || b.stones == kCells || width < 1) return 0;
  if (b.stones == 0 || kCells - b.stones < 2) return one_thread_candidates(s, width, lane);  // one stone to place
  const int me = b.to_move, them = other(me);
  owners_warp(s, lane);
  // Every empty cell within two of a stone, valued.
  for (int c = lane; c < kCells; c += 32) {
    int v = kNoCell;
    if (!b.cell[c]) {
      const int x = c % kSize, y = c / kSize;
      bool near = false;
      for (int dy = -2; dy <= 2 && !near; ++dy)
        for (int dx = -2; dx <= 2 && !near; ++dx) {
          const int xx = x + dx, yy = y + dy;
          near = xx >= 0 && xx < kSize && yy >= 0 && yy < kSize && b.cell[yy * kSize + xx] != 0;
        }
      if (near) v = cell_value_warp(s, c, me);
    }
    s.value[c] = v;
  }
  __syncwarp();
  // The best 14: value descending, then cell ascending (key = (value + bias) * 512 + 511 - cell).
  int top = 0;
  for (; top < 14; ++top) {
    int best = -1;
    for (int c = lane; c < kCells; c += 32)
      if (s.value[c] != kNoCell) best = max(best, (s.value[c] + kValueBias) * 512 + 511 - c);
    best = __reduce_max_sync(kFullMask, best);
    if (best < 0) break;
    const int cell = 511 - (best & 511);
    if (lane == 0) {
      s.top_cell[top] = cell;
      s.top_value[top] = (best >> 9) - kValueBias;
      s.value[cell] = kNoCell;
    }
    __syncwarp();
  }
  // Win now: fill our first threat window.
  int first = kWindows;
  for (int i = lane; i < kWindows; i += 32) {
    const int who = s.window[i] >> 3, n = s.window[i] & 7;
    if (who == me && n >= 4) {
      first = i;
      break;
    }
  }
  first = __reduce_min_sync(kFullMask, first);
  if (first < kWindows) {
    if (lane == 0) {
      int c[6], empty[6], ne = 0;
      window_cells(first, c);
      for (int k = 0; k < 6; ++k)
        if (!b.cell[c[k]]) empty[ne++] = c[k];
      s.turns[0] = {empty[0], ne > 1 ? empty[1] : filler(s, top, empty[0])};
    }
    __syncwarp();
    return 1;
  }
  // Their threats: every threat window needs a stone of ours.
  if (!threats_warp(s, them, lane)) return one_thread_candidates(s, width, lane);
  if (s.nt > 0) {
    int n = 0;
    if (lane == 0) {
      const unsigned long long all = all_threats(s.nt);
      const int nc = s.nc;
      for (int i = 0; i < nc && n < width; ++i) {
        if (s.threat_mask[i] == all) {
          s.turns[n++] = {s.threat_cell[i], filler(s, top, s.threat_cell[i])};
          continue;
        }
        for (int j = i + 1; j < nc && n < width; ++j)
          if ((s.threat_mask[i] | s.threat_mask[j]) == all) s.turns[n++] = {s.threat_cell[i], s.threat_cell[j]};
      }
      if (n == 0)  // lost anyway: block what we can
        s.turns[n++] = {s.threat_cell[0], nc > 1 ? s.threat_cell[1] : filler(s, top, s.threat_cell[0])};
    }
    n = __shfl_sync(kFullMask, n, 0);
    __syncwarp();
    return n;
  }
  if (top < 2) return one_thread_candidates(s, width, lane);  // one candidate cell or none
  // The pairs in generation order (i < j), ranked by summed value descending, generation order among
  // equals: the one-thread rules' stable insertion.
  const int np = top * (top - 1) / 2;
  int pi[3], pj[3];
  for (int r = 0, g = lane; g < np; ++r, g += 32) {
    int i = 0, rest = g;
    while (rest >= top - 1 - i) rest -= top - 1 - i, ++i;
    pi[r] = i;
    pj[r] = i + 1 + rest;
    s.sum[g] = s.top_value[i] + s.top_value[pj[r]];
  }
  __syncwarp();
  for (int r = 0, g = lane; g < np; ++r, g += 32) {
    const int v = s.sum[g];
    int rank = 0;
    for (int h = 0; h < np; ++h) rank += s.sum[h] > v || (s.sum[h] == v && h < g);
    if (rank < width) s.turns[rank] = {s.top_cell[pi[r]], s.top_cell[pj[r]]};
  }
  __syncwarp();
  return np < width ? np : width;
}

}  // namespace warpmind::gpu::connect6
