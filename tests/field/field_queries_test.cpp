// Queries (sample, best_move, gradient): CPU against hand-checked expectations, GPU against CPU bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "field_cases.h"
#include "gpu_helpers.h"
#include "warpmind/field/field.h"

namespace warpmind::field {
namespace {

std::unique_ptr<FieldLayers> built(Context& ctx, FieldConfig cfg, FieldVariant v, const std::vector<Entity>& e) {
  cfg.variant = v;
  std::unique_ptr<FieldLayers> f;
  EXPECT_TRUE(FieldLayers::create(ctx, cfg, f).ok());
  EXPECT_TRUE(f->build(e).ok());
  return f;
}

FieldConfig attack_config() {
  FieldConfig c;
  c.world = {0, 0, 40, 20};
  c.width = 40;
  c.height = 20;
  c.kinds = {attack(6.0f)};
  c.layers = {{"enemy", {{0, 0}}}};
  return c;
}

TEST(FieldQueries, BestMoveClimbsTowardsWeaponRange) {
  const std::vector<Entity> enemy = {{30.5f, 10.5f, 0, 0}};
  auto f = built(warpmind::test::cpu_context(), attack_config(), FieldVariant::CpuStamp, enemy);
  // Far away (d = 20): the field rises towards the enemy, so the best neighbour is one step closer.
  const std::vector<Vec2> pts = {{10.5f, 10.5f}, {24.5f, 10.5f}, {-100.0f, -100.0f}};
  std::vector<MoveChoice> mv(pts.size());
  ASSERT_TRUE(f->best_move(0, pts, 3, mv).ok());
  EXPECT_EQ(mv[0].cell_x, 11);
  EXPECT_EQ(mv[0].cell_y, 10);
  EXPECT_FLOAT_EQ(mv[0].target.x, 11.5f);
  EXPECT_FLOAT_EQ(mv[0].target.y, 10.5f);
  // At d = 6 = MSD the unit is on the plateau: it stays (ties go to the first cell in row order, and
  // the plateau cells at d in [5, 6] all hold 100).
  EXPECT_EQ(mv[1].value, 100.0f);
  // Outside the world: clamped to the corner cell, moves inside.
  EXPECT_GE(mv[2].cell_x, 0);
  EXPECT_GE(mv[2].cell_y, 0);
  // A 5x5 window sees two steps.
  ASSERT_TRUE(f->best_move(0, pts, 5, mv).ok());
  EXPECT_EQ(mv[0].cell_x, 12);
  // Bad windows and sizes.
  EXPECT_FALSE(f->best_move(0, pts, 4, mv).ok());
  EXPECT_FALSE(f->best_move(0, pts, 0, mv).ok());
  std::vector<MoveChoice> small(1);
  EXPECT_FALSE(f->best_move(0, pts, 3, small).ok());
  EXPECT_FALSE(f->best_move(3, pts, 3, mv).ok());
}

TEST(FieldQueries, SampleAndGradient) {
  const std::vector<Entity> enemy = {{30.5f, 10.5f, 0, 0}};
  auto f = built(warpmind::test::cpu_context(), attack_config(), FieldVariant::CpuStamp, enemy);
  const std::vector<Vec2> pts = {{10.5f, 10.5f}, {30.5f, 10.5f}, {0.0f, 0.0f}, {39.9f, 19.9f}};
  std::vector<float> v(pts.size());
  ASSERT_TRUE(f->sample(0, pts, v).ok());
  EXPECT_EQ(v[0], 80.0f - 14.0f);  // d = 20: 80 - (20 - 6)
  EXPECT_EQ(v[1], 0.0f);           // on the enemy: 100 * 0 / 6
  std::vector<Vec2> g(pts.size());
  ASSERT_TRUE(f->gradient(0, pts, g).ok());
  EXPECT_FLOAT_EQ(g[0].x, 1.0f);  // rises 1 per unit towards the enemy
  EXPECT_NEAR(g[0].y, 0.0f, 1e-6f);
  // One-sided on the border cells: finite values.
  EXPECT_TRUE(std::isfinite(g[2].x) && std::isfinite(g[3].y));
}

TEST(FieldQueries, GpuEqualsCpuBitForBit) {
  WM_REQUIRE_GPU();
  for (const auto& c : test::field_cases()) {
    SCOPED_TRACE(c.name);
    auto cpu = built(warpmind::test::cpu_context(), c.config, FieldVariant::CpuStamp, c.entities);
    auto gpu = built(*warpmind::test::cuda_context(), c.config, FieldVariant::GpuBinned, c.entities);
    // Points inside, on the border and far outside the world.
    std::vector<Vec2> pts;
    for (const Entity& e : test::random_entities(c.config.world, 500, 1, 77, c.config.world.width * 0.2f))
      pts.push_back({e.x, e.y});
    pts.push_back({c.config.world.x0, c.config.world.y0});
    pts.push_back({1e30f, -1e30f});
    for (int l = 0; l < cpu->layer_count(); ++l) {
      std::vector<float> a(pts.size()), b(pts.size());
      ASSERT_TRUE(cpu->sample(l, pts, a).ok());
      ASSERT_TRUE(gpu->sample(l, pts, b).ok());
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
      for (int window : {1, 3, 11}) {
        std::vector<MoveChoice> ma(pts.size()), mb(pts.size());
        ASSERT_TRUE(cpu->best_move(l, pts, window, ma).ok());
        ASSERT_TRUE(gpu->best_move(l, pts, window, mb).ok());
        EXPECT_EQ(0, std::memcmp(ma.data(), mb.data(), ma.size() * sizeof(MoveChoice))) << "window " << window;
      }
      std::vector<Vec2> ga(pts.size()), gb(pts.size());
      ASSERT_TRUE(cpu->gradient(l, pts, ga).ok());
      ASSERT_TRUE(gpu->gradient(l, pts, gb).ok());
      EXPECT_EQ(0, std::memcmp(ga.data(), gb.data(), ga.size() * sizeof(Vec2)));
    }
  }
}

TEST(FieldQueries, EmptyBatchesAreFine) {
  auto f = built(warpmind::test::cpu_context(), attack_config(), FieldVariant::CpuStamp, {});
  std::vector<Vec2> none;
  std::vector<float> out;
  EXPECT_TRUE(f->sample(0, none, out).ok());
  if (Context* g = warpmind::test::cuda_context()) {
    auto fg = built(*g, attack_config(), FieldVariant::GpuBinned, {});
    EXPECT_TRUE(fg->sample(0, none, out).ok());
  }
}

}  // namespace
}  // namespace warpmind::field
