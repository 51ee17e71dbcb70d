// Connect6's evaluation and candidate turns computed by a whole warp for one board — the same results as
// connect6_rules.h's one-thread evaluate() and candidates(), which the warp versions fall back to on the
// rare boards they do not handle themselves (threats of four or five on the board, fewer than two
// empty cells, fewer than two candidate cells). One thread needs a few milliseconds for a board's
// candidates on the device; the warp's lanes split the cells, the windows and the pairs, so a search
// that waits for one node's children waits microseconds.
#pragma once

#include "warpmind/gpu/connect6_rules.h"

namespace warpmind::gpu::connect6 {

constexpr unsigned kFullMask = 0xffffffffu;

// Shared memory one warp works in.
struct WarpScratch {
  C6Pos board;              // the board, copied from global memory
  int value[kCells];        // a candidate cell's value, -1 for the others
  int sum[91];              // the pairs' summed values, in generation order
  int top_cell[14], top_value[14];
  C6Turn turns[kMaxTurns];  // candidates_warp's result
};

// s.board = g (every lane takes part).
__device__ __forceinline__ void load_board(const C6Pos& g, WarpScratch& s, int lane) {
  const unsigned char* from = reinterpret_cast<const unsigned char*>(&g);
  unsigned char* to = reinterpret_cast<unsigned char*>(&s.board);
  for (int i = lane; i < static_cast<int>(sizeof(C6Pos)); i += 32) to[i] = from[i];
  __syncwarp();
}

// evaluate(b), every lane returning it; b in shared memory.
__device__ __forceinline__ int evaluate_warp(const C6Pos& b, int lane) {
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
  return evaluate_counts(b, w);
}

__device__ __forceinline__ int leaf_value_warp(const C6Pos& b, int ply, int lane) {
  return over(b) ? terminal(b, ply) : evaluate_warp(b, lane);
}

// candidates(b, width, s.turns), every lane returning the count; b is s.board.
__device__ __forceinline__ int candidates_warp(WarpScratch& s, int width, int lane) {
  const C6Pos& b = s.board;
  if (width > kMaxTurns) width = kMaxTurns;
  if (b.winner || b.stones == kCells || width < 1) return 0;
  bool threat = false;
  for (int i = lane; i < kWindows; i += 32) {
    int who, n;
    owner(b, i, who, n);
    threat |= who && n >= 4;
  }
  const bool simple = b.stones > 0 && kCells - b.stones >= 2;
  int n = 0;
  if (__any_sync(kFullMask, threat) || !simple) {  // forced turns and the board's extremes: the one-thread rules
    if (lane == 0) n = candidates(b, width, s.turns);
    n = __shfl_sync(kFullMask, n, 0);
    __syncwarp();
    return n;
  }
  const int me = b.to_move;
  // Every empty cell within two of a stone, valued (the others -1).
  for (int c = lane; c < kCells; c += 32) {
    int v = -1;
    if (!b.cell[c]) {
      const int x = c % kSize, y = c / kSize;
      bool near = false;
      for (int dy = -2; dy <= 2 && !near; ++dy)
        for (int dx = -2; dx <= 2 && !near; ++dx) {
          const int xx = x + dx, yy = y + dy;
          near = xx >= 0 && xx < kSize && yy >= 0 && yy < kSize && b.cell[yy * kSize + xx] != 0;
        }
      if (near) v = cell_value(b, c, me);
    }
    s.value[c] = v;
  }
  __syncwarp();
  // The best 14: value descending, then cell ascending (key = value * 512 + 511 - cell).
  int top = 0;
  for (; top < 14; ++top) {
    int best = -1;
    for (int c = lane; c < kCells; c += 32)
      if (s.value[c] >= 0) best = max(best, s.value[c] * 512 + 511 - c);
    best = __reduce_max_sync(kFullMask, best);
    if (best < 0) break;
    const int cell = 511 - (best & 511);
    if (lane == 0) {
      s.top_cell[top] = cell;
      s.top_value[top] = best >> 9;
      s.value[cell] = -1;
    }
    __syncwarp();
  }
  if (top < 2) {  // one candidate cell or none: the one-thread rules' special cases
    if (lane == 0) n = candidates(b, width, s.turns);
    n = __shfl_sync(kFullMask, n, 0);
    __syncwarp();
    return n;
  }
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
