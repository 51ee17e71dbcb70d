// Brute-force field values written straight from the contract in warpmind/field/field.h, sharing no
// code with the library's variants: the independent reference of the field tests and of
// `warpmind-bench field` (whole layers where cells x entities is small, sampled cells otherwise).
// Slow on purpose: O(entities) per cell.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "warpmind/field/field.h"

namespace warpmind::oracle {

// The value of cell (x, y) of `layer`: every entity of a group with a rule in that layer contributes
// u(d) of its kind, rounded to a multiple of 2^-10 (ties to even), summed exactly; the sum as the
// nearest float. Entities of groups without a rule, or with a group >= kMaxGroups, contribute nothing.
inline float field_cell(const field::FieldConfig& c, int layer, std::span<const field::Entity> entities, int x, int y) {
  const float cw = c.world.width / static_cast<float>(c.width);
  const float ch = c.world.height / static_cast<float>(c.height);
  int kind_of[field::kMaxGroups];
  for (int& k : kind_of) k = -1;
  for (const field::LayerRule& r : c.layers[static_cast<std::size_t>(layer)].rules)
    kind_of[r.group] = static_cast<int>(r.kind);
  std::int64_t sum = 0;
  for (const field::Entity& e : entities) {
    if (e.group >= field::kMaxGroups || kind_of[e.group] < 0) continue;
    const field::ChargeKind& kind = c.kinds[static_cast<std::size_t>(kind_of[e.group])];
    // The entity's cell, in double so that far-away entities cannot overflow an int.
    const double ex = std::floor(static_cast<double>((e.x - c.world.x0) / cw));
    const double ey = std::floor(static_cast<double>((e.y - c.world.y0) / ch));
    const double dxd = static_cast<double>(x) - ex, dyd = static_cast<double>(y) - ey;
    if (std::fabs(dxd) > 1e8 || std::fabs(dyd) > 1e8) continue;  // beyond any cut-off a kind may have
    const float fx = static_cast<float>(dxd) * cw, fy = static_cast<float>(dyd) * ch;
    const float d = std::sqrt(fx * fx + fy * fy);
    const float u = kind.value(d);
    sum += static_cast<std::int64_t>(std::nearbyint(static_cast<double>(u) * 1024.0));
  }
  return static_cast<float>(static_cast<double>(sum) / 1024.0);
}

// A whole layer, row-major (O(cells x entities)).
inline std::vector<float> field_layer(const field::FieldConfig& c, int layer, std::span<const field::Entity> entities) {
  std::vector<float> out(static_cast<std::size_t>(c.width) * static_cast<std::size_t>(c.height));
  for (int y = 0; y < c.height; ++y)
    for (int x = 0; x < c.width; ++x)
      out[static_cast<std::size_t>(y) * static_cast<std::size_t>(c.width) + static_cast<std::size_t>(x)] =
          field_cell(c, layer, entities, x, y);
  return out;
}

}  // namespace warpmind::oracle
