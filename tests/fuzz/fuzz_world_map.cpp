// libFuzzer target: drawing on a world map (world_map.h). The bytes are read as a map size and a list of
// shapes with raw float coordinates (NaN, infinities and huge values included); a shape that is refused
// leaves the map as it was, and every drawn map stays W x H with its obstacle and navigation forms equal
// to its costs.
#include <cmath>
#include <cstring>
#include <vector>

#include "fuzz_common.h"
#include "warpmind/world/world_map.h"

namespace {

struct Bytes {
  const std::uint8_t* p;
  std::size_t n;
  bool take(void* out, std::size_t k) {
    if (n < k) return false;
    std::memcpy(out, p, k);
    p += k;
    n -= k;
    return true;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind;
  using namespace warpmind::world;
  Bytes in{data, size};
  std::uint8_t w = 0, h = 0;
  float world[4];
  if (!in.take(&w, 1) || !in.take(&h, 1) || !in.take(world, sizeof world)) return 0;
  WorldMap m;
  if (!WorldMap::create({world[0], world[1], world[2], world[3]}, 1 + w % 64, 1 + h % 64, m).ok()) return 0;
  for (int shape = 0; shape < 16; ++shape) {
    std::uint8_t op = 0, cost = 0;
    float f[5];
    if (!in.take(&op, 1) || !in.take(&cost, 1) || !in.take(f, sizeof f)) break;
    const std::vector<std::uint8_t> before = m.costs();
    Status st;
    switch (op % 4) {
      case 0:
        st = m.fill_rect({f[0], f[1]}, {f[2], f[3]}, cost);
        break;
      case 1:
        st = m.draw_line({f[0], f[1]}, {f[2], f[3]}, f[4], cost);
        break;
      case 2: {
        std::vector<Vec2> pts = {{f[0], f[1]}, {f[2], f[3]}, {f[4], f[0]}};
        float g[2];
        while (pts.size() < 12 && in.take(g, sizeof g) && g[0] == g[0]) pts.push_back({g[0], g[1]});
        st = m.fill_polygon(pts, cost);
        break;
      }
      default:
        st = m.set_cell(static_cast<int>(op / 4) - 4, cost % 70, cost);
        break;
    }
    if (!st.ok()) FUZZ_CHECK(m.costs() == before);
    FUZZ_CHECK(m.costs().size() == static_cast<std::size_t>(m.width()) * m.height());
  }
  const crowd::ObstacleGrid o = m.crowd_obstacles();
  nav::Grid g;
  FUZZ_CHECK(m.nav_grid(g).ok() && g.cost == m.costs());
  for (std::size_t i = 0; i < o.blocked.size(); ++i) FUZZ_CHECK((o.blocked[i] != 0) == (m.costs()[i] == 0));
  std::vector<field::Entity> walls;
  FUZZ_CHECK(m.wall_entities(0, walls).ok() && walls.size() <= o.blocked.size());
  return 0;
}
