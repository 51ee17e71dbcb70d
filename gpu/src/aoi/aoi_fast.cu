// gpu-fast's merge (see aoi.cu): atomics per player, the few players with several moves summed in
// command order; its range query is the receiver-centric pass aoi.cu shares with the visibility lists.
#include "aoi/aoi_kernels.cuh"

namespace warpmind::gpu {
namespace {
using namespace aoi_device;

// ---- gpu-fast merge ------------------------------------------------------------------------------

// Moves of players with several moves: keys player << 32 | command index.
__global__ void k_collect_multi(const AoiCommandRec* __restrict__ cmd, const unsigned char* __restrict__ ok, unsigned m,
                                const unsigned* __restrict__ move_count, unsigned long long* __restrict__ key,
                                unsigned* __restrict__ key_count) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || !ok[i] || cmd[i].type != kMove || move_count[cmd[i].player] < 2) return;
  key[atomicAdd(key_count, 1u)] = static_cast<unsigned long long>(cmd[i].player) << 32 | i;
}

__global__ void k_multi_sum(const unsigned long long* __restrict__ key, unsigned k_count,
                            const AoiCommandRec* __restrict__ cmd, float* __restrict__ sx, float* __restrict__ sy) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= k_count) return;
  const unsigned p = static_cast<unsigned>(key[j] >> 32);
  if (j > 0 && static_cast<unsigned>(key[j - 1] >> 32) == p) return;
  float x = 0.0f, y = 0.0f;
  for (unsigned e = j; e < k_count && static_cast<unsigned>(key[e] >> 32) == p; ++e) {
    const AoiCommandRec& c = cmd[static_cast<unsigned>(key[e])];
    x = __fadd_rn(x, c.dx);
    y = __fadd_rn(y, c.dy);
  }
  sx[p] = x;
  sy[p] = y;
}

// Applies the merged offsets of every player, counts its updates and clears the merge state.
__global__ void k_apply_fast(unsigned n, AoiGeometry g, const AoiCommandRec* __restrict__ cmd,
                             unsigned* __restrict__ move_count, unsigned* __restrict__ first_move,
                             unsigned long long* __restrict__ damage, unsigned char* __restrict__ hit,
                             const float* __restrict__ sx, const float* __restrict__ sy, float* __restrict__ px,
                             float* __restrict__ py, int* __restrict__ hp, unsigned* __restrict__ count) {
  const unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const unsigned moves = move_count[p];
  const bool h = hit[p] != 0;
  if (moves > 0) {
    float dx, dy;
    if (moves == 1) {
      const AoiCommandRec& c = cmd[first_move[p]];
      dx = __fadd_rn(0.0f, c.dx);
      dy = __fadd_rn(0.0f, c.dy);
    } else {
      dx = sx[p];
      dy = sy[p];
    }
    px[p] = moved(px[p], dx, g.x0, g.x_last);
    py[p] = moved(py[p], dy, g.y0, g.y_last);
    move_count[p] = 0;
    first_move[p] = UINT_MAX;
  }
  if (h) {
    hp[p] = hp_after(hp[p], static_cast<long long>(damage[p]));
    damage[p] = 0;
    hit[p] = 0;
  }
  count[p] = (moves > 0 ? 2u : 0u) + (h ? 1u : 0u);
}

__global__ void k_write_updates(unsigned n, const unsigned* __restrict__ first, const unsigned* __restrict__ count,
                                const float* __restrict__ px, const float* __restrict__ py, const int* __restrict__ hp,
                                AoiUpdateRec* __restrict__ upd) {
  const unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n || count[p] == 0) return;
  unsigned o = first[p];
  if (count[p] != 1) {
    upd[o++] = {p, kFieldX, __float_as_uint(px[p])};
    upd[o++] = {p, kFieldY, __float_as_uint(py[p])};
  }
  if (count[p] != 2) upd[o] = {p, kFieldHp, static_cast<unsigned>(hp[p])};
}

}  // namespace

using namespace aoi_device;

Status AoiDevice::Impl::merge_fast(unsigned m) {
  cudaStream_t s = stream;
  Status err;
  unsigned k_count = 0;
  if (m > 0) {
    WM_CUDA(cudaMemsetAsync(multi_count.get(), 0, sizeof(unsigned), s));
    k_collect_multi<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(cmd.get(), ok.get(), m, move_count.get(),
                                                                 multi_key.get(), multi_count.get());
    WM_CUDA_LAUNCH(k_collect_multi);
    WM_CUDA(cudaMemcpyAsync(&k_count, multi_count.get(), sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaStreamSynchronize(s));
  }
  if (k_count > 0) {
    WM_RETURN_IF_ERROR(sort_keys(multi_key.get(), multi_key_sorted.get(), k_count, temp, s));
    k_multi_sum<<<blocks_for<kThreads>(k_count), kThreads, 0, s>>>(multi_key_sorted.get(), k_count, cmd.get(), sx.get(),
                                                                   sy.get());
    WM_CUDA_LAUNCH(k_multi_sum);
  }
  if (n > 0) {
    k_apply_fast<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(n, g, cmd.get(), move_count.get(), first_move.get(),
                                                              damage.get(), hit.get(), sx.get(), sy.get(), px.get(),
                                                              py.get(), hp.get(), upd_count.get());
    WM_CUDA_LAUNCH(k_apply_fast);
  }
  WM_CUDA(cudaMemsetAsync(upd_count.get() + n, 0, sizeof(unsigned), s));
  if (!(err = exclusive_scan(upd_count.get(), upd_first.get(), std::size_t{n} + 1, temp, stream, &u_count)).ok())
    return err;
  if (n > 0) {
    k_write_updates<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(n, upd_first.get(), upd_count.get(), px.get(),
                                                                 py.get(), hp.get(), upd.get());
    WM_CUDA_LAUNCH(k_write_updates);
  }
  return Status::Ok();
}

}  // namespace warpmind::gpu
