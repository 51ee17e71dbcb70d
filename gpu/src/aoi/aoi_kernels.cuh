// The AOI tick on the device, shared by its three files (aoi.cu: the tick, validation, buckets and
// neighbourhood lists, receiver-centric counts and writes, visibility, delivery in chunks; aoi_sorted.cu:
// gpu-sorted's merge and range query; aoi_fast.cu: gpu-fast's merge):
// constants, device helpers, and the device world's state. Pipelines in aoi.cu's opening comment.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "aoi/aoi_device.h"

namespace warpmind::gpu {
namespace aoi_device {

constexpr int kThreads = 256;
constexpr unsigned kMove = 0, kAttack = 1, kHeal = 2;
constexpr unsigned kFieldX = 0, kFieldY = 1, kFieldHp = 2;
// Reject reasons, in warpmind::aoi::RejectReason order; counter 7 counts the accepted commands.
enum : int { kUnknownPlayer = 0, kUnknownType, kBadMove, kUnknownTarget, kSelfAttack, kOutOfRange, kBadDamage };
constexpr int kCounters = 8;

// The arithmetic shared with the CPU variants.
using aoi::rules::bucket_axis;
using aoi::rules::distance2;
using aoi::rules::hp_after;
using aoi::rules::moved;

// The runs of sorted indices in the (up to) 3 x 3 buckets around bucket b, one per bucket.
struct Runs {
  unsigned begin[9], end[9];
  int count = 0;
};

__device__ __forceinline__ void runs_around(unsigned b, const AoiGeometry& g, const unsigned* start, Runs& r) {
  const int bx = static_cast<int>(b % static_cast<unsigned>(g.cols)),
            by = static_cast<int>(b / static_cast<unsigned>(g.cols));
  const int xa = max(0, bx - 1), xb = min(g.cols - 1, bx + 1);
  r.count = 0;
  for (int y = max(0, by - 1); y <= min(g.rows - 1, by + 1); ++y)
    for (int x = xa; x <= xb; ++x) {
      const unsigned k = static_cast<unsigned>(y) * g.cols + x;
      if (start[k] < start[k + 1]) {
        r.begin[r.count] = start[k];
        r.end[r.count] = start[k + 1];
        ++r.count;
      }
    }
}

__device__ __forceinline__ bool sees(const AoiGeometry& g, float rx, float ry, float sx, float sy) {
  return !g.circle || distance2(rx, ry, sx, sy) <= g.aoi2;
}

struct Sorted {  // players in bucket order
  const unsigned* id;
  const float *x, *y;
  const unsigned* updates;  // update count per sorted player
  const unsigned* start;    // start table
};

// The neighbourhood lists: for each non-empty bucket, every player of its 3 x 3 buckets in ascending id
// order (structure of arrays). The list of the bucket whose first sorted player is h is
// [offset[h], offset[h + 1]); offset is 0-length for the other sorted players, so offset[h + 1] ends it.
struct Neighbours {
  const unsigned long long* offset;  // n + 1, indexed by sorted player
  const unsigned* id;
  const float *x, *y;
  const unsigned* first;       // the subject's first update
  const unsigned char* count;  // its update count (0..3)
};

// Warp-wide inclusive sum.
__device__ __forceinline__ unsigned warp_inclusive_sum(unsigned v) {
  const unsigned lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned o = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= static_cast<unsigned>(d)) v += o;
  }
  return v;
}

}  // namespace aoi_device

struct AoiDevice::Impl {
  cudaStream_t stream = nullptr;
  AoiKernel kernel{};
  AoiGeometry g{};
  unsigned n = 0, buckets = 0;
  DeviceBuffer<float> px, py, spx, spy, sx, sy;
  DeviceBuffer<int> hp;
  DeviceBuffer<AoiCommandRec> cmd;
  DeviceBuffer<unsigned char> ok, hit;
  DeviceBuffer<unsigned long long> counters, damage;
  DeviceBuffer<unsigned> move_count, first_move, multi_count;
  DeviceBuffer<unsigned long long> multi_key, multi_key_sorted;
  // gpu-sorted merge
  DeviceBuffer<unsigned> vec_count, vec_offset, vec_val, vec_val_sorted, head, head_index;
  DeviceBuffer<unsigned long long> vec_key, vec_key_sorted;
  // updates
  DeviceBuffer<unsigned> upd_count, upd_first, supd_count;
  DeviceBuffer<AoiUpdateRec> upd;
  unsigned u_count = 0;
  // buckets
  DeviceBuffer<unsigned> bucket, ids, skey, sid, start;
  // neighbourhood lists (see Neighbours)
  DeviceBuffer<unsigned long long> nb_len, nb_off;
  DeviceBuffer<unsigned> nb_id, nb_first;
  DeviceBuffer<float> nb_x, nb_y;
  DeviceBuffer<unsigned char> nb_count;
  // range query: per receiver the count and the offset of its notifications (n + 1)
  DeviceBuffer<unsigned long long> note_count, note_off;
  DeviceBuffer<AoiNotificationRec> notes;  // gpu-sorted: the whole list
  DeviceBuffer<unsigned> pair_receiver, pair_update, pair_receiver_sorted, pair_update_sorted;
  unsigned long long note_total = 0;
  // delivery: two chunks in device memory and in page-locked staging
  DeviceBuffer<unsigned char> chunk_buf[2];
  PinnedBuffer chunk_pin[2];
  cudaEvent_t chunk_ev[2][3] = {};
  std::vector<unsigned> chunk_ranges;       // r0, r1 per chunk (host, reused)
  std::vector<std::uint64_t> chunk_starts;  // a mailbox chunk's relative starts (host, reused)
  // visibility: lists of the previous and the current tick (swapped each tick)
  DeviceBuffer<unsigned long long> vis_off[2], ent_count, left_count, ent_off, left_off;
  DeviceBuffer<unsigned> vis[2];
  int vis_cur = 0;
  bool have_prev = false;
  DeviceBuffer<AoiPairRec> entered, left;
  unsigned long long ent_total = 0, left_total = 0;
  DeviceBuffer<unsigned char> temp;  // CUB
  cudaEvent_t ev[6] = {};
  PinnedBuffer pin_in, pin_out;

  ~Impl() {
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
    for (auto& slot : chunk_ev)
      for (cudaEvent_t e : slot)
        if (e) cudaEventDestroy(e);
  }
  Status sort_buckets();
  Status neighbourhoods();
  Status merge_sorted(unsigned m);
  Status merge_fast(unsigned m);
  Status query_sorted();
  Status count_receivers(bool notes);
  Status write_visibility();
  Status enter_leave();
  Status write_chunk(int slot, unsigned r0, unsigned r1, unsigned long long first, unsigned long long count);
  aoi_device::Sorted sorted() const { return {sid.get(), spx.get(), spy.get(), supd_count.get(), start.get()}; }
  aoi_device::Neighbours neighbours() const {
    return {nb_off.get(), nb_id.get(), nb_x.get(), nb_y.get(), nb_first.get(), nb_count.get()};
  }
};

}  // namespace warpmind::gpu
