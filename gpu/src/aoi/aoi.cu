// CUDA AOI tick (contract: ai/include/warpmind/aoi/aoi.h). Float arithmetic uses explicitly rounded
// intrinsics in the order the CPU code evaluates it (built without fused multiply-add), so positions,
// notifications and events equal the CPU variants' bit for bit.
//
// Both kernels share:
//   validate    one thread per command: the checks in contract order, reject reasons counted
//   buckets     bucket key per player, CUB radix sort of (bucket, id) pairs (stable: ids ascend inside
//               a bucket), positions and update counts gathered in bucket order, and a start table
//               start[b] = first sorted index with bucket >= b (b = 0..buckets), so the three buckets of
//               a row are one contiguous run
//   visibility  receiver-centric count / scan / write of the others in each player's AOI (a 9-run merge
//               of the bucket runs gives ascending ids), then entered / left by a two-pointer walk of
//               each player's previous and current lists, count / scan / write again
// gpu-seed (the thesis pipeline):
//   merge       every valid command emits update vectors keyed (player, field); a stable radix sort
//               keeps command order inside a key; heads are marked and scanned into the update index;
//               one thread per update sums its run in command order and applies it
//   query       one thread per update finds its subject's neighbour runs by binary search in the sorted
//               bucket keys, counts the receivers; scan; enumerate (receiver, update) pairs; a stable
//               radix sort by receiver gives (receiver, subject, field) order; gather into notifications
// gpu-fast:
//   merge       atomics: move count and first move per player, HP damage summed exactly in 64 bits;
//               the few players with several moves get their moves sorted and summed in command order
//   query       one thread per receiver counts, scan, then writes its notifications in order from the
//               9-run merge (no sort of the output)
#include "aoi/aoi_device.cuh"

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
    } else {
      why = kUnknownType;
    }
    ok[i] = valid ? 1 : 0;
    if (why >= 0) atomicAdd(&counters[why], 1ull);
    if (kFast && valid) {
      if (c.type == kMove) {
        atomicAdd(&move_count[c.player], 1u);
        atomicMin(&first_move[c.player], i);
      } else {
        atomicAdd(&damage[c.target], static_cast<unsigned long long>(c.damage));
        hit[c.target] = 1;
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
  key[i] = static_cast<unsigned>(bucket_axis(py[i], g.y0, g.aoi, g.rows)) * g.cols +
           static_cast<unsigned>(bucket_axis(px[i], g.x0, g.aoi, g.cols));
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

// ---- shared: receiver-centric count and write ----------------------------------------------------

// Per receiver: notifications (when kNotes) and others in its AOI (when kVis).
template <bool kNotes, bool kVis>
__global__ void k_count(unsigned n, AoiGeometry g, Sorted s, const unsigned* __restrict__ bucket,
                        const float* __restrict__ px, const float* __restrict__ py,
                        unsigned long long* __restrict__ notes, unsigned long long* __restrict__ vis) {
  const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  Runs runs;
  runs_around(bucket[r], g, s.start, runs);
  const float rx = px[r], ry = py[r];
  unsigned long long c_notes = 0, c_vis = 0;
  for (int q = 0; q < runs.count; ++q)
    for (unsigned k = runs.begin[q]; k < runs.end[q]; ++k) {
      if (!sees(g, rx, ry, s.x[k], s.y[k])) continue;
      if (kNotes) c_notes += s.updates[k];
      if (kVis) c_vis += s.id[k] != r ? 1 : 0;
    }
  if (kNotes) notes[r] = c_notes;
  if (kVis) vis[r] = c_vis;
}

template <bool kNotes, bool kVis>
__global__ void k_write(unsigned n, AoiGeometry g, Sorted s, const unsigned* __restrict__ bucket,
                        const float* __restrict__ px, const float* __restrict__ py, const unsigned* __restrict__ first,
                        const AoiUpdateRec* __restrict__ upd, const unsigned long long* __restrict__ note_off,
                        AoiNotificationRec* __restrict__ notes, const unsigned long long* __restrict__ vis_off,
                        unsigned* __restrict__ others) {
  const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  Runs runs;
  runs_around(bucket[r], g, s.start, runs);
  unsigned head[9];
  for (int q = 0; q < runs.count; ++q) head[q] = s.id[runs.begin[q]];
  const float rx = px[r], ry = py[r];
  unsigned long long o_note = kNotes ? note_off[r] : 0, o_vis = kVis ? vis_off[r] : 0;
  for (;;) {  // 9-run merge: ascending subject ids
    int best = -1;
    unsigned best_id = UINT_MAX;
    for (int q = 0; q < runs.count; ++q)
      if (runs.begin[q] < runs.end[q] && head[q] < best_id) {
        best = q;
        best_id = head[q];
      }
    if (best < 0) break;
    const unsigned k = runs.begin[best]++;
    if (runs.begin[best] < runs.end[best]) head[best] = s.id[runs.begin[best]];
    if (!sees(g, rx, ry, s.x[k], s.y[k])) continue;
    if (kNotes)
      for (unsigned u = 0, c = s.updates[k]; u < c; ++u) {
        const AoiUpdateRec& v = upd[first[best_id] + u];
        notes[o_note++] = {r, best_id, v.field, v.value};
      }
    if (kVis && best_id != r) others[o_vis++] = best_id;
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

const AoiNotificationRec* AoiDevice::notifications() const { return impl_->notes.get(); }
const AoiMailboxRec* AoiDevice::mailbox() const { return impl_->mailbox.get(); }
const std::uint64_t* AoiDevice::mailbox_start() const {
  return reinterpret_cast<const std::uint64_t*>(impl_->mailbox_start.get());
}

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
  for (DeviceBuffer<unsigned long long>* b : {&im.note_count, &im.note_off, &im.vis_off[0], &im.vis_off[1],
                                              &im.ent_count, &im.left_count, &im.ent_off, &im.left_off})
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
    k_bucket_keys<<<blocks_for(n), kThreads, 0, s>>>(n, g, px.get(), py.get(), bucket.get(), ids.get());
    WM_CUDA_LAUNCH(k_bucket_keys);
  }
  const int bits = bits_for(buckets);
  WM_RETURN_IF_ERROR(sort_pairs(bucket.get(), skey.get(), ids.get(), sid.get(), n, temp, s, 0, bits));
  if (n > 0) {
    k_gather_sorted<<<blocks_for(n), kThreads, 0, s>>>(n, sid.get(), px.get(), py.get(), upd_count.get(), spx.get(),
                                                       spy.get(), supd_count.get());
    WM_CUDA_LAUNCH(k_gather_sorted);
  }
  k_run_starts<<<blocks_for(std::size_t{buckets} + 1), kThreads, 0, s>>>(n, buckets, skey.get(), start.get());
  WM_CUDA_LAUNCH(k_run_starts);
  return Status::Ok();
}

Status AoiDevice::Impl::visibility(bool with_notes) {
  cudaStream_t s = stream;
  Status err;
  const bool vis = g.track_visibility;
  if (!with_notes && !vis) return Status::Ok();
  unsigned long long* vcount = ent_count.get();  // scratch for the counts before the scan
  unsigned long long* voff = vis_off[vis_cur].get();
  if (n > 0) {
    const unsigned b = blocks_for(n);
    if (with_notes && vis)
      k_count<true, true>
          <<<b, kThreads, 0, s>>>(n, g, sorted(), bucket.get(), px.get(), py.get(), note_count.get(), vcount);
    else if (with_notes)
      k_count<true, false>
          <<<b, kThreads, 0, s>>>(n, g, sorted(), bucket.get(), px.get(), py.get(), note_count.get(), nullptr);
    else
      k_count<false, true><<<b, kThreads, 0, s>>>(n, g, sorted(), bucket.get(), px.get(), py.get(), nullptr, vcount);
    WM_CUDA_LAUNCH(k_count);
  }
  unsigned long long vis_total = 0;
  if (with_notes) {
    WM_CUDA(cudaMemsetAsync(note_count.get() + n, 0, sizeof(unsigned long long), s));
    if (!(err = exclusive_scan(note_count.get(), note_off.get(), std::size_t{n} + 1, temp, stream, &note_total)).ok())
      return err;
    if (!(err = notes.reserve(std::max<unsigned long long>(note_total, 1))).ok()) return err;
  }
  if (vis) {
    WM_CUDA(cudaMemsetAsync(vcount + n, 0, sizeof(unsigned long long), s));
    if (!(err = exclusive_scan(vcount, voff, std::size_t{n} + 1, temp, stream, &vis_total)).ok()) return err;
    if (!(err = this->vis[vis_cur].reserve(std::max<unsigned long long>(vis_total, 1))).ok()) return err;
  }
  if (n > 0) {
    const unsigned b = blocks_for(n);
    unsigned* others = vis ? this->vis[vis_cur].get() : nullptr;
    if (with_notes && vis)
      k_write<true, true><<<b, kThreads, 0, s>>>(n, g, sorted(), bucket.get(), px.get(), py.get(), upd_first.get(),
                                                 upd.get(), note_off.get(), notes.get(), voff, others);
    else if (with_notes)
      k_write<true, false><<<b, kThreads, 0, s>>>(n, g, sorted(), bucket.get(), px.get(), py.get(), upd_first.get(),
                                                  upd.get(), note_off.get(), notes.get(), nullptr, nullptr);
    else
      k_write<false, true><<<b, kThreads, 0, s>>>(n, g, sorted(), bucket.get(), px.get(), py.get(), nullptr, nullptr,
                                                  nullptr, nullptr, voff, others);
    WM_CUDA_LAUNCH(k_write);
  }
  return Status::Ok();
}

// The notification list as mailboxes: the starts of the receivers' runs (gpu-fast has them as its
// offsets; gpu-seed finds them in its sorted receivers) and the entries without their receiver.
Status AoiDevice::Impl::pack_mailboxes() {
  cudaStream_t s = stream;
  Status err;
  if (!(err = mailbox_start.reserve(std::size_t{n} + 1)).ok()) return err;
  if (!(err = mailbox.reserve(std::max<unsigned long long>(note_total, 1))).ok()) return err;
  if (kernel == AoiKernel::Fast) {
    WM_CUDA(cudaMemcpyAsync(mailbox_start.get(), note_off.get(), (std::size_t{n} + 1) * sizeof(unsigned long long),
                            cudaMemcpyDeviceToDevice, s));
  } else {
    k_run_starts<<<blocks_for(std::size_t{n} + 1), kThreads, 0, s>>>(static_cast<unsigned>(note_total), n,
                                                                     pair_receiver_sorted.get(), mailbox_start.get());
    WM_CUDA_LAUNCH(k_run_starts);
  }
  if (note_total > 0) {
    k_pack_mailbox<<<blocks_for(note_total), kThreads, 0, s>>>(note_total, notes.get(), mailbox.get());
    WM_CUDA_LAUNCH(k_pack_mailbox);
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
      k_validate<true><<<blocks_for(m), kThreads, 0, s>>>(im.cmd.get(), m, im.px.get(), im.py.get(), n, im.g,
                                                          im.ok.get(), im.counters.get(), im.move_count.get(),
                                                          im.first_move.get(), im.damage.get(), im.hit.get());
    else
      k_validate<false><<<blocks_for(m), kThreads, 0, s>>>(im.cmd.get(), m, im.px.get(), im.py.get(), n, im.g,
                                                           im.ok.get(), im.counters.get(), nullptr, nullptr, nullptr,
                                                           nullptr);
    WM_CUDA_LAUNCH(k_validate);
  }
  if (!(err = fast ? im.merge_fast(m) : im.merge_seed(m)).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[2], s));

  if (!(err = im.sort_buckets()).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[3], s));

  // Range query (gpu-fast: together with the visibility lists, one receiver-centric pass).
  if (!(err = fast ? im.visibility(true) : im.query_seed()).ok()) return err;
  if (im.g.mailboxes && !(err = im.pack_mailboxes()).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[4], s));
  if (!fast && !(err = im.visibility(false)).ok()) return err;

  // Entered / left against the previous tick's lists.
  im.ent_total = im.left_total = 0;
  if (im.g.track_visibility && im.have_prev) {
    const int p = 1 - im.vis_cur, c = im.vis_cur;
    DeviceBuffer<unsigned long long>* counts_e = &im.ent_count;  // per receiver, then exclusive sums
    DeviceBuffer<unsigned long long>* counts_l = &im.left_count;
    if (n > 0) {
      k_diff<false><<<blocks_for(n), kThreads, 0, s>>>(n, im.vis_off[p].get(), im.vis[p].get(), im.vis_off[c].get(),
                                                       im.vis[c].get(), counts_e->get(), counts_l->get(), nullptr,
                                                       nullptr);
      WM_CUDA_LAUNCH(k_diff);
    }
    WM_CUDA(cudaMemsetAsync(counts_e->get() + n, 0, sizeof(unsigned long long), s));
    WM_CUDA(cudaMemsetAsync(counts_l->get() + n, 0, sizeof(unsigned long long), s));
    if (!(err = exclusive_scan(counts_e->get(), im.ent_off.get(), std::size_t{n} + 1, im.temp, s, &im.ent_total)).ok())
      return err;
    if (!(err = exclusive_scan(counts_l->get(), im.left_off.get(), std::size_t{n} + 1, im.temp, s, &im.left_total))
             .ok())
      return err;
    if (!(err = im.entered.reserve(std::max<unsigned long long>(im.ent_total, 1))).ok()) return err;
    if (!(err = im.left.reserve(std::max<unsigned long long>(im.left_total, 1))).ok()) return err;
    if (n > 0) {
      k_diff<true><<<blocks_for(n), kThreads, 0, s>>>(n, im.vis_off[p].get(), im.vis[p].get(), im.vis_off[c].get(),
                                                      im.vis[c].get(), im.ent_off.get(), im.left_off.get(),
                                                      im.entered.get(), im.left.get());
      WM_CUDA_LAUNCH(k_diff);
    }
  }
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
  const bool boxes = im.g.mailboxes;
  constexpr int kParts = 5;
  const std::size_t bytes[kParts] = {
      std::size_t{im.u_count} * sizeof(AoiUpdateRec), boxes ? 0 : im.note_total * sizeof(AoiNotificationRec),
      boxes ? (n + 1) * sizeof(std::uint64_t) : 0, boxes ? im.note_total * sizeof(AoiMailboxRec) : 0,
      (im.ent_total + im.left_total) * sizeof(AoiPairRec)};
  const void* src[kParts] = {im.upd.get(), im.notes.get(), im.mailbox_start.get(), im.mailbox.get(), nullptr};
  void* dst[kParts] = {out.updates, out.notes, out.mailbox_start, out.mailbox, nullptr};
  const std::size_t player_bytes = n * (2 * sizeof(float) + sizeof(int));
  std::size_t total = player_bytes;
  for (std::size_t b : bytes) total += b;
  Status err = im.pin_out.reserve(std::max<std::size_t>(total, 1));
  if (!err.ok()) return err;
  auto* pin = static_cast<unsigned char*>(im.pin_out.get());
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  std::size_t at = 0;
  for (int k = 0; k < kParts - 1; ++k) {
    if (bytes[k]) WM_CUDA(cudaMemcpyAsync(pin + at, src[k], bytes[k], cudaMemcpyDeviceToHost, s));
    at += bytes[k];
  }
  const std::size_t ent_bytes = im.ent_total * sizeof(AoiPairRec), left_bytes = im.left_total * sizeof(AoiPairRec);
  if (ent_bytes) WM_CUDA(cudaMemcpyAsync(pin + at, im.entered.get(), ent_bytes, cudaMemcpyDeviceToHost, s));
  if (left_bytes) WM_CUDA(cudaMemcpyAsync(pin + at + ent_bytes, im.left.get(), left_bytes, cudaMemcpyDeviceToHost, s));
  at += ent_bytes + left_bytes;
  if (n > 0) {
    WM_CUDA(cudaMemcpyAsync(pin + at, im.px.get(), n * sizeof(float), cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaMemcpyAsync(pin + at + n * sizeof(float), im.py.get(), n * sizeof(float), cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaMemcpyAsync(pin + at + 2 * n * sizeof(float), im.hp.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
  }
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  WM_CUDA(cudaStreamSynchronize(s));
  float t = 0;
  WM_CUDA(cudaEventElapsedTime(&t, im.ev[0], im.ev[1]));
  ms = t;
  at = 0;
  for (int k = 0; k < kParts - 1; ++k) {
    if (bytes[k]) std::memcpy(dst[k], pin + at, bytes[k]);
    at += bytes[k];
  }
  if (ent_bytes) std::memcpy(out.entered, pin + at, ent_bytes);
  if (left_bytes) std::memcpy(out.left, pin + at + ent_bytes, left_bytes);
  at += ent_bytes + left_bytes;
  const float* x = reinterpret_cast<const float*>(pin + at);
  const float* y = x + n;
  const int* h = reinterpret_cast<const int*>(y + n);
  for (std::size_t i = 0; i < n; ++i) out.players[i] = {x[i], y[i], h[i]};
  return Status::Ok();
}

}  // namespace warpmind::gpu
