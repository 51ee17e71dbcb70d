// CUDA AOI tick (contract: ai/include/warpmind/aoi/aoi.h). Float arithmetic uses explicitly rounded
// intrinsics in the order the CPU code evaluates it (built without fused multiply-add), so positions,
// notifications and events equal the CPU variants' bit for bit.
//
// Both kernels share:
//   validate    one thread per command: the checks in contract order, reject reasons counted
//   buckets     bucket key per player, CUB radix sort of (bucket, id) pairs (stable: ids ascend inside
//               a bucket), positions and update counts gathered in bucket order, and a start table
//               start[b] = first sorted index with bucket >= b (b = 0..buckets)
//   neighbours  for every non-empty bucket, the players of its 3 x 3 buckets merged into one list in
//               ascending id order (each entry placed by its rank: its index in its bucket plus the
//               smaller ids of the other buckets, found by binary search), with each subject's position
//               and updates; at most 9 entries a player
//   receivers   one warp per receiver, in bucket order, walks its bucket's list 32 entries at a time:
//               counts (notifications, others in the AOI), then after a scan of the counts writes them,
//               each lane's entries placed by a warp-wide scan, so a receiver's output is contiguous and
//               in (subject, field) order with no sort
//   visibility  the others in each receiver's AOI written that way, then entered / left by a two-pointer
//               walk of each player's previous and current lists, count / scan / write again
//   delivery    the list handed to the host in chunks of whole receivers (aoi::rules::for_each_chunk),
//               two page-locked staging buffers, the next chunk's copy overlapping the consumer
// gpu-sorted (the thesis pipeline):
//   merge       every valid command emits update vectors keyed (player, field); a stable radix sort
//               keeps command order inside a key; heads are marked and scanned into the update index;
//               one thread per update sums its run in command order and applies it
//   query       one thread per update finds its subject's neighbour runs by binary search in the sorted
//               bucket keys, counts the receivers; scan; enumerate (receiver, update) pairs; a stable
//               radix sort by receiver gives (receiver, subject, field) order; gather into notifications
//               (the whole list in device memory; the sort limits it to 2^31 - 1)
// gpu-fast:
//   merge       atomics: move count and first move per player, HP damage summed exactly in 64 bits;
//               the few players with several moves get their moves sorted and summed in command order
//   query       the receivers' counts and offsets; each chunk's notifications are written by the
//               receiver warps straight into the chunk's buffer as records or mailbox entries, so device
//               memory is bounded by the chunk, whatever the total
#include <type_traits>

#include "aoi/aoi_kernels.cuh"

namespace warpmind::gpu {
namespace {
using namespace aoi_device;

// ---- shared: validation --------------------------------------------------------------------------

// fast: also the per-player move counts / first moves and the summed damage of the gpu-fast merge.
template <bool kFast>
__global__ void k_validate(const AoiCommandRec* __restrict__ cmd, unsigned m, const float* __restrict__ px,
                           const float* __restrict__ py, unsigned n, AoiGeometry g, unsigned char* __restrict__ ok,
                           unsigned long long* __restrict__ counters, unsigned* __restrict__ move_count,
                           unsigned* __restrict__ first_move, unsigned long long* __restrict__ damage,
                           unsigned char* __restrict__ hit) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  bool valid = false;
  if (i < m) {
    const AoiCommandRec c = cmd[i];
    int why = -1;
    if (c.player >= n) {
      why = kUnknownPlayer;
    } else if (c.type == kMove) {
      valid = isfinite(c.dx) && isfinite(c.dy) && fabsf(c.dx) <= g.max_move && fabsf(c.dy) <= g.max_move;
      if (!valid) why = kBadMove;
    } else if (c.type == kAttack) {
      if (c.target >= n)
        why = kUnknownTarget;
      else if (c.target == c.player)
        why = kSelfAttack;
      else if (c.damage < 0)
        why = kBadDamage;
      else if (!(distance2(px[c.player], py[c.player], px[c.target], py[c.target]) <= g.range2))
        why = kOutOfRange;
      else
        valid = true;
    } else if (c.type == kHeal) {
      valid = c.damage >= 0;
      if (!valid) why = kBadDamage;
    } else {
      why = kUnknownType;
    }
    ok[i] = valid ? 1 : 0;
    if (why >= 0) atomicAdd(&counters[why], 1ull);
    if (kFast && valid) {
      if (c.type == kMove) {
        atomicAdd(&move_count[c.player], 1u);
        atomicMin(&first_move[c.player], i);
      } else {  // an attack's damage to its target, a heal's as a negative damage to its player (mod 2^64)
        const unsigned who = c.type == kAttack ? c.target : c.player;
        const long long d = c.type == kAttack ? c.damage : -static_cast<long long>(c.damage);
        atomicAdd(&damage[who], static_cast<unsigned long long>(d));
        hit[who] = 1;
      }
    }
  }
  const unsigned mask = __ballot_sync(0xffffffffu, valid);
  if ((threadIdx.x & 31) == 0 && mask) atomicAdd(&counters[7], static_cast<unsigned long long>(__popc(mask)));
}

// ---- shared: buckets -----------------------------------------------------------------------------

__global__ void k_bucket_keys(unsigned n, AoiGeometry g, const float* __restrict__ px, const float* __restrict__ py,
                              unsigned* __restrict__ key, unsigned* __restrict__ id) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key[i] = static_cast<unsigned>(bucket_axis(py[i], g.y0, g.side, g.rows)) * g.cols +
           static_cast<unsigned>(bucket_axis(px[i], g.x0, g.side, g.cols));
  id[i] = i;
}

__global__ void k_gather_sorted(unsigned n, const unsigned* __restrict__ id, const float* __restrict__ px,
                                const float* __restrict__ py, const unsigned* __restrict__ count,
                                float* __restrict__ spx, float* __restrict__ spy, unsigned* __restrict__ scount) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const unsigned i = id[k];
  spx[k] = px[i];
  spy[k] = py[i];
  scount[k] = count[i];
}

// ---- shared: neighbourhood lists -----------------------------------------------------------------

// Per sorted player: the length of its bucket's neighbourhood list if it is the bucket's first, else 0.
__global__ void k_neighbour_lengths(unsigned n, AoiGeometry g, const unsigned* __restrict__ skey,
                                    const unsigned* __restrict__ start, unsigned long long* __restrict__ len) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  unsigned long long l = 0;
  if (k == 0 || skey[k] != skey[k - 1]) {
    Runs runs;
    runs_around(skey[k], g, start, runs);
    for (int q = 0; q < runs.count; ++q) l += runs.end[q] - runs.begin[q];
  }
  len[k] = l;
}

// The first index in sorted ids [lo, hi) whose id is >= v.
__device__ __forceinline__ unsigned id_lower_bound(const unsigned* __restrict__ id, unsigned lo, unsigned hi,
                                                   unsigned v) {
  return lo + lower_bound(id + lo, hi - lo, v);
}

// One warp per bucket (found at its first sorted player; a block lists the buckets starting among its
// kThreads players): the up to 9 bucket runs (ids ascending in each) merged by rank — an entry's place
// is its index in its run plus the entries of the other runs with a smaller id — and written with what
// the receivers need of each subject.
__global__ void k_merge_neighbours(unsigned n, AoiGeometry g, Sorted s, const unsigned* __restrict__ skey,
                                   const unsigned* __restrict__ upd_first, const unsigned long long* __restrict__ off,
                                   unsigned* __restrict__ nb_id, float* __restrict__ nb_x, float* __restrict__ nb_y,
                                   unsigned* __restrict__ nb_first, unsigned char* __restrict__ nb_count) {
  __shared__ unsigned heads[kThreads];
  __shared__ unsigned head_count;
  if (threadIdx.x == 0) head_count = 0;
  __syncthreads();
  const unsigned long long kk = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (kk < n && (kk == 0 || skey[kk] != skey[kk - 1])) heads[atomicAdd(&head_count, 1u)] = static_cast<unsigned>(kk);
  __syncthreads();
  for (unsigned w = threadIdx.x >> 5; w < head_count; w += blockDim.x >> 5) {
    const unsigned k = heads[w];
    Runs runs;
    runs_around(skey[k], g, s.start, runs);
    const unsigned long long base = off[k], len = off[k + 1] - base;
    for (unsigned long long j = threadIdx.x & 31; j < len; j += 32) {
      int q = 0;
      unsigned long long i = j;
      while (i >= runs.end[q] - runs.begin[q]) i -= runs.end[q] - runs.begin[q], ++q;
      const unsigned at = runs.begin[q] + static_cast<unsigned>(i), id = s.id[at];
      unsigned long long rank = i;
      for (int p = 0; p < runs.count; ++p)
        if (p != q) rank += id_lower_bound(s.id, runs.begin[p], runs.end[p], id) - runs.begin[p];
      const unsigned long long o = base + rank;
      const unsigned c = s.updates[at];
      nb_id[o] = id;
      nb_x[o] = s.x[at];
      nb_y[o] = s.y[at];
      nb_first[o] = c ? upd_first[id] : 0;
      nb_count[o] = static_cast<unsigned char>(c);
    }
  }
}

// ---- shared: receiver-centric count and write -------------------------------------------------

// A block takes kThreads consecutive sorted players (receivers in bucket order, so its warps share a
// few buckets' lists); each warp takes one receiver at a time.

// Per receiver: notifications (when kNotes) and others in its AOI (when kVis).
template <bool kNotes, bool kVis>
__global__ void k_count(unsigned n, AoiGeometry g, Sorted s, const unsigned* __restrict__ skey, Neighbours nb,
                        unsigned long long* __restrict__ notes, unsigned long long* __restrict__ vis) {
  const unsigned lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (unsigned i = threadIdx.x >> 5; i < blockDim.x; i += warps) {
    const unsigned long long kk = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + i;
    if (kk >= n) break;
    const unsigned k = static_cast<unsigned>(kk), r = s.id[k], h = s.start[skey[k]];
    const float rx = s.x[k], ry = s.y[k];
    unsigned long long c_notes = 0, c_vis = 0;
    for (unsigned long long j = nb.offset[h] + lane, e = nb.offset[h + 1]; j < e; j += 32) {
      if (!sees(g, rx, ry, nb.x[j], nb.y[j])) continue;
      if (kNotes) c_notes += nb.count[j];
      if (kVis) c_vis += nb.id[j] != r ? 1 : 0;
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      if (kNotes) c_notes += __shfl_down_sync(0xffffffffu, c_notes, d);
      if (kVis) c_vis += __shfl_down_sync(0xffffffffu, c_vis, d);
    }
    if (lane == 0) {
      if (kNotes) notes[r] = c_notes;
      if (kVis) vis[r] = c_vis;
    }
  }
}

// Writes, per receiver, the notifications (when kNotes; receivers [r0, r1) only, to out at their offset
// less `first`, as records or as mailbox entries when kBoxes) and the others in its AOI (when kVis).
// The block first lists which of its players are receivers to write, so a chunk of few receivers costs
// one thread per player, not one warp. The warp walks its receiver's bucket list 32 entries at a time; a
// warp-wide scan places each lane's entries, so a receiver's output is written in order, contiguously.
template <bool kNotes, bool kVis, bool kBoxes>
__global__ void k_write(unsigned n, AoiGeometry g, Sorted s, const unsigned* __restrict__ skey, Neighbours nb,
                        const AoiUpdateRec* __restrict__ upd, unsigned r0, unsigned r1,
                        const unsigned long long* __restrict__ note_off, unsigned long long first,
                        void* __restrict__ out, const unsigned long long* __restrict__ vis_off,
                        unsigned* __restrict__ others) {
  using Rec = std::conditional_t<kBoxes, uint2, uint4>;  // buffers from cudaMalloc: aligned records
  __shared__ unsigned todo[kThreads];
  __shared__ unsigned todo_count;
  __shared__ Rec stage[kNotes ? kThreads * 3 : 1];  // a warp's records of one step (at most 3 a lane)
  if (threadIdx.x == 0) todo_count = 0;
  __syncthreads();
  const unsigned long long kk = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (kk < n) {
    const unsigned r = s.id[kk];
    if (kVis || (r >= r0 && r < r1)) todo[atomicAdd(&todo_count, 1u)] = static_cast<unsigned>(kk);
  }
  __syncthreads();
  const unsigned lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  Rec* const my_stage = stage + (kNotes ? (threadIdx.x >> 5) * 96 : 0);
  for (unsigned i = threadIdx.x >> 5; i < todo_count; i += warps) {
    const unsigned k = todo[i], r = s.id[k], h = s.start[skey[k]];
    const float rx = s.x[k], ry = s.y[k];
    unsigned long long o_note = kNotes ? note_off[r] - first : 0, o_vis = kVis ? vis_off[r] : 0;
    for (unsigned long long b = nb.offset[h], e = nb.offset[h + 1]; b < e; b += 32) {
      const unsigned long long j = b + lane;
      const bool pass = j < e && sees(g, rx, ry, nb.x[j], nb.y[j]);
      const unsigned id = pass ? nb.id[j] : 0;
      if (kNotes) {
        // Each lane's records into the warp's stage in order, then copied out contiguously, a record a
        // lane per store, so every store is whole 16- (8-) byte records side by side.
        const unsigned c = pass ? nb.count[j] : 0, incl = warp_inclusive_sum(c),
                       total = __shfl_sync(0xffffffffu, incl, 31);
        for (unsigned u = 0, at = incl - c; u < c; ++u, ++at) {
          const AoiUpdateRec v = upd[nb.first[j] + u];
          if constexpr (kBoxes)
            my_stage[at] = make_uint2(id | v.field << 30, v.value);
          else
            my_stage[at] = make_uint4(r, id, v.field, v.value);
        }
        __syncwarp();
        Rec* const dst = static_cast<Rec*>(out) + o_note;
        for (unsigned t = lane; t < total; t += 32) dst[t] = my_stage[t];
        __syncwarp();
        o_note += total;
      }
      if (kVis) {
        const bool other = pass && id != r;
        const unsigned mask = __ballot_sync(0xffffffffu, other);
        if (other) others[o_vis + __popc(mask & ((1u << lane) - 1))] = id;
        o_vis += __popc(mask);
      }
    }
  }
}

// Notification records -> mailbox entries (the receiver is implied by the mailbox).
__global__ void k_pack_mailbox(unsigned long long t, const AoiNotificationRec* __restrict__ notes,
                               AoiMailboxRec* __restrict__ out) {
  const unsigned long long j = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= t) return;
  const AoiNotificationRec r = notes[j];
  out[j] = {r.subject | r.field << 30, r.value};
}

// ---- shared: entered / left ----------------------------------------------------------------------

template <bool kWrite>
__global__ void k_diff(unsigned n, const unsigned long long* __restrict__ prev_off, const unsigned* __restrict__ prev,
                       const unsigned long long* __restrict__ cur_off, const unsigned* __restrict__ cur,
                       unsigned long long* __restrict__ n_entered, unsigned long long* __restrict__ n_left,
                       AoiPairRec* __restrict__ entered, AoiPairRec* __restrict__ left) {
  const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  unsigned long long a = prev_off[r], ae = prev_off[r + 1], b = cur_off[r], be = cur_off[r + 1];
  unsigned long long oe = kWrite ? n_entered[r] : 0, ol = kWrite ? n_left[r] : 0, ce = 0, cl = 0;
  while (a < ae || b < be) {
    if (b >= be || (a < ae && prev[a] < cur[b])) {
      if (kWrite)
        left[ol++] = {r, prev[a]};
      else
        ++cl;
      ++a;
    } else if (a >= ae || cur[b] < prev[a]) {
      if (kWrite)
        entered[oe++] = {r, cur[b]};
      else
        ++ce;
      ++b;
    } else {
      ++a;
      ++b;
    }
  }
  if (!kWrite) {
    n_entered[r] = ce;
    n_left[r] = cl;
  }
}

}  // namespace

using namespace aoi_device;

Status AoiDevice::create(void* stream, AoiKernel kernel, const AoiGeometry& g, std::unique_ptr<AoiDevice>& out) {
  std::unique_ptr<AoiDevice> d(new AoiDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  im.kernel = kernel;
  im.g = g;
  im.buckets = static_cast<unsigned>(g.cols) * static_cast<unsigned>(g.rows);
  for (cudaEvent_t& e : im.ev) WM_CUDA(cudaEventCreate(&e));
  Status err;
  if (!(err = im.counters.reserve(kCounters)).ok()) return err;
  if (!(err = im.multi_count.reserve(1)).ok()) return err;
  if (!(err = im.start.reserve(static_cast<std::size_t>(im.buckets) + 1)).ok()) return err;
  out = std::move(d);
  return Status::Ok();
}

AoiDevice::~AoiDevice() = default;

Status AoiDevice::reset(const AoiPlayerRec* players, std::size_t n) {
  Impl& im = *impl_;
  if (n >= (std::size_t{1} << 31)) return Status::Invalid("at most 2^31 - 1 players");
  if (im.g.mailboxes && n >= (std::size_t{1} << 30)) return Status::Invalid("mailboxes: at most 2^30 - 1 players");
  const std::size_t cap = std::max<std::size_t>(n, 1);
  Status err;
  for (DeviceBuffer<float>* b : {&im.px, &im.py, &im.spx, &im.spy, &im.sx, &im.sy})
    if (!(err = b->reserve(cap)).ok()) return err;
  if (!(err = im.hp.reserve(cap)).ok()) return err;
  for (DeviceBuffer<unsigned>* b : {&im.move_count, &im.first_move, &im.upd_count, &im.upd_first, &im.supd_count,
                                    &im.bucket, &im.ids, &im.skey, &im.sid})
    if (!(err = b->reserve(cap + 1)).ok()) return err;
  if (!(err = im.hit.reserve(cap)).ok()) return err;
  if (!(err = im.damage.reserve(cap)).ok()) return err;
  for (DeviceBuffer<unsigned long long>* b :
       {&im.note_count, &im.note_off, &im.vis_off[0], &im.vis_off[1], &im.ent_count, &im.left_count, &im.ent_off,
        &im.left_off, &im.nb_len, &im.nb_off})
    if (!(err = b->reserve(cap + 1)).ok()) return err;
  if (!(err = im.upd.reserve(3 * cap)).ok()) return err;
  // Players: structure of arrays on the device.
  if (n > 0) {
    std::vector<float> x(n), y(n);
    std::vector<int> h(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = players[i].x;
      y[i] = players[i].y;
      h[i] = players[i].hp;
    }
    WM_CUDA(cudaMemcpyAsync(im.px.get(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice, im.stream));
    WM_CUDA(cudaMemcpyAsync(im.py.get(), y.data(), n * sizeof(float), cudaMemcpyHostToDevice, im.stream));
    WM_CUDA(cudaMemcpyAsync(im.hp.get(), h.data(), n * sizeof(int), cudaMemcpyHostToDevice, im.stream));
  }
  WM_CUDA(cudaMemsetAsync(im.move_count.get(), 0, cap * sizeof(unsigned), im.stream));
  WM_CUDA(cudaMemsetAsync(im.first_move.get(), 0xff, cap * sizeof(unsigned), im.stream));
  WM_CUDA(cudaMemsetAsync(im.damage.get(), 0, cap * sizeof(unsigned long long), im.stream));
  WM_CUDA(cudaMemsetAsync(im.hit.get(), 0, cap, im.stream));
  WM_CUDA(cudaStreamSynchronize(im.stream));
  im.n = static_cast<unsigned>(n);
  im.have_prev = false;
  im.u_count = 0;
  im.note_total = im.ent_total = im.left_total = 0;
  if (im.g.track_visibility) {  // the visibility the first tick's events compare with
    AoiTickCounts none;
    return tick(nullptr, 0, none);
  }
  return Status::Ok();
}

Status AoiDevice::Impl::sort_buckets() {
  cudaStream_t s = stream;
  Status err;
  if (n > 0) {
    k_bucket_keys<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(n, g, px.get(), py.get(), bucket.get(), ids.get());
    WM_CUDA_LAUNCH(k_bucket_keys);
  }
  const int bits = bits_for(buckets);
  WM_RETURN_IF_ERROR(sort_pairs(bucket.get(), skey.get(), ids.get(), sid.get(), n, temp, s, 0, bits));
  if (n > 0) {
    k_gather_sorted<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(n, sid.get(), px.get(), py.get(), upd_count.get(),
                                                                 spx.get(), spy.get(), supd_count.get());
    WM_CUDA_LAUNCH(k_gather_sorted);
  }
  k_run_starts<<<blocks_for<kThreads>(std::size_t{buckets} + 1), kThreads, 0, s>>>(n, buckets, skey.get(), start.get());
  WM_CUDA_LAUNCH(k_run_starts);
  return Status::Ok();
}

Status AoiDevice::Impl::neighbourhoods() {
  cudaStream_t s = stream;
  Status err;
  if (n > 0) {
    k_neighbour_lengths<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(n, g, skey.get(), start.get(), nb_len.get());
    WM_CUDA_LAUNCH(k_neighbour_lengths);
  }
  WM_CUDA(cudaMemsetAsync(nb_len.get() + n, 0, sizeof(unsigned long long), s));
  unsigned long long total = 0;
  if (!(err = exclusive_scan(nb_len.get(), nb_off.get(), std::size_t{n} + 1, temp, s, &total)).ok()) return err;
  const std::size_t cap = std::max<unsigned long long>(total, 1);
  for (DeviceBuffer<unsigned>* b : {&nb_id, &nb_first})
    if (!(err = b->reserve(cap)).ok()) return err;
  for (DeviceBuffer<float>* b : {&nb_x, &nb_y})
    if (!(err = b->reserve(cap)).ok()) return err;
  if (!(err = nb_count.reserve(cap)).ok()) return err;
  if (n > 0) {
    k_merge_neighbours<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(n, g, sorted(), skey.get(), upd_first.get(),
                                                                    nb_off.get(), nb_id.get(), nb_x.get(), nb_y.get(),
                                                                    nb_first.get(), nb_count.get());
    WM_CUDA_LAUNCH(k_merge_neighbours);
  }
  return Status::Ok();
}

// Per receiver the number of its notifications (when `notes`: note_off, note_total) and of the others
// in its AOI (with visibility tracked: vis_off of the current lists, which are sized for them).
Status AoiDevice::Impl::count_receivers(bool notes) {
  cudaStream_t s = stream;
  Status err;
  const bool vis = g.track_visibility;
  if (!notes && !vis) return Status::Ok();
  unsigned long long* vcount = ent_count.get();  // scratch for the counts before the scan
  if (n > 0) {
    const unsigned b = blocks_for<kThreads>(n);
    if (notes && vis)
      k_count<true, true><<<b, kThreads, 0, s>>>(n, g, sorted(), skey.get(), neighbours(), note_count.get(), vcount);
    else if (notes)
      k_count<true, false><<<b, kThreads, 0, s>>>(n, g, sorted(), skey.get(), neighbours(), note_count.get(), nullptr);
    else
      k_count<false, true><<<b, kThreads, 0, s>>>(n, g, sorted(), skey.get(), neighbours(), nullptr, vcount);
    WM_CUDA_LAUNCH(k_count);
  }
  if (notes) {
    WM_CUDA(cudaMemsetAsync(note_count.get() + n, 0, sizeof(unsigned long long), s));
    if (!(err = exclusive_scan(note_count.get(), note_off.get(), std::size_t{n} + 1, temp, s, &note_total)).ok())
      return err;
  }
  if (vis) {
    unsigned long long vis_total = 0;
    WM_CUDA(cudaMemsetAsync(vcount + n, 0, sizeof(unsigned long long), s));
    if (!(err = exclusive_scan(vcount, vis_off[vis_cur].get(), std::size_t{n} + 1, temp, s, &vis_total)).ok())
      return err;
    if (!(err = this->vis[vis_cur].reserve(std::max<unsigned long long>(vis_total, 1))).ok()) return err;
  }
  return Status::Ok();
}

Status AoiDevice::Impl::write_visibility() {
  if (!g.track_visibility || n == 0) return Status::Ok();
  k_write<false, true, false><<<blocks_for<kThreads>(n), kThreads, 0, stream>>>(
      n, g, sorted(), skey.get(), neighbours(), nullptr, 0, 0, nullptr, 0, nullptr, vis_off[vis_cur].get(),
      vis[vis_cur].get());
  WM_CUDA_LAUNCH(k_write);
  return Status::Ok();
}

// Entered / left against the previous tick's lists.
Status AoiDevice::Impl::enter_leave() {
  cudaStream_t s = stream;
  Status err;
  ent_total = left_total = 0;
  if (!g.track_visibility || !have_prev) return Status::Ok();
  const int p = 1 - vis_cur, c = vis_cur;
  if (n > 0) {  // per receiver counts, then their exclusive sums
    k_diff<false><<<blocks_for<kThreads>(n), kThreads, 0, s>>>(n, vis_off[p].get(), vis[p].get(), vis_off[c].get(),
                                                               vis[c].get(), ent_count.get(), left_count.get(), nullptr,
                                                               nullptr);
    WM_CUDA_LAUNCH(k_diff);
  }
  WM_CUDA(cudaMemsetAsync(ent_count.get() + n, 0, sizeof(unsigned long long), s));
  WM_CUDA(cudaMemsetAsync(left_count.get() + n, 0, sizeof(unsigned long long), s));
  if (!(err = exclusive_scan(ent_count.get(), ent_off.get(), std::size_t{n} + 1, temp, s, &ent_total)).ok()) return err;
  if (!(err = exclusive_scan(left_count.get(), left_off.get(), std::size_t{n} + 1, temp, s, &left_total)).ok())
    return err;
  if (!(err = entered.reserve(std::max<unsigned long long>(ent_total, 1))).ok()) return err;
  if (!(err = left.reserve(std::max<unsigned long long>(left_total, 1))).ok()) return err;
  if (n > 0) {
    k_diff<true><<<blocks_for<kThreads>(n), kThreads, 0, s>>>(n, vis_off[p].get(), vis[p].get(), vis_off[c].get(),
                                                              vis[c].get(), ent_off.get(), left_off.get(),
                                                              entered.get(), left.get());
    WM_CUDA_LAUNCH(k_diff);
  }
  return Status::Ok();
}

Status AoiDevice::tick(const AoiCommandRec* commands, std::size_t m_size, AoiTickCounts& counts) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (m_size >= (std::size_t{1} << 30)) return Status::Invalid("at most 2^30 - 1 commands per tick on the GPU");
  const unsigned m = static_cast<unsigned>(m_size), n = im.n;
  Status err;
  const std::size_t mcap = std::max<std::size_t>(m, 1);
  if (!(err = im.cmd.reserve(mcap)).ok()) return err;
  if (!(err = im.ok.reserve(mcap)).ok()) return err;
  for (DeviceBuffer<unsigned long long>* b : {&im.multi_key, &im.multi_key_sorted})
    if (!(err = b->reserve(mcap)).ok()) return err;

  WM_CUDA(cudaEventRecord(im.ev[0], s));
  if (!(err = im.pin_in.upload(im.cmd.get(), commands, std::size_t{m} * sizeof(AoiCommandRec), s)).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[1], s));

  // Logic and merge.
  WM_CUDA(cudaMemsetAsync(im.counters.get(), 0, kCounters * sizeof(unsigned long long), s));
  const bool fast = im.kernel == AoiKernel::Fast;
  if (m > 0) {
    if (fast)
      k_validate<true><<<blocks_for<kThreads>(m), kThreads, 0, s>>>(im.cmd.get(), m, im.px.get(), im.py.get(), n, im.g,
                                                                    im.ok.get(), im.counters.get(), im.move_count.get(),
                                                                    im.first_move.get(), im.damage.get(), im.hit.get());
    else
      k_validate<false><<<blocks_for<kThreads>(m), kThreads, 0, s>>>(im.cmd.get(), m, im.px.get(), im.py.get(), n, im.g,
                                                                     im.ok.get(), im.counters.get(), nullptr, nullptr,
                                                                     nullptr, nullptr);
    WM_CUDA_LAUNCH(k_validate);
  }
  if (!(err = fast ? im.merge_fast(m) : im.merge_sorted(m)).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[2], s));

  if (!(err = im.sort_buckets()).ok()) return err;
  if (!(err = im.neighbourhoods()).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[3], s));

  // Range query. gpu-fast: the counts and offsets per receiver (with the visibility counts); the list
  // itself is written chunk by chunk in deliver(). gpu-sorted: the whole sorted list, and its receivers'
  // run starts as the offsets.
  if (!(err = fast ? im.count_receivers(true) : im.query_sorted()).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[4], s));
  if (!fast && !(err = im.count_receivers(false)).ok()) return err;
  if (!(err = im.write_visibility()).ok()) return err;
  if (!(err = im.enter_leave()).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[5], s));
  unsigned long long host_counters[kCounters];
  WM_CUDA(cudaMemcpyAsync(host_counters, im.counters.get(), sizeof host_counters, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  if (im.g.track_visibility) {
    im.have_prev = true;
    im.vis_cur = 1 - im.vis_cur;  // this tick's lists become the previous ones
  }
  for (int r = 0; r < 7; ++r) counts.rejected[r] = host_counters[r];
  counts.accepted = host_counters[7];
  counts.updates = im.u_count;
  counts.notifications = im.note_total;
  counts.entered = im.ent_total;
  counts.left = im.left_total;
  float ms[5];
  for (int k = 0; k < 5; ++k) WM_CUDA(cudaEventElapsedTime(&ms[k], im.ev[k], im.ev[k + 1]));
  counts.ms_upload = ms[0];
  counts.ms_logic = ms[1];
  counts.ms_sort = ms[2];
  counts.ms_query = ms[3];
  counts.ms_visibility = ms[4];
  return Status::Ok();
}

Status AoiDevice::download(const AoiHostOutputs& out, double& ms) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  const std::size_t n = im.n;
  const std::size_t upd_bytes = std::size_t{im.u_count} * sizeof(AoiUpdateRec),
                    ent_bytes = im.ent_total * sizeof(AoiPairRec), left_bytes = im.left_total * sizeof(AoiPairRec),
                    player_bytes = n * (2 * sizeof(float) + sizeof(int));
  const std::size_t total = upd_bytes + ent_bytes + left_bytes + player_bytes;
  Status err = im.pin_out.reserve(std::max<std::size_t>(total, 1));
  if (!err.ok()) return err;
  auto* pin = static_cast<unsigned char*>(im.pin_out.get());
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  if (upd_bytes) WM_CUDA(cudaMemcpyAsync(pin, im.upd.get(), upd_bytes, cudaMemcpyDeviceToHost, s));
  unsigned char* at = pin + upd_bytes;
  if (ent_bytes) WM_CUDA(cudaMemcpyAsync(at, im.entered.get(), ent_bytes, cudaMemcpyDeviceToHost, s));
  if (left_bytes) WM_CUDA(cudaMemcpyAsync(at + ent_bytes, im.left.get(), left_bytes, cudaMemcpyDeviceToHost, s));
  at += ent_bytes + left_bytes;
  if (n > 0) {
    WM_CUDA(cudaMemcpyAsync(at, im.px.get(), n * sizeof(float), cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaMemcpyAsync(at + n * sizeof(float), im.py.get(), n * sizeof(float), cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaMemcpyAsync(at + 2 * n * sizeof(float), im.hp.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
  }
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  WM_CUDA(cudaStreamSynchronize(s));
  float t = 0;
  WM_CUDA(cudaEventElapsedTime(&t, im.ev[0], im.ev[1]));
  ms = t;
  if (upd_bytes) std::memcpy(out.updates, pin, upd_bytes);
  if (ent_bytes) std::memcpy(out.entered, pin + upd_bytes, ent_bytes);
  if (left_bytes) std::memcpy(out.left, pin + upd_bytes + ent_bytes, left_bytes);
  const float* x = reinterpret_cast<const float*>(at);
  const float* y = x + n;
  const int* h = reinterpret_cast<const int*>(y + n);
  for (std::size_t i = 0; i < n; ++i) out.players[i] = {x[i], y[i], h[i]};
  return Status::Ok();
}

// Queues chunk receivers [r0, r1) (notifications [first, first + count)) into staging slot `slot`:
// written (gpu-fast) or packed (gpu-sorted's mailboxes) into the slot's device buffer, then copied to its
// page-locked buffer, events around each part.
Status AoiDevice::Impl::write_chunk(int slot, unsigned r0, unsigned r1, unsigned long long first,
                                    unsigned long long count) {
  cudaStream_t s = stream;
  const bool boxes = g.mailboxes;
  const std::size_t rec = boxes ? sizeof(AoiMailboxRec) : sizeof(AoiNotificationRec);
  auto* pin = static_cast<unsigned char*>(chunk_pin[slot].get());
  void* dev = chunk_buf[slot].get();
  cudaEvent_t* e = chunk_ev[slot];
  WM_CUDA(cudaEventRecord(e[0], s));
  const void* src = dev;
  if (kernel == AoiKernel::Fast) {
    if (count > 0) {
      if (boxes)
        k_write<true, false, true><<<blocks_for<kThreads>(n), kThreads, 0, s>>>(
            n, g, sorted(), skey.get(), neighbours(), upd.get(), r0, r1, note_off.get(), first, dev, nullptr, nullptr);
      else
        k_write<true, false, false><<<blocks_for<kThreads>(n), kThreads, 0, s>>>(
            n, g, sorted(), skey.get(), neighbours(), upd.get(), r0, r1, note_off.get(), first, dev, nullptr, nullptr);
      WM_CUDA_LAUNCH(k_write);
    }
  } else if (boxes) {
    if (count > 0) {
      k_pack_mailbox<<<blocks_for<kThreads>(count), kThreads, 0, s>>>(count, notes.get() + first,
                                                                      static_cast<AoiMailboxRec*>(dev));
      WM_CUDA_LAUNCH(k_pack_mailbox);
    }
  } else {
    src = notes.get() + first;
  }
  WM_CUDA(cudaEventRecord(e[1], s));
  if (count > 0) WM_CUDA(cudaMemcpyAsync(pin, src, count * rec, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaEventRecord(e[2], s));
  return Status::Ok();
}

Status AoiDevice::deliver(std::uint64_t chunk, const AoiChunkConsumer& consume, double& ms_write, double& ms_download) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  ms_write = ms_download = 0;
  const unsigned n = im.n;
  if (n == 0) return Status::Ok();
  if (chunk == 0) return Status::Invalid("deliver: chunk must be >= 1");
  Status err;
  // The receivers' offsets, to cut the list into chunks on the host.
  if (!(err = im.pin_out.reserve((std::size_t{n} + 1) * sizeof(std::uint64_t))).ok()) return err;
  auto* off = static_cast<std::uint64_t*>(im.pin_out.get());
  WM_CUDA(
      cudaMemcpyAsync(off, im.note_off.get(), (std::size_t{n} + 1) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  std::vector<unsigned>& chunks = im.chunk_ranges;  // r0, r1 of each chunk
  chunks.clear();
  std::uint64_t most = 0;
  unsigned most_receivers = 0;
  aoi::rules::for_each_chunk(off, n, chunk, [&](std::size_t r0, std::size_t r1) {
    chunks.push_back(static_cast<unsigned>(r0));
    chunks.push_back(static_cast<unsigned>(r1));
    most = std::max<std::uint64_t>(most, off[r1] - off[r0]);
    most_receivers = std::max(most_receivers, static_cast<unsigned>(r1 - r0));
  });
  const bool boxes = im.g.mailboxes;
  const std::size_t rec = boxes ? sizeof(AoiMailboxRec) : sizeof(AoiNotificationRec);
  const std::size_t note_bytes = std::max<std::size_t>(most * rec, 16);
  for (int slot = 0; slot < 2; ++slot) {
    if (!im.chunk_ev[slot][0])
      for (cudaEvent_t& e : im.chunk_ev[slot]) WM_CUDA(cudaEventCreate(&e));
    if (!(err = im.chunk_pin[slot].reserve(note_bytes)).ok()) return err;
    if ((im.kernel == AoiKernel::Fast || boxes) && !(err = im.chunk_buf[slot].reserve(note_bytes)).ok()) return err;
  }
  std::vector<std::uint64_t>& starts = im.chunk_starts;
  if (boxes) starts.resize(std::size_t{most_receivers} + 1);
  const std::size_t count = chunks.size() / 2;
  const auto enqueue = [&](std::size_t i) {
    const unsigned r0 = chunks[2 * i], r1 = chunks[2 * i + 1];
    return im.write_chunk(static_cast<int>(i & 1), r0, r1, off[r0], off[r1] - off[r0]);
  };
  if (!(err = enqueue(0)).ok()) return err;
  for (std::size_t i = 0; i < count; ++i) {
    if (i + 1 < count && !(err = enqueue(i + 1)).ok()) return err;  // overlaps the consumer below
    const int slot = static_cast<int>(i & 1);
    WM_CUDA(cudaEventSynchronize(im.chunk_ev[slot][2]));
    float t_write = 0, t_copy = 0;
    WM_CUDA(cudaEventElapsedTime(&t_write, im.chunk_ev[slot][0], im.chunk_ev[slot][1]));
    WM_CUDA(cudaEventElapsedTime(&t_copy, im.chunk_ev[slot][1], im.chunk_ev[slot][2]));
    ms_write += t_write;
    ms_download += t_copy;
    const unsigned r0 = chunks[2 * i], r1 = chunks[2 * i + 1];
    AoiChunk view;
    view.first_receiver = r0;
    view.end_receiver = r1;
    view.first_notification = off[r0];
    view.count = off[r1] - off[r0];
    if (boxes) {
      for (unsigned r = r0; r <= r1; ++r) starts[r - r0] = off[r] - off[r0];
      view.mailbox_start = starts.data();
      view.mailbox = static_cast<const AoiMailboxRec*>(im.chunk_pin[slot].get());
    } else {
      view.notes = static_cast<const AoiNotificationRec*>(im.chunk_pin[slot].get());
    }
    consume(view);
  }
  return Status::Ok();
}

}  // namespace warpmind::gpu
