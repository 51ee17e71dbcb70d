// CUDA crowd solver. The verdict arithmetic mirrors ai/src/crowd/crowd_math.h with explicitly rounded
// intrinsics, so verdicts equal the CPU reference's.
//
// gpu-sort (the seed's baseline): hash every old position and every target to a 2R cell, radix-sort
// both by cell (CUB), find each cell's range, reorder positions by cell, then one thread per agent
// checks the 3x3 cells around its target.
//
// gpu-tiled (the seed's improved baseline): the same sort, then one block per tile of 32x32 cells stages
// the sorted old positions and targets of the tile and its one-cell halo in shared memory (each halo
// row is one contiguous run of the sorted arrays) and checks the tile's agents from there.
//
// gpu-static-grid (the seed's sort-free algorithm, made exact): cells of side < 2R/sqrt(2), so two
// agents in one cell always collide and a cell holds at most one old position. Three kernels, no sort,
// no atomics under the strict rule, and a clear only every 255 ticks (slot keys carry a tag that
// changes every tick):
//   1 write     every agent writes its id into its old cell and its target cell (strict: any writer
//               wins; lowest-id: atomicMin, so the lowest id is the one left visible)
//   2 scan      cell by cell: a block per tile of 32x16 cells stages the tile, its 2-cell halo and the
//               positions their slots name in shared memory; each visible target is checked against
//               the old positions and visible targets of its 5x5 cells and marks every conflicting
//               agent it has priority over (itself included). Hidden agents (losers of their target
//               cell, a few percent) are handled warp-cooperatively by the blocks after the tiles:
//               they mark themselves and every visible target they have priority over
//   3 verdict   marks -> verdict; accepted agents move; verdict counts
// The scan and the verdict are programmatic dependent launches: scheduled while the kernel before them
// drains, they wait for it before touching memory.
// Every conflicting pair is found: both visible (each sees the other), one hidden (the hidden one
// marks the visible one; the hidden one is rejected: strict, it shares a cell with the visible one;
// lowest-id, the visible one has the lower id), both hidden (both rejected).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "crowd/crowd_device.h"

namespace warpmind::gpu {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kEmpty = 0xffffffffu;
using crowd::rules::kCheckAgents;
using crowd::rules::kCollision;
using crowd::rules::kMoved;
using crowd::rules::kOutOfWorld;
constexpr int kVerdicts = 6;

// The arithmetic is crowd_rules.h's, shared with the CPU reference.
__device__ __forceinline__ bool apart_d(float2 a, float2 b, const crowd::rules::Geometry& g) {
  return crowd::rules::apart(a.x, a.y, b.x, b.y, g);
}
// Agents i and j at a and b: apart by 2R, or by r_i + r_j where every agent has its own radius (radius
// non-null). The sum for two agents of radius R is 2R exactly, so both agree where the radii are R.
__device__ __forceinline__ bool apart_ij(float2 a, float2 b, unsigned i, unsigned j, const crowd::rules::Geometry& g,
                                         const float* radius) {
  return radius ? crowd::rules::apart_by(a.x, a.y, b.x, b.y, fadd(radius[i], radius[j])) : apart_d(a, b, g);
}
using crowd::rules::cell_axis;

__device__ __forceinline__ unsigned cell_of(float2 p, const crowd::rules::Geometry& g) {
  return static_cast<unsigned>(crowd::rules::cell_y(p.y, g)) * g.cells_x +
         static_cast<unsigned>(crowd::rules::cell_x(p.x, g));
}

__global__ void k_iota(unsigned* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = static_cast<unsigned>(i);
}

__global__ void k_hash(const float2* pos, const float2* prop, int n, crowd::rules::Geometry g, unsigned* key_old,
                       unsigned* key_tgt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key_old[i] = cell_of(pos[i], g);
  key_tgt[i] = cell_of(prop[i], g);
}

// Cell ranges of a sorted key array (cells never seen keep start = kEmpty) and the positions reordered
// by cell.
__global__ void k_ranges(const unsigned* key, const unsigned* id, const float2* src, int n, unsigned* start,
                         unsigned* end, float2* sorted) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const unsigned c = key[k];
  if (k == 0 || key[k - 1] != c) start[c] = k;
  if (k == n - 1 || key[k + 1] != c) end[c] = k + 1;
  sorted[k] = src[id[k]];
}

struct Index {
  const unsigned* start;
  const unsigned* end;
  const unsigned* id;
  const float2* pos;
};

// True if some agent j != i binned near p is closer than 2R (only j < i when `lower_only`).
__device__ __forceinline__ bool conflict(float2 p, unsigned i, const Index& ix, const crowd::rules::Geometry& g,
                                         const float* radius, bool lower_only) {
  const int cx = cell_axis(p.x, g.x0, g.cell, g.cells_x), cy = cell_axis(p.y, g.y0, g.cell, g.cells_y);
  for (int y = max(0, cy - 1); y <= min(g.cells_y - 1, cy + 1); ++y)
    for (int x = max(0, cx - 1); x <= min(g.cells_x - 1, cx + 1); ++x) {
      const unsigned c = static_cast<unsigned>(y) * g.cells_x + x;
      const unsigned b = ix.start[c];
      if (b == kEmpty) continue;
      for (unsigned k = b; k < ix.end[c]; ++k) {
        const unsigned j = ix.id[k];
        if (j != i && (!lower_only || j < i) && !apart_ij(p, ix.pos[k], i, j, g, radius)) return true;
      }
    }
  return false;
}

// What the verdicts need beside the geometry: the obstacle grid, every agent's maximum step (nullptr: no
// limits; Avoid passes none, its candidates are within them) and, under Avoid, the verdict of each agent
// that found no free candidate (kCheckAgents: it found one).
struct Judged {
  const unsigned char* grid;
  const float* limit;
  const unsigned char* fallback;
};

// Agent i's verdict from whether it conflicts (asked only when the tests without other agents passed);
// an accepted agent moves. Other threads read old positions from copies or by other ids only.
template <class Conflicts>
__device__ __forceinline__ unsigned char judge(int i, float2 p, float2* pos, const crowd::rules::Geometry& g,
                                               const Judged& j, unsigned char* verdict, Conflicts&& conflicts) {
  const float2 o = pos[i];
  unsigned char v = j.fallback ? j.fallback[i] : kCheckAgents;
  if (v == kCheckAgents) v = crowd::rules::static_verdict(o.x, o.y, p.x, p.y, j.limit ? j.limit[i] : 0.0f, g, j.grid);
  if (v == kCheckAgents) v = conflicts() ? kCollision : kMoved;
  verdict[i] = v;
  if (v == kMoved) pos[i] = p;
  return v;
}

// Verdict counts, tallied per block in shared memory and double-buffered by tick parity: the first
// block clears the other half for the next tick.
__device__ __forceinline__ void tally_open(unsigned* block_counts, bool first_block, unsigned tick,
                                           unsigned long long* counts) {
  if (threadIdx.x < kVerdicts) block_counts[threadIdx.x] = 0;
  if (first_block && threadIdx.x < kVerdicts) counts[((tick + 1) & 1) * kVerdicts + threadIdx.x] = 0;
  __syncthreads();
}
__device__ __forceinline__ void tally_close(const unsigned* block_counts, unsigned tick, unsigned long long* counts) {
  __syncthreads();
  if (threadIdx.x < kVerdicts && block_counts[threadIdx.x])
    atomicAdd(&counts[(tick & 1) * kVerdicts + threadIdx.x], block_counts[threadIdx.x]);
}

// The last kernel of gpu-sort and gpu-static-grid: one thread per agent.
template <class Conflicts>
__device__ __forceinline__ void decide(int n, unsigned tick, float2* pos, const float2* prop,
                                       const crowd::rules::Geometry& g, const Judged& jd, unsigned char* verdict,
                                       unsigned long long* counts, Conflicts&& conflicts) {
  __shared__ unsigned block_counts[kVerdicts];
  tally_open(block_counts, blockIdx.x == 0, tick, counts);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float2 p = prop[i];
    atomicAdd(&block_counts[judge(i, p, pos, g, jd, verdict, [&] { return conflicts(i, p); })], 1u);
  }
  tally_close(block_counts, tick, counts);
}

__global__ void k_check(float2* pos, const float2* prop, const float* radius, int n, crowd::rules::Geometry g,
                        Judged jd, Index olds, Index targets, bool lowest_id_wins, unsigned tick,
                        unsigned char* verdict, unsigned long long* counts) {
  decide(n, tick, pos, prop, g, jd, verdict, counts, [&](int i, float2 p) {
    return conflict(p, i, olds, g, radius, false) || conflict(p, i, targets, g, radius, lowest_id_wins);
  });
}

// ---- gpu-tiled -----------------------------------------------------------------------------------

// first[c] = the first sorted index whose cell is >= c, for c in [0, cells] (k_run_starts of
// primitives.cuh): cell c's agents are [first[c], first[c + 1]), and a run of cells in one row is one
// contiguous range.

constexpr int kTile = 32;  // cells per tile side
constexpr int kHaloRows = kTile + 2;
constexpr int kTileCap = 1792;  // agents per array a block stages; more: it reads global memory

// v[0..63] -> exclusive prefix sums (v[k] = the sum of the old v[0..k-1]), by one warp.
__device__ __forceinline__ void exclusive_scan_64(int* v) {
  const int lane = threadIdx.x & 31;
  const int a = v[2 * lane], b = v[2 * lane + 1];
  int sum = a + b;  // inclusive scan of the pairs
  for (int d = 1; d < 32; d <<= 1) {
    const int up = __shfl_up_sync(0xffffffffu, sum, d);
    if (lane >= d) sum += up;
  }
  const int before = sum - a - b;
  __syncwarp();
  v[2 * lane] = before;
  v[2 * lane + 1] = before + a;
  __syncwarp();
}

// One sorted array (old positions or targets) as a block sees it: staged rows in shared memory, or
// the global arrays. Index k of the sorted array is at pos[k + shift[row]].
struct TileView {
  const float2* pos;
  const unsigned* id;
  const int* shift;  // per halo row
};

// The halo rows' runs of one sorted array: run r is [first[row r, xa], first[row r, xb + 1]). Stages
// them when they fit; returns the view.
__device__ TileView stage_rows(const float2* sorted, const unsigned* ids, const unsigned* first, int cells_x, int ya,
                               int rows, int xa, int xb, float2* sh_pos, unsigned* sh_id, int* shift, int* run) {
  if (threadIdx.x < 64) {  // rows <= 34: two warps
    const int y = ya + static_cast<int>(threadIdx.x);
    run[threadIdx.x] = threadIdx.x < rows ? static_cast<int>(first[y * cells_x + xb + 1] - first[y * cells_x + xa]) : 0;
  }
  __syncthreads();
  if (threadIdx.x < 32) exclusive_scan_64(run);  // run[r]: the run's base in shared memory
  __syncthreads();
  const bool staged = run[kHaloRows] <= kTileCap;
  if (threadIdx.x < rows)
    shift[threadIdx.x] = staged ? run[threadIdx.x] - static_cast<int>(first[(ya + threadIdx.x) * cells_x + xa]) : 0;
  if (staged) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int r = warp; r < rows; r += kThreads / 32) {
      const int y = ya + r;
      const unsigned b = first[y * cells_x + xa], e = first[y * cells_x + xb + 1];
      for (unsigned k = b + lane; k < e; k += 32) {
        sh_pos[run[r] + (k - b)] = sorted[k];
        sh_id[run[r] + (k - b)] = ids[k];
      }
    }
  }
  __syncthreads();
  return staged ? TileView{sh_pos, sh_id, shift} : TileView{sorted, ids, shift};
}

// True if an agent j != i of `v` (only j < i when lower_only) in the 3x3 cells around (cx, cy) is closer
// than 2R to p.
__device__ __forceinline__ bool tile_conflict(float2 p, unsigned i, int cx, int cy, const TileView& v,
                                              const unsigned* first, const crowd::rules::Geometry& g,
                                              const float* radius, int ya, bool lower_only) {
  const int xa = max(cx - 1, 0), xb = min(cx + 1, g.cells_x - 1);
  for (int y = max(cy - 1, 0); y <= min(cy + 1, g.cells_y - 1); ++y) {
    const int shift = v.shift[y - ya];
    const int b = static_cast<int>(first[y * g.cells_x + xa]) + shift;
    const int e = static_cast<int>(first[y * g.cells_x + xb + 1]) + shift;
    for (int k = b; k < e; ++k) {
      const unsigned j = v.id[k];
      if (j != i && (!lower_only || j < i) && !apart_ij(p, v.pos[k], i, j, g, radius)) return true;
    }
  }
  return false;
}

// One block per tile of kTile x kTile cells: stage the tile's and its halo's old positions and targets,
// then judge every agent whose target lies in the tile.
__global__ void __launch_bounds__(kThreads)
    k_tiled_check(float2* pos, const float* radius, crowd::rules::Geometry g, Judged jd, const float2* sorted_old,
                  const unsigned* id_old, const unsigned* first_old, const float2* sorted_tgt, const unsigned* id_tgt,
                  const unsigned* key_tgt, const unsigned* first_tgt, bool lowest_id_wins, unsigned tick,
                  unsigned char* verdict, unsigned long long* counts) {
  __shared__ float2 sh_pos[2][kTileCap];
  __shared__ unsigned sh_id[2][kTileCap];
  __shared__ int shift[2][kHaloRows], run[2][64], inner[64];
  __shared__ unsigned block_counts[kVerdicts];
  tally_open(block_counts, blockIdx.x == 0 && blockIdx.y == 0, tick, counts);
  const int x0 = blockIdx.x * kTile, y0 = blockIdx.y * kTile;
  const int x1 = min(x0 + kTile, g.cells_x) - 1, y1 = min(y0 + kTile, g.cells_y) - 1;  // inclusive
  const int xa = max(x0 - 1, 0), xb = min(x1 + 1, g.cells_x - 1);
  const int ya = max(y0 - 1, 0), yb = min(y1 + 1, g.cells_y - 1);
  const int rows = yb - ya + 1;
  const TileView olds =
      stage_rows(sorted_old, id_old, first_old, g.cells_x, ya, rows, xa, xb, sh_pos[0], sh_id[0], shift[0], run[0]);
  const TileView tgts =
      stage_rows(sorted_tgt, id_tgt, first_tgt, g.cells_x, ya, rows, xa, xb, sh_pos[1], sh_id[1], shift[1], run[1]);
  // The tile's own agents: row r's targets are the sorted range [first[r, x0], first[r, x1 + 1]).
  if (threadIdx.x < 64) {
    const int y = y0 + static_cast<int>(threadIdx.x);
    inner[threadIdx.x] =
        y <= y1 ? static_cast<int>(first_tgt[y * g.cells_x + x1 + 1] - first_tgt[y * g.cells_x + x0]) : 0;
  }
  __syncthreads();
  if (threadIdx.x < 32) exclusive_scan_64(inner);
  __syncthreads();
  for (int k = threadIdx.x; k < inner[kTile]; k += kThreads) {
    int r = 0;
    while (r + y0 < y1 && inner[r + 1] <= k) ++r;
    const int s = static_cast<int>(first_tgt[(y0 + r) * g.cells_x + x0]) + (k - inner[r]);
    const int local = s + tgts.shift[y0 + r - ya];
    const unsigned i = tgts.id[local];
    const float2 p = tgts.pos[local];
    const unsigned c = key_tgt[s];
    const int cx = static_cast<int>(c % g.cells_x), cy = static_cast<int>(c / g.cells_x);
    const unsigned char v = judge(static_cast<int>(i), p, pos, g, jd, verdict, [&] {
      return tile_conflict(p, i, cx, cy, olds, first_old, g, radius, ya, false) ||
             tile_conflict(p, i, cx, cy, tgts, first_tgt, g, radius, ya, lowest_id_wins);
    });
    atomicAdd(&block_counts[v], 1u);
  }
  tally_close(block_counts, tick, counts);
}

// sorted[k] = src[id[k]].
__global__ void k_gather(const unsigned* id, const float2* src, int n, float2* sorted) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) sorted[k] = src[id[k]];
}

// ---- gpu-static-grid ---------------------------------------------------------------------------

// A cell's two slots, interleaved so one 8-byte load reads both: x = the agent whose old position lies
// in the cell (its plain id, or all ones: empty; kept across ticks, see k_sg_old), y = the (visible)
// agent whose target does. A target slot key is a tag in the high bits and the agent id in the low
// `id_bits`. The tag falls by one every tick and the grid is cleared (all ones: empty) after it reached
// zero, so the current tick's keys are the smallest ever seen since the last clear: atomicMin lets the
// lowest id win against stale keys and other agents alike.
struct SlotKeys {
  unsigned current;  // tag of this tick, shifted into place
  unsigned id_mask;
  __device__ __forceinline__ unsigned key(unsigned id) const { return current | id; }
  __device__ __forceinline__ bool is_current(unsigned k) const { return (k & ~id_mask) == current; }
};

// The static grid is stored with g.sg_window never-written cells on every side (2 where every agent has
// radius R), so the (2w + 1)^2 neighbourhood of any real cell is in bounds and the scan needs no bounds
// checks (a fully unrolled loop).
__device__ __forceinline__ int sg_pad(const crowd::rules::Geometry& g) { return g.sg_window; }
__device__ __forceinline__ int sg_stride(const crowd::rules::Geometry& g) { return g.sg_cols + 2 * sg_pad(g); }

// Padded static-grid index of p's cell, or -1 when p lies beyond the 2R margin around the world.
__device__ __forceinline__ int sg_cell(float2 p, const crowd::rules::Geometry& g) {
  const float fx = floorf(__fdiv_rn(__fsub_rn(p.x, g.sg_x0), g.sg_cell));
  const float fy = floorf(__fdiv_rn(__fsub_rn(p.y, g.sg_y0), g.sg_cell));
  if (!(fx >= 0.0f && fy >= 0.0f && fx < static_cast<float>(g.sg_cols) && fy < static_cast<float>(g.sg_rows)))
    return -1;
  return (static_cast<int>(fy) + sg_pad(g)) * sg_stride(g) + static_cast<int>(fx) + sg_pad(g);
}

// The old-position slots hold plain agent ids and persist across ticks: written for every agent after a
// clear (k_sg_old), then moved by the verdict kernel for the agents that moved (a cell cannot be left and
// entered in one tick: an agent entering it would be within 2R of the one leaving it). The target slots
// carry this tick's tag (k_sg_write).
__global__ void k_sg_old(const float2* pos, int n, crowd::rules::Geometry g, unsigned* slot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) slot[2 * sg_cell(pos[i], g)] = static_cast<unsigned>(i);  // inside the world, alone in its cell
}

__global__ void k_sg_write(const float2* prop, int n, crowd::rules::Geometry g, SlotKeys keys, bool lowest_id_wins,
                           unsigned* slot) {
  allow_dependents();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = sg_cell(prop[i], g);
  if (c < 0) return;
  const unsigned key = keys.key(static_cast<unsigned>(i));
  if (lowest_id_wins)
    atomicMin(slot + 2 * c + 1, key);
  else
    slot[2 * c + 1] = key;
}

#include "crowd/static_grid_scan.cuh"  // k_sg_scan, on the static grid above

// The verdicts; a mover's old-position slot moves with it.
__global__ void k_sg_verdict(float2* pos, const float2* prop, int n, crowd::rules::Geometry g, unsigned tick, Judged jd,
                             const unsigned* mark, unsigned char* verdict, unsigned long long* counts, unsigned* slot) {
  wait_for_prior_grid();
  __shared__ unsigned block_counts[kVerdicts];
  tally_open(block_counts, blockIdx.x == 0, tick, counts);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float2 o = pos[i], p = prop[i];
    const unsigned char v = judge(i, p, pos, g, jd, verdict, [&] { return mark[i] == tick; });
    if (v == kMoved) {
      slot[2 * sg_cell(o, g)] = kEmpty;
      slot[2 * sg_cell(p, g)] = static_cast<unsigned>(i);
    }
    atomicAdd(&block_counts[v], 1u);
  }
  tally_close(block_counts, tick, counts);
}

#include "crowd/avoid_kernel.cuh"  // k_sg_avoid, on the static grid above

constexpr std::size_t kMaxStaticGridAgents = std::size_t{1} << 27;  // leaves >= 5 tag bits

}  // namespace

struct CrowdDevice::Impl {
  cudaStream_t stream = nullptr;
  CrowdKernel kernel{};
  crowd::rules::Geometry g{};
  bool lowest = false;
  bool avoid = false;
  bool limited = false;  // reset gave maximum steps
  bool sized = false;    // every agent has its own radius
  int reach = 0;         // Avoid: static-grid cells around an agent whose old positions can block its candidates
  int sms = 1;           // the device's multiprocessors
  std::size_t n = 0;
  unsigned tick = 0;   // ticks since create: marks written this tick carry it
  unsigned cells = 0;  // gpu-sort binning cells
  std::size_t sg_cells = 0;
  DeviceBuffer<unsigned char> grid;
  DeviceBuffer<float2> pos, prop;
  DeviceBuffer<unsigned char> verdict;
  DeviceBuffer<unsigned long long> counts;  // 2 x kVerdicts, by tick parity
  DeviceBuffer<float> limit;                // maximum steps (when limited)
  DeviceBuffer<float> radius;               // radii (when sized)
  DeviceBuffer<float2> chosen;              // Avoid: this tick's targets
  DeviceBuffer<unsigned char> fallback;     // Avoid
  // gpu-sort
  DeviceBuffer<float2> sorted_old, sorted_tgt;
  DeviceBuffer<unsigned> key_old, key_tgt, key_old_sorted, key_tgt_sorted, iota, id_old, id_tgt;
  DeviceBuffer<unsigned> start_old, end_old, start_tgt, end_tgt;  // gpu-sort
  DeviceBuffer<unsigned> first_old, first_tgt;                    // gpu-tiled
  DeviceBuffer<unsigned char> sort_temp;
  std::size_t sort_temp_bytes = 0;
  // gpu-static-grid
  DeviceBuffer<unsigned> slot, mark;  // slot: 2 per cell (see SlotKeys)
  int id_bits = 1;
  unsigned tag = 0;  // tag of the last tick; 0: the grid must be cleared before the next

  DeviceBuffer<unsigned char> keep, select_temp;  // retain()
  mutable PinnedBuffer pin_in, pin_out;           // host transfers
  DeviceBuffer<int> kept;
  Status sort_by_cell(const float2* prop_dev, int ni);
  Status step_sort(const float2* prop_dev, int ni);
  Status step_tiled(const float2* prop_dev, int ni);
  Status step_static_grid(const float2* prop_dev, int ni);
  const float* radii() const { return sized ? radius.get() : nullptr; }
  Judged judged() const {
    return {grid.get(), limited && !avoid ? limit.get() : nullptr, avoid ? fallback.get() : nullptr};
  }
};

Status CrowdDevice::create(void* stream, CrowdKernel kernel, const crowd::rules::Geometry& g,
                           const std::vector<std::uint8_t>& blocked, bool lowest_id_wins, bool avoid, bool sized,
                           std::unique_ptr<CrowdDevice>& out) {
  if (avoid && kernel != CrowdKernel::StaticGrid) return Status::Invalid("crowd: Avoid runs on gpu-static-grid");
  std::unique_ptr<CrowdDevice> d(new CrowdDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  im.kernel = kernel;
  im.g = g;
  im.lowest = lowest_id_wins;
  im.avoid = avoid;
  im.sized = sized;
  int dev = 0;
  WM_CUDA(cudaGetDevice(&dev));
  WM_CUDA(cudaDeviceGetAttribute(&im.sms, cudaDevAttrMultiProcessorCount, dev));
  Status err;
  if (!(err = im.grid.reserve(std::max<std::size_t>(blocked.size(), 1))).ok()) return err;
  if (!blocked.empty()) WM_CUDA(cudaMemcpy(im.grid.get(), blocked.data(), blocked.size(), cudaMemcpyHostToDevice));
  if (!(err = im.counts.reserve(2 * kVerdicts, true)).ok()) return err;
  if (kernel == CrowdKernel::Sort) {
    im.cells = static_cast<unsigned>(g.cells_x) * static_cast<unsigned>(g.cells_y);
    for (DeviceBuffer<unsigned>* b : {&im.start_old, &im.end_old, &im.start_tgt, &im.end_tgt})
      if (!(err = b->reserve(im.cells)).ok()) return err;
  } else if (kernel == CrowdKernel::Tiled) {
    im.cells = static_cast<unsigned>(g.cells_x) * static_cast<unsigned>(g.cells_y);
    for (DeviceBuffer<unsigned>* b : {&im.first_old, &im.first_tgt})
      if (!(err = b->reserve(im.cells + 1)).ok()) return err;
  } else {
    if (g.sg_window < 2 || g.sg_window > 6 || (!sized && g.sg_window != 2))
      return Status::Invalid("gpu-static-grid: radii more than 4x apart");
    im.sg_cells =
        static_cast<std::size_t>(g.sg_cols + 2 * g.sg_window) * static_cast<std::size_t>(g.sg_rows + 2 * g.sg_window);
    if (!(err = im.slot.reserve(2 * im.sg_cells)).ok()) return err;
  }
  out = std::move(d);
  return Status::Ok();
}

CrowdDevice::~CrowdDevice() = default;

Status CrowdDevice::reset(const float* positions, const float* max_steps, const float* radii, std::size_t n,
                          float reach) {
  Impl& im = *impl_;
  Status err;
  if (im.avoid && !max_steps && n > 0) return Status::Invalid("crowd reset: Avoid needs maximum steps");
  const std::size_t cap = std::max<std::size_t>(n, 1);
  for (DeviceBuffer<float2>* b : {&im.pos, &im.prop})
    if (!(err = b->reserve(cap)).ok()) return err;
  if (!(err = im.verdict.reserve(cap)).ok()) return err;
  im.limited = max_steps != nullptr;
  if (im.limited) {
    if (!(err = im.limit.reserve(cap)).ok()) return err;
    if (n > 0)
      WM_CUDA(cudaMemcpyAsync(im.limit.get(), max_steps, n * sizeof(float), cudaMemcpyHostToDevice, im.stream));
  }
  if (im.sized && !radii && n > 0) return Status::Invalid("crowd reset: per-agent radii needed");
  if (im.sized) {
    if (!(err = im.radius.reserve(cap)).ok()) return err;
    if (n > 0) WM_CUDA(cudaMemcpyAsync(im.radius.get(), radii, n * sizeof(float), cudaMemcpyHostToDevice, im.stream));
  }
  if (im.avoid) {
    if (!(err = im.chosen.reserve(cap)).ok()) return err;
    if (!(err = im.fallback.reserve(cap)).ok()) return err;
    // The old positions that can block a candidate lie within its length (<= reach) plus kFollowGap x 2R
    // of the agent, those that can cross a look-ahead within 4R plus 2R (a hair more after rounding); one
    // more cell for where in its cell each agent stands.
    const double two_r = std::sqrt(static_cast<double>(im.g.four_r2));
    const double far = std::max(static_cast<double>(reach) + two_r * crowd::rules::kFollowGap,
                                static_cast<double>(im.g.lookahead) + two_r) *
                       1.01;
    im.reach = static_cast<int>(std::ceil(far / static_cast<double>(im.g.sg_cell))) + 1;
  }
  if (im.kernel != CrowdKernel::StaticGrid) {
    for (DeviceBuffer<float2>* b : {&im.sorted_old, &im.sorted_tgt})
      if (!(err = b->reserve(cap)).ok()) return err;
    for (DeviceBuffer<unsigned>* b :
         {&im.key_old, &im.key_tgt, &im.key_old_sorted, &im.key_tgt_sorted, &im.iota, &im.id_old, &im.id_tgt})
      if (!(err = b->reserve(cap)).ok()) return err;
    WM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, im.sort_temp_bytes, im.key_old.get(), im.key_old_sorted.get(),
                                            im.iota.get(), im.id_old.get(), static_cast<int>(cap), 0,
                                            bits_for(im.cells)));
    if (!(err = im.sort_temp.reserve(im.sort_temp_bytes)).ok()) return err;
    if (n > 0) {
      k_iota<<<blocks_for<kThreads>(n), kThreads, 0, im.stream>>>(im.iota.get(), static_cast<int>(n));
      WM_CUDA_LAUNCH(k_iota);
    }
  } else {
    if (n > kMaxStaticGridAgents) return Status::Invalid("gpu-static-grid: at most 2^27 agents");
    if (!(err = im.mark.reserve(cap, true)).ok()) return err;
    im.id_bits = bits_for(static_cast<unsigned>(cap));
    im.tag = 0;  // the grid is cleared before the first tick
  }
  if (n > 0) WM_CUDA(cudaMemcpyAsync(im.pos.get(), positions, n * sizeof(float2), cudaMemcpyHostToDevice, im.stream));
  WM_CUDA(cudaMemsetAsync(im.verdict.get(), 1, cap, im.stream));  // Stayed
  WM_CUDA(cudaStreamSynchronize(im.stream));
  im.n = n;
  return Status::Ok();
}

// Both sorts of gpu-sort and gpu-tiled: cell keys, then ids sorted by old cell and by target cell.
Status CrowdDevice::Impl::sort_by_cell(const float2* p, int ni) {
  cudaStream_t s = stream;
  k_hash<<<blocks_for<kThreads>(ni), kThreads, 0, s>>>(pos.get(), p, ni, g, key_old.get(), key_tgt.get());
  WM_CUDA_LAUNCH(k_hash);
  const int bits = bits_for(cells);
  std::size_t temp = sort_temp_bytes;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(sort_temp.get(), temp, key_old.get(), key_old_sorted.get(), iota.get(),
                                          id_old.get(), ni, 0, bits, s));
  temp = sort_temp_bytes;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(sort_temp.get(), temp, key_tgt.get(), key_tgt_sorted.get(), iota.get(),
                                          id_tgt.get(), ni, 0, bits, s));
  return Status::Ok();
}

Status CrowdDevice::Impl::step_sort(const float2* p, int ni) {
  cudaStream_t s = stream;
  Status err = sort_by_cell(p, ni);
  if (!err.ok()) return err;
  WM_CUDA(cudaMemsetAsync(start_old.get(), 0xff, cells * sizeof(unsigned), s));
  WM_CUDA(cudaMemsetAsync(start_tgt.get(), 0xff, cells * sizeof(unsigned), s));
  k_ranges<<<blocks_for<kThreads>(ni), kThreads, 0, s>>>(key_old_sorted.get(), id_old.get(), pos.get(), ni,
                                                         start_old.get(), end_old.get(), sorted_old.get());
  WM_CUDA_LAUNCH(k_ranges);
  k_ranges<<<blocks_for<kThreads>(ni), kThreads, 0, s>>>(key_tgt_sorted.get(), id_tgt.get(), p, ni, start_tgt.get(),
                                                         end_tgt.get(), sorted_tgt.get());
  WM_CUDA_LAUNCH(k_ranges);
  const Index olds{start_old.get(), end_old.get(), id_old.get(), sorted_old.get()};
  const Index tgts{start_tgt.get(), end_tgt.get(), id_tgt.get(), sorted_tgt.get()};
  k_check<<<blocks_for<kThreads>(ni), kThreads, 0, s>>>(pos.get(), p, radii(), ni, g, judged(), olds, tgts, lowest,
                                                        tick, verdict.get(), counts.get());
  WM_CUDA_LAUNCH(k_check);
  return Status::Ok();
}

Status CrowdDevice::Impl::step_tiled(const float2* p, int ni) {
  cudaStream_t s = stream;
  Status err = sort_by_cell(p, ni);
  if (!err.ok()) return err;
  const int cb = blocks_for<kThreads>(static_cast<std::size_t>(cells) + 1);
  k_run_starts<<<cb, kThreads, 0, s>>>(static_cast<unsigned>(ni), cells, key_old_sorted.get(), first_old.get());
  WM_CUDA_LAUNCH(k_run_starts);
  k_run_starts<<<cb, kThreads, 0, s>>>(static_cast<unsigned>(ni), cells, key_tgt_sorted.get(), first_tgt.get());
  WM_CUDA_LAUNCH(k_run_starts);
  k_gather<<<blocks_for<kThreads>(ni), kThreads, 0, s>>>(id_old.get(), pos.get(), ni, sorted_old.get());
  WM_CUDA_LAUNCH(k_gather);
  k_gather<<<blocks_for<kThreads>(ni), kThreads, 0, s>>>(id_tgt.get(), p, ni, sorted_tgt.get());
  WM_CUDA_LAUNCH(k_gather);
  const dim3 tiles((g.cells_x + kTile - 1) / kTile, (g.cells_y + kTile - 1) / kTile);
  k_tiled_check<<<tiles, kThreads, 0, s>>>(pos.get(), radii(), g, judged(), sorted_old.get(), id_old.get(),
                                           first_old.get(), sorted_tgt.get(), id_tgt.get(), key_tgt_sorted.get(),
                                           first_tgt.get(), lowest, tick, verdict.get(), counts.get());
  WM_CUDA_LAUNCH(k_tiled_check);
  return Status::Ok();
}

Status CrowdDevice::Impl::step_static_grid(const float2* p, int ni) {
  cudaStream_t s = stream;
  const int b = blocks_for<kThreads>(ni);
  if (tag == 0) {
    WM_CUDA(cudaMemsetAsync(slot.get(), 0xff, 2 * sg_cells * sizeof(unsigned), s));
    k_sg_old<<<b, kThreads, 0, s>>>(pos.get(), ni, g, slot.get());
    WM_CUDA_LAUNCH(k_sg_old);
    // Tags count down from at most 255 (all-ones is the empty key): a clear at least every 255 ticks,
    // a few microseconds amortised to nothing, and a path every long test exercises.
    tag = std::min(1u << (32 - id_bits), 256u) - 1;
  }
  if (avoid) {  // the targets are the candidates chosen against the old positions (their slots are current)
    // One thread's long chain per agent: a small crowd splits each agent's window over 2, 4 or 8 threads
    // so that it fills every SM (the choice does not depend on the split).
    int lanes = 1;
    while (lanes < 8 && blocks_of(static_cast<std::size_t>(ni) * lanes, kThreads) < 2 * static_cast<std::size_t>(sms))
      lanes *= 2;
    const auto pick = [&](auto sized_tag) {
      constexpr bool S = decltype(sized_tag)::value;
      return lanes == 1   ? k_sg_avoid<1, S>
             : lanes == 2 ? k_sg_avoid<2, S>
             : lanes == 4 ? k_sg_avoid<4, S>
                          : k_sg_avoid<8, S>;
    };
    const auto kernel = sized ? pick(std::true_type{}) : pick(std::false_type{});
    kernel<<<blocks_of(static_cast<std::size_t>(ni) * lanes, kThreads), kThreads, 0, s>>>(
        pos.get(), p, limit.get(), radii(), ni, g, reach, grid.get(), reinterpret_cast<const uint2*>(slot.get()),
        chosen.get(), fallback.get());
    WM_CUDA_LAUNCH(k_sg_avoid);
    p = chosen.get();
  }
  --tag;
  const SlotKeys keys{tag << id_bits, (1u << id_bits) - 1};
  k_sg_write<<<b, kThreads, 0, s>>>(p, ni, g, keys, lowest, slot.get());
  WM_CUDA_LAUNCH(k_sg_write);
  const int tiles_x = (g.sg_cols + kTileW - 1) / kTileW, tiles = tiles_x * ((g.sg_rows + kTileH - 1) / kTileH);
  // The scan and the verdict are scheduled while the kernel before them drains (they wait for it first).
  const auto scan = !sized             ? k_sg_scan<2, false>
                    : g.sg_window == 2 ? k_sg_scan<2, true>
                    : g.sg_window == 3 ? k_sg_scan<3, true>
                    : g.sg_window == 4 ? k_sg_scan<4, true>
                    : g.sg_window == 5 ? k_sg_scan<5, true>
                                       : k_sg_scan<6, true>;
  WM_CUDA(launch_dependent(scan, tiles + b, kThreads, s, pos.get(), p, radii(), ni, g, keys, tick, lowest, tiles_x,
                           tiles, reinterpret_cast<const uint2*>(slot.get()), mark.get()));
  WM_CUDA(launch_dependent(k_sg_verdict, b, kThreads, s, pos.get(), p, ni, g, tick, judged(),
                           static_cast<const unsigned*>(mark.get()), verdict.get(), counts.get(), slot.get()));
  return Status::Ok();
}

Status CrowdDevice::step_device(const float* proposals, std::size_t n) {
  Impl& im = *impl_;
  if (n != im.n) return Status::Invalid("step: agent count differs from reset");
  ++im.tick;
  if (n == 0) return Status::Ok();
  const auto* p = reinterpret_cast<const float2*>(proposals);
  const int ni = static_cast<int>(n);
  switch (im.kernel) {
    case CrowdKernel::Sort:
      return im.step_sort(p, ni);
    case CrowdKernel::Tiled:
      return im.step_tiled(p, ni);
    case CrowdKernel::StaticGrid:
      break;
  }
  return im.step_static_grid(p, ni);
}

Status CrowdDevice::retain(const std::uint8_t* keep_host, std::size_t n, std::size_t kept) {
  Impl& im = *impl_;
  if (n != im.n) return Status::Invalid("retain: agent count differs from reset");
  if (n == 0) return Status::Ok();
  WM_RETURN_IF_ERROR(im.keep.reserve(n));
  WM_RETURN_IF_ERROR(im.pin_in.upload(im.keep.get(), keep_host, n, im.stream));
  return retain_device(im.keep.get(), n, kept);
}

Status CrowdDevice::retain_device(const std::uint8_t* keep_device, std::size_t n, std::size_t kept,
                                  std::uint8_t* keep_copy) {
  Impl& im = *impl_;
  if (n != im.n) return Status::Invalid("retain: agent count differs from reset");
  if (n == 0) return Status::Ok();
  if (keep_copy) {  // the flags to the host first (the caller's ids follow them), `kept` checked against them
    WM_CUDA(cudaMemcpyAsync(keep_copy, keep_device, n, cudaMemcpyDeviceToHost, im.stream));
    WM_CUDA(cudaStreamSynchronize(im.stream));
    if (static_cast<std::size_t>(std::count_if(keep_copy, keep_copy + n, [](std::uint8_t k) { return k != 0; })) !=
        kept)
      return Status::Invalid("retain: `kept` differs from the number of flags set");
  }
  WM_RETURN_IF_ERROR(im.kept.reserve(1));
  // Survivors, in order, into the proposal buffer (free between ticks), then back; the maximum steps likewise.
  const auto select = [&](auto* data) -> Status {
    auto* tmp = reinterpret_cast<decltype(data)>(im.prop.get());
    std::size_t temp = 0;
    WM_CUDA(cub::DeviceSelect::Flagged(nullptr, temp, data, keep_device, tmp, im.kept.get(), static_cast<int>(n),
                                       im.stream));
    WM_RETURN_IF_ERROR(im.select_temp.reserve(std::max<std::size_t>(temp, 1)));
    WM_CUDA(cub::DeviceSelect::Flagged(im.select_temp.get(), temp, data, keep_device, tmp, im.kept.get(),
                                       static_cast<int>(n), im.stream));
    if (kept > 0) WM_CUDA(cudaMemcpyAsync(data, tmp, kept * sizeof(*data), cudaMemcpyDeviceToDevice, im.stream));
    return Status::Ok();
  };
  WM_RETURN_IF_ERROR(select(im.pos.get()));
  if (im.limited) WM_RETURN_IF_ERROR(select(im.limit.get()));
  if (im.sized) WM_RETURN_IF_ERROR(select(im.radius.get()));
  WM_CUDA(cudaMemsetAsync(im.verdict.get(), 1, std::max<std::size_t>(kept, 1), im.stream));  // Stayed
  WM_CUDA(cudaStreamSynchronize(im.stream));
  im.n = kept;
  if (im.kernel == CrowdKernel::StaticGrid) im.tag = 0;  // ids changed: wipe the slots before the next tick
  return Status::Ok();
}

Status CrowdDevice::fetch_counts(CrowdCounts& counts) const {
  const Impl& im = *impl_;
  for (std::size_t& c : counts.by_verdict) c = 0;
  if (im.n == 0 || im.tick == 0) return Status::Ok();
  unsigned long long host[kVerdicts];
  WM_CUDA(cudaMemcpyAsync(host, im.counts.get() + (im.tick & 1) * kVerdicts, sizeof host, cudaMemcpyDeviceToHost,
                          im.stream));
  WM_CUDA(cudaStreamSynchronize(im.stream));
  for (int v = 0; v < kVerdicts; ++v) counts.by_verdict[v] = static_cast<std::size_t>(host[v]);
  return Status::Ok();
}

Status CrowdDevice::step(const float* proposals, std::size_t n, CrowdCounts& counts) {
  Impl& im = *impl_;
  if (n != im.n) return Status::Invalid("step: agent count differs from reset");
  Status err = im.pin_in.upload(im.prop.get(), proposals, n * sizeof(float2), im.stream);
  if (!err.ok()) return err;
  err = step_device(reinterpret_cast<const float*>(im.prop.get()), n);
  if (!err.ok()) return err;
  return fetch_counts(counts);
}

const float* CrowdDevice::positions() const { return reinterpret_cast<const float*>(impl_->pos.get()); }
const std::uint8_t* CrowdDevice::verdicts() const { return impl_->verdict.get(); }

Status CrowdDevice::download_positions(float* out) const {
  return impl_->pin_out.download(out, impl_->pos.get(), impl_->n * sizeof(float2), impl_->stream);
}

Status CrowdDevice::download_verdicts(std::uint8_t* out) const {
  if (impl_->n == 0) return Status::Ok();
  WM_CUDA(cudaMemcpyAsync(out, impl_->verdict.get(), impl_->n, cudaMemcpyDeviceToHost, impl_->stream));
  WM_CUDA(cudaStreamSynchronize(impl_->stream));
  return Status::Ok();
}

}  // namespace warpmind::gpu
