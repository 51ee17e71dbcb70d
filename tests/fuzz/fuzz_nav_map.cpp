// libFuzzer target: Moving AI maps. A rejected map leaves the grid unchanged; an accepted one writes back
// and reads again to the same cells; on small maps the field from the first passable cell has 0 at the
// goal, and every direction leads to a neighbour that is strictly nearer, so following them reaches it.
#include <cmath>
#include <vector>

#include "fuzz_context.h"
#include "warpmind/core/context.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind::nav;
  warpmind::Context* ctx = &warpmind::fuzz::cpu_context(1);
  Grid g;
  FUZZ_CHECK(make_grid(2, 1, 1, g).ok());
  const Grid before = g;
  if (!read_moving_ai(warpmind::fuzz::text_of(data, size), g).ok()) {
    FUZZ_CHECK(g.width == before.width && g.height == before.height && g.cost == before.cost);
    return 0;
  }
  FUZZ_CHECK(check_grid(g).ok());
  std::string text;
  FUZZ_CHECK(write_moving_ai(g, text).ok());
  Grid again;
  FUZZ_CHECK(read_moving_ai(text, again).ok() && again.cost == g.cost && again.width == g.width);
  if (g.cells() > 4096) return 0;
  std::size_t start = 0;
  while (start < g.cells() && g.cost[start] == kBlocked) ++start;
  if (start == g.cells()) return 0;
  const Cell goal{static_cast<int>(start % g.width), static_cast<int>(start / g.width)};
  std::vector<float> dist(g.cells());
  std::vector<std::int8_t> dir(g.cells());
  FUZZ_CHECK(distance_fields(*ctx, g, std::vector<Cell>{goal}, dist, dir).ok());
  FUZZ_CHECK(dist[start] == 0.0f && dir[start] == kNoDirection);
  for (std::size_t c = 0; c < g.cells(); ++c) {
    FUZZ_CHECK(dist[c] >= 0.0f);
    FUZZ_CHECK((dir[c] == kNoDirection) == (c == start || !std::isfinite(dist[c])));
    if (dir[c] == kNoDirection) continue;
    const int x = static_cast<int>(c % g.width) + kSteps[dir[c]][0],
              y = static_cast<int>(c / g.width) + kSteps[dir[c]][1];
    FUZZ_CHECK(g.passable(x, y) && dist[g.index(x, y)] < dist[c]);
  }
  return 0;
}
