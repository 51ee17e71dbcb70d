// gpu-sorted, the thesis pipeline (see aoi.cu): the merge by sorted update vectors and segmented sums, and
// the subject-centric range query whose (receiver, update) pairs a stable radix sort puts in order.
#include "aoi/aoi_kernels.cuh"

namespace warpmind::gpu {
namespace {
using namespace aoi_device;

// ---- gpu-sorted merge ------------------------------------------------------------------------------

__global__ void k_vector_counts(const AoiCommandRec* __restrict__ cmd, const unsigned char* __restrict__ ok, unsigned m,
                                unsigned* __restrict__ count) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) count[i] = ok[i] ? (cmd[i].type == kMove ? 2u : 1u) : 0u;
}

// Vectors keyed player * 4 + field, valued by their command index.
__global__ void k_emit_vectors(const AoiCommandRec* __restrict__ cmd, const unsigned char* __restrict__ ok, unsigned m,
                               const unsigned* __restrict__ offset, unsigned long long* __restrict__ key,
                               unsigned* __restrict__ val) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || !ok[i]) return;
  const AoiCommandRec c = cmd[i];
  const unsigned o = offset[i];
  if (c.type == kMove) {
    key[o] = static_cast<unsigned long long>(c.player) * 4 + kFieldX;
    key[o + 1] = static_cast<unsigned long long>(c.player) * 4 + kFieldY;
    val[o] = val[o + 1] = i;
  } else {  // an attack's HP vector is its target's, a heal's its own player's
    key[o] = static_cast<unsigned long long>(c.type == kAttack ? c.target : c.player) * 4 + kFieldHp;
    val[o] = i;
  }
}

__global__ void k_mark_heads(const unsigned long long* __restrict__ key, unsigned v, unsigned* __restrict__ head) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < v) head[j] = (j == 0 || key[j] != key[j - 1]) ? 1u : 0u;
}

// One thread per run head: sums the run in command order (floats from +0, as the CPU does), applies
// it and writes update number index[j] (the exclusive scan of the heads).
__global__ void k_segment_apply(const unsigned long long* __restrict__ key, const unsigned* __restrict__ val,
                                const unsigned* __restrict__ head, const unsigned* __restrict__ index, unsigned v,
                                const AoiCommandRec* __restrict__ cmd, AoiGeometry g, float* __restrict__ px,
                                float* __restrict__ py, int* __restrict__ hp, AoiUpdateRec* __restrict__ upd) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= v || !head[j]) return;
  const unsigned long long k = key[j];
  const unsigned p = static_cast<unsigned>(k >> 2), f = static_cast<unsigned>(k & 3);
  unsigned e = j;
  AoiUpdateRec u{p, f, 0};
  if (f == kFieldHp) {
    long long dmg = 0;
    for (; e < v && key[e] == k; ++e) {
      const AoiCommandRec& c = cmd[val[e]];
      dmg += c.type == kAttack ? c.damage : -static_cast<long long>(c.damage);
    }
    hp[p] = hp_after(hp[p], dmg);
    u.value = static_cast<unsigned>(hp[p]);
  } else {
    float s = 0.0f;
    for (; e < v && key[e] == k; ++e) s = __fadd_rn(s, f == kFieldX ? cmd[val[e]].dx : cmd[val[e]].dy);
    float* c = f == kFieldX ? px : py;
    const float nv = moved(c[p], s, f == kFieldX ? g.x0 : g.y0, f == kFieldX ? g.x_last : g.y_last);
    c[p] = nv;
    u.value = __float_as_uint(nv);
  }
  upd[index[j]] = u;
}

// Per-player first update and update count (0..3), from the sorted update list.
__global__ void k_update_index(const AoiUpdateRec* __restrict__ upd, unsigned u_count, unsigned* __restrict__ first,
                               unsigned* __restrict__ count) {
  const unsigned u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= u_count) return;
  const unsigned p = upd[u].player;
  if (u > 0 && upd[u - 1].player == p) return;
  unsigned e = u + 1;
  while (e < u_count && upd[e].player == p) ++e;
  first[p] = u;
  count[p] = e - u;
}

// ---- gpu-sorted range query ------------------------------------------------------------------------

// Per update (when write: enumerate) the receivers of its subject: 3 row runs found by binary search.
template <bool kWrite>
__global__ void k_sorted_query(unsigned u_count, unsigned n, AoiGeometry g, const AoiUpdateRec* __restrict__ upd,
                               const unsigned* __restrict__ bucket, const float* __restrict__ px,
                               const float* __restrict__ py, const unsigned* __restrict__ skey, Sorted s,
                               unsigned long long* __restrict__ count, const unsigned long long* __restrict__ offset,
                               unsigned* __restrict__ pair_receiver, unsigned* __restrict__ pair_update) {
  const unsigned u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= u_count) return;
  const unsigned sub = upd[u].player, b = bucket[sub];
  const int bx = static_cast<int>(b % static_cast<unsigned>(g.cols)),
            by = static_cast<int>(b / static_cast<unsigned>(g.cols));
  const int xa = max(0, bx - 1), xb = min(g.cols - 1, bx + 1);
  const float sx = px[sub], sy = py[sub];
  unsigned long long c = 0, o = kWrite ? offset[u] : 0;
  for (int y = max(0, by - 1); y <= min(g.rows - 1, by + 1); ++y) {
    const unsigned row = static_cast<unsigned>(y) * g.cols;
    const unsigned lo = lower_bound(skey, n, row + xa), hi = lower_bound(skey, n, row + xb + 1);
    for (unsigned k = lo; k < hi; ++k) {
      if (!sees(g, s.x[k], s.y[k], sx, sy)) continue;
      if (kWrite) {
        pair_receiver[o] = s.id[k];
        pair_update[o] = u;
        ++o;
      } else {
        ++c;
      }
    }
  }
  if (!kWrite) count[u] = c;
}

__global__ void k_sorted_gather(unsigned long long t, const unsigned* __restrict__ receiver,
                                const unsigned* __restrict__ update, const AoiUpdateRec* __restrict__ upd,
                                AoiNotificationRec* __restrict__ notes) {
  const unsigned long long j = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= t) return;
  const AoiUpdateRec& v = upd[update[j]];
  notes[j] = {receiver[j], v.player, v.field, v.value};
}

}  // namespace

using namespace aoi_device;

Status AoiDevice::Impl::merge_sorted(unsigned m) {
  cudaStream_t s = stream;
  Status err;
  for (DeviceBuffer<unsigned>* b : {&vec_count, &vec_offset})
    if (!(err = b->reserve(std::size_t{m} + 1)).ok()) return err;
  unsigned v = 0;
  if (m > 0) {
    k_vector_counts<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(cmd.get(), ok.get(), m, vec_count.get());
    WM_CUDA_LAUNCH(k_vector_counts);
  }
  WM_CUDA(cudaMemsetAsync(vec_count.get() + m, 0, sizeof(unsigned), s));
  if (!(err = exclusive_scan(vec_count.get(), vec_offset.get(), std::size_t{m} + 1, temp, stream, &v)).ok()) return err;
  const std::size_t cap = std::max<std::size_t>(v, 1);
  for (DeviceBuffer<unsigned>* b : {&vec_val, &vec_val_sorted, &head, &head_index})
    if (!(err = b->reserve(cap + 1)).ok()) return err;
  for (DeviceBuffer<unsigned long long>* b : {&vec_key, &vec_key_sorted})
    if (!(err = b->reserve(cap)).ok()) return err;
  if (m > 0) {
    k_emit_vectors<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(cmd.get(), ok.get(), m, vec_offset.get(), vec_key.get(),
                                                                vec_val.get());
    WM_CUDA_LAUNCH(k_emit_vectors);
  }
  const int bits = bits_for(static_cast<unsigned long long>(n) * 4);
  WM_RETURN_IF_ERROR(
      sort_pairs(vec_key.get(), vec_key_sorted.get(), vec_val.get(), vec_val_sorted.get(), v, temp, s, 0, bits));
  if (v > 0) {
    k_mark_heads<<<blocks_for<kThreads>(v), kThreads, 0, s>>>(vec_key_sorted.get(), v, head.get());
    WM_CUDA_LAUNCH(k_mark_heads);
  }
  WM_CUDA(cudaMemsetAsync(head.get() + v, 0, sizeof(unsigned), s));
  if (!(err = exclusive_scan(head.get(), head_index.get(), std::size_t{v} + 1, temp, stream, &u_count)).ok())
    return err;
  if (v > 0) {
    k_segment_apply<<<blocks_for<kThreads>(v), kThreads, 0, s>>>(vec_key_sorted.get(), vec_val_sorted.get(), head.get(),
                                                                 head_index.get(), v, cmd.get(), g, px.get(), py.get(),
                                                                 hp.get(), upd.get());
    WM_CUDA_LAUNCH(k_segment_apply);
  }
  if (n > 0) WM_CUDA(cudaMemsetAsync(upd_count.get(), 0, std::size_t{n} * sizeof(unsigned), s));
  if (u_count > 0) {
    k_update_index<<<blocks_for<kThreads>(u_count), kThreads, 0, s>>>(upd.get(), u_count, upd_first.get(),
                                                                      upd_count.get());
    WM_CUDA_LAUNCH(k_update_index);
  }
  return Status::Ok();
}

Status AoiDevice::Impl::query_sorted() {
  cudaStream_t s = stream;
  Status err;
  if (!(err = note_count.reserve(std::size_t{u_count} + 1)).ok()) return err;
  if (!(err = note_off.reserve(std::size_t{u_count} + 1)).ok()) return err;
  if (u_count > 0) {
    k_sorted_query<false><<<blocks_for<kThreads>(u_count), kThreads, 0, s>>>(
        u_count, n, g, upd.get(), bucket.get(), px.get(), py.get(), skey.get(), sorted(), note_count.get(), nullptr,
        nullptr, nullptr);
    WM_CUDA_LAUNCH(k_sorted_query);
  }
  WM_CUDA(cudaMemsetAsync(note_count.get() + u_count, 0, sizeof(unsigned long long), s));
  if (!(err = exclusive_scan(note_count.get(), note_off.get(), std::size_t{u_count} + 1, temp, stream, &note_total))
           .ok())
    return err;
  if (note_total > static_cast<unsigned long long>(INT_MAX))
    return Status::Invalid(
        "gpu-sorted: more than 2^31 - 1 notifications in one tick (its sort is limited to that); use gpu-fast");
  const std::size_t cap = std::max<std::size_t>(note_total, 1);
  for (DeviceBuffer<unsigned>* b : {&pair_receiver, &pair_update, &pair_receiver_sorted, &pair_update_sorted})
    if (!(err = b->reserve(cap)).ok()) return err;
  if (!(err = notes.reserve(cap)).ok()) return err;
  if (u_count > 0) {
    k_sorted_query<true><<<blocks_for<kThreads>(u_count), kThreads, 0, s>>>(
        u_count, n, g, upd.get(), bucket.get(), px.get(), py.get(), skey.get(), sorted(), nullptr, note_off.get(),
        pair_receiver.get(), pair_update.get());
    WM_CUDA_LAUNCH(k_sorted_query);
  }
  WM_RETURN_IF_ERROR(sort_pairs(pair_receiver.get(), pair_receiver_sorted.get(), pair_update.get(),
                                pair_update_sorted.get(), note_total, temp, s, 0, bits_for(n)));
  if (note_total > 0) {
    k_sorted_gather<<<blocks_for<kThreads>(note_total), kThreads, 0, s>>>(
        note_total, pair_receiver_sorted.get(), pair_update_sorted.get(), upd.get(), notes.get());
    WM_CUDA_LAUNCH(k_sorted_gather);
  }
  // The receivers' offsets in the sorted list: where each one's run starts.
  k_run_starts<<<blocks_for<kThreads>(std::size_t{n} + 1), kThreads, 0, s>>>(
      static_cast<unsigned>(note_total), n, pair_receiver_sorted.get(), note_off.get());
  WM_CUDA_LAUNCH(k_run_starts);
  return Status::Ok();
}

}  // namespace warpmind::gpu
