// A minimal RTS loop on warpmind, without graphics: 300 units of one army cross a 256 x 256 world towards
// an enemy camp, steered by a potential field (the camp attracts, the units repel each other) and moved
// by the crowd solver, which keeps them from overlapping. Runs on the GPU when one is usable, else on the
// CPU threads. Prints the mean distance to the camp every 50 ticks; exits 1 if the army did not close in.
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"

using namespace warpmind;

int main() {
  std::unique_ptr<Context> ctx;
  if (Status st = Context::create(ContextOptions{}, ctx); !st.ok())
    return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;

  // The field: layer "advance" — the camp (group 1) attracts from afar, every unit (group 0) repels its
  // neighbours a little.
  field::FieldConfig fc;
  fc.world = {0.0f, 0.0f, 256.0f, 256.0f};
  fc.width = fc.height = 256;
  fc.kinds = {field::attack(1.0f, 100.0f, 300.0f), field::own_unit(3.0f, -20.0f)};
  fc.layers = {{"advance", {{1, 0}, {0, 1}}}};
  std::unique_ptr<field::FieldLayers> layers;
  if (Status st = field::FieldLayers::create(*ctx, fc, layers); !st.ok())
    return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;

  // The crowd: agents of radius 0.5 in the same world.
  crowd::CrowdConfig cc;
  cc.world = fc.world;
  cc.radius = 0.5f;
  std::unique_ptr<crowd::CrowdSolver> solver;
  if (Status st = crowd::CrowdSolver::create(*ctx, cc, solver); !st.ok())
    return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;

  const Vec2 camp{220.0f, 128.0f};
  std::vector<Vec2> units;
  for (int i = 0; i < 300; ++i)
    units.push_back({10.0f + 3.0f * static_cast<float>(i % 15), 98.0f + 3.0f * static_cast<float>(i / 15)});
  if (Status st = solver->reset(units); !st.ok()) return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;

  const auto mean_distance = [&] {
    double d = 0;
    for (const Vec2& u : units) d += std::hypot(u.x - camp.x, u.y - camp.y);
    return d / static_cast<double>(units.size());
  };
  const double start = mean_distance();
  std::vector<field::Entity> entities(units.size() + 1);
  std::vector<field::MoveChoice> moves(units.size());
  std::vector<Vec2> proposals(units.size());
  for (int tick = 1; tick <= 400; ++tick) {
    for (std::size_t i = 0; i < units.size(); ++i) entities[i] = {units[i].x, units[i].y, 0, 0};
    entities.back() = {camp.x, camp.y, 1, 0};
    Status st = layers->build(entities);
    if (st.ok()) st = layers->best_move(0, units, 3, moves);  // the best of the 3 x 3 cells around each unit
    for (std::size_t i = 0; i < units.size(); ++i) {          // one world unit a tick towards the chosen cell
      const float dx = moves[i].target.x - units[i].x, dy = moves[i].target.y - units[i].y;
      const float len = std::hypot(dx, dy);
      proposals[i] = len > 1.0f ? Vec2{units[i].x + dx / len, units[i].y + dy / len} : moves[i].target;
    }
    if (st.ok()) st = solver->step(proposals);
    if (st.ok()) st = solver->read_positions(units);
    if (!st.ok()) return std::fprintf(stderr, "tick %d: %s\n", tick, st.message().c_str()), 2;
    if (tick % 50 == 0)
      std::printf("tick %3d: mean distance to the camp %6.1f, %zu moved, %zu held by a neighbour\n", tick,
                  mean_distance(), solver->last_stats().moved, solver->last_stats().collisions);
  }
  const double end = mean_distance();
  std::printf("%s: mean distance %.1f -> %.1f\n", ctx->cuda() ? "gpu" : "cpu", start, end);
  return end < start / 2 ? 0 : 1;
}
