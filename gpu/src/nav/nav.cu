// CUDA navigation fields (contract in warpmind/nav/nav.h, interface in ai/src/nav/nav_device.h): the exact
// octile values of octile.h, relaxed to their fixed point by tiles.
//
// Every field's exact values (A, B) live in device memory, packed in one 64-bit word (B high), so that a
// value read while another warp writes it is one or the other, never a mix. The map is cut into tiles of
// 32 x 32 cells. One kernel keeps every resident warp busy with a queue of tiles to relax (a tile of a
// field is an item): a warp takes an item, copies the tile and a one-cell rim of its neighbours' values
// into shared memory and relaxes the tile to a fixed point with the rim held — sweeps down the rows (each
// cell from the three cells above it, then, where the row took a value, from its row's cells both ways by
// one min-plus scan of straight steps, 5 shuffles a way) and up, in turn, until a sweep after the first
// changes nothing. It writes back the cells that changed and queues each neighbour tile whose rim it
// changed: after every sweep when the batch has few goals (the neighbours start while it still sweeps),
// else at the end. The goals' tiles start the queue; the kernel ends when no tile is queued or busy.
//
// Exactness: a value only ever decreases and is always the cost of a walk (a candidate with a part past
// the order's limit is dropped: a least walk has smaller parts); the work ends at a state where every
// cell is at most each of its 8 candidates, and the only such state is the least values, whatever the
// order of the updates. So the result is bit for bit the CPU's; the directions and floats are then read
// off by the shared rules.
#include <algorithm>
#include <string>
#include <vector>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "nav/nav_device.h"
#include "nav/octile.h"

namespace warpmind::gpu {

namespace oct = nav::octile;

namespace {

using u64 = unsigned long long;
constexpr int kTile = 32;  // a tile's side: one warp a tile, a lane a column
constexpr int kHalo = kTile + 2;
constexpr int kTilesPerBlock = 4;
constexpr u64 kInf = ~0ull;                  // not reached: A = B = kUnreached
constexpr std::uint32_t kNoWalk = 1u << 30;  // a row walk that meets a blocked cell
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ oct::Exact unpack(u64 v) {
  return {static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32)};
}

// Two ways to order values, both exact where they apply:
//  - kFast (every least value's parts below 2^24, which the host checks: passable cells - 1 times the
//    largest cost below 2^24): a value's key fma(B, sqrt2, A) in double. Two distinct values differ by
//    more than 1 / (|dA| + sqrt(2) |dB|) > 2^-25.3 (|dA^2 - 2 dB^2| >= 1), and each key is within
//    0.5 ulp + B * 2^-53 <= 1.5 * 2^-28 of its value, so keys order values exactly and equal keys are
//    equal values. A candidate with a part of 2^24 or more is dropped (it is no least value).
//  - otherwise octile::less on the parts (64-bit products, 128 where they need it); parts up to 2^32 - 2.
constexpr std::uint32_t kFastLimit = 1u << 24;
constexpr double kSqrt2 = 1.4142135623730951;

__device__ __forceinline__ double key(u64 v) {
  return v == kInf ? __longlong_as_double(0x7ff0000000000000ll)
                   : __fma_rn(static_cast<double>(static_cast<std::uint32_t>(v >> 32)), kSqrt2,
                              static_cast<double>(static_cast<std::uint32_t>(v)));
}

// x < y, not reached the largest.
__device__ __forceinline__ bool lt(u64 x, u64 y) {
  if (x == kInf) return false;
  if (y == kInf) return true;
  return oct::less(unpack(x), unpack(y));
}

// v plus a step of `cost` (straight: to A; diagonal: to B); not reached where a part would pass the limit.
template <bool kFast>
__device__ __forceinline__ u64 plus(u64 v, bool diagonal, std::uint32_t cost) {
  if (v == kInf) return kInf;
  const u64 part = (diagonal ? v >> 32 : v & 0xffffffffull) + cost;
  if (part >= (kFast ? kFastLimit : oct::kUnreached)) return kInf;
  return diagonal ? v + (static_cast<u64>(cost) << 32) : v + cost;
}

// A cell's least value so far, with its key in the fast order.
template <bool kFast>
struct Best {
  u64 v;
  double k;
  __device__ explicit Best(u64 x) : v(x), k(kFast ? key(x) : 0.0) {}
  __device__ void take(u64 c) {
    if constexpr (kFast) {
      const double ck = key(c);
      if (ck < k) v = c, k = ck;
    } else {
      if (lt(c, v)) v = c;
    }
  }
};

// The least of `best` over the lane's run of passable cells in its row: each lane takes from the lanes to
// its right by straight steps, then from those to its left (Hillis-Steele doubling: after the step of
// stride s a lane holds the least over 2s lanes, w the cost of walking s lanes). w_right, w_left: the cost
// of the step into the next lane that way, kNoWalk where the step is not allowed.
template <bool kFast>
__device__ __forceinline__ void row_least(Best<kFast>& best, std::uint32_t w_right, std::uint32_t w_left, int lane) {
  std::uint32_t w = w_right;
  for (int s = 1; s < kTile; s <<= 1) {
    const u64 o = __shfl_down_sync(kFull, best.v, s);
    const std::uint32_t wo = __shfl_down_sync(kFull, w, s);
    const bool in = lane + s < kTile;
    if (in && w < kNoWalk) best.take(plus<kFast>(o, false, w));
    w = in ? min(w + wo, kNoWalk) : kNoWalk;
  }
  w = w_left;
  for (int s = 1; s < kTile; s <<= 1) {
    const u64 o = __shfl_up_sync(kFull, best.v, s);
    const std::uint32_t wo = __shfl_up_sync(kFull, w, s);
    const bool in = lane >= s;
    if (in && w < kNoWalk) best.take(plus<kFast>(o, false, w));
    w = in ? min(w + wo, kNoWalk) : kNoWalk;
  }
}

// The same in the fast order, comparing keys only: a walk along the row from lane j to lane x costs the
// difference of the row's cost sums, so the least over j >= x of v_j + (R(j) - R(x)) is the least of
// u_j = v_j + R(j), shifted (R: the costs of lanes 0..x summed), and over j <= x the least of
// u_j = v_j - L(j) (L = R minus the lane's own cost; kBias keeps the part positive). The scans take the
// least u by its key (a constant shift keeps the order exact: see kFastLimit), then the lane's candidate
// is that u shifted back, dropped where a part reaches the limit. `c` the lane's cost (0 blocked), `r` its
// R, `blocked` the row's blocked lanes (a walk stays within a run of passable lanes).
__device__ __forceinline__ void row_least_fast(Best<true>& best, std::uint32_t c, std::uint32_t r, int lane,
                                               unsigned blocked) {
  constexpr std::uint32_t kBias = 1u << 14;  // above 32 * 255, the most L can be
  const unsigned above = lane == kTile - 1 ? 0u : blocked >> (lane + 1) << (lane + 1);
  const int last = above ? __ffs(static_cast<int>(above)) - 2 : kTile - 1;  // the run's last lane
  const unsigned below = blocked & ((1u << lane) - 1u);
  const int first = below ? 32 - __clz(static_cast<int>(below)) : 0;  // the run's first lane
  const u64 v = best.v;
  // From the right.
  u64 u = v == kInf ? kInf : v + r;
  double k = key(u);
  for (int s = 1; s < kTile; s <<= 1) {
    const u64 ou = __shfl_down_sync(kFull, u, s);
    const double ok = __shfl_down_sync(kFull, k, s);
    if (lane + s <= last && ok < k) u = ou, k = ok;
  }
  const u64 from_right = u;
  // From the left.
  const std::uint32_t l = r - c;
  u = v == kInf ? kInf : v + kBias - l;
  k = key(u);
  for (int s = 1; s < kTile; s <<= 1) {
    const u64 ou = __shfl_up_sync(kFull, u, s);
    const double ok = __shfl_up_sync(kFull, k, s);
    if (lane - s >= first && ok < k) u = ou, k = ok;
  }
  if (!c) return;  // a blocked cell takes nothing
  if (from_right != kInf && static_cast<std::uint32_t>(from_right) - r < kFastLimit) best.take(from_right - r);
  if (u != kInf && static_cast<std::uint32_t>(u) - kBias + l < kFastLimit) best.take(u - kBias + l);
}

using TileValues = u64[kHalo][kHalo];
using TileCosts = std::uint8_t[kHalo][kHalo];

// One sweep over the tile's rows, down (dir +1: each row from the row above) or up (-1), each row then
// relaxed along itself. Sets the bits of the rows whose cell in this lane's column changed in `mask`.
// full: relax every row along itself; otherwise only the rows that took a value from the row before or the
// rim (a row is already relaxed along itself when its processing ends, and only the tile writes it).
// pre: the row sums R (row_least_fast) at the tile's first cell, rows `width` apart (the fast order only).
template <bool kFast>
__device__ void sweep(TileValues& sv, const TileCosts& sc, const std::uint16_t* __restrict__ pre, int width, int lane,
                      int dir, bool full, std::uint32_t& mask) {
  const int lx = lane + 1;
  for (int i = 0; i < kTile; ++i) {
    const int ly = dir > 0 ? i + 1 : kTile - i;
    const int py = ly - dir;  // the row the sweep comes from
    const std::uint32_t c = sc[ly][lx];
    const u64 v = sv[ly][lx];
    Best<kFast> best(v);
    std::uint32_t w_right = kNoWalk, w_left = kNoWalk;
    if (c) {
      const std::uint32_t cw = sc[ly][lx - 1], ce = sc[ly][lx + 1], cn = sc[py][lx];
      if (cn) {  // straight from the row before, and its diagonals where neither corner is blocked
        best.take(plus<kFast>(sv[py][lx], false, cn));
        const std::uint32_t cnw = sc[py][lx - 1], cne = sc[py][lx + 1];
        if (cw && cnw) best.take(plus<kFast>(sv[py][lx - 1], true, cnw));
        if (ce && cne) best.take(plus<kFast>(sv[py][lx + 1], true, cne));
      }
      if (lane == 0 && cw) best.take(plus<kFast>(sv[ly][0], false, cw));  // the rim's cells
      if (lane == kTile - 1 && ce) best.take(plus<kFast>(sv[ly][kTile + 1], false, ce));
      if (ce) w_right = ce;
      if (cw) w_left = cw;
    }
    if (full || __any_sync(kFull, best.v != v)) {
      if constexpr (kFast) {
        const std::uint32_t r = c ? pre[static_cast<std::size_t>(ly - 1) * static_cast<std::size_t>(width) + lane] : 0u;
        row_least_fast(best, c, r, lane, __ballot_sync(kFull, c == 0));
      } else {
        row_least(best, w_right, w_left, lane);
      }
    }
    if (best.v != v) {  // taken only when smaller
      sv[ly][lx] = best.v;
      mask |= 1u << (ly - 1);
    }
    __syncwarp();
  }
}

struct Tiles {
  int width, height, tiles_x, tiles_y;
  unsigned tiles;
  std::size_t cells;
  const std::uint16_t* pre;  // per cell: the costs of its tile row summed up to it (row_least_fast's R)
};

// Relaxes one tile of one field (its values v) to a fixed point with its rim held, one warp: copies the
// tile and its rim into shared memory and sweeps, writes back the cells that changed and calls on_rim(k)
// in lanes k < 8 whose neighbour tile in step k's direction exists and had its rim changed. eager: after
// every sweep that changed cells rather than once at the end, so that the neighbours start while the
// tile still sweeps (a field then grows about a tile a sweep, not a tile a relaxation, at the cost of
// more relaxations). full: the tile's first relaxation (its rows not yet relaxed along themselves).
template <bool kFast, class OnRim>
__device__ void relax_tile(const std::uint8_t* __restrict__ cost, const Tiles& t, u64* v, unsigned tile, bool full,
                           bool eager, TileValues& sv, TileCosts& sc, int lane, OnRim&& on_rim) {
  const int tx = static_cast<int>(tile % static_cast<unsigned>(t.tiles_x));
  const int ty = static_cast<int>(tile / static_cast<unsigned>(t.tiles_x));
  const int x0 = tx * kTile, y0 = ty * kTile;
  for (int i = lane; i < kHalo * kHalo; i += 32) {
    const int hy = i / kHalo, hx = i % kHalo, x = x0 + hx - 1, y = y0 + hy - 1;
    const bool in = x >= 0 && y >= 0 && x < t.width && y < t.height;
    const std::size_t c = in ? static_cast<std::size_t>(y) * static_cast<std::size_t>(t.width) + x : 0;
    sc[hy][hx] = in ? cost[c] : 0;
    sv[hy][hx] = in ? __ldcg(v + c) : kInf;  // from L2: other warps write their tiles meanwhile
  }
  __syncwarp();
  const int dx = oct::step_dx(lane & 7), dy = oct::step_dy(lane & 7);
  const bool exists = lane < 8 && tx + dx >= 0 && ty + dy >= 0 && tx + dx < t.tiles_x && ty + dy < t.tiles_y;
  // Writes back the rows of `mask` (this lane's column) and calls on_rim for the neighbours they concern.
  const auto flush = [&](std::uint32_t mask) {
    for (int r = 0; r < kTile; ++r)
      if (mask >> r & 1u)
        v[static_cast<std::size_t>(y0 + r) * static_cast<std::size_t>(t.width) + x0 + lane] = sv[r + 1][lane + 1];
    __threadfence();  // the values before the neighbours that will read them are queued
    const std::uint32_t west = __shfl_sync(kFull, mask, 0), east = __shfl_sync(kFull, mask, kTile - 1);
    const bool top = __any_sync(kFull, mask & 1u), bottom = __any_sync(kFull, (mask >> (kTile - 1)) & 1u);
    const std::uint32_t side = dx < 0 ? west : east;  // the rim column's rows (dx != 0)
    const bool want = dy < 0   ? (dx == 0 ? top : (side & 1u) != 0)
                      : dy > 0 ? (dx == 0 ? bottom : (side >> (kTile - 1)) != 0)
                               : side != 0;
    if (exists && want) on_rim(lane);
    __syncwarp();
  };
  // Sweeps down and up in turn until one after the first changes nothing: after a sweep down every cell
  // is at most its candidates from the row above and its own row (the rows above it no longer change), so
  // an unchanged sweep up then leaves every cell at most all 8 candidates, and the same the other way.
  std::uint32_t all = 0;  // the rows of this lane's column changed and not yet written
  for (int dir = +1, n = 0;; dir = -dir, ++n) {
    std::uint32_t mask = 0;
    sweep<kFast>(sv, sc, t.pre + static_cast<std::size_t>(y0) * static_cast<std::size_t>(t.width) + x0, t.width, lane,
                 dir, n == 0 && full, mask);
    const bool changed = __any_sync(kFull, mask != 0);
    if (changed && eager) flush(mask);
    all |= eager ? 0u : mask;
    if (!changed && n > 0) break;
  }
  if (__any_sync(kFull, all != 0)) flush(all);
}

// The tile of `tile` moved by step k.
__device__ __forceinline__ unsigned neighbour_tile(const Tiles& t, unsigned tile, int k) {
  return tile + static_cast<unsigned>(oct::step_dy(k) * t.tiles_x + oct::step_dx(k));
}

// ---- the work queue ------------------------------------------------------------------------------------
//
// An item is one tile of one field (goal * tiles + tile). Its state: idle, queued (in the ring), busy
// (a warp relaxes it) or busy and asked again (a neighbour changed its rim meanwhile: queued again when
// done). So an item is in the ring at most once and relaxed by one warp at a time (two warps writing the
// same cells could put back a larger value). The ring: `cap` slots (a power of two, at least twice the
// items plus the warps), kEmpty where free; warps take positions in order from head and wait for theirs
// to be filled; producers fill positions in order from tail. pending counts the items queued or busy:
// when it is 0 no warp can queue another, and the waiting warps end.
constexpr unsigned kEmpty = 0xffffffffu;
constexpr std::size_t kEagerBelow = 8;  // goals in a batch below which tiles pass on their rims every sweep
enum : unsigned { kIdle = 0, kQueued = 1, kBusy = 2, kBusyAgain = 3 };
enum : int { kHead = 0, kTail = 1, kPending = 2, kRelaxed = 3, kStalled = 4, kCounters = 5 };
constexpr unsigned long long kStallNs = 10'000'000'000ull;  // no progress this long: the run ends, refused

struct Work {
  unsigned* state;  // per item
  unsigned* fresh;  // per item: 1 until its first relaxation (the goal's tile)
  unsigned* ring;
  unsigned* count;  // kCounters counters
  unsigned cap;
};

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned peek(const unsigned* p) { return *static_cast<const volatile unsigned*>(p); }

__device__ void push(const Work& w, unsigned item) {  // the item is kQueued
  atomicAdd(w.count + kPending, 1u);
  const unsigned slot = atomicAdd(w.count + kTail, 1u) & (w.cap - 1);
  while (atomicCAS(w.ring + slot, kEmpty, item) != kEmpty) __nanosleep(32);
}

// Asks for item to be relaxed (again).
__device__ void activate(const Work& w, unsigned item) {
  for (;;) {
    const unsigned s = peek(w.state + item);
    if (s == kQueued || s == kBusyAgain) return;
    if (s == kIdle) {
      if (atomicCAS(w.state + item, kIdle, kQueued) == kIdle) return push(w, item);
    } else if (atomicCAS(w.state + item, kBusy, kBusyAgain) == kBusy) {
      return;
    }
  }
}

// Seeds: seeds[2i] a field of the batch, seeds[2i + 1] one of its goals' cells, set to 0; the goal's tile
// (relaxed in full the first time) and its neighbours (the goal changes nothing of its tile, yet it may
// stand on their rim) queued.
__global__ void k_seed(const std::uint32_t* __restrict__ seeds, unsigned n, Tiles t, u64* __restrict__ val, Work w) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned g = seeds[2 * i];
  const std::uint32_t c = seeds[2 * i + 1];
  const unsigned x = c % static_cast<unsigned>(t.width), y = c / static_cast<unsigned>(t.width);
  val[g * t.cells + c] = 0;
  const int tx = static_cast<int>(x / kTile), ty = static_cast<int>(y / kTile);
  w.fresh[g * t.tiles + static_cast<unsigned>(ty * t.tiles_x + tx)] = 1u;
  __threadfence();
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      if (tx + dx >= 0 && ty + dy >= 0 && tx + dx < t.tiles_x && ty + dy < t.tiles_y)
        activate(w, g * t.tiles + static_cast<unsigned>((ty + dy) * t.tiles_x + tx + dx));
}

// Every warp takes items until none is queued or busy.
template <bool kFast>
__global__ void __launch_bounds__(32 * kTilesPerBlock)
    k_work(const std::uint8_t* __restrict__ cost, Tiles t, u64* __restrict__ val, Work w, bool eager) {
  __shared__ TileValues s_val[kTilesPerBlock];
  __shared__ TileCosts s_cost[kTilesPerBlock];
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  for (;;) {
    unsigned item = kEmpty, full = 0;
    if (lane == 0) {
      const unsigned slot = atomicAdd(w.count + kHead, 1u) & (w.cap - 1);
      // Waits for its position, or for the end; no tile relaxed anywhere for kStallNs is a defect.
      unsigned seen = peek(w.count + kRelaxed);
      unsigned long long since = now_ns();
      for (unsigned sleep = 32;;) {
        if (peek(w.ring + slot) != kEmpty) {
          item = atomicExch(w.ring + slot, kEmpty);
          break;
        }
        if (peek(w.count + kPending) == 0 || peek(w.count + kStalled)) break;
        const unsigned relaxed = peek(w.count + kRelaxed);
        if (relaxed != seen) {
          seen = relaxed;
          since = now_ns();
        } else if (now_ns() - since > kStallNs) {
          atomicExch(w.count + kStalled, 1u);
          break;
        }
        __nanosleep(sleep);
        sleep = min(sleep * 2, 1024u);
      }
      if (item != kEmpty) {
        atomicExch(w.state + item, kBusy);
        full = atomicExch(w.fresh + item, 0u);
      }
    }
    item = __shfl_sync(kFull, item, 0);
    if (item == kEmpty) return;
    full = __shfl_sync(kFull, full, 0);
    const unsigned goal = item / t.tiles, tile = item % t.tiles;
    relax_tile<kFast>(cost, t, val + goal * t.cells, tile, full != 0, eager, s_val[warp], s_cost[warp], lane,
                      [&](int k) { activate(w, goal * t.tiles + neighbour_tile(t, tile, k)); });
    __syncwarp();
    if (lane == 0) {
      if (atomicCAS(w.state + item, kBusy, kIdle) == kBusyAgain) {
        atomicExch(w.state + item, kQueued);
        push(w, item);
      }
      atomicAdd(w.count + kRelaxed, 1u);
      atomicSub(w.count + kPending, 1u);
    }
  }
}

// stats[0]: passable cells, stats[1]: the largest cost (for the choice of the order).
__global__ void k_map_stats(const std::uint8_t* __restrict__ cost, std::size_t cells, unsigned* __restrict__ stats) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned c = i < cells ? cost[i] : 0u;
  const unsigned passable = __popc(__ballot_sync(kFull, c != 0));
  unsigned top = c;
  for (int d = 16; d > 0; d >>= 1) top = max(top, __shfl_down_sync(kFull, top, d));
  if ((threadIdx.x & 31) == 0 && passable) {
    atomicAdd(stats, passable);
    atomicMax(stats + 1, top);
  }
}

// pre[c]: the costs of c's tile row summed from the tile's first column up to c (row_least_fast's R). A
// warp a tile row (y, tx); a block holds whole warps, so a warp returns together.
__global__ void k_prefix(const std::uint8_t* __restrict__ cost, Tiles t, std::uint16_t* __restrict__ pre) {
  const std::size_t w = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (w >= static_cast<std::size_t>(t.height) * static_cast<std::size_t>(t.tiles_x)) return;
  const int y = static_cast<int>(w / static_cast<std::size_t>(t.tiles_x));
  const int x = static_cast<int>(w % static_cast<std::size_t>(t.tiles_x)) * kTile + lane;
  const std::size_t c = static_cast<std::size_t>(y) * static_cast<std::size_t>(t.width) + static_cast<std::size_t>(x);
  unsigned sum = x < t.width ? cost[c] : 0u;
  for (int s = 1; s < kTile; s <<= 1) {
    const unsigned o = __shfl_up_sync(kFull, sum, s);
    if (lane >= s) sum += o;
  }
  if (x < t.width) pre[c] = static_cast<std::uint16_t>(sum);
}

// Distances (nav.h's float of the exact value) and directions (the shared rule), and the cells reached.
__global__ void k_finish(const std::uint8_t* __restrict__ cost, Tiles t, std::size_t n, const u64* __restrict__ val,
                         float* __restrict__ dist, std::int8_t* __restrict__ dir,
                         unsigned long long* __restrict__ reached) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  bool here = false;
  if (i < n) {
    const std::size_t c = i % t.cells;
    const u64* v = val + (i - c);
    const u64 e = v[c];
    here = e != kInf;
    dist[i] = here ? oct::to_float(unpack(e)) : __int_as_float(0x7f800000);
    if (dir) {
      const oct::CostView g{cost, t.width, t.height};
      const int x = static_cast<int>(c % static_cast<std::size_t>(t.width));
      const int y = static_cast<int>(c / static_cast<std::size_t>(t.width));
      dir[i] = static_cast<std::int8_t>(oct::direction(g, x, y, unpack(e), [&](int nx, int ny) {
        return unpack(v[static_cast<std::size_t>(ny) * static_cast<std::size_t>(t.width) + nx]);
      }));
    }
  }
  const unsigned ballot = __ballot_sync(kFull, here);
  if ((threadIdx.x & 31) == 0 && ballot) atomicAdd(reached, static_cast<unsigned long long>(__popc(ballot)));
}

// ---- the incremental update (NavDevice::update_on_device) ---------------------------------------------
//
// The changed cells take their new costs and are marked in chg. A cell whose walk (its directions
// followed to the goal) passes a change no longer has a value it can keep: its own step or a later one
// enters a changed cell (a step costs the cell entered), starts from one, or crosses a changed corner. Such
// cells are found by pointer jumping over the directions and reset to "not reached"; every other value is
// still the cost of a walk on the new map. The tiles holding reset cells and the tiles around the changes
// (where a cheaper or reopened cell can shorten walks) are queued, relaxed in full, and the work queue
// brings the field to the same fixed point as a computation from scratch (docs/nav.md).

__global__ void k_apply(const std::uint32_t* __restrict__ idx, const std::uint8_t* __restrict__ to, unsigned n,
                        std::uint8_t* __restrict__ cost, std::uint8_t* __restrict__ chg) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cost[idx[i]] = to[i];
  chg[idx[i]] = 1;
}

// next[c]: the cell c steps to (c itself at a goal and where not reached); hit[c]: c's own step no longer
// holds (c changed, or the cell it enters, or a corner of its diagonal). A goal (value 0) is never hit.
__global__ void k_hit_init(const u64* __restrict__ val, const std::int8_t* __restrict__ dir,
                           const std::uint8_t* __restrict__ chg, Tiles t, std::uint32_t* __restrict__ next,
                           std::uint8_t* __restrict__ hit) {
  const std::size_t c = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= t.cells) return;
  const u64 v = val[c];
  std::uint32_t to = static_cast<std::uint32_t>(c);
  std::uint8_t h = 0;
  if (v != kInf && v != 0) {
    h = chg[c];
    const int k = dir[c];
    if (k >= 0) {
      const std::size_t w = static_cast<std::size_t>(t.width);
      const int dx = oct::step_dx(k), dy = oct::step_dy(k);
      const std::size_t n = c + static_cast<std::size_t>(static_cast<long long>(dy) * t.width + dx);
      to = static_cast<std::uint32_t>(n);
      h |= chg[n];
      if (dx && dy) h |= chg[c + static_cast<std::size_t>(dx)] | chg[dy > 0 ? c + w : c - w];
    }
  }
  next[c] = to;
  hit[c] = h;
}

// One round of pointer jumping: a cell is hit when any step on its walk up to twice as far is.
__global__ void k_jump(const std::uint32_t* __restrict__ next, const std::uint8_t* __restrict__ hit, std::size_t cells,
                       std::uint32_t* __restrict__ next2, std::uint8_t* __restrict__ hit2) {
  const std::size_t c = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  const std::uint32_t n = next[c];
  hit2[c] = hit[c] | hit[n];
  next2[c] = next[n];
}

__device__ __forceinline__ unsigned tile_of(const Tiles& t, int x, int y) {
  return static_cast<unsigned>((y / kTile) * t.tiles_x + x / kTile);
}

// The hit cells reset to "not reached", their tiles flagged.
__global__ void k_reset(const std::uint8_t* __restrict__ hit, Tiles t, u64* __restrict__ val,
                        unsigned* __restrict__ flag) {
  const std::size_t c = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= t.cells || !hit[c]) return;
  val[c] = kInf;
  const int x = static_cast<int>(c % static_cast<std::size_t>(t.width));
  const int y = static_cast<int>(c / static_cast<std::size_t>(t.width));
  flag[tile_of(t, x, y)] = 1u;
}

// The tiles of the 3 x 3 cells around each changed cell, flagged.
__global__ void k_flag_changes(const std::uint32_t* __restrict__ idx, unsigned n, Tiles t,
                               unsigned* __restrict__ flag) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int x = static_cast<int>(idx[i] % static_cast<unsigned>(t.width));
  const int y = static_cast<int>(idx[i] / static_cast<unsigned>(t.width));
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      if (x + dx >= 0 && y + dy >= 0 && x + dx < t.width && y + dy < t.height) flag[tile_of(t, x + dx, y + dy)] = 1u;
}

// Every flagged tile queued, to be relaxed in full (its rows are no longer relaxed along themselves).
__global__ void k_queue_flagged(const unsigned* __restrict__ flag, Tiles t, Work w) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= t.tiles || !flag[i]) return;
  w.fresh[i] = 1u;
  __threadfence();
  activate(w, i);
}

}  // namespace

struct NavDevice::Impl {
  cudaStream_t stream = nullptr;
  DeviceBuffer<std::uint8_t> cost;
  DeviceBuffer<std::uint16_t> pre;  // Tiles::pre
  DeviceBuffer<u64> val;
  DeviceBuffer<float> dist;
  DeviceBuffer<std::int8_t> dir;
  DeviceBuffer<unsigned> items, ring, counters;  // items: state and fresh per item
  DeviceBuffer<std::uint32_t> seeds;             // a batch's (field, cell) pairs
  std::vector<std::uint32_t> host_seeds;
  // The incremental update's: the field fields_on_device left (its tiles and queue size), the changed
  // cells' marks, the pointers and hits of the jumping (two of each), the flagged tiles.
  bool kept = false;
  std::size_t kept_fields = 0;
  Tiles kept_tiles{};
  std::size_t kept_cap = 0;
  DeviceBuffer<std::uint8_t> chg, hit, hit2, to;
  DeviceBuffer<std::uint32_t> next, next2, idx;
  DeviceBuffer<unsigned> flag;
  DeviceBuffer<unsigned long long> reached;
  PinnedBuffer host;  // the map's stats, the queue's counters and the reached count, copied back
  cudaEvent_t ev[2] = {};
  int warps = 0;  // resident warps of k_work (both orders have the same)
  ~Impl() {
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
  }
  std::size_t held() const {
    return cost.capacity() + pre.capacity() * 2 + val.capacity() * sizeof(u64) + dist.capacity() * sizeof(float) +
           dir.capacity() + (items.capacity() + ring.capacity() + counters.capacity() + seeds.capacity()) * 4 +
           reached.capacity() * 8;
  }
};

namespace {

// The order of the values on the map im.cost holds: the fast one where every least value's parts stay
// below 2^24 (the map's stats read back), with its row sums.
Status choose_order(NavDevice::Impl& im, const Tiles& t, NavRun& run) {
  cudaStream_t s = im.stream;
  auto* back = static_cast<unsigned*>(im.host.get());
  unsigned* stats = im.counters.get();
  WM_CUDA(cudaMemsetAsync(stats, 0, 2 * sizeof(unsigned), s));
  k_map_stats<<<blocks_of(t.cells, 256), 256, 0, s>>>(im.cost.get(), t.cells, stats);
  WM_CUDA_LAUNCH(k_map_stats);
  WM_CUDA(cudaMemcpyAsync(back, stats, 2 * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  const std::uint64_t passable = back[0], top_cost = back[1];
  run.fast = passable == 0 || (passable - 1) * top_cost < kFastLimit;
  if (run.fast) {
    k_prefix<<<blocks_of(static_cast<std::size_t>(t.height) * static_cast<std::size_t>(t.tiles_x) * 32, 256), 256, 0,
               s>>>(im.cost.get(), t, im.pre.get());
    WM_CUDA_LAUNCH(k_prefix);
  }
  return Status::Ok();
}

// The work queue emptied, seed() filling it, the tiles relaxed until none is queued, and the fields'
// floats and directions (dirs) written; then the queue's counters and the cells reached read back (a stall
// is an Internal error).
template <class Seed>
Status relax_fields(NavDevice::Impl& im, const Tiles& t, const Work& w, std::size_t fields, bool dirs, bool eager,
                    bool fast, Seed&& seed) {
  cudaStream_t s = im.stream;
  auto* back = static_cast<unsigned*>(im.host.get());
  auto* reached = reinterpret_cast<unsigned long long*>(back + 2 + kCounters);
  WM_CUDA(cudaMemsetAsync(w.state, 0, (w.fresh - w.state) * 2 * sizeof(unsigned), s));  // states and fresh flags
  WM_CUDA(cudaMemsetAsync(w.ring, 0xff, w.cap * sizeof(unsigned), s));                  // kEmpty
  WM_CUDA(cudaMemsetAsync(w.count, 0, kCounters * sizeof(unsigned), s));
  WM_CUDA(cudaMemsetAsync(im.reached.get(), 0, sizeof(unsigned long long), s));
  WM_RETURN_IF_ERROR(seed());
  // Eager with few goals (most warps idle: the chain of tiles is the time), not with many (the device
  // full: the relaxations are the time). Measured: docs/nav.md.
  const auto work = fast ? k_work<true> : k_work<false>;
  work<<<static_cast<unsigned>(im.warps / kTilesPerBlock), 32 * kTilesPerBlock, 0, s>>>(im.cost.get(), t, im.val.get(),
                                                                                        w, eager);
  WM_CUDA_LAUNCH(k_work);
  k_finish<<<blocks_of(fields, 256), 256, 0, s>>>(im.cost.get(), t, fields, im.val.get(), im.dist.get(),
                                                  dirs ? im.dir.get() : nullptr, im.reached.get());
  WM_CUDA_LAUNCH(k_finish);
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  WM_CUDA(cudaMemcpyAsync(back + 2, w.count, kCounters * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaMemcpyAsync(reached, im.reached.get(), sizeof *reached, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  if (back[2 + kStalled] || back[2 + kPending])
    return Status::Internal("nav: the device's work queue stalled (" + std::to_string(back[2 + kPending]) +
                            " tiles left)");
  return Status::Ok();
}

// The time from ev[0] to ev[1], the cells reached and the relaxations into run.
Status add_times(NavDevice::Impl& im, NavRun& run) {
  const auto* back = static_cast<const unsigned*>(im.host.get());
  float ms = 0;
  WM_CUDA(cudaEventElapsedTime(&ms, im.ev[0], im.ev[1]));
  run.device_ms += ms;
  run.reached += *reinterpret_cast<const unsigned long long*>(back + 2 + kCounters);
  run.relaxed += back[2 + kRelaxed];
  return Status::Ok();
}

}  // namespace

Status NavDevice::create(void* stream, std::unique_ptr<NavDevice>& out) {
  std::unique_ptr<NavDevice> d(new NavDevice());
  Impl& im = *(d->impl_ = std::make_unique<Impl>());
  im.stream = static_cast<cudaStream_t>(stream);
  for (cudaEvent_t& e : im.ev) WM_CUDA(cudaEventCreate(&e));
  WM_RETURN_IF_ERROR(im.host.reserve((2 + kCounters) * sizeof(unsigned) + sizeof(unsigned long long)));
  int device = 0, sms = 0, blocks_fast = 0, blocks_exact = 0;
  WM_CUDA(cudaGetDevice(&device));
  WM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  WM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_fast, k_work<true>, 32 * kTilesPerBlock, 0));
  WM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_exact, k_work<false>, 32 * kTilesPerBlock, 0));
  im.warps = std::min(blocks_fast, blocks_exact) * sms * kTilesPerBlock;
  if (im.warps <= 0) return Status::Unavailable("nav: the work kernel cannot run on this device");
  out = std::move(d);
  return Status::Ok();
}

NavDevice::~NavDevice() = default;

Status NavDevice::fields(const std::uint8_t* cost, int width, int height, const std::uint32_t* goals,
                         const std::size_t* first, std::size_t n, float* distance, std::int8_t* direction,
                         NavRun& run) {
  return this->run(cost, width, height, goals, first, n, distance, direction, false, run);
}

Status NavDevice::fields_on_device(const std::uint8_t* cost, int width, int height, const std::uint32_t* goals,
                                   const std::size_t* first, std::size_t n, NavRun& run) {
  return this->run(cost, width, height, goals, first, n, nullptr, nullptr, true, run);
}

Status NavDevice::download(float* distance, std::int8_t* direction, std::size_t cells) const {
  const Impl& im = *impl_;
  WM_CUDA(cudaMemcpyAsync(distance, im.dist.get(), cells * sizeof(float), cudaMemcpyDeviceToHost, im.stream));
  WM_CUDA(cudaMemcpyAsync(direction, im.dir.get(), cells, cudaMemcpyDeviceToHost, im.stream));
  WM_CUDA(cudaStreamSynchronize(im.stream));
  return Status::Ok();
}

// The fields into host memory (distance, and direction unless null), or left on the device (keep: with
// directions, in one batch).
Status NavDevice::run(const std::uint8_t* cost, int width, int height, const std::uint32_t* goals,
                      const std::size_t* first, std::size_t n, float* distance, std::int8_t* direction, bool keep,
                      NavRun& run) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  run = NavRun{};
  im.kept = false;
  if (n == 0) return Status::Ok();
  Tiles t{};
  t.width = width;
  t.height = height;
  t.tiles_x = (width + kTile - 1) / kTile;
  t.tiles_y = (height + kTile - 1) / kTile;
  t.tiles = static_cast<unsigned>(t.tiles_x) * static_cast<unsigned>(t.tiles_y);
  t.cells = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  // Goals a batch: their values, floats, directions, items and ring in 60% of the free memory; the items
  // and the ring's positions within 32 bits.
  std::size_t free_bytes = 0, total_bytes = 0;
  WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t per_goal = t.cells * (sizeof(u64) + sizeof(float) + 1) + 8 * t.tiles * sizeof(unsigned);
  const std::size_t fit = (free_bytes + im.held()) / 10 * 6 / per_goal;
  if (fit == 0) return Status::Unavailable("nav: one field does not fit in the device's memory");
  const std::size_t batch = std::min<std::size_t>({n, fit, (std::size_t{1} << 28) / t.tiles});
  if (keep && batch < n) return Status::Unavailable("nav: the fields do not fit in the device's memory at once");
  const bool dirs = keep || direction;
  std::size_t cap = 1;
  while (cap < 2 * (batch * t.tiles + static_cast<std::size_t>(im.warps))) cap *= 2;
  WM_RETURN_IF_ERROR(im.cost.reserve(t.cells));
  WM_RETURN_IF_ERROR(im.val.reserve(batch * t.cells));
  WM_RETURN_IF_ERROR(im.dist.reserve(batch * t.cells));
  if (dirs) WM_RETURN_IF_ERROR(im.dir.reserve(batch * t.cells));
  WM_RETURN_IF_ERROR(im.items.reserve(2 * batch * t.tiles));
  WM_RETURN_IF_ERROR(im.ring.reserve(cap));
  WM_RETURN_IF_ERROR(im.counters.reserve(2 + kCounters));  // the map's two stats, then the queue's
  WM_RETURN_IF_ERROR(im.reached.reserve(1));
  WM_RETURN_IF_ERROR(im.pre.reserve(t.cells));
  t.pre = im.pre.get();
  WM_CUDA(cudaMemcpyAsync(im.cost.get(), cost, t.cells, cudaMemcpyHostToDevice, s));
  // The order (timed with the first batch).
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  WM_RETURN_IF_ERROR(choose_order(im, t, run));
  for (std::size_t b = 0; b < n; b += batch) {
    const std::size_t gb = std::min(batch, n - b), fields = gb * t.cells;
    const Work w{im.items.get(), im.items.get() + gb * t.tiles, im.ring.get(), im.counters.get() + 2,
                 static_cast<unsigned>(cap)};
    // The batch's seeds: each goal with the index of its field in the batch.
    im.host_seeds.clear();
    for (std::size_t g = 0; g < gb; ++g)
      for (std::size_t i = first ? first[b + g] : b + g, e = first ? first[b + g + 1] : b + g + 1; i < e; ++i) {
        im.host_seeds.push_back(static_cast<std::uint32_t>(g));
        im.host_seeds.push_back(goals[i]);
      }
    const std::size_t seeds = im.host_seeds.size() / 2;
    if (seeds) {
      WM_RETURN_IF_ERROR(im.seeds.reserve(im.host_seeds.size()));
      WM_CUDA(cudaMemcpyAsync(im.seeds.get(), im.host_seeds.data(), im.host_seeds.size() * sizeof(std::uint32_t),
                              cudaMemcpyHostToDevice, s));
    }
    if (b > 0) WM_CUDA(cudaEventRecord(im.ev[0], s));
    WM_CUDA(cudaMemsetAsync(im.val.get(), 0xff, fields * sizeof(u64), s));  // every part kUnreached
    WM_RETURN_IF_ERROR(relax_fields(im, t, w, fields, dirs, gb < kEagerBelow, run.fast, [&] {
      if (!seeds) return Status::Ok();
      k_seed<<<blocks_of(seeds, 128), 128, 0, s>>>(im.seeds.get(), static_cast<unsigned>(seeds), t, im.val.get(), w);
      WM_CUDA_LAUNCH(k_seed);
      return Status::Ok();
    }));
    if (!keep) {
      WM_CUDA(
          cudaMemcpyAsync(distance + b * t.cells, im.dist.get(), fields * sizeof(float), cudaMemcpyDeviceToHost, s));
      if (direction) WM_CUDA(cudaMemcpyAsync(direction + b * t.cells, im.dir.get(), fields, cudaMemcpyDeviceToHost, s));
      WM_CUDA(cudaStreamSynchronize(s));
    }
    WM_RETURN_IF_ERROR(add_times(im, run));
  }
  im.kept = keep;
  im.kept_fields = n;
  im.kept_tiles = t;
  im.kept_cap = cap;
  return Status::Ok();
}

Status NavDevice::update_on_device(const std::uint32_t* cells, const std::uint8_t* costs, std::size_t n, NavRun& run) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  run = NavRun{};
  if (!im.kept || im.kept_fields != 1) return Status::Invalid("nav: no single field kept on the device to update");
  if (n == 0) return Status::Ok();
  im.kept = false;  // until the update completes
  Tiles t = im.kept_tiles;
  WM_RETURN_IF_ERROR(im.chg.reserve(t.cells));
  WM_RETURN_IF_ERROR(im.hit.reserve(t.cells));
  WM_RETURN_IF_ERROR(im.hit2.reserve(t.cells));
  WM_RETURN_IF_ERROR(im.next.reserve(t.cells));
  WM_RETURN_IF_ERROR(im.next2.reserve(t.cells));
  WM_RETURN_IF_ERROR(im.flag.reserve(t.tiles));
  WM_RETURN_IF_ERROR(im.idx.reserve(n));
  WM_RETURN_IF_ERROR(im.to.reserve(n));
  WM_CUDA(cudaMemcpyAsync(im.idx.get(), cells, n * sizeof(std::uint32_t), cudaMemcpyHostToDevice, s));
  WM_CUDA(cudaMemcpyAsync(im.to.get(), costs, n, cudaMemcpyHostToDevice, s));
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  WM_CUDA(cudaMemsetAsync(im.chg.get(), 0, t.cells, s));  // on the stream, before the marks
  const unsigned un = static_cast<unsigned>(n);
  k_apply<<<blocks_of(n, 128), 128, 0, s>>>(im.idx.get(), im.to.get(), un, im.cost.get(), im.chg.get());
  WM_CUDA_LAUNCH(k_apply);
  WM_RETURN_IF_ERROR(choose_order(im, t, run));
  // The walks through a change, by pointer jumping over the old directions (a walk has fewer steps than
  // the map has cells).
  const unsigned blocks = blocks_of(t.cells, 256);
  k_hit_init<<<blocks, 256, 0, s>>>(im.val.get(), im.dir.get(), im.chg.get(), t, im.next.get(), im.hit.get());
  WM_CUDA_LAUNCH(k_hit_init);
  std::uint32_t *next = im.next.get(), *next2 = im.next2.get();
  std::uint8_t *hit = im.hit.get(), *hit2 = im.hit2.get();
  for (std::size_t reach = 1; reach < t.cells; reach *= 2) {
    k_jump<<<blocks, 256, 0, s>>>(next, hit, t.cells, next2, hit2);
    WM_CUDA_LAUNCH(k_jump);
    std::swap(next, next2);
    std::swap(hit, hit2);
  }
  WM_CUDA(cudaMemsetAsync(im.flag.get(), 0, t.tiles * sizeof(unsigned), s));
  k_reset<<<blocks, 256, 0, s>>>(hit, t, im.val.get(), im.flag.get());
  WM_CUDA_LAUNCH(k_reset);
  k_flag_changes<<<blocks_of(n, 128), 128, 0, s>>>(im.idx.get(), un, t, im.flag.get());
  WM_CUDA_LAUNCH(k_flag_changes);
  const Work w{im.items.get(), im.items.get() + t.tiles, im.ring.get(), im.counters.get() + 2,
               static_cast<unsigned>(im.kept_cap)};
  WM_RETURN_IF_ERROR(relax_fields(im, t, w, t.cells, true, true, run.fast, [&] {
    k_queue_flagged<<<blocks_of(t.tiles, 128), 128, 0, s>>>(im.flag.get(), t, w);
    WM_CUDA_LAUNCH(k_queue_flagged);
    return Status::Ok();
  }));
  WM_RETURN_IF_ERROR(add_times(im, run));
  im.kept = true;
  return Status::Ok();
}

const float* NavDevice::device_distance() const { return impl_->dist.get(); }
const std::int8_t* NavDevice::device_direction() const { return impl_->dir.get(); }

namespace {

// nav::steer's rule (nav.cpp), a thread a unit.
__global__ void k_steer(const float* __restrict__ distance, const std::int8_t* __restrict__ direction, int width,
                        int height, const float* __restrict__ xy, std::size_t n, float* __restrict__ steer,
                        float* __restrict__ dist) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float px = xy[2 * i], py = xy[2 * i + 1];
  float sx = 0.0f, sy = 0.0f, d = __int_as_float(0x7f800000);
  if (isfinite(px) && isfinite(py)) {
    const float fx = floorf(px), fy = floorf(py);
    if (fx >= 0.0f && fy >= 0.0f && fx < static_cast<float>(width) && fy < static_cast<float>(height)) {
      const std::size_t c =
          static_cast<std::size_t>(fy) * static_cast<std::size_t>(width) + static_cast<std::size_t>(fx);
      d = distance[c];
      const int k = direction[c];
      if (k >= 0 && k <= 7) {
        const float unit = (k & 1) ? 0.70710677f : 1.0f;
        sx = static_cast<float>(oct::step_dx(k)) * unit;
        sy = static_cast<float>(oct::step_dy(k)) * unit;
      }
    }
  }
  steer[2 * i] = sx;
  steer[2 * i + 1] = sy;
  dist[i] = d;
}

}  // namespace

Status nav_steer(void* stream, const float* distance, const std::int8_t* direction, int width, int height,
                 const float* xy, std::size_t n, float* steer, float* dist) {
  if (n == 0) return Status::Ok();
  k_steer<<<blocks_of(n, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(distance, direction, width, height, xy, n,
                                                                            steer, dist);
  WM_CUDA_LAUNCH(k_steer);
  return Status::Ok();
}

}  // namespace warpmind::gpu
