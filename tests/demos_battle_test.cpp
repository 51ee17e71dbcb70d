// The demo's battle simulation without rendering: a fixed seed ends with a winner, nobody ever
// overlaps, and the final state is pinned.
#include <gtest/gtest.h>

#include "battle.h"
#include "gpu_helpers.h"

namespace warpmind::demos {
namespace {

TEST(Battle, FixedSeedEndsWithAWinnerWithoutOverlaps) {
  BattleConfig c;
  c.units_per_army = 120;
  c.field_resolution = 128;
  c.start_gap = 16.0f;
  c.seed = 5;
  std::unique_ptr<Battle> b;
  ASSERT_TRUE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
  const std::size_t start = b->alive(0) + b->alive(1);
  EXPECT_GT(start, 200u);
  while (b->winner() < 0 && b->ticks() < 3000) {
    ASSERT_TRUE(b->tick().ok());
    ASSERT_EQ(b->overlaps(), 0u) << "tick " << b->ticks();
  }
  ASSERT_GE(b->winner(), 0) << "no winner after 3000 ticks: " << b->alive(0) << " vs " << b->alive(1);
  EXPECT_NE(b->winner(), 2);
  EXPECT_GT(b->alive(b->winner()), 0u);
  EXPECT_EQ(b->state_hash(), 0x1019518a14de7971ull) << "ticks " << b->ticks() << ", winner " << b->winner();
}

TEST(Battle, RejectsBadConfigs) {
  BattleConfig c;
  c.units_per_army = 0;
  std::unique_ptr<Battle> b;
  EXPECT_FALSE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
  c.units_per_army = 10;
  c.damage = 0;
  EXPECT_FALSE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
}

}  // namespace
}  // namespace warpmind::demos
