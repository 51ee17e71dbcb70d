// Queries (sample, best_move, gradient): CPU against hand-checked cells and against the contract computed
// from the layer read back (exact values, points off the world and on the border included), GPU against
// CPU bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "field_cases.h"
#include "field_oracle.h"
#include "gpu_helpers.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/core/random.h"
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

// The queries' contract (field.h) computed from a layer read back: a point's cell is
// floor((p - origin) / cell size) clamped to the grid; best_move scans the window in row-major order and
// keeps the first of the largest values; the gradient is the central difference per world unit, one-sided
// on the border cells (the same float operations, so the results are exact).
struct LayerView {
  FieldConfig c;
  std::vector<float> v;
  float cw() const { return c.world.width / static_cast<float>(c.width); }
  float ch() const { return c.world.height / static_cast<float>(c.height); }
  static int clamp_cell(float f, int n) {
    return f < 0.0f ? 0 : f > static_cast<float>(n - 1) ? n - 1 : static_cast<int>(f);
  }
  int cx(float x) const { return clamp_cell(std::floor((x - c.world.x0) / cw()), c.width); }
  int cy(float y) const { return clamp_cell(std::floor((y - c.world.y0) / ch()), c.height); }
  float at(int x, int y) const {
    return v[static_cast<std::size_t>(y) * static_cast<std::size_t>(c.width) + static_cast<std::size_t>(x)];
  }
  float sample(Vec2 p) const { return at(cx(p.x), cy(p.y)); }
  MoveChoice best(Vec2 p, int window) const {
    const int x0 = cx(p.x), y0 = cy(p.y), h = window / 2;
    MoveChoice m;
    bool first = true;
    for (int y = std::max(0, y0 - h); y <= std::min(c.height - 1, y0 + h); ++y)
      for (int x = std::max(0, x0 - h); x <= std::min(c.width - 1, x0 + h); ++x)
        if (first || at(x, y) > m.value) {
          m.cell_x = x, m.cell_y = y, m.value = at(x, y);
          first = false;
        }
    m.target = {(static_cast<float>(m.cell_x) + 0.5f) * cw() + c.world.x0,
                (static_cast<float>(m.cell_y) + 0.5f) * ch() + c.world.y0};
    return m;
  }
  Vec2 gradient(Vec2 p) const {
    const int x = cx(p.x), y = cy(p.y), w = c.width, h = c.height;
    Vec2 g{0.0f, 0.0f};
    if (w > 1)
      g.x = x == 0       ? (at(1, y) - at(0, y)) / cw()
            : x == w - 1 ? (at(x, y) - at(x - 1, y)) / cw()
                         : (at(x + 1, y) - at(x - 1, y)) / (2.0f * cw());
    if (h > 1)
      g.y = y == 0       ? (at(x, 1) - at(x, 0)) / ch()
            : y == h - 1 ? (at(x, y) - at(x, y - 1)) / ch()
                         : (at(x, y + 1) - at(x, y - 1)) / (2.0f * ch());
    return g;
  }
};

LayerView read_back(FieldLayers& f, int layer) {
  LayerView lv{f.config(), std::vector<float>(static_cast<std::size_t>(f.config().width) * f.config().height)};
  EXPECT_TRUE(f.read(layer, lv.v).ok());
  return lv;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

// Points inside, on every border cell's edge, exactly on the upper edges (which belong to no cell and
// clamp to the last one) and far off the world on every side.
std::vector<Vec2> probe_points(const WorldRect& w) {
  const float x1 = w.x0 + w.width, y1 = w.y0 + w.height, mx = w.x0 + w.width * 0.37f, my = w.y0 + w.height * 0.61f;
  std::vector<Vec2> p = {{w.x0, w.y0},      {x1, y1},         {w.x0, y1},
                         {x1, w.y0},        {mx, my},         {w.x0, my},
                         {x1, my},          {mx, w.y0},       {mx, y1},
                         {w.x0 - 3.0f, my}, {x1 + 3.0f, my},  {mx, w.y0 - 3.0f},
                         {mx, y1 + 3.0f},   {-1e30f, -1e30f}, {1e30f, 1e30f},
                         {1e30f, -1e30f},   {-1e30f, my},     {std::nextafter(x1, w.x0), std::nextafter(y1, w.y0)}};
  for (const Entity& e : test::random_entities(w, 200, 1, 31, w.width * 0.25f)) p.push_back({e.x, e.y});
  return p;
}

// Every query at every probe point equals the contract computed from the layer read back, bit for bit.
void expect_queries_follow_the_layer(FieldLayers& f, int layer) {
  const LayerView lv = read_back(f, layer);
  const std::vector<Vec2> pts = probe_points(f.config().world);
  std::vector<float> s(pts.size());
  std::vector<Vec2> g(pts.size());
  ASSERT_TRUE(f.sample(layer, pts, s).ok());
  ASSERT_TRUE(f.gradient(layer, pts, g).ok());
  for (std::size_t i = 0; i < pts.size(); ++i) {
    SCOPED_TRACE("point (" + std::to_string(pts[i].x) + ", " + std::to_string(pts[i].y) + ")");
    EXPECT_TRUE(same_bits(s[i], lv.sample(pts[i]))) << s[i] << " want " << lv.sample(pts[i]);
    const Vec2 want = lv.gradient(pts[i]);
    EXPECT_TRUE(same_bits(g[i].x, want.x) && same_bits(g[i].y, want.y))
        << "(" << g[i].x << ", " << g[i].y << ") want (" << want.x << ", " << want.y << ")";
  }
  for (int window : {1, 3, 5, 11}) {
    std::vector<MoveChoice> m(pts.size());
    ASSERT_TRUE(f.best_move(layer, pts, window, m).ok());
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const MoveChoice want = lv.best(pts[i], window);
      EXPECT_EQ(m[i].cell_x, want.cell_x) << "window " << window << ", point " << i;
      EXPECT_EQ(m[i].cell_y, want.cell_y) << "window " << window << ", point " << i;
      EXPECT_TRUE(same_bits(m[i].value, want.value)) << "window " << window << ", point " << i;
      EXPECT_TRUE(same_bits(m[i].target.x, want.target.x) && same_bits(m[i].target.y, want.target.y))
          << "window " << window << ", point " << i;
    }
  }
}

TEST(FieldQueries, BestMoveClimbsTowardsWeaponRange) {
  const std::vector<Entity> enemy = {{30.5f, 10.5f, 0, 0}};
  const FieldConfig cfg = attack_config();
  const auto value = [&](int x, int y) { return ::warpmind::oracle::field_cell(cfg, 0, enemy, x, y); };
  auto f = built(warpmind::test::cpu_context(), cfg, FieldVariant::CpuStamp, enemy);
  // Far away (d = 20): the field rises towards the enemy, so the best neighbour is one step closer.
  const std::vector<Vec2> pts = {{10.5f, 10.5f}, {24.5f, 10.5f}, {-100.0f, -100.0f}};
  std::vector<MoveChoice> mv(pts.size());
  ASSERT_TRUE(f->best_move(0, pts, 3, mv).ok());
  EXPECT_EQ(mv[0].cell_x, 11);
  EXPECT_EQ(mv[0].cell_y, 10);
  EXPECT_EQ(mv[0].target.x, 11.5f);
  EXPECT_EQ(mv[0].target.y, 10.5f);
  EXPECT_EQ(mv[0].value, 67.0f);  // d = 19: 80 - (19 - 6)
  EXPECT_EQ(mv[0].value, value(11, 10));
  // At d = 6 = MSD the unit is on the plateau (100 for d in (5, 6]). Of the window's four plateau cells
  // — (25, 9) at d = sqrt(26), its own cell (24, 10) at d = 6, (25, 11) at sqrt(26); (25, 10) at d = 5 holds
  // only 83.3 — the first in row-major order wins the tie: (25, 9), not the cell the unit stands on.
  EXPECT_EQ(mv[1].cell_x, 25);
  EXPECT_EQ(mv[1].cell_y, 9);
  EXPECT_EQ(mv[1].target.x, 25.5f);
  EXPECT_EQ(mv[1].target.y, 9.5f);
  EXPECT_EQ(mv[1].value, 100.0f);
  EXPECT_EQ(value(24, 10), 100.0f);
  EXPECT_LT(value(25, 10), 100.0f);
  // Outside the world: clamped to the corner cell (0, 0); of its window's four cells on the grid, (1, 1)
  // is the closest to the enemy.
  EXPECT_EQ(mv[2].cell_x, 1);
  EXPECT_EQ(mv[2].cell_y, 1);
  EXPECT_EQ(mv[2].target.x, 1.5f);
  EXPECT_EQ(mv[2].target.y, 1.5f);
  EXPECT_EQ(mv[2].value, value(1, 1));
  // A 5x5 window sees two steps: d = 18, the plateau's first cell (25, 8) at d = sqrt(29), and from the
  // corner (2, 2).
  ASSERT_TRUE(f->best_move(0, pts, 5, mv).ok());
  EXPECT_EQ(mv[0].cell_x, 12);
  EXPECT_EQ(mv[0].cell_y, 10);
  EXPECT_EQ(mv[0].value, 68.0f);
  EXPECT_EQ(mv[1].cell_x, 25);
  EXPECT_EQ(mv[1].cell_y, 8);
  EXPECT_EQ(mv[1].value, 100.0f);
  EXPECT_EQ(mv[2].cell_x, 2);
  EXPECT_EQ(mv[2].cell_y, 2);
  EXPECT_EQ(mv[2].value, value(2, 2));
  // Bad windows and sizes.
  EXPECT_FALSE(f->best_move(0, pts, 4, mv).ok());
  EXPECT_FALSE(f->best_move(0, pts, 0, mv).ok());
  std::vector<MoveChoice> small(1);
  EXPECT_FALSE(f->best_move(0, pts, 3, small).ok());
  EXPECT_FALSE(f->best_move(3, pts, 3, mv).ok());
}

TEST(FieldQueries, SampleAndGradient) {
  const std::vector<Entity> enemy = {{30.5f, 10.5f, 0, 0}};
  const FieldConfig cfg = attack_config();
  const auto value = [&](int x, int y) { return ::warpmind::oracle::field_cell(cfg, 0, enemy, x, y); };
  auto f = built(warpmind::test::cpu_context(), cfg, FieldVariant::CpuStamp, enemy);
  // In the world, on the border cells, and off the world (clamped to the nearest border cell; 40 and 20
  // are the upper edges, outside the half-open world).
  const std::vector<Vec2> pts = {{10.5f, 10.5f}, {30.5f, 10.5f},  {0.0f, 0.0f},   {39.9f, 19.9f},
                                 {-5.0f, 25.0f}, {1e30f, -1e30f}, {40.0f, 10.5f}, {30.5f, -0.5f}};
  const int cell[][2] = {{10, 10}, {30, 10}, {0, 0}, {39, 19}, {0, 19}, {39, 0}, {39, 10}, {30, 0}};
  std::vector<float> v(pts.size());
  ASSERT_TRUE(f->sample(0, pts, v).ok());
  EXPECT_EQ(v[0], 80.0f - 14.0f);  // d = 20: 80 - (20 - 6)
  EXPECT_EQ(v[1], 0.0f);           // on the enemy: 100 * 0 / 6
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(v[i], value(cell[i][0], cell[i][1])) << "point " << i;
  std::vector<Vec2> g(pts.size());
  ASSERT_TRUE(f->gradient(0, pts, g).ok());
  EXPECT_EQ(g[0].x, 1.0f);  // rises 1 per unit towards the enemy: (67 - 65) / 2
  EXPECT_EQ(g[0].y, 0.0f);  // symmetric about the enemy's row
  // The border cells: one-sided differences, from the layer read back, exactly (cells of 1 x 1 units).
  const LayerView lv = read_back(*f, 0);
  ASSERT_EQ(lv.cw(), 1.0f);
  ASSERT_EQ(lv.ch(), 1.0f);
  const auto at = [&](int x, int y) { return lv.at(x, y); };
  EXPECT_EQ(g[2].x, at(1, 0) - at(0, 0));  // (0, 0): forward in x and y
  EXPECT_EQ(g[2].y, at(0, 1) - at(0, 0));
  EXPECT_EQ(g[3].x, at(39, 19) - at(38, 19));  // (39, 19): backward in x and y
  EXPECT_EQ(g[3].y, at(39, 19) - at(39, 18));
  EXPECT_EQ(g[4].x, at(1, 19) - at(0, 19));  // off the world, clamped to (0, 19)
  EXPECT_EQ(g[4].y, at(0, 19) - at(0, 18));
  EXPECT_EQ(g[5].x, at(39, 0) - at(38, 0));  // clamped to (39, 0)
  EXPECT_EQ(g[5].y, at(39, 1) - at(39, 0));
  EXPECT_EQ(g[6].x, at(39, 10) - at(38, 10));  // on the upper edge: clamped to column 39
  EXPECT_EQ(g[6].y, (at(39, 11) - at(39, 9)) / 2.0f);
  EXPECT_EQ(g[7].x, (at(31, 0) - at(29, 0)) / 2.0f);  // below the world: row 0, central in x
  EXPECT_EQ(g[7].y, at(30, 1) - at(30, 0));
  EXPECT_NE(g[2].x, 0.0f);  // the field is not flat there: the checks above have something to compare
  EXPECT_NE(g[3].y, 0.0f);
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(v[i], at(cell[i][0], cell[i][1])) << "point " << i;
}

TEST(FieldQueries, CpuQueriesFollowTheLayerOnEveryCase) {
  // Non-square and anisotropic cells, offset worlds, one-cell and one-column grids: every query at
  // probe points in, on and off the world, against the contract computed from the layer read back.
  for (const auto& c : test::field_cases()) {
    SCOPED_TRACE(c.name);
    auto f = built(warpmind::test::cpu_context(), c.config, FieldVariant::CpuStamp, c.entities);
    for (int l = 0; l < f->layer_count(); ++l) expect_queries_follow_the_layer(*f, l);
  }
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
      expect_queries_follow_the_layer(*gpu, l);
    }
  }
}

// steer: the step towards the best cell by the documented formula (from best_move, in float), on
// every case and variant; a layer index past the last leaves the point; headings where it moved. The GPU
// variant's steps equal the CPU's bit for bit, its headings (atan2f) within 2e-6 rad.
TEST(FieldQueries, SteerStepsTowardsTheBestCell) {
  for (const auto& c : test::field_cases()) {
    SCOPED_TRACE(c.name);
    std::vector<std::unique_ptr<FieldLayers>> fs;
    fs.push_back(built(warpmind::test::cpu_context(), c.config, FieldVariant::CpuStamp, c.entities));
    if (Context* g = warpmind::test::cuda_context())
      fs.push_back(built(*g, c.config, FieldVariant::GpuBinned, c.entities));
    const int layers = fs[0]->layer_count();
    std::vector<Vec2> pts;
    std::vector<std::uint8_t> layer_of;
    SplitMix64 rng(12);
    for (const Entity& e : test::random_entities(c.config.world, 400, 1, 78, c.config.world.width * 0.1f)) {
      pts.push_back({e.x, e.y});
      layer_of.push_back(static_cast<std::uint8_t>(rng.below(static_cast<std::uint32_t>(layers) + 1)));  // some past
    }
    std::vector<std::vector<Vec2>> outs;
    std::vector<std::vector<float>> heads;
    for (auto& f : fs) {
      for (float step : {0.0f, 0.35f, 3.0f}) {
        std::vector<Vec2> out(pts.size());
        std::vector<float> head(pts.size(), 7.0f);
        ASSERT_TRUE(f->steer(pts, layer_of, 3, step, out, head).ok());
        for (std::size_t i = 0; i < pts.size(); ++i) {
          if (layer_of[i] >= layers) {
            EXPECT_EQ(out[i].x, pts[i].x);
            EXPECT_EQ(head[i], 7.0f);
            continue;
          }
          MoveChoice m[1];
          ASSERT_TRUE(f->best_move(layer_of[i], std::span<const Vec2>(&pts[i], 1), 3, m).ok());
          const float dx = m[0].target.x - pts[i].x, dy = m[0].target.y - pts[i].y;
          const float d = std::sqrt(dx * dx + dy * dy);
          const Vec2 want = d > step ? Vec2{pts[i].x + dx / d * step, pts[i].y + dy / d * step} : m[0].target;
          ASSERT_EQ(out[i].x, want.x) << i;
          ASSERT_EQ(out[i].y, want.y) << i;
          if (dx != 0.0f || dy != 0.0f)
            EXPECT_NEAR(head[i], std::atan2(dy, dx), 2e-6f) << i;
          else
            EXPECT_EQ(head[i], 7.0f) << i;
        }
        if (step == 0.35f) {
          outs.push_back(out);
          heads.push_back(head);
        }
      }
    }
    if (outs.size() == 2) {
      EXPECT_EQ(0, std::memcmp(outs[0].data(), outs[1].data(), outs[0].size() * sizeof(Vec2)));
    }
    std::vector<Vec2> small(1), room(pts.size());
    EXPECT_FALSE(fs[0]->steer(pts, layer_of, 3, 0.35f, small, {}).ok());
    EXPECT_FALSE(fs[0]->steer(pts, layer_of, 4, 0.35f, room, {}).ok());
    EXPECT_FALSE(fs[0]->steer(pts, layer_of, 3, -1.0f, room, {}).ok());
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

// The device-span queries: points taken from a crowd's device positions, results left on the device,
// equal bit for bit to the host queries of the CPU variant; then moved by the crowd from the device
// proposals. CPU variants refuse them (Unavailable); bad arguments are errors.
TEST(FieldQueries, DeviceQueriesFeedTheCrowdWithoutHostCopies) {
  auto cpu_field = built(warpmind::test::cpu_context(), attack_config(), FieldVariant::CpuStamp, {});
  EXPECT_EQ(cpu_field->sample_device(0, nullptr, 0, nullptr).code(), StatusCode::Unavailable);
  WM_REQUIRE_GPU();
  Context& ctx = *warpmind::test::cuda_context();
  const auto c = test::field_cases().front();
  auto cpu = built(warpmind::test::cpu_context(), c.config, FieldVariant::CpuStamp, c.entities);
  auto gpu = built(ctx, c.config, FieldVariant::GpuBinned, c.entities);
  // Agents on a lattice inside the world (2R apart), the crowd on the device.
  crowd::CrowdConfig cc;
  cc.world = c.config.world;
  cc.radius = std::min(c.config.world.width, c.config.world.height) / 200.0f;
  cc.variant = crowd::CrowdVariant::GpuStaticGrid;
  std::unique_ptr<crowd::CrowdSolver> solver;
  ASSERT_TRUE(crowd::CrowdSolver::create(ctx, cc, solver).ok());
  std::vector<Vec2> agents;
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 20; ++x)
      agents.push_back(
          {c.config.world.x0 + (5.0f + 8.0f * x) * cc.radius, c.config.world.y0 + (5.0f + 8.0f * y) * cc.radius});
  ASSERT_TRUE(solver->reset(agents).ok());
  const std::size_t n = agents.size();
  DeviceBytes values, moves, grads;
  ASSERT_TRUE(values.allocate(ctx, n * sizeof(float)).ok());
  ASSERT_TRUE(moves.allocate(ctx, n * sizeof(MoveChoice)).ok());
  ASSERT_TRUE(grads.allocate(ctx, n * sizeof(Vec2)).ok());
  const Vec2* points = solver->device_positions();
  ASSERT_NE(points, nullptr);
  ASSERT_TRUE(gpu->sample_device(0, points, n, static_cast<float*>(values.get())).ok());
  ASSERT_TRUE(gpu->best_move_device(0, points, n, 3, static_cast<MoveChoice*>(moves.get())).ok());
  ASSERT_TRUE(gpu->gradient_device(0, points, n, static_cast<Vec2*>(grads.get())).ok());
  std::vector<float> got_values(n), want_values(n);
  std::vector<MoveChoice> got_moves(n), want_moves(n);
  std::vector<Vec2> got_grads(n), want_grads(n);
  ASSERT_TRUE(values.download(ctx, got_values.data(), n * sizeof(float)).ok());
  ASSERT_TRUE(moves.download(ctx, got_moves.data(), n * sizeof(MoveChoice)).ok());
  ASSERT_TRUE(grads.download(ctx, got_grads.data(), n * sizeof(Vec2)).ok());
  ASSERT_TRUE(cpu->sample(0, agents, want_values).ok());
  ASSERT_TRUE(cpu->best_move(0, agents, 3, want_moves).ok());
  ASSERT_TRUE(cpu->gradient(0, agents, want_grads).ok());
  EXPECT_EQ(0, std::memcmp(got_values.data(), want_values.data(), n * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(got_moves.data(), want_moves.data(), n * sizeof(MoveChoice)));
  EXPECT_EQ(0, std::memcmp(got_grads.data(), want_grads.data(), n * sizeof(Vec2)));
  // The chosen cells' centres as the crowd's proposals, still on the device.
  std::vector<Vec2> targets(n);
  for (std::size_t i = 0; i < n; ++i) targets[i] = want_moves[i].target;
  DeviceBytes proposals;
  ASSERT_TRUE(proposals.allocate(ctx, n * sizeof(Vec2)).ok());
  ASSERT_TRUE(proposals.upload(ctx, targets.data(), n * sizeof(Vec2)).ok());
  ASSERT_TRUE(solver->step_device(static_cast<const Vec2*>(proposals.get())).ok());
  ASSERT_TRUE(solver->fetch_stats().ok());
  EXPECT_EQ(solver->last_stats().moved + solver->last_stats().stayed + solver->last_stats().out_of_world +
                solver->last_stats().blocked + solver->last_stats().collisions,
            n);
  // Bad arguments.
  EXPECT_EQ(gpu->sample_device(7, points, n, static_cast<float*>(values.get())).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(gpu->best_move_device(0, points, n, 4, static_cast<MoveChoice*>(moves.get())).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(gpu->gradient_device(0, nullptr, n, static_cast<Vec2*>(grads.get())).code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(gpu->sample_device(0, nullptr, 0, nullptr).ok());  // nothing to do
}

// One rule for a non-finite point (field.h): the host queries (sample, best_move, gradient, steer) reject
// it on every variant and write nothing; the device queries give the defined non-results.
TEST(FieldQueries, NonFinitePointsAreOneRule) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<Vec2> pts = {{5, 5}, {nan, 3}, {7, 7}, {4, inf}, {-inf, 2}};
  std::vector<std::unique_ptr<FieldLayers>> fs;
  fs.push_back(built(warpmind::test::cpu_context(), attack_config(), FieldVariant::CpuStamp, {{20, 10, 0}}));
  if (Context* g = warpmind::test::cuda_context())
    fs.push_back(built(*g, attack_config(), FieldVariant::GpuBinned, {{20, 10, 0}}));
  for (auto& f : fs) {
    for (const std::vector<Vec2>& bad : {pts, std::vector<Vec2>{{inf, inf}}, std::vector<Vec2>{{1, nan}}}) {
      std::vector<float> s(bad.size(), 42.0f);
      std::vector<Vec2> g(bad.size(), {42.0f, 42.0f}), st(bad.size(), {42.0f, 42.0f});
      std::vector<MoveChoice> m(bad.size());
      std::vector<std::uint8_t> layer_of(bad.size(), 0);
      const Status a = f->sample(0, bad, s);
      EXPECT_EQ(a.code(), StatusCode::InvalidArgument);
      EXPECT_NE(a.message().find("not finite"), std::string::npos) << a.message();
      EXPECT_EQ(f->best_move(0, bad, 3, m).code(), StatusCode::InvalidArgument);
      EXPECT_EQ(f->gradient(0, bad, g).code(), StatusCode::InvalidArgument);
      EXPECT_EQ(f->steer(bad, layer_of, 3, 1.0f, st, {}).code(), StatusCode::InvalidArgument);
      layer_of.assign(bad.size(), 9);  // a layer past the last does not excuse it
      EXPECT_EQ(f->steer(bad, layer_of, 3, 1.0f, st, {}).code(), StatusCode::InvalidArgument);
      for (std::size_t i = 0; i < bad.size(); ++i) {
        EXPECT_EQ(s[i], 42.0f);
        EXPECT_EQ(g[i].x, 42.0f);
        EXPECT_EQ(st[i].y, 42.0f);
        EXPECT_EQ(m[i].cell_x, 0);
      }
    }
    std::vector<float> s(1);
    EXPECT_TRUE(f->sample(0, std::vector<Vec2>{{-1e30f, 1e30f}}, s).ok());  // huge but finite: clamped
  }
  WM_REQUIRE_GPU();
  Context& ctx = *warpmind::test::cuda_context();
  FieldLayers& gpu = *fs.back();
  const std::size_t n = pts.size();
  DeviceBytes dp, values, moves, grads, steered;
  ASSERT_TRUE(dp.allocate(ctx, n * sizeof(Vec2)).ok());
  ASSERT_TRUE(dp.upload(ctx, pts.data(), n * sizeof(Vec2)).ok());
  ASSERT_TRUE(values.allocate(ctx, n * sizeof(float)).ok());
  ASSERT_TRUE(moves.allocate(ctx, n * sizeof(MoveChoice)).ok());
  ASSERT_TRUE(grads.allocate(ctx, n * sizeof(Vec2)).ok());
  ASSERT_TRUE(steered.allocate(ctx, n * sizeof(Vec2)).ok());
  const auto* p = static_cast<const Vec2*>(dp.get());
  ASSERT_TRUE(gpu.sample_device(0, p, n, static_cast<float*>(values.get())).ok());
  ASSERT_TRUE(gpu.best_move_device(0, p, n, 3, static_cast<MoveChoice*>(moves.get())).ok());
  ASSERT_TRUE(gpu.gradient_device(0, p, n, static_cast<Vec2*>(grads.get())).ok());
  DeviceBytes layers;
  const std::vector<std::uint8_t> zero(n, 0);
  ASSERT_TRUE(layers.allocate(ctx, n).ok());
  ASSERT_TRUE(layers.upload(ctx, zero.data(), n).ok());
  ASSERT_TRUE(gpu.steer_device(p, static_cast<const std::uint8_t*>(layers.get()), n, 3, 1.0f,
                               static_cast<Vec2*>(steered.get()), nullptr)
                  .ok());
  std::vector<float> v(n);
  std::vector<MoveChoice> m(n);
  std::vector<Vec2> g(n), st(n);
  ASSERT_TRUE(values.download(ctx, v.data(), n * sizeof(float)).ok());
  ASSERT_TRUE(moves.download(ctx, m.data(), n * sizeof(MoveChoice)).ok());
  ASSERT_TRUE(grads.download(ctx, g.data(), n * sizeof(Vec2)).ok());
  ASSERT_TRUE(steered.download(ctx, st.data(), n * sizeof(Vec2)).ok());
  std::vector<float> want_v(1);
  std::vector<MoveChoice> want_m(1);
  for (std::size_t i = 0; i < n; ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    const bool finite = std::isfinite(pts[i].x) && std::isfinite(pts[i].y);
    if (finite) {
      ASSERT_TRUE(fs[0]->sample(0, std::span<const Vec2>(&pts[i], 1), want_v).ok());
      ASSERT_TRUE(fs[0]->best_move(0, std::span<const Vec2>(&pts[i], 1), 3, want_m).ok());
      EXPECT_EQ(v[i], want_v[0]);
      EXPECT_EQ(m[i].cell_x, want_m[0].cell_x);
      EXPECT_TRUE(std::isfinite(g[i].x) && std::isfinite(st[i].x));
      continue;
    }
    EXPECT_TRUE(std::isnan(v[i]));
    EXPECT_TRUE(std::isnan(g[i].x) && std::isnan(g[i].y));
    EXPECT_EQ(m[i].cell_x, -1);
    EXPECT_EQ(m[i].cell_y, -1);
    EXPECT_TRUE(std::isnan(m[i].value));
    EXPECT_TRUE(same_bits(m[i].target.x, pts[i].x) && same_bits(m[i].target.y, pts[i].y));
    EXPECT_TRUE(same_bits(st[i].x, pts[i].x) && same_bits(st[i].y, pts[i].y));
  }
}

}  // namespace
}  // namespace warpmind::field
