// warpmind::field::ChargeKind — the potential an entity exerts around itself, as a function of distance.
//
// A charge kind is a radial profile u(d) of the world-unit distance d from the entity: up to four
// linear segments, segment k covering end[k-1] < d <= end[k] (end[-1] = -inf) with
// u(d) = intercept[k] + slope[k] * d, and zero beyond the last end (the cut-off radius).
// Positive values attract, negative values repel.
//
// The factories give the profiles of the source literature with their constants as parameters:
//   circle          Elmir's circle entity (Figure 2.2 of the thesis: 5.25d-37.5 up to 4, 3.5d-25 up to
//                   7.14), its argument scaled by s = 7.14f / radius so that its end 7.14 lands on
//                   `radius`: segments {end 4/s, slope 5.25s, intercept -37.5} and {end radius, slope
//                   3.5s, intercept -25}, all in float. Like the seed's own curve (3.5 * 7.14 - 25 =
//                   -0.01) it does NOT reach zero exactly: u(radius) = -25 + (3.5s) * radius is about
//                   -0.0100 in float (within [-0.010004, -0.009998] for radii 0.001..1e5; -0.0100002289
//                   for radius 4 or 8, -0.0100021362 for 15), which rounds to -10 * 2^-10 =
//                   -0.009765625 in a field; u = 0 for every d > radius, so the profile steps from
//                   about -0.01 to 0 at the radius. u(0) = -37.5. The default kind.
//   attack          Hagelbäck's attracting charge of an enemy: peak*d/msd below msd-1, `peak` from msd-1
//                   to the maximum shooting distance `msd`, then falloff-(d-msd), zero `falloff` past msd.
//   retreat         Hagelbäck's repelling enemy charge while a weapon cools down: min(0, (d - range)/2).
//   own_unit        a constant `value` (default -25) within `radius` (default 2): keeps formations apart.
//   obstacle        a large constant penalty (default -1000) within `radius` (default 0.75): terrain.
//   trail           -10 within 1.5 units of a unit's recent positions: stops oscillation.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "warpmind/core/status.h"

namespace warpmind::field {

struct ChargeSegment {
  float end;        // segment covers (previous end, end]   [Limit: > previous end]
  float slope;      // per world unit
  float intercept;  // value at d = 0 of this segment's line
};

// The numbers of a radial profile: trivially copyable, the same bytes in host and device memory (the
// kernels read them as they are). ChargeKind adds a name.
struct ChargeProfile {
  static constexpr int kMaxSegments = 4;
  static constexpr float kMaxMagnitude = 1.0e6f;  // |u(d)| bound, keeps fixed-point sums exact

  int segments = 0;
  float end[kMaxSegments] = {};
  float slope[kMaxSegments] = {};
  float intercept[kMaxSegments] = {};

  float cutoff() const { return segments > 0 ? end[segments - 1] : 0.0f; }
  // Reference evaluation (IEEE float, no fused multiply-add). Zero beyond the cut-off.
  float value(float d) const {
    for (int k = 0; k < segments; ++k)
      if (d <= end[k]) return intercept[k] + slope[k] * d;
    return 0.0f;
  }
};

struct ChargeKind : ChargeProfile {
  std::string name;
};

// Builds a kind from explicit segments; checks count, order, finiteness and magnitude.
Status make_charge_kind(std::string name, std::span<const ChargeSegment> segments, ChargeKind& out);

ChargeKind circle(float radius = 8.0f);
ChargeKind attack(float msd, float peak = 100.0f, float falloff = 80.0f);
ChargeKind retreat(float range = 80.0f);
ChargeKind own_unit(float radius = 2.0f, float value = -25.0f);
ChargeKind obstacle(float radius = 0.75f, float value = -1000.0f);
ChargeKind trail(float radius = 1.5f, float value = -10.0f);

// Looks a factory up by name ("circle", "attack", "retreat", "own_unit", "obstacle", "trail") with its
// first parameter (radius / msd / range); other parameters take their defaults.
Status charge_kind_from_name(const std::string& type, float param, ChargeKind& out);

}  // namespace warpmind::field
