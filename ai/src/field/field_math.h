// The field's exact definition, host side: the grid, the charge tables, the instances. Every CPU variant
// and the host-built tables the GPU uses come from here; where an entity sits, how far a cell is and how
// a contribution is rounded and summed are ai/src/field/field_rules.h, written once for both
// sides.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "warpmind/field/field.h"
#include "field/field_rules.h"

namespace warpmind::field::detail {

struct Grid {
  float x0, y0, cw, ch;
  int width, height;
};

inline Grid make_grid(const FieldConfig& c) {
  return {c.world.x0,
          c.world.y0,
          c.world.width / static_cast<float>(c.width),
          c.world.height / static_cast<float>(c.height),
          c.width,
          c.height};
}

// The arithmetic itself is ai/src/field/field_rules.h, shared with the kernels.
using rules::dequantize;
using rules::quantize;
using rules::snap;

inline float cell_distance(int dx, int dy, const Grid& g) { return rules::distance(dx, dy, g.cw, g.ch); }

// A kind's value at distance d, as the kernels compute it (ChargeKind::value is the contract's reference).
inline float kind_value(const ChargeKind& k, float d) { return rules::kind_value(k, d); }

// The charge table of one kind at one resolution: entry (|dx|, |dy|) for 0 <= |dx| <= rx + 1,
// 0 <= |dy| <= ry + 1, row-major with pitch rx + 2; row ry + 1 and column rx + 1 are zero, so a lookup
// may clamp its offsets to them instead of branching.
struct KindTable {
  int rx = 0, ry = 0;
  std::int32_t max_abs_q = 0;
  std::vector<std::int32_t> q;
  int pitch() const { return rx + 2; }
  std::int32_t at(int adx, int ady) const { return q[static_cast<std::size_t>(ady) * pitch() + adx]; }
};

// Cells of reach along one axis: beyond it the distance exceeds the cut-off.
inline int reach(float cutoff, float cell) {
  return static_cast<int>(std::ceil(static_cast<double>(cutoff) / static_cast<double>(cell)));
}

inline KindTable make_table(const ChargeKind& kind, const Grid& g) {
  KindTable t;
  t.rx = reach(kind.cutoff(), g.cw);
  t.ry = reach(kind.cutoff(), g.ch);
  t.q.assign(static_cast<std::size_t>(t.rx + 2) * (t.ry + 2), 0);
  for (int ady = 0; ady <= t.ry; ++ady)
    for (int adx = 0; adx <= t.rx; ++adx) {
      const std::int32_t v = quantize(kind_value(kind, cell_distance(adx, ady, g)));
      t.q[static_cast<std::size_t>(ady) * t.pitch() + adx] = v;
      t.max_abs_q = std::max(t.max_abs_q, v < 0 ? -v : v);
    }
  return t;
}

// One entity's charge in one layer.
struct Instance {
  int ix, iy, kind;
};

// kind_of_group[g] = kind index of group g in a layer, or -1.
inline std::vector<int> group_map(const LayerSpec& layer) {
  std::vector<int> m(kMaxGroups, -1);
  for (const LayerRule& r : layer.rules) m[r.group] = static_cast<int>(r.kind);
  return m;
}

inline void make_instances(const std::vector<int>& kind_of_group, std::span<const Entity> entities, const Grid& g,
                           std::vector<Instance>& out) {
  out.clear();
  for (const Entity& e : entities) {
    const int k = e.group < kMaxGroups ? kind_of_group[e.group] : -1;
    if (k >= 0) out.push_back({snap(e.x, g.x0, g.cw), snap(e.y, g.y0, g.ch), k});
  }
}

}  // namespace warpmind::field::detail
