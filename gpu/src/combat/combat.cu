// CUDA combat volley (contract: ai/include/warpmind/combat/combat.h), in five steps:
//   cells     cell key per unit, CUB radix sort of (cell, id) pairs (stable: ids ascend inside a cell),
//             positions and teams gathered in cell order, a start table start[c] = first sorted index
//             with cell >= c (c = 0..cells), so a row's three cells are one contiguous run
//   target    one thread per unit: a resting weapon counts down; a ready one scans its 3 x 3 cells for
//             the nearest unit of another team within range (ties: lowest id), fires (cooldown reset)
//             and counts its shot on the target with an atomic add
//   damage    one thread per unit: k shots -> damage added k times from 0, subtracted once; keep = hp > 0
//   compact   the survivors' team, HP and cooldown selected in order (CUB), their count read back
// Float arithmetic is combat_rules.h's (exactly rounded intrinsics), so results equal the CPU's bit for bit.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "combat/combat_device.h"
#include "combat/combat_rules.h"

namespace warpmind::gpu {
namespace {

constexpr int kThreads = 256;

using combat::rules::better;
using combat::rules::cell_axis;
using combat::rules::distance2;

__global__ void k_cells(unsigned n, CombatGeometry g, const float2* __restrict__ pos, unsigned* __restrict__ key,
                        unsigned* __restrict__ id) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 p = pos[i];
  key[i] = static_cast<unsigned>(cell_axis(p.y, g.y0, g.side, g.rows)) * static_cast<unsigned>(g.cols) +
           static_cast<unsigned>(cell_axis(p.x, g.x0, g.side, g.cols));
  id[i] = i;
}

__global__ void k_gather(unsigned n, const unsigned* __restrict__ sid, const float2* __restrict__ pos,
                         const unsigned char* __restrict__ team, float2* __restrict__ spos,
                         unsigned char* __restrict__ steam) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const unsigned i = sid[k];
  spos[k] = pos[i];
  steam[k] = team[i];
}

__global__ void k_target(unsigned n, CombatGeometry g, const float2* __restrict__ pos,
                         const unsigned char* __restrict__ team, const unsigned* __restrict__ key,
                         const unsigned* __restrict__ start, const unsigned* __restrict__ sid,
                         const float2* __restrict__ spos, const unsigned char* __restrict__ steam,
                         int* __restrict__ cooldown, unsigned* __restrict__ shots) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int cd = cooldown[i];
  if (cd > 0) {
    cooldown[i] = cd - 1;
    return;
  }
  const float2 p = pos[i];
  const unsigned char t = team[i];
  const unsigned c = key[i];
  const int cx = static_cast<int>(c % static_cast<unsigned>(g.cols)),
            cy = static_cast<int>(c / static_cast<unsigned>(g.cols));
  const int xa = max(0, cx - 1), xb = min(g.cols - 1, cx + 1);
  unsigned best = UINT_MAX;
  float best_d2 = g.range2;
  for (int y = max(0, cy - 1); y <= min(g.rows - 1, cy + 1); ++y) {
    const unsigned row = static_cast<unsigned>(y) * static_cast<unsigned>(g.cols);
    for (unsigned k = start[row + xa], e = start[row + xb + 1]; k < e; ++k) {
      if (steam[k] == t) continue;
      const float2 q = spos[k];
      const float d2 = distance2(p.x, p.y, q.x, q.y);
      if (better(d2, sid[k], best_d2, best)) {
        best_d2 = d2;
        best = sid[k];
      }
    }
  }
  if (best != UINT_MAX) {
    cooldown[i] = g.cooldown_ticks;
    atomicAdd(&shots[best], 1u);
  }
}

__global__ void k_damage(unsigned n, float damage, float* __restrict__ hp, unsigned* __restrict__ shots,
                         unsigned char* __restrict__ keep) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned k = shots[i];
  float h = hp[i];
  if (k > 0) {
    float sum = 0.0f;
    for (unsigned s = 0; s < k; ++s) sum = __fadd_rn(sum, damage);
    h = __fsub_rn(h, sum);
    hp[i] = h;
    shots[i] = 0;
  }
  keep[i] = h > 0.0f ? 1 : 0;
}

}  // namespace

struct CombatDevice::Impl {
  cudaStream_t stream = nullptr;
  CombatGeometry g{};
  unsigned cells = 0;
  std::size_t n = 0;
  DeviceBuffer<unsigned char> team, team2, steam, keep;
  DeviceBuffer<float> hp, hp2;
  DeviceBuffer<int> cooldown, cooldown2;
  DeviceBuffer<unsigned> shots, key, ids, skey, sid, start, kept;
  DeviceBuffer<float2> spos;
  DeviceBuffer<unsigned char> temp;
  PinnedBuffer pin;
};

Status CombatDevice::create(void* stream, const CombatGeometry& g, std::unique_ptr<CombatDevice>& out) {
  std::unique_ptr<CombatDevice> d(new CombatDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  im.g = g;
  im.cells = static_cast<unsigned>(g.cols) * static_cast<unsigned>(g.rows);
  WM_RETURN_IF_ERROR(im.start.reserve(std::size_t{im.cells} + 1));
  WM_RETURN_IF_ERROR(im.kept.reserve(1));
  out = std::move(d);
  return Status::Ok();
}

CombatDevice::~CombatDevice() = default;

const std::uint8_t* CombatDevice::teams() const { return impl_->team.get(); }
const float* CombatDevice::hp() const { return impl_->hp.get(); }
const std::uint8_t* CombatDevice::keep() const { return impl_->keep.get(); }
std::size_t CombatDevice::size() const { return impl_->n; }

Status CombatDevice::reset(const std::uint8_t* teams, const float* hp, std::size_t n) {
  Impl& im = *impl_;
  if (n >= (std::size_t{1} << 31)) return Status::Invalid("combat: at most 2^31 - 1 units");
  const std::size_t cap = std::max<std::size_t>(n, 1);
  for (DeviceBuffer<unsigned char>* b : {&im.team, &im.team2, &im.steam, &im.keep}) WM_RETURN_IF_ERROR(b->reserve(cap));
  for (DeviceBuffer<float>* b : {&im.hp, &im.hp2}) WM_RETURN_IF_ERROR(b->reserve(cap));
  for (DeviceBuffer<int>* b : {&im.cooldown, &im.cooldown2}) WM_RETURN_IF_ERROR(b->reserve(cap));
  for (DeviceBuffer<unsigned>* b : {&im.key, &im.ids, &im.skey, &im.sid}) WM_RETURN_IF_ERROR(b->reserve(cap));
  WM_RETURN_IF_ERROR(im.shots.reserve(cap, true));
  WM_RETURN_IF_ERROR(im.spos.reserve(cap));
  if (n > 0) {
    WM_CUDA(cudaMemcpyAsync(im.team.get(), teams, n, cudaMemcpyHostToDevice, im.stream));
    WM_CUDA(cudaMemcpyAsync(im.hp.get(), hp, n * sizeof(float), cudaMemcpyHostToDevice, im.stream));
  }
  WM_CUDA(cudaMemsetAsync(im.cooldown.get(), 0, cap * sizeof(int), im.stream));
  WM_CUDA(cudaMemsetAsync(im.shots.get(), 0, cap * sizeof(unsigned), im.stream));
  WM_CUDA(cudaMemsetAsync(im.keep.get(), 1, cap, im.stream));
  WM_CUDA(cudaStreamSynchronize(im.stream));
  im.n = n;
  return Status::Ok();
}

Status CombatDevice::fire(const float* positions, std::size_t& survivors) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  const unsigned n = static_cast<unsigned>(im.n);
  survivors = im.n;
  if (n == 0) return Status::Ok();
  const auto* pos = reinterpret_cast<const float2*>(positions);
  const unsigned b = blocks_for<kThreads>(n);
  k_cells<<<b, kThreads, 0, s>>>(n, im.g, pos, im.key.get(), im.ids.get());
  WM_CUDA_LAUNCH(k_cells);
  WM_RETURN_IF_ERROR(
      sort_pairs(im.key.get(), im.skey.get(), im.ids.get(), im.sid.get(), n, im.temp, s, 0, bits_for(im.cells)));
  k_gather<<<b, kThreads, 0, s>>>(n, im.sid.get(), pos, im.team.get(), im.spos.get(), im.steam.get());
  WM_CUDA_LAUNCH(k_gather);
  k_run_starts<<<blocks_for<kThreads>(std::size_t{im.cells} + 1), kThreads, 0, s>>>(n, im.cells, im.skey.get(),
                                                                                    im.start.get());
  WM_CUDA_LAUNCH(k_run_starts);
  k_target<<<b, kThreads, 0, s>>>(n, im.g, pos, im.team.get(), im.key.get(), im.start.get(), im.sid.get(),
                                  im.spos.get(), im.steam.get(), im.cooldown.get(), im.shots.get());
  WM_CUDA_LAUNCH(k_target);
  k_damage<<<b, kThreads, 0, s>>>(n, im.g.damage, im.hp.get(), im.shots.get(), im.keep.get());
  WM_CUDA_LAUNCH(k_damage);
  // The survivors, in order, into the spare arrays, which become the state.
  WM_RETURN_IF_ERROR(select_flagged(im.team.get(), im.keep.get(), im.team2.get(), im.kept.get(), n, im.temp, s));
  WM_RETURN_IF_ERROR(select_flagged(im.hp.get(), im.keep.get(), im.hp2.get(), im.kept.get(), n, im.temp, s));
  WM_RETURN_IF_ERROR(
      select_flagged(im.cooldown.get(), im.keep.get(), im.cooldown2.get(), im.kept.get(), n, im.temp, s));
  unsigned kept = 0;
  WM_RETURN_IF_ERROR(im.pin.download(&kept, im.kept.get(), sizeof kept, s));
  im.team.swap(im.team2);
  im.hp.swap(im.hp2);
  im.cooldown.swap(im.cooldown2);
  im.n = kept;
  survivors = kept;
  return Status::Ok();
}

Status CombatDevice::read(std::uint8_t* teams, float* hp, std::int32_t* cooldown) const {
  Impl& im = *impl_;
  const std::size_t n = im.n;
  if (n == 0) return Status::Ok();
  if (teams) WM_RETURN_IF_ERROR(im.pin.download(teams, im.team.get(), n, im.stream));
  if (hp) WM_RETURN_IF_ERROR(im.pin.download(hp, im.hp.get(), n * sizeof(float), im.stream));
  if (cooldown) WM_RETURN_IF_ERROR(im.pin.download(cooldown, im.cooldown.get(), n * sizeof(int), im.stream));
  return Status::Ok();
}

Status CombatDevice::read_keep(std::uint8_t* keep, std::size_t n) const {
  Impl& im = *impl_;
  if (n == 0) return Status::Ok();
  return im.pin.download(keep, im.keep.get(), n, im.stream);
}

}  // namespace warpmind::gpu
