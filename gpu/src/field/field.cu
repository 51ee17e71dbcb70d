// CUDA potential-field kernels: the seed's naive, coalesced and shared-memory variants and the binned
// variant, plus batched queries. The arithmetic that defines a field value uses explicitly rounded
// intrinsics (no fused multiply-add) so each contribution equals the host's bit for bit; sums are exact
// 64-bit integers (see ai/include/warpmind/field/field.h).
//
// [SECTION] exact arithmetic     [SECTION] seed variants     [SECTION] binned variant
// [SECTION] queries              [SECTION] FieldDevice

#include <algorithm>
#include <cstdint>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "field/field_device.h"

namespace warpmind::gpu {
namespace {

constexpr int kThreads = 256;
// Binned: above this many possible records a layer reads the exact total back instead of reserving
// the bound (and such builds are not captured into a graph).
constexpr std::size_t kDirectRecordLimit = std::size_t{8} << 20;

struct KindSet {
  FieldKind k[field::kMaxKinds];
  float cut2_guard[field::kMaxKinds];  // a little above cutoff^2: a cheap, conservative pre-filter
  float cut[field::kMaxKinds];         // cutoff
};
// A layer's group -> kind map lives in device memory: indexing a by-value parameter array with a
// run-time index would copy it to local memory in every thread.
using GroupMap = const std::int16_t*;

// ---- [SECTION] exact arithmetic ------------------------------------------------------------------

// The arithmetic is ai/src/field/field_rules.h's, shared with the CPU variants.
using field::rules::dequantize;
using field::rules::quantize;
using field::rules::snap;
__device__ __forceinline__ float dist2_d(int dx, int dy, const FieldGrid& g) {
  return field::rules::distance2(dx, dy, g.cell_w, g.cell_h);
}
__device__ __forceinline__ float kind_value_d(const FieldKind& k, float d) {
  return field::rules::kind_value(k.profile, d);
}

__device__ __forceinline__ int entity_kind(const float4& e, GroupMap map) {
  const unsigned group = __float_as_uint(e.z);
  return group < field::kMaxGroups ? __ldg(map + group) : -1;
}

// ---- [SECTION] seed variants ---------------------------------------------------------------------

struct Inst12 {  // the seed's 12-byte record
  int ix, iy, kind;
};

__device__ __forceinline__ Inst12 load_inst(const Inst12* p) { return *p; }
__device__ __forceinline__ Inst12 load_inst(const int4* p) {
  const int4 v = *p;  // one 16-byte load
  return {v.x, v.y, v.z};
}

__global__ void k_expand12(const float4* ent, int n, FieldGrid g, GroupMap map, Inst12* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 e = ent[i];
  out[i] = {snap(e.x, g.x0, g.cell_w), snap(e.y, g.y0, g.cell_h), entity_kind(e, map)};
}

__global__ void k_expand16(const float4* ent, int n, FieldGrid g, GroupMap map, int4* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 e = ent[i];
  out[i] = make_int4(snap(e.x, g.x0, g.cell_w), snap(e.y, g.y0, g.cell_h), entity_kind(e, map), 0);
}

__device__ __forceinline__ long long contribution(const Inst12& r, int x, int y, const FieldGrid& g,
                                                  const KindSet& ks) {
  if (r.kind < 0) return 0;
  const float d2 = dist2_d(x - r.ix, y - r.iy, g);
  if (d2 > ks.cut2_guard[r.kind]) return 0;
  return quantize(kind_value_d(ks.k[r.kind], __fsqrt_rn(d2)));
}

// Algorithm 3 (and, with int4 records, the coalesced variant): one thread per cell, every entity.
template <class Rec>
__global__ void k_naive(const Rec* inst, int n, FieldGrid g, KindSet ks, float* out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.width || y >= g.height) return;
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += contribution(load_inst(inst + i), x, y, g, ks);
  out[static_cast<size_t>(y) * g.width + x] = dequantize(sum);
}

// Algorithm 4: records staged through shared memory one block-sized segment at a time.
__global__ void __launch_bounds__(kThreads) k_shared(const int4* inst, int n, FieldGrid g, KindSet ks, float* out) {
  __shared__ int4 seg[kThreads];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  long long sum = 0;
  for (int base = 0; base < n; base += kThreads) {
    __syncthreads();
    seg[tid] = base + tid < n ? inst[base + tid] : make_int4(0, 0, -1, 0);
    __syncthreads();
    const int m = min(kThreads, n - base);
    for (int j = 0; j < m; ++j) {
      const int4 r = seg[j];
      sum += contribution({r.x, r.y, r.z}, x, y, g, ks);
    }
  }
  if (x < g.width && y < g.height) out[static_cast<size_t>(y) * g.width + x] = dequantize(sum);
}

// ---- [SECTION] binned variant --------------------------------------------------------------------
// Per layer: count the tiles each charge reaches, give each tile a segment, scatter charge records into it,
// then one warp per 32x32 tile sums its list by table lookups. Record: {ix, iy, table offset,
// rx | ry << 16}. Integer sums make the list order irrelevant, so atomics keep results deterministic.
// Binning runs one thread per (charge, tile of its bounding box) slot: with one thread per charge, a
// few thousand large charges leave most of the GPU idle behind chains of dependent atomics.

struct TileGeom {
  int tiles_x, tiles_y;
};

// Whether the `slot`-th tile of entity e's bounding box is reached by its charge (the tile's nearest
// cell lies within the cut-off); if so, the tile and the record. `slots` bounds the tiles of any box.
__device__ __forceinline__ bool visit_slot(const float4& e, int slot, const FieldGrid& g, GroupMap map,
                                           const KindSet& ks, const TileGeom& tg, int& tile, int4& record) {
  const int kind = entity_kind(e, map);
  if (kind < 0) return false;
  // Scalar loads from the parameter block (a reference to ks.k[kind] would copy it to local memory).
  const int rx = ks.k[kind].rx, ry = ks.k[kind].ry;
  const int ix = snap(e.x, g.x0, g.cell_w), iy = snap(e.y, g.y0, g.cell_h);
  const int x0 = max(0, ix - rx), x1 = min(g.width - 1, ix + rx);
  const int y0 = max(0, iy - ry), y1 = min(g.height - 1, iy + ry);
  if (x0 > x1 || y0 > y1) return false;
  const int tx0 = x0 / kFieldTile, nx = x1 / kFieldTile - tx0 + 1;
  const int ty0 = y0 / kFieldTile, ny = y1 / kFieldTile - ty0 + 1;
  if (slot >= nx * ny) return false;
  const int tx = tx0 + slot % nx, ty = ty0 + slot / nx;
  const int cx = min(max(ix, tx * kFieldTile), min(tx * kFieldTile + kFieldTile - 1, g.width - 1));
  const int cy = min(max(iy, ty * kFieldTile), min(ty * kFieldTile + kFieldTile - 1, g.height - 1));
  if (!(__fsqrt_rn(dist2_d(cx - ix, cy - iy, g)) <= ks.cut[kind])) return false;
  tile = ty * tg.tiles_x + tx;
  record = make_int4(ix, iy, ks.k[kind].table_offset, rx | (ry << 16));
  return true;
}

// The (entity, slot) pairs, slot-major (thread s: slot s / n of entity s % n), so a warp holds the
// same slot of 32 consecutive entities: neighbours in the entity list (a game's units usually are)
// reach the same tiles, and each warp makes one atomic per distinct tile (lanes grouped by
// __match_any_sync) instead of one per record — crowded tiles otherwise serialise thousands of them.
// Calls f(tile, record, lanes with this tile, this lane's rank among them) for each lane with a record;
// every lane of a warp runs the loop the same number of times.
template <class F>
__device__ __forceinline__ void for_each_slot(const float4* ent, int n, long long slots_total, const FieldGrid& g,
                                              GroupMap map, const KindSet& ks, const TileGeom& tg, F&& f) {
  const unsigned lane = threadIdx.x & 31;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long s0 = blockIdx.x * static_cast<long long>(blockDim.x) + (threadIdx.x & ~31u); s0 < slots_total;
       s0 += stride) {
    const long long s = s0 + lane;
    int tile = 0;
    int4 record{};
    const bool hit = s < slots_total && visit_slot(ent[s % n], static_cast<int>(s / n), g, map, ks, tg, tile, record);
    const unsigned peers = __match_any_sync(0xffffffffu, hit ? tile : static_cast<int>(0x80000000u | lane));
    if (hit) f(tile, record, peers, __popc(peers & ((1u << lane) - 1)));
  }
}

__global__ void k_bin_count(const float4* ent, int n, long long slots_total, FieldGrid g, GroupMap map, KindSet ks,
                            TileGeom tg, unsigned* count, unsigned* cursor) {
  // segment cursor, heavy-tile count, and the accumulate's two work cursors (heavy tiles, tiles)
  if (blockIdx.x == 0 && threadIdx.x == 0) cursor[0] = cursor[1] = cursor[2] = cursor[3] = 0;
  for_each_slot(ent, n, slots_total, g, map, ks, tg, [&](int t, int4, unsigned peers, int rank) {
    if (rank == 0) atomicAdd(count + t, static_cast<unsigned>(__popc(peers)));
  });
}

// Gives every tile a contiguous segment of the record array: a warp adds up its 32 tiles' counts with
// shuffles and takes one segment for all of them from a bump cursor. Segments land in any order, which
// is fine: sums are exact integers. Tiles with more than `heavy` records are listed for the block-wide
// path of k_bin_accumulate. `cursor` and `heavy_count` must be zero on entry (k_bin_count clears them).
__global__ void k_bin_alloc(const unsigned* count, int ntiles, unsigned heavy, unsigned* cursor, uint2* range,
                            unsigned* heavy_count, unsigned* heavy_list) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  const unsigned c = t < ntiles ? count[t] : 0u;
  unsigned incl = c;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const unsigned v = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= static_cast<unsigned>(d)) incl += v;
  }
  unsigned base = 0;
  if (lane == 31) base = atomicAdd(cursor, incl);
  base = __shfl_sync(0xffffffffu, base, 31);
  if (t < ntiles) range[t] = make_uint2(base + incl - c, base + incl);
  if (c > heavy) heavy_list[atomicAdd(heavy_count, 1u)] = t;
}

// Leaves `count` all zero again, ready for the next build.
__global__ void k_bin_fill(const float4* ent, int n, long long slots_total, FieldGrid g, GroupMap map, KindSet ks,
                           TileGeom tg, unsigned* count, const uint2* range, int4* rec) {
  for_each_slot(ent, n, slots_total, g, map, ks, tg, [&](int t, int4 r, unsigned peers, int rank) {
    const int leader = __ffs(peers) - 1;
    unsigned left = 0;
    if (rank == 0) left = atomicSub(count + t, static_cast<unsigned>(__popc(peers)));
    left = __shfl_sync(peers, left, leader);
    rec[range[t].x + left - 1u - static_cast<unsigned>(rank)] = r;
  });
}

// Accumulate: persistent blocks. First the heavy tiles (more than `heavy` records: where charges pile
// up), one at a time per block, taken from a work cursor: the block's 32 warps split the tile's records,
// each summing its share in registers (lane = column, the 32 rows in registers) in int32 pieces of at
// most `chunk` records and adding them into the tile's 64-bit sums in shared memory. Then the other
// tiles, one per warp, taken from a second cursor, summed in int32 registers and stored. So a few
// crowded tiles no longer leave most SMs idle while one warp each grinds through them.
// On the device each table is stored two-sided in y — rows -ry..ry plus 8 zero rows on each side, pitch
// rx + 2, column rx + 1 zero — so a record's rows are one interval [qlo, qhi] of the tile and
// consecutive rows are one pitch apart: a lookup is a pointer step, a load and an add. Rows come in
// blocks of 8: blocks missing the interval are skipped (a warp-uniform branch), the others run without
// predicates, reading zeros from the padding where they overhang. The layer's tables are staged once
// per block into shared memory when they fit, else read through L1. int32 sums are exact for up to
// `chunk` records (chunk * max|entry| < 2^31), and `heavy` <= chunk.
constexpr int kRowBlock = 8;
constexpr unsigned kHeavyRecords = 128;   // a tile with more records is summed by a whole block
constexpr int kAccumulateThreads = 1024;  // 32 warps share one staged copy of the tables

// kPitch: the table row pitch when it is a compile-time constant (the device layout pads every row to
// it), so the row steps fold into the loads' immediate offsets; 0: `pitch` at run time (rx + 2 when 0).
template <bool kShared, int kPitch, class Acc>
__device__ __forceinline__ void add_record(const int4 r, const int* t, int x, int ty0, int layout_pitch,
                                           Acc (&acc)[kFieldTile]) {
  const int rx = r.w & 0xffff, ry = r.w >> 16;
  const int pitch = kPitch ? kPitch : (layout_pitch ? layout_pitch : rx + 2);
  const int dy0 = ty0 - r.y;  // row q of the tile lies dy0 + q rows from the charge
  const int qlo = max(0, -ry - dy0), qhi = min(kFieldTile - 1, ry - dy0);
  // r.z is the table's first row, kRowBlock zero rows above dy = -ry: a block of rows that touches the
  // interval stays inside the zero padding, so no row needs a predicate. The column side is folded
  // (|dx|, capped at the zero column rx + 1).
  const int* p = t + r.z + (dy0 + ry + kRowBlock) * pitch + min(abs(x - r.x), rx + 1);
#pragma unroll
  for (int b = 0; b < kFieldTile; b += kRowBlock) {
    if (b + kRowBlock - 1 < qlo || b > qhi) continue;
#pragma unroll
    for (int q = b; q < b + kRowBlock; ++q) {
      if constexpr (kShared)
        acc[q] += p[q * pitch];
      else
        acc[q] += __ldg(p + q * pitch);
    }
  }
}

template <bool kShared, int kPitch>
__global__ void __launch_bounds__(kAccumulateThreads)
    k_bin_accumulate(const int4* __restrict__ rec, const uint2* __restrict__ range, const int* __restrict__ tables,
                     int table_len, FieldGrid g, TileGeom tg, unsigned chunk, unsigned heavy,
                     const unsigned* __restrict__ heavy_list, unsigned* cursor, float* __restrict__ out) {
  extern __shared__ int staged[];
  __shared__ unsigned long long tile_sum[kFieldTile * kFieldTile];  // a heavy tile's sums (two's complement)
  __shared__ unsigned heavy_index;
  const int* t = tables;
  if constexpr (kShared) {
    for (int i = threadIdx.x; i < table_len; i += blockDim.x) staged[i] = __ldg(tables + i);
    __syncthreads();
    t = staged;
  }
  const int lane = threadIdx.x % kFieldTile, warp = threadIdx.x / kFieldTile;
  const int warps = blockDim.x / kFieldTile;
  const unsigned heavy_tiles = cursor[1];
  for (;;) {  // heavy tiles, a block each
    if (threadIdx.x == 0) heavy_index = atomicAdd(cursor + 2, 1u);
    tile_sum[threadIdx.x] = 0;
    __syncthreads();
    const unsigned h = heavy_index;
    if (h >= heavy_tiles) break;  // block-uniform
    const unsigned tile = heavy_list[h];
    const int x = (tile % tg.tiles_x) * kFieldTile + lane;
    const int ty0 = (tile / tg.tiles_x) * kFieldTile;
    const unsigned begin = range[tile].x, end = range[tile].y;
    const unsigned share = (end - begin + warps - 1) / warps;
    const unsigned mine = begin + min(end - begin, share * warp),
                   mine_end = begin + min(end - begin, share * (warp + 1));
    for (unsigned piece = mine; piece < mine_end; piece += chunk) {
      int acc[kFieldTile];
#pragma unroll
      for (int q = 0; q < kFieldTile; ++q) acc[q] = 0;
      for (unsigned i = piece, e = min(mine_end, piece + chunk); i < e; ++i)
        add_record<kShared, kPitch>(rec[i], t, x, ty0, 0, acc);
#pragma unroll
      for (int q = 0; q < kFieldTile; ++q)
        if (acc[q])
          atomicAdd(&tile_sum[q * kFieldTile + lane], static_cast<unsigned long long>(static_cast<long long>(acc[q])));
    }
    __syncthreads();
    {
      const int q = threadIdx.x / kFieldTile, cx = (tile % tg.tiles_x) * kFieldTile + lane;
      if (cx < g.width && ty0 + q < g.height)
        out[static_cast<size_t>(ty0 + q) * g.width + cx] = dequantize(static_cast<long long>(tile_sum[threadIdx.x]));
    }
    __syncthreads();  // tile_sum and heavy_index are reused
  }
  const int ntiles = tg.tiles_x * tg.tiles_y;
  for (;;) {  // the other tiles, a warp each
    unsigned tile = 0;
    if (lane == 0) tile = atomicAdd(cursor + 3, 1u);
    tile = __shfl_sync(0xffffffffu, tile, 0);
    if (tile >= static_cast<unsigned>(ntiles)) break;
    const unsigned begin = range[tile].x, end = range[tile].y;
    if (end - begin > heavy) continue;  // done above
    const int x = (tile % tg.tiles_x) * kFieldTile + lane;
    const int ty0 = (tile / tg.tiles_x) * kFieldTile;
    int acc[kFieldTile];
#pragma unroll
    for (int q = 0; q < kFieldTile; ++q) acc[q] = 0;
    if (begin < end) {
      int4 next = rec[begin];
      for (unsigned i = begin; i < end; ++i) {
        const int4 r = next;
        if (i + 1 < end) next = rec[i + 1];  // the next record's load overlaps this one's lookups
        add_record<kShared, kPitch>(r, t, x, ty0, 0, acc);
      }
    }
    if (x < g.width) {
#pragma unroll
      for (int q = 0; q < kFieldTile; ++q)
        if (ty0 + q < g.height) out[static_cast<size_t>(ty0 + q) * g.width + x] = dequantize(acc[q]);
    }
  }
}

// ---- [SECTION] queries ---------------------------------------------------------------------------

// One query per thread: ai/src/field/field_rules.h's sample, best move and gradient (the CPU variants run the same).
using QueryView = field::rules::LayerView;

__global__ void k_sample(QueryView v, const Vec2* p, int n, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = field::rules::sample(v, p[i]);
}

__global__ void k_best_move(QueryView v, const Vec2* p, int n, int half, field::MoveChoice* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = field::rules::best_move(v, p[i], half);
}

__global__ void k_gradient(QueryView v, const Vec2* p, int n, Vec2* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = field::rules::gradient(v, p[i]);
}

}  // namespace

// ---- [SECTION] FieldDevice -----------------------------------------------------------------------

using AccumulateKernel = void (*)(const int4*, const uint2*, const int*, int, FieldGrid, TileGeom, unsigned, unsigned,
                                  const unsigned*, unsigned*, float*);

AccumulateKernel pick_accumulate(bool shared, int pitch) {
  switch (pitch) {
    case 32:
      return shared ? k_bin_accumulate<true, 32> : k_bin_accumulate<false, 32>;
    case 64:
      return shared ? k_bin_accumulate<true, 64> : k_bin_accumulate<false, 64>;
    case 128:
      return shared ? k_bin_accumulate<true, 128> : k_bin_accumulate<false, 128>;
    case 256:
      return shared ? k_bin_accumulate<true, 256> : k_bin_accumulate<false, 256>;
    default:
      return shared ? k_bin_accumulate<true, 0> : k_bin_accumulate<false, 0>;
  }
}

struct FieldDevice::Impl {
  cudaStream_t stream = nullptr;
  FieldKernel kernel{};
  FieldGrid grid{};
  KindSet kinds{};
  DeviceBuffer<std::int16_t> maps;  // layer_count * field::kMaxGroups
  std::vector<FieldLayerMap> layer_info;
  TileGeom tiles{};
  std::size_t cells = 0;

  DeviceBuffer<int> tables;
  DeviceBuffer<float> layers;    // layer_count * cells
  DeviceBuffer<float4> staging;  // host entities land here
  DeviceBuffer<Inst12> inst12;   // seed variants' expanded records
  DeviceBuffer<int4> inst16;
  DeviceBuffer<unsigned> tile_count;  // binned: per tile, zero between builds
  DeviceBuffer<uint2> tile_range;     // binned: [begin, end) of each tile's records
  DeviceBuffer<unsigned> cursor;      // binned: [0] next free record (bump allocator), [1] tiles in heavy_list,
                                      // [2], [3] the accumulate's work cursors
  DeviceBuffer<int4> records;         // binned: per-tile charge lists
  int table_len = 0;
  std::size_t table_bytes = 0;
  bool shared_tables = false;  // the tables fit in shared memory next to nothing else
  int accumulate_blocks = 0;
  int layout_pitch = 0;  // device table row pitch; 0: each kind's rx + 2
  AccumulateKernel accumulate = nullptr;
  DeviceBuffer<unsigned> heavy_list;  // binned: tiles summed by a whole block
  DeviceBuffer<Vec2> q_points;
  DeviceBuffer<unsigned char> q_out;
  mutable PinnedBuffer q_pin_in, q_pin_out;  // host transfers: entities and query points in, results out
  mutable DeviceBuffer<unsigned> reduce;     // max_abs: the largest |value|'s bits
  DeviceBuffer<float4> point_entities;       // build_points: the records assembled on the device

  // Steady state: the second build from the same device pointer and count is captured into a CUDA
  // graph and every later one replays it: one submission instead of four or five launches per layer.
  // The capture runs on a private stream: the context's stream may be shared with other threads, whose
  // work would otherwise be caught in (and break) the capture. The graph is launched on `stream`.
  const void* last_ent = nullptr;
  std::size_t last_n = 0;
  cudaGraphExec_t graph = nullptr;
  cudaStream_t capture = nullptr;

  ~Impl() {
    if (graph) cudaGraphExecDestroy(graph);
    if (capture) cudaStreamDestroy(capture);
  }
  Status build_layer(int l, const float4* ent, int n);
  Status build_all(const float4* ent, int n);
  bool capturable(int n) const;
};

Status FieldDevice::create(void* stream, const FieldSetup& s, std::unique_ptr<FieldDevice>& out) {
  if (s.kinds.empty() || s.kinds.size() > static_cast<std::size_t>(field::kMaxKinds))
    return Status::Invalid("bad kind count");
  std::unique_ptr<FieldDevice> d(new FieldDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  im.kernel = s.kernel;
  im.grid = s.grid;
  for (std::size_t k = 0; k < s.kinds.size(); ++k) {
    im.kinds.k[k] = s.kinds[k];
    const float c = s.kinds[k].profile.cutoff();
    im.kinds.cut2_guard[k] = c * c * 1.001f + 1e-30f;
    im.kinds.cut[k] = c;
  }
  std::vector<std::int16_t> maps;
  for (const FieldLayerMap& m : s.layers)
    maps.insert(maps.end(), std::begin(m.kind_of_group), std::end(m.kind_of_group));
  im.layer_info = s.layers;
  im.tiles = {(s.grid.width + kFieldTile - 1) / kFieldTile, (s.grid.height + kFieldTile - 1) / kFieldTile};
  im.cells = static_cast<std::size_t>(s.grid.width) * s.grid.height;

  // Device tables are two-sided in y (rows -ry..ry) with zero padding: see k_bin_accumulate. Rows are
  // padded to one compile-time pitch when every kind fits in 256 columns. The host's tables are one
  // quadrant with a zero row and column; kinds' table_offset is re-based onto the device layout.
  int widest = 0;
  for (const FieldKind& fk : s.kinds) widest = std::max(widest, fk.rx + 2);
  im.layout_pitch = 0;
  for (int p : {32, 64, 128, 256})
    if (im.layout_pitch == 0 && widest <= p) im.layout_pitch = p;
  std::vector<int> tables;
  for (std::size_t k = 0; k < s.kinds.size(); ++k) {
    FieldKind& fk = im.kinds.k[k];
    const int width = fk.rx + 2, pitch = im.layout_pitch ? im.layout_pitch : width;
    const int offset = static_cast<int>(tables.size());
    tables.insert(tables.end(), static_cast<std::size_t>(kRowBlock) * pitch, 0);
    for (int dy = -fk.ry; dy <= fk.ry; ++dy) {
      const auto row = s.tables.begin() + fk.table_offset + static_cast<std::ptrdiff_t>(dy < 0 ? -dy : dy) * width;
      tables.insert(tables.end(), row, row + width);
      tables.insert(tables.end(), static_cast<std::size_t>(pitch - width), 0);
    }
    tables.insert(tables.end(), static_cast<std::size_t>(kRowBlock) * pitch, 0);
    fk.table_offset = offset;
  }
  Status err;
  if (!(err = im.maps.reserve(maps.size())).ok()) return err;
  WM_CUDA(cudaMemcpy(im.maps.get(), maps.data(), maps.size() * sizeof(std::int16_t), cudaMemcpyHostToDevice));
  if (!(err = im.tables.reserve(tables.size())).ok()) return err;
  WM_CUDA(cudaMemcpy(im.tables.get(), tables.data(), tables.size() * sizeof(int), cudaMemcpyHostToDevice));
  if (!(err = im.layers.reserve(im.cells * s.layers.size())).ok()) return err;
  WM_CUDA(cudaMemset(im.layers.get(), 0, im.cells * s.layers.size() * sizeof(float)));
  if (s.kernel == FieldKernel::Binned) {
    const std::size_t tiles = static_cast<std::size_t>(im.tiles.tiles_x) * im.tiles.tiles_y;
    if (!(err = im.tile_count.reserve(tiles, true)).ok()) return err;
    if (!(err = im.tile_range.reserve(tiles)).ok()) return err;
    if (!(err = im.cursor.reserve(4, true)).ok()) return err;
    if (!(err = im.heavy_list.reserve(tiles)).ok()) return err;
    // Persistent accumulate grid: as many blocks as fit on the device at once.
    int dev = 0, sms = 0, smem_optin = 0;
    WM_CUDA(cudaGetDevice(&dev));
    WM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    WM_CUDA(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    im.table_len = static_cast<int>(tables.size());
    im.table_bytes = tables.size() * sizeof(int);
    im.shared_tables = im.table_bytes <= std::min<std::size_t>(smem_optin, 160 * 1024);
    int per_sm = 0;
    im.accumulate = pick_accumulate(im.shared_tables, im.layout_pitch);
    const std::size_t smem = im.shared_tables ? im.table_bytes : 0;
    if (im.shared_tables)
      WM_CUDA(cudaFuncSetAttribute(im.accumulate, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    WM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, im.accumulate, kAccumulateThreads, smem));
    const int warps_per_block = kAccumulateThreads / kFieldTile;
    im.accumulate_blocks = std::max(
        1, std::min(sms * std::max(per_sm, 1), (static_cast<int>(tiles) + warps_per_block - 1) / warps_per_block));
  }
  out = std::move(d);
  return Status::Ok();
}

FieldDevice::~FieldDevice() = default;

const float* FieldDevice::layer(int i) const { return impl_->layers.get() + impl_->cells * i; }

Status FieldDevice::Impl::build_layer(int l, const float4* ent, int n) {
  float* out = layers.get() + cells * l;
  const GroupMap map = maps.get() + static_cast<std::size_t>(l) * field::kMaxGroups;
  const dim3 block2d(16, 16);
  const dim3 grid2d((grid.width + 15) / 16, (grid.height + 15) / 16);
  Status err;
  switch (kernel) {
    case FieldKernel::Naive:
      if (!(err = inst12.reserve(std::max(n, 1))).ok()) return err;
      if (n > 0) k_expand12<<<blocks_for<kThreads>(n), kThreads, 0, stream>>>(ent, n, grid, map, inst12.get());
      WM_CUDA_LAUNCH(k_expand12);
      k_naive<<<grid2d, block2d, 0, stream>>>(inst12.get(), n, grid, kinds, out);
      WM_CUDA_LAUNCH(k_naive);
      return Status::Ok();
    case FieldKernel::Coalesced:
    case FieldKernel::Shared:
      if (!(err = inst16.reserve(std::max(n, 1))).ok()) return err;
      if (n > 0) k_expand16<<<blocks_for<kThreads>(n), kThreads, 0, stream>>>(ent, n, grid, map, inst16.get());
      WM_CUDA_LAUNCH(k_expand16);
      if (kernel == FieldKernel::Coalesced)
        k_naive<<<grid2d, block2d, 0, stream>>>(inst16.get(), n, grid, kinds, out);
      else
        k_shared<<<grid2d, block2d, 0, stream>>>(inst16.get(), n, grid, kinds, out);
      WM_CUDA_LAUNCH(k_seed);
      return Status::Ok();
    case FieldKernel::Binned: {
      const int ntiles = tiles.tiles_x * tiles.tiles_y;
      const int slots = std::max(1, std::min(layer_info[l].max_tiles_per_instance, ntiles));
      const long long slots_total = static_cast<long long>(n) * slots;
      // At least one block even without entities: k_bin_count also clears the cursors.
      const int bin_blocks = static_cast<int>(
          std::max<long long>(1, std::min<long long>((slots_total + kThreads - 1) / kThreads, 1 << 16)));
      k_bin_count<<<bin_blocks, kThreads, 0, stream>>>(ent, n, slots_total, grid, map, kinds, tiles, tile_count.get(),
                                                       cursor.get());
      WM_CUDA_LAUNCH(k_bin_count);
      // Records per int32 piece: chunk * max|entry| < 2^31 keeps every sum exact. Tiles with more than
      // `heavy` records are summed by a whole block (64-bit sums), the rest by one warp each.
      const unsigned chunk =
          static_cast<unsigned>(std::max<long long>(1, ((1ll << 31) - 1) / std::max(1, layer_info[l].max_abs_q)));
      const unsigned heavy = std::min(chunk, kHeavyRecords);
      k_bin_alloc<<<blocks_for<kThreads>(ntiles), kThreads, 0, stream>>>(
          tile_count.get(), ntiles, heavy, cursor.get(), tile_range.get(), cursor.get() + 1, heavy_list.get());
      WM_CUDA_LAUNCH(k_bin_alloc);
      // Room for the records: a bound from the kinds' reach, or, when that bound is huge, the exact total.
      std::size_t need = static_cast<std::size_t>(slots_total);
      if (need > kDirectRecordLimit) {
        unsigned total = 0;
        WM_CUDA(cudaMemcpyAsync(&total, cursor.get(), sizeof(unsigned), cudaMemcpyDeviceToHost, stream));
        WM_CUDA(cudaStreamSynchronize(stream));
        need = total;
      }
      if (!(err = records.reserve(std::max<std::size_t>(need, 1))).ok()) return err;
      k_bin_fill<<<bin_blocks, kThreads, 0, stream>>>(ent, n, slots_total, grid, map, kinds, tiles, tile_count.get(),
                                                      tile_range.get(), records.get());
      WM_CUDA_LAUNCH(k_bin_fill);
      accumulate<<<accumulate_blocks, kAccumulateThreads, shared_tables ? table_bytes : 0, stream>>>(
          records.get(), tile_range.get(), tables.get(), table_len, grid, tiles, chunk, heavy, heavy_list.get(),
          cursor.get(), out);
      WM_CUDA_LAUNCH(k_bin_accumulate);
      return Status::Ok();
    }
  }
  return Status::Invalid("unknown kernel");
}

Status FieldDevice::Impl::build_all(const float4* ent, int n) {
  for (int l = 0; l < static_cast<int>(layer_info.size()); ++l) {
    Status err = build_layer(l, ent, n);
    if (!err.ok()) return err;
  }
  return Status::Ok();
}

// A build can be captured when it neither allocates nor waits for the device: the previous build with
// the same count sized every buffer, and no layer needs the exact record total read back.
bool FieldDevice::Impl::capturable(int n) const {
  if (kernel != FieldKernel::Binned) return true;
  const int ntiles = tiles.tiles_x * tiles.tiles_y;
  for (const FieldLayerMap& m : layer_info)
    if (static_cast<std::size_t>(n) * std::max(1, std::min(m.max_tiles_per_instance, ntiles)) > kDirectRecordLimit)
      return false;
  return true;
}

namespace {
__global__ void k_point_entities(const float2* __restrict__ p, const std::uint8_t* __restrict__ group, int n,
                                 float4* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = make_float4(p[i].x, p[i].y, __uint_as_float(group[i]), 0.0f);
}
}  // namespace

Status FieldDevice::build_points(const void* fixed, std::size_t nf, const float* points, const std::uint8_t* groups,
                                 std::size_t n) {
  Impl& im = *impl_;
  if (nf + n > static_cast<std::size_t>(INT32_MAX / 2)) return Status::Invalid("too many entities");
  WM_RETURN_IF_ERROR(im.point_entities.reserve(std::max<std::size_t>(nf + n, 1)));
  if (nf > 0)
    WM_CUDA(cudaMemcpyAsync(im.point_entities.get(), fixed, nf * sizeof(float4), cudaMemcpyDeviceToDevice, im.stream));
  if (n > 0) {
    k_point_entities<<<blocks_for<kThreads>(n), kThreads, 0, im.stream>>>(
        reinterpret_cast<const float2*>(points), groups, static_cast<int>(n), im.point_entities.get() + nf);
    WM_CUDA_LAUNCH(k_point_entities);
  }
  return build(im.point_entities.get(), nf + n);
}

Status FieldDevice::build(const void* device_entities, std::size_t count) {
  if (count > static_cast<std::size_t>(INT32_MAX / 2)) return Status::Invalid("too many entities");
  Impl& im = *impl_;
  const auto* ent = static_cast<const float4*>(device_entities);
  const int n = static_cast<int>(count);
  const bool same = device_entities == im.last_ent && count == im.last_n;
  if (same && im.graph) {
    WM_CUDA(cudaGraphLaunch(im.graph, im.stream));
    return Status::Ok();
  }
  if (im.graph) {
    cudaGraphExecDestroy(im.graph);
    im.graph = nullptr;
  }
  im.last_ent = device_entities;
  im.last_n = count;
  if (!same || !im.capturable(n)) return im.build_all(ent, n);
  if (!im.capture) WM_CUDA(cudaStreamCreateWithFlags(&im.capture, cudaStreamNonBlocking));
  // Recorded on the private stream (nothing runs during a capture), replayed on the shared one below.
  const cudaStream_t shared = im.stream;
  WM_CUDA(cudaStreamBeginCapture(im.capture, cudaStreamCaptureModeThreadLocal));
  im.stream = im.capture;
  Status err = im.build_all(ent, n);
  im.stream = shared;
  cudaGraph_t g = nullptr;
  const cudaError_t end = cudaStreamEndCapture(im.capture, &g);
  if (err.ok() && end != cudaSuccess) err = cuda_status(end, "cudaStreamEndCapture", __FILE__, __LINE__);
  if (err.ok()) {
    const cudaError_t inst = cudaGraphInstantiate(&im.graph, g, 0);
    if (inst != cudaSuccess) err = cuda_status(inst, "cudaGraphInstantiate", __FILE__, __LINE__);
  }
  if (g) cudaGraphDestroy(g);
  if (!err.ok()) {
    im.graph = nullptr;
    im.last_ent = nullptr;
    return err;
  }
  WM_CUDA(cudaGraphLaunch(im.graph, im.stream));
  return Status::Ok();
}

Status FieldDevice::build_from_host(const void* host_entities, std::size_t count) {
  Impl& im = *impl_;
  Status err = im.staging.reserve(std::max<std::size_t>(count, 1));
  if (!err.ok()) return err;
  err = im.q_pin_in.upload(im.staging.get(), host_entities, count * sizeof(float4), im.stream);
  if (!err.ok()) return err;
  return build(im.staging.get(), count);
}

Status FieldDevice::download(int layer, float* host) const {
  const Impl& im = *impl_;
  return im.q_pin_out.download(host, im.layers.get() + im.cells * layer, im.cells * sizeof(float), im.stream);
}

namespace {
// The largest |value| as float bits: non-negative floats order as their bit patterns do.
__global__ void k_max_abs(const float* __restrict__ v, std::size_t n, unsigned* __restrict__ out) {
  unsigned m = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    m = max(m, __float_as_uint(fabsf(v[i])));
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) m = max(m, __shfl_down_sync(0xffffffffu, m, d));
  if ((threadIdx.x & 31) == 0 && m) atomicMax(out, m);
}
}  // namespace

Status FieldDevice::max_abs(int layer, float& out) const {
  const Impl& im = *impl_;
  WM_RETURN_IF_ERROR(im.reduce.reserve(1));
  WM_CUDA(cudaMemsetAsync(im.reduce.get(), 0, sizeof(unsigned), im.stream));
  const int blocks = static_cast<int>(std::min<std::size_t>(blocks_for<kThreads>(im.cells), 1024));
  k_max_abs<<<std::max(blocks, 1), kThreads, 0, im.stream>>>(im.layers.get() + im.cells * layer, im.cells,
                                                             im.reduce.get());
  WM_CUDA_LAUNCH(k_max_abs);
  unsigned bits = 0;
  WM_RETURN_IF_ERROR(im.q_pin_out.download(&bits, im.reduce.get(), sizeof bits, im.stream));
  std::memcpy(&out, &bits, sizeof out);
  return Status::Ok();
}

namespace {
QueryView query_view(const FieldDevice::Impl& im, int layer) {
  const FieldGrid& g = im.grid;
  return {im.layers.get() + im.cells * layer, g.x0, g.y0, g.cell_w, g.cell_h, g.width, g.height};
}

// Uploads the points, runs `launch(view, device points, device out)`, downloads n results of type R.
template <class R, class Launch>
Status run_query(FieldDevice::Impl& im, int layer, const Vec2* points, std::size_t n, R* out, Launch&& launch) {
  if (n == 0) return Status::Ok();
  if (n > static_cast<std::size_t>(INT32_MAX)) return Status::Invalid("too many points");
  Status err = im.q_points.reserve(n);
  if (err.ok()) err = im.q_out.reserve(n * sizeof(R));
  if (!err.ok()) return err;
  if (!(err = im.q_pin_in.upload(im.q_points.get(), points, n * sizeof(Vec2), im.stream)).ok()) return err;
  const QueryView view = query_view(im, layer);
  WM_RETURN_IF_ERROR(launch(view, im.q_points.get(), static_cast<int>(n), reinterpret_cast<R*>(im.q_out.get())));
  return im.q_pin_out.download(out, im.q_out.get(), n * sizeof(R), im.stream);
}

// The same on device points and results: the launch alone.
template <class R, class Launch>
Status run_query_device(FieldDevice::Impl& im, int layer, const Vec2* points, std::size_t n, R* out, Launch&& launch) {
  if (n == 0) return Status::Ok();
  if (n > static_cast<std::size_t>(INT32_MAX)) return Status::Invalid("too many points");
  return launch(query_view(im, layer), points, static_cast<int>(n), out);
}

// The three queries' launches (each checked under its kernel's name).
struct SampleLaunch {
  cudaStream_t s;
  Status operator()(QueryView v, const Vec2* p, int m, float* o) const {
    k_sample<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(v, p, m, o);
    WM_CUDA_LAUNCH(k_sample);
    return Status::Ok();
  }
};
struct BestMoveLaunch {
  cudaStream_t s;
  int window;
  Status operator()(QueryView v, const Vec2* p, int m, field::MoveChoice* o) const {
    k_best_move<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(v, p, m, window / 2, o);
    WM_CUDA_LAUNCH(k_best_move);
    return Status::Ok();
  }
};
struct GradientLaunch {
  cudaStream_t s;
  Status operator()(QueryView v, const Vec2* p, int m, Vec2* o) const {
    k_gradient<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(v, p, m, o);
    WM_CUDA_LAUNCH(k_gradient);
    return Status::Ok();
  }
};
}  // namespace

Status FieldDevice::sample(int layer, const Vec2* points, std::size_t n, float* out) {
  return run_query(*impl_, layer, points, n, out, SampleLaunch{impl_->stream});
}

Status FieldDevice::best_move(int layer, const Vec2* points, std::size_t n, int window, field::MoveChoice* out) {
  return run_query(*impl_, layer, points, n, out, BestMoveLaunch{impl_->stream, window});
}

Status FieldDevice::gradient(int layer, const Vec2* points, std::size_t n, Vec2* out) {
  return run_query(*impl_, layer, points, n, out, GradientLaunch{impl_->stream});
}

Status FieldDevice::sample_device(int layer, const Vec2* points, std::size_t n, float* out) {
  return run_query_device(*impl_, layer, points, n, out, SampleLaunch{impl_->stream});
}

namespace {
__global__ void k_steer(QueryView v, std::size_t cells, int layers, const Vec2* __restrict__ p,
                        const std::uint8_t* __restrict__ layer_of, int n, int half, float step, Vec2* __restrict__ out,
                        float* __restrict__ heading) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int l = layer_of[i];
  if (l >= layers) {
    out[i] = p[i];
    return;
  }
  QueryView lv = v;
  lv.f = v.f + cells * static_cast<std::size_t>(l);
  float dx = 0, dy = 0;
  out[i] = field::rules::steer(lv, p[i], half, step, dx, dy);
  if (heading && (dx != 0.0f || dy != 0.0f)) heading[i] = atan2f(dy, dx);
}
}  // namespace

Status FieldDevice::steer_device(const Vec2* points, const std::uint8_t* layer_of, std::size_t n, int window,
                                 float step, Vec2* out, float* heading) {
  Impl& im = *impl_;
  if (n == 0) return Status::Ok();
  if (n > static_cast<std::size_t>(INT32_MAX)) return Status::Invalid("too many points");
  const int layers = static_cast<int>(im.layer_info.size());
  k_steer<<<blocks_for<kThreads>(n), kThreads, 0, im.stream>>>(query_view(im, 0), im.cells, layers, points, layer_of,
                                                               static_cast<int>(n), window / 2, step, out, heading);
  WM_CUDA_LAUNCH(k_steer);
  return Status::Ok();
}

Status FieldDevice::best_move_device(int layer, const Vec2* points, std::size_t n, int window, field::MoveChoice* out) {
  return run_query_device(*impl_, layer, points, n, out, BestMoveLaunch{impl_->stream, window});
}

Status FieldDevice::gradient_device(int layer, const Vec2* points, std::size_t n, Vec2* out) {
  return run_query_device(*impl_, layer, points, n, out, GradientLaunch{impl_->stream});
}

}  // namespace warpmind::gpu
