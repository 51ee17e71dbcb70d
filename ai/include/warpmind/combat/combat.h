// warpmind::combat::Volleys — RTS combat resolution: units of several teams, every ready weapon fires at
// the nearest enemy in range, damage lands at once, the dead leave.
//
// State: n units (ids 0..n-1), each with a team (0..255), HP (float) and a cooldown (ticks until its
// weapon is ready). Positions are the caller's (a crowd solver's, say) and are passed to every volley.
// One fire(positions):
//  1. Every unit i (the result does not depend on any order):
//       cooldown > 0: its cooldown falls by one, no shot;
//       else its target is the unit j of another team with
//         d2 = dx*dx + dy*dy <= range*range  (dx = x_j - x_i, dy = y_j - y_i; float, every product and
//                                              the sum rounded, no fused multiply-add; range*range too)
//       and the smallest d2, ties to the lowest j — a unit exactly `range` away is in range. With a target
//       it fires and its cooldown becomes cooldown_ticks; without one its cooldown stays 0.
//  2. A unit shot k >= 1 times takes damage added k times in float from 0 (((0 + d) + d) + ...), and its
//     HP becomes hp - that sum (one float subtraction); a unit not shot keeps its HP bits.
//  3. Units whose HP is no longer > 0 die: keep[i] = 0 (1 for the survivors), and the survivors are
//     renumbered 0..m-1 in their order (as CrowdSolver::retain does with the same flags).
// Targets are found through a grid of square cells a little wider than `range` laid from the world's
// corner (each index floor((p - corner) / side), clamped into the grid, so units outside the world are
// handled too), scanning a unit's 3 x 3 cells: no pair within range is missed by the rounding of the
// cell index (the side is range * (1 + (m + 8) * 2^-20), m cells per axis, as the AOI's circle buckets).
//
// Variants: cpu (the cells by counting sort, units on the thread pool) and, with the CUDA backend, gpu
// (cells by radix sort, one thread per unit, shots counted by atomics, survivors compacted on the device,
// state in device memory between volleys; fire_device() takes device positions). Both give identical
// teams, HP bits, cooldowns and keep flags. Auto: gpu on a CUDA context, cpu on a CPU one.
//
// Errors are Status, never exceptions; a call that fails changes nothing (but a GPU fire_device() that
// meets a device error, after which the state is undefined until reset()). Blocking: every call returns
// with its results in host memory except the device accessors' contents, which are ordered on the
// context's stream. Not thread-safe; the Context must outlive the object.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"

namespace warpmind::combat {

enum class CombatVariant { Auto, Cpu, Gpu };
const char* variant_name(CombatVariant v);
bool parse_variant(std::string_view name, CombatVariant& out);

struct CombatConfig {
  WorldRect world{0, 0, 128, 128};  // where the units stand (the grid's extent): finite, width, height > 0
  float range = 6.0f;               // weapon range [Limit: finite, > 0, at most 10^8 cells of the grid]
  float damage = 12.0f;             // per shot [Limit: finite, >= 0]
  int cooldown_ticks = 4;           // ticks a weapon rests after firing [Limit: 0..2^30]
  CombatVariant variant = CombatVariant::Auto;
};

class Volleys {
 public:
  static Status create(Context& ctx, const CombatConfig& config, std::unique_ptr<Volleys>& out);
  ~Volleys();

  // Units 0..n-1 with these teams and HP (finite and > 0: the first offender is named), cooldowns 0.
  Status reset(std::span<const std::uint8_t> teams, std::span<const float> hp);
  // One volley on `positions` (size(): finite, the first offender named); keep[i] as in the contract
  // (size() flags). Afterwards size() is the survivors' count.
  Status fire(std::span<const Vec2> positions, std::span<std::uint8_t> keep);
  // GPU variant: positions in device memory (size() of them, not validated: a non-finite one takes part
  // in no pair), queued on the context's stream; waits only for the survivors' count. The keep flags
  // stay in device memory (device_keep()) until the next fire or reset, e.g. for
  // CrowdSolver::retain_device. The positions must stay allocated until the call returns.
  Status fire_device(const Vec2* device_positions);

  std::size_t size() const { return n_; }
  // The state, copied to the host (blocking); any pointer may be null.
  Status read(std::vector<std::uint8_t>* teams, std::vector<float>* hp, std::vector<std::int32_t>* cooldown) const;
  // GPU variant: the state in device memory (n entries each; nullptr on the CPU variant), valid until the
  // next reset() that grows the unit count beyond what was ever allocated, current in stream order.
  const std::uint8_t* device_teams() const;
  const float* device_hp() const;
  const std::uint8_t* device_keep() const;  // the last volley's flags (as many as units before it)
  // The last volley's flags copied to the host (keep.size() = the unit count before it); blocking.
  Status read_keep(std::span<std::uint8_t> keep) const;

  CombatVariant variant() const { return variant_; }
  const CombatConfig& config() const { return config_; }

  struct Impl;

 private:
  Volleys() = default;
  Context* ctx_ = nullptr;
  CombatConfig config_;
  CombatVariant variant_ = CombatVariant::Auto;
  std::size_t n_ = 0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::combat
