// The RTS loop a game writes from the docs (docs/embedding.md, "Movement for games"): two armies of 1,000
// units march to camps on the far side of a walled map, their columns crossing in the middle, every unit
// proposing a step towards the best cell of its army's field layer (its camp attracts, its own units
// repel, the walls repel), moved by the crowd solver; the walls, drawn once on a world map, feed the field
// and the crowd. Under Avoid the columns cross and go round the walls; under accept/reject they jam (the
// defect Avoid answers: a refused unit stays, proposes the same move next tick and is refused again).
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdio>

#include "../crowd/crowd_helpers.h"
#include "crowd_oracle.h"
#include "gpu_helpers.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"
#include "warpmind/world/world_map.h"

namespace warpmind::world {
namespace {

using crowd::CrowdMovement;
using crowd::CrowdVariant;

struct LoopResult {
  std::size_t arrived = 0;                  // units that reached their camp (within 12 of it) and left
  int ticks = 0;                            // ticks run (until every unit arrived, or the limit)
  double most_refused = 0;                  // the largest share of the units in play refused for another unit in a tick
  std::size_t overlaps = 0, crossings = 0;  // summed over every tick
};

// Groups: 0 and 1 the armies' units, 2 the east camp (army 0's goal), 3 the north camp (army 1's), 4 walls.
LoopResult run_loop(CrowdMovement movement, CrowdVariant variant, int ticks) {
  Context& ctx = crowd::test::context_of(variant);
  const WorldRect world{0.0f, 0.0f, 256.0f, 256.0f};
  WorldMap map;
  EXPECT_TRUE(WorldMap::create(world, 256, 256, map).ok());
  // A few walls in the way: two blocks and a thick line.
  EXPECT_TRUE(map.fill_rect({100.0f, 96.0f}, {112.0f, 124.0f}).ok());
  EXPECT_TRUE(map.fill_rect({140.0f, 150.0f}, {148.0f, 190.0f}).ok());
  EXPECT_TRUE(map.draw_line({170.0f, 70.0f}, {196.0f, 104.0f}, 2.0f).ok());
  std::vector<field::Entity> walls;
  EXPECT_TRUE(map.wall_entities(4, walls).ok());

  field::FieldConfig fc;
  fc.world = world;
  fc.width = fc.height = 256;
  fc.kinds = {field::attack(1.0f, 100.0f, 300.0f), field::own_unit(2.0f, -20.0f), field::obstacle(1.5f)};
  fc.layers = {{"army 0", {{2, 0}, {0, 1}, {4, 2}}}, {"army 1", {{3, 0}, {1, 1}, {4, 2}}}};
  std::unique_ptr<field::FieldLayers> layers;
  EXPECT_TRUE(field::FieldLayers::create(ctx, fc, layers).ok());

  crowd::CrowdConfig cc;
  cc.world = world;
  cc.radius = 0.5f;
  cc.obstacles = map.crowd_obstacles();
  cc.movement = movement;
  cc.rule = crowd::CrowdRule::LowestIdWins;
  cc.max_step = 0.5f;
  cc.variant = variant;
  std::unique_ptr<crowd::CrowdSolver> solver;
  EXPECT_TRUE(crowd::CrowdSolver::create(ctx, cc, solver).ok());

  // Army 0 starts in the west and walks east, army 1 starts in the south and walks north: their columns
  // cross in the middle of the map.
  const Vec2 camp[2] = {{240.0f, 128.0f}, {128.0f, 240.0f}};  // army a walks to camp[a]
  std::vector<Vec2> pos;
  std::vector<int> army;
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 1000; ++i) {
      const float across = 20.0f + 2.0f * static_cast<float>(i % 20), along = 78.0f + 2.0f * static_cast<float>(i / 20);
      pos.push_back(a == 0 ? Vec2{across, along} : Vec2{along, across});
      army.push_back(a);
    }
  EXPECT_TRUE(solver->reset(pos).ok());

  LoopResult out;
  std::vector<field::Entity> entities;
  std::vector<Vec2> mine, want(pos.size()), next;
  std::vector<field::MoveChoice> moves;
  std::vector<crowd::Verdict> verdicts;
  std::vector<std::uint8_t> keep;
  for (int t = 0; t < ticks && !pos.empty(); ++t) {
    entities = walls;
    for (std::size_t i = 0; i < pos.size(); ++i)
      entities.push_back({pos[i].x, pos[i].y, static_cast<std::uint32_t>(army[i]), 0});
    entities.push_back({camp[0].x, camp[0].y, 2, 0});
    entities.push_back({camp[1].x, camp[1].y, 3, 0});
    EXPECT_TRUE(layers->build(entities).ok());
    // Each army's units ask their layer for the best of the 3 x 3 cells around them and propose a step
    // of at most max_step towards it.
    want.resize(pos.size());
    for (int a = 0; a < 2; ++a) {
      mine.clear();
      for (std::size_t i = 0; i < pos.size(); ++i)
        if (army[i] == a) mine.push_back(pos[i]);
      moves.resize(mine.size());
      EXPECT_TRUE(layers->best_move(a, mine, 3, moves).ok());
      std::size_t k = 0;
      for (std::size_t i = 0; i < pos.size(); ++i) {
        if (army[i] != a) continue;
        const Vec2 to = moves[k++].target;
        const float dx = to.x - pos[i].x, dy = to.y - pos[i].y, len = std::hypot(dx, dy);
        want[i] = len > cc.max_step ? Vec2{pos[i].x + dx / len * cc.max_step, pos[i].y + dy / len * cc.max_step} : to;
      }
    }
    EXPECT_TRUE(solver->step(want).ok());
    next.resize(pos.size());
    verdicts.resize(pos.size());
    EXPECT_TRUE(solver->read_positions(next).ok());
    EXPECT_TRUE(solver->read_verdicts(verdicts).ok());
    out.overlaps += crowd::count_overlaps(next, cc.radius);
    for (std::size_t i = 0; i < pos.size(); ++i) out.crossings += oracle::crowd_segment_blocked(cc, pos[i], next[i]);
    std::size_t refused = 0;
    for (crowd::Verdict v : verdicts) refused += v == crowd::Verdict::Collision;
    out.most_refused = std::max(out.most_refused, static_cast<double>(refused) / static_cast<double>(pos.size()));
    out.ticks = t + 1;
    // Units at their camp leave.
    keep.assign(pos.size(), 1);
    std::size_t gone = 0;
    for (std::size_t i = 0; i < next.size(); ++i)
      if (std::hypot(next[i].x - camp[army[i]].x, next[i].y - camp[army[i]].y) < 12.0f) keep[i] = 0, ++gone;
    if (gone) {
      EXPECT_TRUE(solver->retain(keep).ok());
      crowd::compact(next, keep);
      crowd::compact(army, keep);
      out.arrived += gone;
    }
    pos = next;
  }
  return out;
}

TEST(RtsLoop, UnderAvoidTwoArmiesCrossAndGoRoundTheWalls) {
  for (CrowdVariant v : crowd::test::variants(CrowdMovement::Avoid)) {
    SCOPED_TRACE(crowd::variant_name(v));
    const LoopResult r = run_loop(CrowdMovement::Avoid, v, 2400);
    std::printf("[          ] %s, avoid: %zu of 2000 arrived in %d ticks; at most %.0f%% refused in a tick\n",
                crowd::variant_name(v), r.arrived, r.ticks, 100.0 * r.most_refused);
    EXPECT_EQ(r.overlaps, 0u);
    EXPECT_EQ(r.crossings, 0u);
    EXPECT_EQ(r.arrived, 2000u);  // in 1,840 ticks on cpu-reference
    EXPECT_LT(r.most_refused, 0.25);
  }
}

// The contrast, on the CPU: the same loop under accept/reject keeps its units apart too but jams.
TEST(RtsLoop, UnderAcceptRejectTheArmiesJam) {
  const LoopResult r = run_loop(CrowdMovement::AcceptReject, CrowdVariant::CpuReference, 900);
  std::printf("[          ] accept-reject: %zu of 2000 arrived in %d ticks; at most %.0f%% refused in a tick\n",
              r.arrived, r.ticks, 100.0 * r.most_refused);
  EXPECT_EQ(r.overlaps, 0u);
  EXPECT_EQ(r.crossings, 0u);
  EXPECT_LT(r.arrived, 200u);  // none, measured: a refused unit proposes the same move again next tick
}

}  // namespace
}  // namespace warpmind::world
