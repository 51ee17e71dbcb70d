// Random maps for the nav tests: a grid of up to max_side cells a side, blocked_percent of its cells
// blocked and the rest of cost 1 (or 1..9 when costly); a passable cell of it ({-1, -1} if none found).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "warpmind/core/random.h"
#include "warpmind/nav/grid.h"

namespace warpmind::nav::test_maps {

inline Grid random_grid(SplitMix64& rng, int max_side, int blocked_percent, bool costly) {
  Grid g;
  EXPECT_TRUE(make_grid(1 + static_cast<int>(rng.next() % static_cast<std::uint64_t>(max_side)),
                        1 + static_cast<int>(rng.next() % static_cast<std::uint64_t>(max_side)), 1, g)
                  .ok());
  for (auto& c : g.cost) {
    c = static_cast<std::uint8_t>(costly ? 1 + rng.next() % 9 : 1);
    if (static_cast<int>(rng.next() % 100) < blocked_percent) c = kBlocked;
  }
  return g;
}

inline Cell random_passable(SplitMix64& rng, const Grid& g) {
  for (int tries = 0; tries < 10000; ++tries) {
    const Cell c{static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.width)),
                 static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.height))};
    if (g.passable(c.x, c.y)) return c;
  }
  return {-1, -1};
}

}  // namespace warpmind::nav::test_maps
