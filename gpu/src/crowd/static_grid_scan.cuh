// gpu-static-grid's scan kernel, included by crowd.cu after the static grid's helpers (sg_stride, sg_cell,
// the slot keys, apart_d) it reads.
#pragma once

// The scan: mark[j] = tick rejects agent j's move. A visible agent (its target cell shows its id) is
// checked cell by cell: one block per tile of kTileW x kTileH cells stages the tile and a W-cell halo
// (slot keys, and the old position, target and, with per-agent radii, radius of every agent they name) in
// shared memory, then checks each visible target against the old positions and visible targets of its
// (2W + 1)^2 cells, marking itself on a conflict and every conflicting visible neighbour it has priority
// over. W = g.sg_window: 2 where every agent has radius R. A hidden agent (one that lost its target cell) is
// always rejected: under the strict rule it shares a cell (closer than any two radii) with the visible one,
// under lowest-id the visible one has the lower id. It marks itself, the visible one of its cell (strict),
// and every visible target within the sum of their radii it has priority over, which reaches the agents
// that could not see it. The blocks after the tiles find the hidden agents (one thread per agent) and
// check each with the warp's lanes spread over its neighbour cells. Sized: radius holds every agent's
// radius (else every agent has g.radius and the test is apart_d's).
constexpr int kTileW = 32, kTileH = 16;

template <int W, bool Sized>
__global__ void __launch_bounds__(kThreads)
    k_sg_scan(const float2* pos, const float2* prop, const float* radius, int n, crowd::rules::Geometry g,
              SlotKeys keys, unsigned tick, bool lowest_id_wins, int tiles_x, int tiles, const uint2* slot,
              unsigned* mark) {
  constexpr int kHaloW = kTileW + 2 * W, kHaloH = kTileH + 2 * W, kSide = 2 * W + 1;
  wait_for_prior_grid();
  allow_dependents();
  // Two agents of radii ra and rb (unused when !Sized) are apart.
  const auto apart_r = [&](float2 a, float2 b, float ra, float rb) {
    if constexpr (Sized)
      return crowd::rules::apart_by(a.x, a.y, b.x, b.y, fadd(ra, rb));
    else
      return apart_d(a, b, g);
  };
  const int stride = sg_stride(g);
  if (static_cast<int>(blockIdx.x) >= tiles) {
    // Hidden agents, few: each warp finds its own, then checks them one by one, its lanes over the cells.
    const int i = (blockIdx.x - tiles) * blockDim.x + threadIdx.x;
    float2 p = make_float2(0.0f, 0.0f);
    float r = 0.0f;
    int c = -1;
    bool hidden = false;
    if (i < n) {
      p = prop[i];
      if constexpr (Sized) r = radius[i];
      c = sg_cell(p, g);
      if (c >= 0) {
        const unsigned owner = slot[c].y;
        hidden = owner != keys.key(static_cast<unsigned>(i));
        if (hidden) {
          mark[i] = tick;
          if (!lowest_id_wins) mark[owner & keys.id_mask] = tick;
        }
      }
    }
    const int lane = threadIdx.x & 31;
    for (unsigned todo = __ballot_sync(0xffffffffu, hidden); todo; todo &= todo - 1) {
      const int src = __ffs(todo) - 1;
      const float2 q = make_float2(__shfl_sync(0xffffffffu, p.x, src), __shfl_sync(0xffffffffu, p.y, src));
      const float rq = __shfl_sync(0xffffffffu, r, src);
      const int cq = __shfl_sync(0xffffffffu, c, src);
      const unsigned him = static_cast<unsigned>(i - lane + src);
      for (int cell = lane; cell < kSide * kSide; cell += 32) {
        const int dy = cell / kSide - W, dx = cell % kSide - W;
        if (dx == 0 && dy == 0) continue;
        const unsigned k = slot[cq + dy * stride + dx].y;
        if (!keys.is_current(k)) continue;
        const unsigned j = k & keys.id_mask;
        if ((!lowest_id_wins || him < j) && !apart_r(q, prop[j], rq, Sized ? radius[j] : 0.0f)) mark[j] = tick;
      }
    }
    return;
  }
  __shared__ uint2 key[kHaloH * kHaloW];
  __shared__ float2 old_at[kHaloH * kHaloW], tgt_at[kHaloH * kHaloW];
  __shared__ float r_old[Sized ? kHaloH * kHaloW : 1], r_tgt[Sized ? kHaloH * kHaloW : 1];
  __shared__ unsigned short visible[kTileW * kTileH];
  __shared__ int visible_count;
  // The halo's corner in the padded grid (the tile's first real cell is W further).
  const int x0 = (blockIdx.x % tiles_x) * kTileW, y0 = (blockIdx.x / tiles_x) * kTileH;
  const int rows = g.sg_rows + 2 * W;
  const int lane = threadIdx.x & 31;
  if (threadIdx.x == 0) visible_count = 0;
  __syncthreads();
  // Staging in two rounds of independent loads (every slot a thread stages, then every position they
  // name), so a block waits for two memory latencies rather than two per slot.
  constexpr int kRounds = (kHaloH * kHaloW + kThreads - 1) / kThreads;
  uint2 s[kRounds];
#pragma unroll
  for (int r = 0; r < kRounds; ++r) {
    const int k = r * kThreads + threadIdx.x, hy = k / kHaloW, hx = k - hy * kHaloW;
    const int x = x0 + hx, y = y0 + hy;
    s[r] = make_uint2(kEmpty, kEmpty);
    if (k < kHaloH * kHaloW && x < stride && y < rows) s[r] = slot[y * stride + x];
    if (!keys.is_current(s[r].y)) s[r].y = kEmpty;
  }
  float2 o[kRounds], t[kRounds];
  float ro[kRounds], rt[kRounds];
#pragma unroll
  for (int r = 0; r < kRounds; ++r) {
    if (s[r].x != kEmpty) {
      o[r] = pos[s[r].x];
      if constexpr (Sized) ro[r] = radius[s[r].x];
    }
    if (s[r].y != kEmpty) {
      t[r] = prop[s[r].y & keys.id_mask];
      if constexpr (Sized) rt[r] = radius[s[r].y & keys.id_mask];
    }
  }
#pragma unroll
  for (int r = 0; r < kRounds; ++r) {
    const int k = r * kThreads + threadIdx.x, hy = k / kHaloW, hx = k - hy * kHaloW;
    bool inner = false;
    if (k < kHaloH * kHaloW) {
      if (s[r].x != kEmpty) {
        old_at[k] = o[r];
        if constexpr (Sized) r_old[k] = ro[r];
      }
      if (s[r].y != kEmpty) {
        tgt_at[k] = t[r];
        if constexpr (Sized) r_tgt[k] = rt[r];
        inner = hx >= W && hx < W + kTileW && hy >= W && hy < W + kTileH;
      }
      key[k] = s[r];
    }
    // Append the warp's inner visible targets, in order, with one atomic per warp.
    const unsigned found = __ballot_sync(0xffffffffu, inner);
    int base = 0;
    if (lane == 0 && found) base = atomicAdd(&visible_count, __popc(found));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (inner) visible[base + __popc(found & ((1u << lane) - 1))] = static_cast<unsigned short>(k);
  }
  __syncthreads();
  for (int e = threadIdx.x; e < visible_count; e += kThreads) {
    const int k = visible[e];
    const unsigned me = key[k].y & keys.id_mask;
    const float2 p = tgt_at[k];
    float rp = 0.0f;
    if constexpr (Sized) rp = r_tgt[k];
    bool h = false;
#pragma unroll
    for (int dy = -W; dy <= W; ++dy)
#pragma unroll
      for (int dx = -W; dx <= W; ++dx) {
        const int q = k + dy * kHaloW + dx;
        const uint2 s = key[q];
        if (s.x != kEmpty && s.x != me && !apart_r(p, old_at[q], rp, Sized ? r_old[q] : 0.0f)) h = true;
        // Two visible targets are compared once, by the one whose cell comes first (row-major); our
        // own cell shows us.
        if (dy < 0 || (dy == 0 && dx <= 0)) continue;
        if (s.y != kEmpty && !apart_r(p, tgt_at[q], rp, Sized ? r_tgt[q] : 0.0f)) {
          const unsigned j = s.y & keys.id_mask;
          if (!lowest_id_wins || j < me) h = true;
          if (!lowest_id_wins || me < j) mark[j] = tick;
        }
      }
    if (h) mark[me] = tick;
  }
}
