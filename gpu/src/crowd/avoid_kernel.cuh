// Avoid's kernel on gpu-static-grid, included by crowd.cu after the static grid's helpers (sg_stride,
// sg_cell, the slot keys) it reads.
#pragma once

// Avoid (gpu-static-grid): each agent's first free candidate, against the old positions the slots show
// within `reach` cells of its own (its longest candidate plus the following gap 1.15 x 2R, or its
// look-ahead plus 2R, whichever is longer), into chosen[]; an agent with no free candidate stays (chosen =
// its old position) with the verdict in fallback[] (crowd_solver.h).
// L threads work on one agent (L consecutive threads of a warp; L = 1 for large crowds, 2, 4 or 8 for
// small ones, where one thread an agent leaves most SMs idle): each walks every L-th cell of the window,
// and their partial results are combined by shuffles — the free candidates ANDed, the counts of agents
// ahead summed. Avoider::neighbour() does not depend on the order it sees the agents in, so the choice is
// the same bit for bit whatever L is. Sized: radius holds every agent's radius (else every agent has
// g.radius).
template <int L, bool Sized>
__global__ void __launch_bounds__(kThreads)
    k_sg_avoid(const float2* pos, const float2* want, const float* limit, const float* radius, int n,
               crowd::rules::Geometry g, int reach, const unsigned char* grid, const uint2* slot, float2* chosen,
               unsigned char* fallback) {
  static_assert(L == 1 || L == 2 || L == 4 || L == 8, "lanes: a power of two that divides a warp");
  const int t = blockIdx.x * blockDim.x + threadIdx.x, i = t / L, lane = t % L;
  if (i >= n) return;  // a whole group: its threads share i
  const unsigned group = L == 1 ? 1u : ((1u << L) - 1u) << (threadIdx.x % 32 / L * L);
  const float2 o = pos[i], p = want[i];
  float2 to = o;
  unsigned char fb = kCheckAgents;
  if (!isfinite(p.x) || !isfinite(p.y)) {
    fb = kOutOfWorld;
  } else if (p.x != o.x || p.y != o.y) {
    crowd::rules::Avoider a;
    const float ri = Sized ? radius[i] : g.radius;
    // The squared sum of the radii of i and j (four_r2 where every agent has R).
    const auto s2 = [&](float rj) { return Sized ? crowd::rules::sum2(ri, rj) : g.four_r2; };
    a.start(o.x, o.y, p.x, p.y, limit[i], ri, g, grid);
    const int stride = sg_stride(g), rows = g.sg_rows + 2 * sg_pad(g);
    const int c = sg_cell(o, g), ocx = c % stride, ocy = c / stride;
    const int y0 = max(ocy - reach, 0), y1 = min(ocy + reach, rows - 1);
    const int x0 = max(ocx - reach, 0), x1 = min(ocx + reach, stride - 1), w = x1 - x0 + 1;
    // This thread's cells of the window (every L-th, row-major).
    const auto each_in_window = [&](auto&& f) {
      for (int k = lane; k < w * (y1 - y0 + 1); k += L) {
        const unsigned j = slot[(y0 + k / w) * stride + x0 + k % w].x;
        if (j != kEmpty && j != static_cast<unsigned>(i)) f(j);
      }
    };
    // First the neighbours that matter, into a short list (a few dozen at most, the look-ahead's disc), so
    // the heavy tests run over a list of about the same length in every lane of a warp instead of lane by
    // lane over the whole window. A list that overflows (long maximum steps) falls back to the window
    // (for this thread's cells).
    constexpr int kList = L == 1 ? 48 : 16;
    float2 near_q[kList], near_w[kList];
    float near_r[Sized ? kList : 1];
    int listed = 0;
    bool overflow = false;
    each_in_window([&](unsigned j) {
      const float2 q = pos[j];
      if (!a.reaches(q.x, q.y)) return;
      overflow |= listed == kList;
      if (listed < kList) {
        if constexpr (Sized) near_r[listed] = radius[j];
        near_q[listed] = q, near_w[listed++] = want[j];
      }
    });
    if (!overflow)
      for (int e = 0; e < listed; ++e)
        a.neighbour(near_q[e].x, near_q[e].y, near_w[e].x, near_w[e].y, s2(Sized ? near_r[e] : 0.0f));
    else
      each_in_window(
          [&](unsigned j) { a.neighbour(pos[j].x, pos[j].y, want[j].x, want[j].y, s2(Sized ? radius[j] : 0.0f)); });
    if constexpr (L > 1) {
#pragma unroll
      for (int s = 1; s < L; s <<= 1) {
        a.free &= __shfl_xor_sync(group, a.free, s);
#pragma unroll
        for (int k = 0; k < crowd::rules::kForward; ++k) a.ahead[k] += __shfl_xor_sync(group, a.ahead[k], s);
      }
    }
    const int k = a.choice();
    if (k >= 0) {
      // Registers, not a local-memory index: pick candidate k by an unrolled select.
#pragma unroll
      for (int m = 0; m < crowd::rules::kCandidates; ++m)
        if (m == k) to = make_float2(a.cx[m], a.cy[m]);
    } else {
      fb = a.straight;
    }
  }
  if (lane == 0) {
    chosen[i] = to;
    fallback[i] = fb;
  }
}
