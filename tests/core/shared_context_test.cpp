// The threads contract of context.h: modules of one context driven from threads of their own at once give
// the results they give one after another on one thread. Built into warpmind_tests, and alone into
// warpmind_thread_tests, which `scripts/test.sh --tsan` runs under ThreadSanitizer (CI).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gpu_helpers.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/core/context.h"
#include "warpmind/core/hash.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"

namespace warpmind {
namespace {

constexpr int kTicks = 12;

std::uint32_t next(std::uint32_t& s) {  // xorshift32: the same inputs on every thread and every run
  s ^= s << 13, s ^= s >> 17, s ^= s << 5;
  return s;
}
float unit(std::uint32_t& s) { return static_cast<float>(next(s) >> 8) * 0x1p-24f; }

// A field built from moving entities and sampled every tick: the hash of every sample.
std::uint64_t run_field(Context& ctx) {
  field::FieldConfig fc;
  fc.world = {0.0f, 0.0f, 128.0f, 128.0f};
  fc.width = fc.height = 128;
  fc.kinds = {field::attack(1.0f, 40.0f, 80.0f), field::own_unit(3.0f, -10.0f)};
  fc.layers = {{"advance", {{1, 0}, {0, 1}}}};
  std::unique_ptr<field::FieldLayers> layers;
  EXPECT_TRUE(field::FieldLayers::create(ctx, fc, layers).ok());
  if (!layers) return 0;
  std::uint32_t s = 7;
  std::vector<field::Entity> entities(400);
  std::vector<Vec2> points(1000);
  std::vector<float> values(points.size());
  std::uint64_t h = 0;
  for (int t = 0; t < kTicks; ++t) {
    for (std::size_t i = 0; i < entities.size(); ++i)
      entities[i] = {128.0f * unit(s), 128.0f * unit(s), static_cast<std::uint32_t>(i % 2), 0};
    for (Vec2& p : points) p = {128.0f * unit(s), 128.0f * unit(s)};
    if (const Status st = layers->build(entities); !st.ok()) ADD_FAILURE() << st.message();
    EXPECT_TRUE(layers->sample(0, points, values).ok());
    h = fnv1a(values.data(), values.size() * sizeof(float), h);
  }
  return h;
}

// Agents on a lattice stepping to random nearby targets: the hash of the positions after every step.
std::uint64_t run_crowd(Context& ctx) {
  crowd::CrowdConfig cc;
  cc.world = {0.0f, 0.0f, 200.0f, 200.0f};
  cc.radius = 0.5f;
  std::unique_ptr<crowd::CrowdSolver> solver;
  EXPECT_TRUE(crowd::CrowdSolver::create(ctx, cc, solver).ok());
  if (!solver) return 0;
  std::vector<Vec2> pos;
  for (int y = 0; y < 60; ++y)
    for (int x = 0; x < 60; ++x)
      pos.push_back({5.0f + 1.5f * static_cast<float>(x), 5.0f + 1.5f * static_cast<float>(y)});
  EXPECT_TRUE(solver->reset(pos).ok());
  std::uint32_t s = 11;
  std::vector<Vec2> proposals(pos.size());
  std::uint64_t h = 0;
  for (int t = 0; t < kTicks; ++t) {
    for (std::size_t i = 0; i < pos.size(); ++i) proposals[i] = {pos[i].x + unit(s) - 0.5f, pos[i].y + unit(s) - 0.5f};
    if (const Status st = solver->step(proposals); !st.ok()) ADD_FAILURE() << st.message();
    EXPECT_TRUE(solver->read_positions(pos).ok());
    h = fnv1a(pos.data(), pos.size() * sizeof(Vec2), h);
  }
  return h;
}

// Players walking and fighting: the hash of every tick's notifications.
std::uint64_t run_aoi(Context& ctx) {
  aoi::AoiConfig ac;
  ac.world = {0.0f, 0.0f, 300.0f, 300.0f};
  ac.aoi = 10.0f;
  std::unique_ptr<aoi::AoiWorld> world;
  EXPECT_TRUE(aoi::AoiWorld::create(ctx, ac, world).ok());
  if (!world) return 0;
  std::uint32_t s = 13;
  std::vector<aoi::Player> players(3000);
  for (aoi::Player& p : players) p = {300.0f * unit(s), 300.0f * unit(s), 100};
  EXPECT_TRUE(world->reset(players).ok());
  std::vector<aoi::Command> commands(players.size());
  aoi::TickResult r;
  std::uint64_t h = 0;
  for (int t = 0; t < kTicks; ++t) {
    for (std::uint32_t i = 0; i < commands.size(); ++i) {
      commands[i] = {};
      commands[i].player = i;
      commands[i].dx = 2.0f * unit(s) - 1.0f;
      commands[i].dy = 2.0f * unit(s) - 1.0f;
    }
    if (const Status st = world->tick(commands, r); !st.ok()) ADD_FAILURE() << st.message();
    h = fnv1a(r.notifications.data(), r.notifications.size() * sizeof(aoi::Notification), h);
    h = fnv1a(r.updates.data(), r.updates.size() * sizeof(aoi::Update), h);
  }
  return h;
}

// The three modules one after another on this thread, then each on a thread of its own, all at once and
// all with the same context (three rounds, so that their calls interleave differently).
void expect_threads_agree(Context& ctx) {
  const std::uint64_t field = run_field(ctx), crowd = run_crowd(ctx), aoi = run_aoi(ctx);
  for (int round = 0; round < 3; ++round) {
    std::uint64_t f = 0, c = 0, a = 0;
    std::thread tf([&] { f = run_field(ctx); });
    std::thread tc([&] { c = run_crowd(ctx); });
    std::thread ta([&] { a = run_aoi(ctx); });
    tf.join(), tc.join(), ta.join();
    EXPECT_EQ(f, field) << "round " << round;
    EXPECT_EQ(c, crowd) << "round " << round;
    EXPECT_EQ(a, aoi) << "round " << round;
  }
}

TEST(SharedContext, ModulesOfOneCpuContextOnThreadsOfTheirOwn) { expect_threads_agree(test::cpu_context()); }

TEST(SharedContextGpu, ModulesOfOneCudaContextOnThreadsOfTheirOwn) {
  WM_REQUIRE_GPU();
  Context& gpu = *test::cuda_context();
  expect_threads_agree(gpu);
  // And the GPU's results are the CPU's (each module's own tests hold every variant to its reference).
  EXPECT_EQ(run_crowd(gpu), run_crowd(test::cpu_context()));
}

}  // namespace
}  // namespace warpmind
