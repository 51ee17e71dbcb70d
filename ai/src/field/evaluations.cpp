// The cut-off pairs a field build must evaluate (field.h, count_evaluations).
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "field/field_math.h"
#include "warpmind/field/field.h"

namespace warpmind::field {

using detail::Grid;
using detail::Instance;

std::uint64_t count_evaluations(const FieldConfig& config, std::span<const Entity> entities) {
  const Grid g = detail::make_grid(config);
  // Per kind and row offset |dy|: the largest |dx| still inside the cut-off (-1: none). Distance grows
  // with |dx|, so each row of the footprint is one run of cells.
  std::vector<std::vector<int>> extent;
  for (const ChargeKind& k : config.kinds) {
    const int rx = detail::reach(k.cutoff(), g.cw), ry = detail::reach(k.cutoff(), g.ch);
    std::vector<int> e(ry + 1, -1);
    for (int ady = 0; ady <= ry; ++ady)
      for (int adx = 0; adx <= rx && detail::cell_distance(adx, ady, g) <= k.cutoff(); ++adx) e[ady] = adx;
    extent.push_back(std::move(e));
  }
  std::vector<Instance> inst;
  std::uint64_t total = 0;
  for (const LayerSpec& l : config.layers) {
    detail::make_instances(detail::group_map(l), entities, g, inst);
    for (const Instance& i : inst) {
      const std::vector<int>& e = extent[i.kind];
      const int ry = static_cast<int>(e.size()) - 1;
      for (int y = std::max(0, i.iy - ry); y <= std::min(g.height - 1, i.iy + ry); ++y) {
        const int ext = e[std::abs(y - i.iy)];
        const int x0 = std::max(0, i.ix - ext), x1 = std::min(g.width - 1, i.ix + ext);
        if (ext >= 0 && x1 >= x0) total += static_cast<std::uint64_t>(x1 - x0 + 1);
      }
    }
  }
  return total;
}

}  // namespace warpmind::field
