// Shared by the crowd tests: the context a variant runs on, the variants this machine runs, random moves.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "gpu_helpers.h"
#include "warpmind/core/random.h"
#include "warpmind/crowd/crowd_solver.h"

namespace warpmind::crowd::test {

inline Context& context_of(CrowdVariant v) {
  return is_gpu_variant(v) ? *warpmind::test::cuda_context() : warpmind::test::cpu_context();
}

// cpu-reference, and the GPU variants that run `movement` where there is a GPU.
inline std::vector<CrowdVariant> variants(CrowdMovement movement) {
  std::vector<CrowdVariant> v = {CrowdVariant::CpuReference};
  if (warpmind::test::cuda_context()) {
    v.push_back(CrowdVariant::GpuStaticGrid);
    if (movement == CrowdMovement::AcceptReject) {
      v.push_back(CrowdVariant::GpuSort);
      v.push_back(CrowdVariant::GpuTiled);
    }
  }
  return v;
}

// Each agent's proposal: a random direction, a random length up to `step`, reproducible from the seed.
inline std::vector<Vec2> random_moves(const std::vector<Vec2>& from, float step, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<Vec2> t(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) {
    const float a = rng.uniform(0.0f, 6.2831853f), r = rng.uniform(0.0f, step);
    t[i] = {from[i].x + r * std::cos(a), from[i].y + r * std::sin(a)};
  }
  return t;
}

}  // namespace warpmind::crowd::test
