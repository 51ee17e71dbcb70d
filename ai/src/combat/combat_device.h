// Host-only interface to the CUDA combat volley (gpu/src/combat/combat.cu). Plain types only. The
// contract is ai/include/warpmind/combat/combat.h's; the grid is chosen on the host and used here as given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "warpmind/core/status.h"

namespace warpmind::gpu {

struct CombatGeometry {
  float x0, y0, side;  // the grid's corner and cell side
  int cols, rows;
  float range2;  // range * range, rounded to float
  float damage;
  int cooldown_ticks;
};

// The units' state on the device between volleys. Not thread-safe.
class CombatDevice {
 public:
  static Status create(void* stream, const CombatGeometry& g, std::unique_ptr<CombatDevice>& out);
  ~CombatDevice();
  // Units 0..n-1 (validated by the caller); cooldowns 0.
  Status reset(const std::uint8_t* teams, const float* hp, std::size_t n);
  // One volley on device positions (n float pairs, n = size()); keep flags left in keep(); the survivors
  // compacted; waits for their count only.
  Status fire(const float* positions, std::size_t& survivors);
  // The state to the host (n = size() each; null pointers skipped); blocking.
  Status read(std::uint8_t* teams, float* hp, std::int32_t* cooldown) const;
  Status read_keep(std::uint8_t* keep, std::size_t n) const;  // the last volley's flags; blocking
  const std::uint8_t* teams() const;
  const float* hp() const;
  const std::uint8_t* keep() const;
  std::size_t size() const;

  struct Impl;

 private:
  CombatDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
