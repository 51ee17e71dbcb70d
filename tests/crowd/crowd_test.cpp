// Crowd solver: the guarantees on every scenario and variant, verdicts identical to a brute-force
// oracle of each rule and across backends, a pinned state hash, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "crowd_helpers.h"
#include "crowd_oracle.h"
#include "gpu_helpers.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/core/hash.h"
#include "warpmind/core/random.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"

namespace warpmind::crowd {
namespace {

constexpr float kR = 0.5f;

// Jittered lattice: spacing `gap` (>= 2R) with jitter that keeps every pair >= 2R apart.
std::vector<Vec2> lattice(const WorldRect& w, float gap, std::size_t n, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<Vec2> p;
  const float jitter = (gap - 2.0f * kR) * 0.5f * 0.999f;
  for (float y = w.y0 + gap * 0.5f; y < w.y0 + w.height - gap * 0.5f && p.size() < n; y += gap)
    for (float x = w.x0 + gap * 0.5f; x < w.x0 + w.width - gap * 0.5f && p.size() < n; x += gap)
      p.push_back({x + rng.uniform(-jitter, jitter), y + rng.uniform(-jitter, jitter)});
  return p;
}

using test::random_moves;

// O(N^2) oracle of the rule, straight from the header's definition (tests/oracles/crowd_oracle.h).
std::vector<Verdict> oracle(const CrowdConfig& c, const std::vector<Vec2>& old, const std::vector<Vec2>& p) {
  return ::warpmind::oracle::crowd_verdicts(c, old, p);
}

struct Scenario {
  std::string name;
  CrowdConfig config;
  std::vector<Vec2> start;
  // Proposals for tick t from the current positions.
  std::function<std::vector<Vec2>(const std::vector<Vec2>&, int)> propose;
  int ticks = 5;
};

std::vector<Scenario> scenarios() {
  std::vector<Scenario> s;
  CrowdConfig base;
  base.world = {0, 0, 40, 30};
  base.radius = kR;
  s.push_back({"random", base, lattice(base.world, 1.6f, 400, 1),
               [](const std::vector<Vec2>& p, int t) { return random_moves(p, 1.0f, 100 + t); }, 8});
  s.push_back({"dense_near_packed", base, lattice(base.world, 1.02f, 900, 2),
               [](const std::vector<Vec2>& p, int t) { return random_moves(p, 0.3f, 200 + t); }, 8});
  s.push_back({"everyone_to_one_point", base, lattice(base.world, 1.5f, 300, 3),
               [](const std::vector<Vec2>& p, int) {
                 std::vector<Vec2> t(p.size());
                 for (std::size_t i = 0; i < p.size(); ++i)
                   t[i] = {p[i].x + (20.0f - p[i].x) * 0.2f, p[i].y + (15.0f - p[i].y) * 0.2f};
                 return t;
               },
               10});
  s.push_back({"swap_pairs_and_exact_targets", base, lattice(base.world, 1.5f, 200, 4),
               [](const std::vector<Vec2>& p, int t) {
                 std::vector<Vec2> q = p;
                 for (std::size_t i = 0; i + 1 < p.size(); i += 2) std::swap(q[i], q[i + 1]);  // swaps: all collide
                 if (t % 2) q[3] = {q[7].x, q[7].y};  // two agents want one spot
                 return q;
               },
               4});
  s.push_back({"chain_push", base,
               [] {
                 std::vector<Vec2> p;
                 for (int i = 0; i < 30; ++i) p.push_back({2.0f + 1.0f * i, 10.0f});  // touching: distance exactly 2R
                 return p;
               }(),
               [](const std::vector<Vec2>& p, int) {
                 std::vector<Vec2> q = p;
                 for (auto& v : q) v.x += 1.0f;  // each into the next one's old spot
                 return q;
               },
               3});
  s.push_back({"borders", base, lattice(base.world, 1.5f, 500, 5),
               [](const std::vector<Vec2>& p, int t) {
                 std::vector<Vec2> q = random_moves(p, 3.0f, 300 + t);
                 for (std::size_t i = 0; i < q.size(); i += 7) q[i] = {i % 2 ? -0.1f : 40.0f, q[i].y};
                 // Just outside on y too, the upper edge (y0 + height = 30) included: the world is half-open.
                 for (std::size_t i = 3; i < q.size(); i += 7) q[i] = {q[i].x, i % 2 ? -0.1f : 30.0f};
                 return q;
               },
               6});
  CrowdConfig walls = base;
  walls.obstacles.width = 40;
  walls.obstacles.height = 30;
  walls.obstacles.blocked.assign(40 * 30, 0);
  for (int y = 0; y < 30; ++y) walls.obstacles.blocked[y * 40 + 20] = y % 10 != 5;  // a wall with gaps
  {
    std::vector<Vec2> st;
    for (const Vec2& v : lattice(base.world, 1.5f, 500, 6))
      if (std::floor(v.x) != 20.0f) st.push_back(v);
    s.push_back(
        {"obstacles", walls, st, [](const std::vector<Vec2>& p, int t) { return random_moves(p, 1.5f, 400 + t); }, 8});
  }
  s.push_back({"empty", base, {}, [](const std::vector<Vec2>& p, int) { return p; }, 2});
  return s;
}

Context* context_for(CrowdVariant v) {
  return is_gpu_variant(v) ? warpmind::test::cuda_context() : &warpmind::test::cpu_context();
}

struct Trace {
  std::vector<std::vector<Verdict>> verdicts;
  std::vector<Vec2> final_positions;
};

// check_oracle: every agent's verdict against the oracle each tick; else oracle_sample > 0: that many
// agents a tick (a deterministic sample that changes every tick, the first and last ids included), for
// crowds too large for O(N^2).
Trace run(const Scenario& sc, CrowdVariant v, CrowdRule rule, bool check_oracle, std::size_t oracle_sample = 0) {
  CrowdConfig c = sc.config;
  c.variant = v;
  c.rule = rule;
  std::unique_ptr<CrowdSolver> s;
  Status st = CrowdSolver::create(*context_for(v), c, s);
  EXPECT_TRUE(st.ok()) << st.message();
  Trace r;
  if (!st.ok()) return r;
  EXPECT_TRUE(s->reset(sc.start).ok());
  std::vector<Vec2> pos = sc.start;
  for (int t = 0; t < sc.ticks; ++t) {
    const std::vector<Vec2> prop = sc.propose(pos, t);
    EXPECT_TRUE(s->step(prop).ok());
    std::vector<Verdict> verd(pos.size());
    std::vector<Vec2> next(pos.size());
    EXPECT_TRUE(s->read_verdicts(verd).ok());
    EXPECT_TRUE(s->read_positions(next).ok());
    if (check_oracle) {
      EXPECT_EQ(verd, oracle(c, pos, prop)) << "tick " << t;
    } else if (oracle_sample > 0 && !pos.empty()) {
      SplitMix64 rng(7000 + static_cast<std::uint64_t>(t));
      std::vector<std::size_t> agents = {0, pos.size() - 1};
      while (agents.size() < oracle_sample) agents.push_back(static_cast<std::size_t>(rng.next() % pos.size()));
      std::size_t bad = 0, first = 0, moved = 0, collided = 0;
      for (std::size_t i : agents) {
        const Verdict want = ::warpmind::oracle::crowd_verdict(c, pos, prop, i);
        if (verd[i] != want && bad++ == 0) first = i;
        moved += want == Verdict::Moved;
        collided += want == Verdict::Collision;
      }
      EXPECT_EQ(bad, 0u) << "tick " << t << ": first wrong verdict for agent " << first << ": got "
                         << static_cast<int>(verd[first]) << ", want "
                         << static_cast<int>(::warpmind::oracle::crowd_verdict(c, pos, prop, first));
      EXPECT_GT(moved, 0u) << "tick " << t;  // the sample holds both outcomes
      EXPECT_GT(collided, 0u) << "tick " << t;
    }
    // Guarantees.
    EXPECT_EQ(count_overlaps(next, kR), 0u) << "tick " << t;
    std::size_t moved = 0;
    for (std::size_t i = 0; i < pos.size(); ++i) {
      const bool at_old = next[i].x == pos[i].x && next[i].y == pos[i].y;
      const bool at_new = next[i].x == prop[i].x && next[i].y == prop[i].y;
      EXPECT_TRUE(at_old || at_new) << "agent " << i;
      EXPECT_EQ(at_new && !at_old, verd[i] == Verdict::Moved) << "agent " << i;
      // Inside the half-open world [x0, x0 + width) x [y0, y0 + height).
      EXPECT_TRUE(next[i].x >= c.world.x0 && next[i].x < c.world.x0 + c.world.width)
          << "agent " << i << " x " << next[i].x;
      EXPECT_TRUE(next[i].y >= c.world.y0 && next[i].y < c.world.y0 + c.world.height)
          << "agent " << i << " y " << next[i].y;
      moved += verd[i] == Verdict::Moved;
    }
    EXPECT_EQ(s->last_stats().moved, moved);
    r.verdicts.push_back(verd);
    pos = next;
  }
  r.final_positions = pos;
  return r;
}

class CrowdVariantTest : public testing::TestWithParam<std::tuple<CrowdVariant, CrowdRule>> {};

TEST_P(CrowdVariantTest, GuaranteesAndOracleOnEveryScenario) {
  const auto [v, rule] = GetParam();
  if (is_gpu_variant(v)) WM_REQUIRE_GPU();
  for (const Scenario& sc : scenarios()) {
    SCOPED_TRACE(sc.name);
    const Trace r = run(sc, v, rule, true);
    std::size_t moved = 0, rejected = 0;
    for (const auto& tick : r.verdicts)
      for (Verdict x : tick) (x == Verdict::Moved ? moved : rejected) += x != Verdict::Stayed;
    if (sc.name == "swap_pairs_and_exact_targets") {
      EXPECT_EQ(moved, 0u);  // a swap always collides with the partner's old position
    } else if (sc.name != "empty") {
      EXPECT_GT(moved, 0u);  // the scenario exercises both outcomes
      EXPECT_GT(rejected, 0u);
    }
  }
}

// 50,000 agents: every variant (cpu-reference included) against the oracle on 1,500 agents a tick (the
// oracle is O(N) per agent), and the GPU variants against cpu-reference on every agent.
TEST_P(CrowdVariantTest, SameVerdictsAsOracleAndCpuReferenceOnALargeCrowd) {
  const auto [v, rule] = GetParam();
  if (is_gpu_variant(v)) WM_REQUIRE_GPU();
  CrowdConfig c;
  c.world = {0, 0, 300, 300};
  c.radius = kR;
  Scenario sc{"large", c, lattice(c.world, 1.25f, 50000, 9),
              [](const std::vector<Vec2>& p, int t) { return random_moves(p, 0.8f, 900 + t); }, 6};
  const Trace got = run(sc, v, rule, false, 1500);
  ASSERT_EQ(got.verdicts.size(), static_cast<std::size_t>(sc.ticks));
  ASSERT_EQ(got.verdicts[0].size(), 50000u);
  if (v == CrowdVariant::CpuReference) return;
  const Trace ref = run(sc, CrowdVariant::CpuReference, rule, false);
  ASSERT_EQ(ref.verdicts.size(), got.verdicts.size());
  for (std::size_t t = 0; t < ref.verdicts.size(); ++t) EXPECT_EQ(ref.verdicts[t], got.verdicts[t]) << "tick " << t;
}

INSTANTIATE_TEST_SUITE_P(AllVariants, CrowdVariantTest,
                         testing::Combine(testing::Values(CrowdVariant::CpuReference, CrowdVariant::GpuSort,
                                                          CrowdVariant::GpuTiled, CrowdVariant::GpuStaticGrid),
                                          testing::Values(CrowdRule::Strict, CrowdRule::LowestIdWins)),
                         [](const auto& i) {
                           std::string n =
                               std::string(variant_name(std::get<0>(i.param))) + "_" + rule_name(std::get<1>(i.param));
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// Runs `v` and cpu-reference in lockstep and expects identical verdicts every tick.
void expect_same_as_reference(const Scenario& sc, CrowdVariant v, CrowdRule rule) {
  SCOPED_TRACE(sc.name + " " + variant_name(v) + " " + rule_name(rule));
  CrowdConfig c = sc.config;
  c.rule = rule;
  std::unique_ptr<CrowdSolver> gpu, cpu;
  c.variant = v;
  ASSERT_TRUE(CrowdSolver::create(*context_for(v), c, gpu).ok());
  c.variant = CrowdVariant::CpuReference;
  ASSERT_TRUE(CrowdSolver::create(warpmind::test::cpu_context(), c, cpu).ok());
  ASSERT_TRUE(gpu->reset(sc.start).ok());
  ASSERT_TRUE(cpu->reset(sc.start).ok());
  std::vector<Vec2> pos = sc.start;
  std::vector<Verdict> a(pos.size()), b(pos.size());
  std::size_t moved = 0;
  for (int t = 0; t < sc.ticks; ++t) {
    const std::vector<Vec2> prop = sc.propose(pos, t);
    ASSERT_TRUE(gpu->step(prop).ok());
    ASSERT_TRUE(cpu->step(prop).ok());
    ASSERT_TRUE(gpu->read_verdicts(a).ok());
    ASSERT_TRUE(cpu->read_verdicts(b).ok());
    ASSERT_EQ(a, b) << "tick " << t;
    ASSERT_TRUE(cpu->read_positions(pos).ok());
    moved += cpu->last_stats().moved;
  }
  EXPECT_GT(moved, 0u);
  EXPECT_EQ(count_overlaps(pos, kR), 0u);
}

void expect_gpu_variants_same_as_reference(const std::vector<Scenario>& cases) {
  for (const Scenario& sc : cases)
    for (CrowdVariant v : {CrowdVariant::GpuSort, CrowdVariant::GpuTiled, CrowdVariant::GpuStaticGrid})
      for (CrowdRule rule : {CrowdRule::Strict, CrowdRule::LowestIdWins}) expect_same_as_reference(sc, v, rule);
}

TEST(Crowd, GpuVariantsMatchReferenceOnAdversarialLayouts) {
  // Ids with no spatial order, and thousands of targets in a few cells (more than a tile of gpu-tiled
  // stages; most agents hidden in the static grid).
  WM_REQUIRE_GPU();
  CrowdConfig c;
  c.world = {0, 0, 200, 200};
  c.radius = kR;
  std::vector<Vec2> shuffled = lattice(c.world, 1.25f, 20000, 21);
  SplitMix64 rng(5);
  for (std::size_t i = shuffled.size() - 1; i > 0; --i) std::swap(shuffled[i], shuffled[rng.next() % (i + 1)]);
  const std::vector<Scenario> cases = {
      {"shuffled_ids", c, shuffled, [](const std::vector<Vec2>& p, int t) { return random_moves(p, 0.7f, 50 + t); }, 3},
      {"converging_thousands", c, lattice(c.world, 1.5f, 4000, 22),
       [](const std::vector<Vec2>& p, int t) {
         std::vector<Vec2> q = random_moves(p, 0.5f, 70 + t);
         for (std::size_t i = 0; i < q.size(); ++i)
           if (i % 3) q[i] = {q[i].x + (100.0f - q[i].x) * 0.95f, q[i].y + (100.0f - q[i].y) * 0.95f};
         return q;
       },
       3},
  };
  expect_gpu_variants_same_as_reference(cases);
}

TEST(Crowd, GpuVariantsMatchReferenceOverManyTicks) {
  // More ticks than the static grid's slot tags last between clears.
  WM_REQUIRE_GPU();
  CrowdConfig c;
  c.world = {0, 0, 40, 40};
  c.radius = kR;
  expect_gpu_variants_same_as_reference(
      {{"six_hundred_ticks", c, lattice(c.world, 1.3f, 300, 23),
        [](const std::vector<Vec2>& p, int t) { return random_moves(p, 0.6f, 90 + t); }, 600}});
}

TEST(Crowd, DeviceProposalsMatchHostSteps) {
  // step_device (proposals in device memory, no host sync) gives the reference's verdicts and positions.
  WM_REQUIRE_GPU();
  Context& ctx = *warpmind::test::cuda_context();
  const Scenario sc = scenarios()[1];  // dense
  for (CrowdVariant v : {CrowdVariant::GpuSort, CrowdVariant::GpuTiled, CrowdVariant::GpuStaticGrid})
    for (CrowdRule rule : {CrowdRule::Strict, CrowdRule::LowestIdWins}) {
      CrowdConfig c = sc.config;
      c.rule = rule;
      c.variant = v;
      std::unique_ptr<CrowdSolver> gpu, cpu;
      ASSERT_TRUE(CrowdSolver::create(ctx, c, gpu).ok());
      c.variant = CrowdVariant::CpuReference;
      ASSERT_TRUE(CrowdSolver::create(warpmind::test::cpu_context(), c, cpu).ok());
      ASSERT_TRUE(gpu->reset(sc.start).ok());
      ASSERT_TRUE(cpu->reset(sc.start).ok());
      DeviceBytes d;
      ASSERT_TRUE(d.allocate(ctx, sc.start.size() * sizeof(Vec2)).ok());
      std::vector<Vec2> pos = sc.start, a(pos.size()), b(pos.size());
      for (int t = 0; t < 4; ++t) {
        const std::vector<Vec2> prop = sc.propose(pos, t);
        ASSERT_TRUE(d.upload(ctx, prop.data(), prop.size() * sizeof(Vec2)).ok());
        ASSERT_TRUE(gpu->step_device(static_cast<const Vec2*>(d.get())).ok());
        ASSERT_TRUE(cpu->step(prop).ok());
        ASSERT_TRUE(gpu->fetch_stats().ok());
        EXPECT_EQ(gpu->last_stats().moved, cpu->last_stats().moved);
        ASSERT_TRUE(gpu->read_positions(a).ok());
        ASSERT_TRUE(cpu->read_positions(b).ok());
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec2)))
            << variant_name(v) << " " << rule_name(rule);
        EXPECT_NE(gpu->device_positions(), nullptr);
        pos = b;
      }
    }
  std::unique_ptr<CrowdSolver> cpu;
  ASSERT_TRUE(CrowdSolver::create(warpmind::test::cpu_context(), CrowdConfig{}, cpu).ok());
  EXPECT_FALSE(cpu->step_device(nullptr).ok());
  EXPECT_EQ(cpu->device_positions(), nullptr);
}

TEST(Crowd, RetainRemovesAgentsAndKeepsTheOthersInOrder) {
  const Scenario sc = scenarios()[0];
  for (CrowdVariant v :
       {CrowdVariant::CpuReference, CrowdVariant::GpuSort, CrowdVariant::GpuTiled, CrowdVariant::GpuStaticGrid}) {
    if (is_gpu_variant(v) && !warpmind::test::cuda_context()) continue;
    SCOPED_TRACE(variant_name(v));
    CrowdConfig c = sc.config;
    c.variant = v;
    std::unique_ptr<CrowdSolver> s;
    ASSERT_TRUE(CrowdSolver::create(*context_for(v), c, s).ok());
    ASSERT_TRUE(s->reset(sc.start).ok());
    ASSERT_TRUE(s->step(sc.propose(sc.start, 0)).ok());
    std::vector<Vec2> before(s->size());
    ASSERT_TRUE(s->read_positions(before).ok());
    std::vector<std::uint8_t> keep(s->size());
    std::vector<Vec2> expect;
    for (std::size_t i = 0; i < keep.size(); ++i)
      if ((keep[i] = i % 3 != 1)) expect.push_back(before[i]);
    EXPECT_FALSE(s->retain(std::vector<std::uint8_t>(keep.size() + 1, 1)).ok());
    EXPECT_EQ(s->size(), before.size());  // unchanged by the error
    ASSERT_TRUE(s->retain(keep).ok());
    ASSERT_EQ(s->size(), expect.size());
    std::vector<Vec2> after(s->size());
    ASSERT_TRUE(s->read_positions(after).ok());
    EXPECT_EQ(0, std::memcmp(after.data(), expect.data(), after.size() * sizeof(Vec2)));
    ASSERT_TRUE(s->step(sc.propose(after, 1)).ok());  // the smaller crowd steps on
    EXPECT_GT(s->last_stats().moved, 0u);
  }
}

TEST(Crowd, LowestIdWinsAcceptsASupersetOfStrict) {
  for (const Scenario& sc : scenarios()) {
    const Trace strict = run(sc, CrowdVariant::CpuReference, CrowdRule::Strict, false);
    Scenario once = sc;
    once.ticks = 1;
    const Trace a = run(once, CrowdVariant::CpuReference, CrowdRule::Strict, false);
    const Trace b = run(once, CrowdVariant::CpuReference, CrowdRule::LowestIdWins, false);
    for (std::size_t i = 0; i < a.verdicts[0].size(); ++i)
      if (a.verdicts[0][i] == Verdict::Moved) {
        EXPECT_EQ(b.verdicts[0][i], Verdict::Moved) << sc.name << " " << i;
      }
  }
}

TEST(Crowd, ChainPushAndTouchingAgents) {
  // Agents at exactly 2R are valid (distance >= 2R); pushing into the next one's old spot is rejected.
  const Scenario sc = scenarios()[4];
  ASSERT_EQ(sc.name, "chain_push");
  const Trace r = run(sc, CrowdVariant::CpuReference, CrowdRule::Strict, false);
  for (std::size_t i = 0; i + 1 < r.verdicts[0].size(); ++i) EXPECT_EQ(r.verdicts[0][i], Verdict::Collision);
  EXPECT_EQ(r.verdicts[0].back(), Verdict::Moved);  // the head of the chain has free space
}

TEST(Crowd, PinnedStateHash) {
  // Changing the rule or its arithmetic changes this; do it on purpose.
  const Scenario sc = scenarios()[0];
  const Trace r = run(sc, CrowdVariant::CpuReference, CrowdRule::Strict, false);
  EXPECT_EQ(fnv1a(r.final_positions.data(), r.final_positions.size() * sizeof(Vec2)), 0xb446f1c4ce160f89ull);
}

TEST(Crowd, BadInputIsRejectedAndChangesNothing) {
  for (Context* ctx : {&warpmind::test::cpu_context(), warpmind::test::cuda_context()}) {
    if (!ctx) continue;
    CrowdConfig c;
    c.world = {0, 0, 20, 20};
    c.radius = kR;
    c.obstacles.width = c.obstacles.height = 20;
    c.obstacles.blocked.assign(400, 0);
    c.obstacles.blocked[5 * 20 + 5] = 1;
    c.variant = ctx->cuda() ? CrowdVariant::GpuSort : CrowdVariant::CpuReference;
    std::unique_ptr<CrowdSolver> s;
    ASSERT_TRUE(CrowdSolver::create(*ctx, c, s).ok());
    const std::vector<Vec2> good = {{1, 1}, {3, 1}, {10, 10}};
    ASSERT_TRUE(s->reset(good).ok());
    const auto err = [&](const std::vector<Vec2>& p) { return s->reset(p).message(); };
    EXPECT_NE(err({{1, 1}, {1.5f, 1}}).find("overlaps"), std::string::npos);
    EXPECT_NE(err({{1, 1}, {NAN, 1}}).find("agent 1"), std::string::npos);
    EXPECT_NE(err({{1, 1}, {25, 1}}).find("outside"), std::string::npos);
    EXPECT_NE(err({{5.5f, 5.5f}}).find("blocked"), std::string::npos);
    EXPECT_EQ(s->size(), 3u);
    std::vector<Vec2> pos(3);
    ASSERT_TRUE(s->read_positions(pos).ok());
    EXPECT_EQ(0, std::memcmp(pos.data(), good.data(), sizeof(Vec2) * 3));  // x and y of every agent
    EXPECT_FALSE(s->step(std::vector<Vec2>{{1, 1}}).ok());
    ASSERT_TRUE(s->read_positions(pos).ok());
    EXPECT_EQ(0, std::memcmp(pos.data(), good.data(), sizeof(Vec2) * 3));
    // Maximum steps: one per agent or none, finite and >= 0.
    EXPECT_NE(s->reset(good, std::vector<float>{1, 1}).message().find("maximum steps"), std::string::npos);
    EXPECT_NE(s->reset(good, std::vector<float>{1, -1, 1}).message().find("agent 1"), std::string::npos);
    EXPECT_NE(s->reset(good, std::vector<float>{1, 1, INFINITY}).message().find("agent 2"), std::string::npos);
    EXPECT_EQ(s->size(), 3u);
    // Config errors.
    CrowdConfig bad = c;
    bad.radius = 0;
    EXPECT_FALSE(CrowdSolver::create(*ctx, bad, s).ok());
    bad = c;
    bad.obstacles.blocked.resize(10);
    EXPECT_FALSE(CrowdSolver::create(*ctx, bad, s).ok());
    bad = c;
    bad.world.width = NAN;
    EXPECT_FALSE(CrowdSolver::create(*ctx, bad, s).ok());
    bad = c;
    bad.max_step = -1;
    EXPECT_EQ(CrowdSolver::create(*ctx, bad, s).code(), StatusCode::InvalidArgument);
    bad.max_step = NAN;
    EXPECT_EQ(CrowdSolver::create(*ctx, bad, s).code(), StatusCode::InvalidArgument);
    bad = c;
    bad.movement = CrowdMovement::Avoid;  // needs a maximum step
    EXPECT_EQ(CrowdSolver::create(*ctx, bad, s).code(), StatusCode::InvalidArgument);
    bad.max_step = 100;  // > 64 R
    EXPECT_EQ(CrowdSolver::create(*ctx, bad, s).code(), StatusCode::InvalidArgument);
    bad = c;
    bad.rule = static_cast<CrowdRule>(42);
    EXPECT_EQ(CrowdSolver::create(*ctx, bad, s).code(), StatusCode::InvalidArgument);
    bad = c;
    bad.variant = static_cast<CrowdVariant>(42);
    EXPECT_EQ(CrowdSolver::create(*ctx, bad, s).code(), StatusCode::InvalidArgument);
    bad = c;
    bad.movement = static_cast<CrowdMovement>(7);
    EXPECT_EQ(CrowdSolver::create(*ctx, bad, s).code(), StatusCode::InvalidArgument);
    if (ctx->cuda()) {  // Avoid is not for the seed's sort baselines
      bad = c;
      bad.movement = CrowdMovement::Avoid;
      bad.max_step = 0.25f;
      bad.variant = CrowdVariant::GpuTiled;
      EXPECT_EQ(CrowdSolver::create(*ctx, bad, s).code(), StatusCode::Unavailable);
    }
  }
  if (!warpmind::test::cuda_context()) {
    CrowdConfig c;
    c.variant = CrowdVariant::GpuSort;
    std::unique_ptr<CrowdSolver> s;
    EXPECT_EQ(CrowdSolver::create(warpmind::test::cpu_context(), c, s).code(), StatusCode::Unavailable);
  }
}

TEST(Crowd, CountOverlaps) {
  EXPECT_EQ(count_overlaps(std::vector<Vec2>{}, kR), 0u);
  EXPECT_EQ(count_overlaps(std::vector<Vec2>{{0, 0}, {1, 0}, {5, 5}}, kR), 0u);  // exactly 2R apart
  EXPECT_EQ(count_overlaps(std::vector<Vec2>{{0, 0}, {0.99f, 0}, {0.5f, 0.2f}}, kR), 3u);
}

TEST(Crowd, NamesRoundTrip) {
  CrowdVariant v;
  EXPECT_TRUE(parse_variant("gpu-sort", v));
  EXPECT_EQ(v, CrowdVariant::GpuSort);
  EXPECT_FALSE(parse_variant("gpu-magic", v));
  CrowdRule r;
  EXPECT_TRUE(parse_rule("lowest-id", r));
  EXPECT_EQ(r, CrowdRule::LowestIdWins);
  EXPECT_FALSE(parse_rule("fair", r));
  CrowdMovement m;
  EXPECT_TRUE(parse_movement("avoid", m));
  EXPECT_EQ(m, CrowdMovement::Avoid);
  EXPECT_STREQ(movement_name(CrowdMovement::AcceptReject), "accept-reject");
  EXPECT_FALSE(parse_movement("swarm", m));
}

// Every variant this build and machine can run.
std::vector<CrowdVariant> available_variants() {
  std::vector<CrowdVariant> v = {CrowdVariant::CpuReference};
  if (warpmind::test::cuda_context())
    for (CrowdVariant g : {CrowdVariant::GpuSort, CrowdVariant::GpuTiled, CrowdVariant::GpuStaticGrid}) v.push_back(g);
  return v;
}

// One agent's verdict for one proposal, on a fresh solver.
Verdict verdict_of(CrowdConfig c, CrowdVariant v, Vec2 from, Vec2 to) {
  c.variant = v;
  std::unique_ptr<CrowdSolver> s;
  Status st = CrowdSolver::create(*context_for(v), c, s);
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok()) return Verdict::Moved;
  EXPECT_TRUE(s->reset(std::vector<Vec2>{from}).ok());
  EXPECT_TRUE(s->step(std::vector<Vec2>{to}).ok());
  std::vector<Verdict> out(1);
  EXPECT_TRUE(s->read_verdicts(out).ok());
  return out[0];
}

TEST(Crowd, InsideTheWorldIsTheCentreOnTheHalfOpenFloatRectangle) {
  CrowdConfig c;
  c.world = {-3.0f, 2.0f, 10.0f, 5.0f};  // [-3, 7) x [2, 7)
  c.radius = 0.25f;
  const Vec2 o{0.0f, 4.0f};
  for (CrowdVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    EXPECT_EQ(verdict_of(c, v, o, {-3.0f, 4.0f}), Verdict::Moved);  // the lower edges are in
    EXPECT_EQ(verdict_of(c, v, o, {0.0f, 2.0f}), Verdict::Moved);
    EXPECT_EQ(verdict_of(c, v, o, {std::nextafter(-3.0f, -4.0f), 4.0f}), Verdict::OutOfWorld);
    EXPECT_EQ(verdict_of(c, v, o, {7.0f, 4.0f}), Verdict::OutOfWorld);  // the upper edges are out
    EXPECT_EQ(verdict_of(c, v, o, {0.0f, 7.0f}), Verdict::OutOfWorld);
    EXPECT_EQ(verdict_of(c, v, o, {std::nextafter(7.0f, 0.0f), std::nextafter(7.0f, 0.0f)}), Verdict::Moved);
    EXPECT_EQ(verdict_of(c, v, o, {6.9f, 4.0f}), Verdict::Moved);  // the disc sticks out: only the centre counts
    EXPECT_EQ(verdict_of(c, v, o, o), Verdict::Stayed);
  }
  // The edge is the float sum x0 + width: 1 + 2^24 rounds to 2^24, so x = 2^24 is outside.
  CrowdConfig big;
  big.world = {1.0f, 0.0f, 16777216.0f, 10.0f};
  big.radius = 0.5f;
  for (CrowdVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    EXPECT_EQ(verdict_of(big, v, {100.0f, 5.0f}, {16777216.0f, 5.0f}), Verdict::OutOfWorld);
    EXPECT_EQ(verdict_of(big, v, {100.0f, 5.0f}, {16777214.0f, 5.0f}), Verdict::Moved);
  }
}

TEST(Crowd, ObstacleCellOfAPointIsTheFlooredQuotientClamped) {
  // 7 x 7 world, 3 x 3 obstacle cells of side 7/3 = 2.33333325 (float). Only cell (2, 0) is blocked.
  CrowdConfig c;
  c.world = {0.0f, 0.0f, 7.0f, 7.0f};
  c.radius = 0.1f;
  c.obstacles.width = c.obstacles.height = 3;
  c.obstacles.blocked.assign(9, 0);
  c.obstacles.blocked[0 * 3 + 2] = 1;
  const float cw = 7.0f / 3.0f;
  // Each move walks only the cells of its own row or column (the segment test walks every cell between).
  const Vec2 o{1.0f, 1.0f}, above{5.0f, 5.0f}, right{6.0f, 3.0f};
  for (CrowdVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    EXPECT_EQ(verdict_of(c, v, o, {2.0f * cw, 1.0f}), Verdict::Blocked);  // on the boundary: the cell above
    EXPECT_EQ(verdict_of(c, v, o, {std::nextafter(2.0f * cw, 0.0f), 1.0f}), Verdict::Moved);
    EXPECT_EQ(verdict_of(c, v, above, {5.0f, std::nextafter(cw, 0.0f)}), Verdict::Blocked);
    EXPECT_EQ(verdict_of(c, v, above, {5.0f, cw}), Verdict::Moved);  // row 1
    // Just below the world's edge the quotient 6.99999952 / 2.33333325 rounds to 3: clamped to column 2
    // (cell (2, 0), blocked), not wrapped into the next row's cell (0, 1), which is free.
    ASSERT_EQ(std::floor(std::nextafter(7.0f, 0.0f) / cw), 3.0f);
    EXPECT_EQ(verdict_of(c, v, right, {std::nextafter(7.0f, 0.0f), 1.0f}), Verdict::Blocked);
  }
}

TEST(Crowd, VerdictChecksRunInOrder) {
  // Stayed, then OutOfWorld, then Blocked, then Collision: a target outside the world that also conflicts
  // is OutOfWorld; a blocked target that also conflicts is Blocked.
  CrowdConfig c;
  c.world = {0.0f, 0.0f, 10.0f, 10.0f};
  c.radius = 0.5f;
  c.obstacles.width = c.obstacles.height = 10;
  c.obstacles.blocked.assign(100, 0);
  c.obstacles.blocked[5 * 10 + 9] = 1;  // cell (9, 5)
  for (CrowdVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    c.variant = v;
    std::unique_ptr<CrowdSolver> s;
    ASSERT_TRUE(CrowdSolver::create(*context_for(v), c, s).ok());
    const std::vector<Vec2> start = {{9.5f, 9.5f}, {9.5f, 4.5f}, {5.0f, 5.0f}, {2.0f, 2.0f}};
    ASSERT_TRUE(s->reset(start).ok());
    // 0 and 1 want targets 0.5 apart (a conflict): 0's is outside the world, 1's in the blocked cell;
    // 2 wants 3's old spot; 3 stays.
    const std::vector<Vec2> prop = {{10.0f, 5.5f}, {9.5f, 5.5f}, {2.0f, 2.0f}, {2.0f, 2.0f}};
    ASSERT_TRUE(s->step(prop).ok());
    std::vector<Verdict> got(4);
    ASSERT_TRUE(s->read_verdicts(got).ok());
    EXPECT_EQ(got, (std::vector<Verdict>{Verdict::OutOfWorld, Verdict::Blocked, Verdict::Collision, Verdict::Stayed}));
    EXPECT_EQ(s->last_stats().out_of_world, 1u);
    EXPECT_EQ(s->last_stats().blocked, 1u);
    EXPECT_EQ(s->last_stats().collisions, 1u);
    EXPECT_EQ(s->last_stats().stayed, 1u);
    EXPECT_EQ(s->last_stats().moved, 0u);
  }
}

// ---- No tunnelling, maximum steps, non-finite proposals --------------------------------------------

TEST(Crowd, AMoveCannotCrossABlockedCell) {
  // A one-cell wall at x in [50, 51) across a 100 x 10 world of 1 x 1 cells: a unit west of it never ends
  // up east of it, however far it proposes to go.
  CrowdConfig c;
  c.world = {0.0f, 0.0f, 100.0f, 10.0f};
  c.radius = 0.5f;
  c.obstacles.width = 100;
  c.obstacles.height = 10;
  c.obstacles.blocked.assign(1000, 0);
  for (int y = 0; y < 10; ++y) c.obstacles.blocked[y * 100 + 50] = 1;
  for (CrowdVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    for (float to : {52.5f, 60.0f, 99.0f, 50.5f, 51.0f})
      EXPECT_EQ(verdict_of(c, v, {48.5f, 5.0f}, {to, 5.0f}), Verdict::Blocked) << to;
    EXPECT_EQ(verdict_of(c, v, {48.5f, 5.0f}, {std::nextafter(50.0f, 0.0f), 5.0f}), Verdict::Moved);
    EXPECT_EQ(verdict_of(c, v, {48.5f, 1.5f}, {60.0f, 8.5f}), Verdict::Blocked);  // diagonally too
    EXPECT_EQ(verdict_of(c, v, {60.0f, 8.5f}, {1.0f, 0.5f}), Verdict::Blocked);   // and from the east
  }
}

TEST(Crowd, ACornerCrossingChecksBothSideCells) {
  // 4 x 4 cells of 1: cells (1, 0) and (0, 1) blocked touch at the corner (1, 1). The diagonal from (0.5,
  // 0.5) to (1.5, 1.5) passes exactly through that corner: Blocked (no squeezing between them); with
  // only one of them blocked it still clips that cell's corner: Blocked; with neither: Moved.
  CrowdConfig c;
  c.world = {0.0f, 0.0f, 4.0f, 4.0f};
  c.radius = 0.1f;
  c.obstacles.width = c.obstacles.height = 4;
  for (CrowdVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    c.obstacles.blocked.assign(16, 0);
    c.obstacles.blocked[0 * 4 + 1] = c.obstacles.blocked[1 * 4 + 0] = 1;
    EXPECT_EQ(verdict_of(c, v, {0.5f, 0.5f}, {1.5f, 1.5f}), Verdict::Blocked);
    EXPECT_EQ(verdict_of(c, v, {1.5f, 1.5f}, {0.5f, 0.5f}), Verdict::Blocked);
    c.obstacles.blocked[1 * 4 + 0] = 0;
    EXPECT_EQ(verdict_of(c, v, {0.5f, 0.5f}, {1.5f, 1.5f}), Verdict::Blocked);
    c.obstacles.blocked[0 * 4 + 1] = 0;
    c.obstacles.blocked[3 * 4 + 3] = 1;
    EXPECT_EQ(verdict_of(c, v, {0.5f, 0.5f}, {1.5f, 1.5f}), Verdict::Moved);
    // Just beside the corner, the segment enters one side cell only.
    c.obstacles.blocked.assign(16, 0);
    c.obstacles.blocked[1 * 4 + 0] = 1;                                       // cell (0, 1)
    EXPECT_EQ(verdict_of(c, v, {0.5f, 0.5f}, {1.5f, 1.4f}), Verdict::Moved);  // crosses x = 1 below y = 1
    EXPECT_EQ(verdict_of(c, v, {0.5f, 0.5f}, {1.4f, 1.5f}), Verdict::Blocked);
  }
}

// Random long moves over a field of scattered blocked cells: every variant's verdicts equal the oracle's
// (whose segment test is a different algorithm), and nobody ends in or passes a wall.
TEST(Crowd, NoAcceptedMoveEntersAWallOnAnyVariant) {
  CrowdConfig c;
  c.world = {0.0f, 0.0f, 60.0f, 40.0f};
  c.radius = kR;
  c.obstacles.width = 120;
  c.obstacles.height = 80;
  c.obstacles.blocked.assign(120 * 80, 0);
  SplitMix64 rng(77);
  for (auto& b : c.obstacles.blocked) b = rng.uniform(0.0f, 1.0f) < 0.08f;
  std::vector<Vec2> start;
  for (const Vec2& p : lattice(c.world, 1.3f, 900, 78))
    if (!c.obstacles.blocked[static_cast<int>(p.y * 2) * 120 + static_cast<int>(p.x * 2)]) start.push_back(p);
  for (CrowdVariant v : available_variants())
    for (CrowdRule rule : {CrowdRule::Strict, CrowdRule::LowestIdWins}) {
      SCOPED_TRACE(std::string(variant_name(v)) + " " + rule_name(rule));
      Scenario sc{"walls", c, start, [](const std::vector<Vec2>& p, int t) { return random_moves(p, 4.0f, 500 + t); },
                  6};
      const Trace r = run(sc, v, rule, true);
      std::size_t blocked = 0;
      for (const auto& tick : r.verdicts)
        for (Verdict x : tick) blocked += x == Verdict::Blocked;
      EXPECT_GT(blocked, 100u);
    }
}

TEST(Crowd, MaximumStepPerAgentAndFromTheConfig) {
  CrowdConfig c;
  c.world = {0.0f, 0.0f, 20.0f, 20.0f};
  c.radius = 0.5f;
  c.max_step = 1.0f;
  for (CrowdVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    c.variant = v;
    std::unique_ptr<CrowdSolver> s;
    ASSERT_TRUE(CrowdSolver::create(*context_for(v), c, s).ok());
    const std::vector<Vec2> start = {{2, 2}, {6, 2}, {10, 2}, {14, 2}};
    // Agent 1 may go 3, agent 2 uses the config's 1 (0 = the config's), agent 3 may go 0.5.
    ASSERT_TRUE(s->reset(start, std::vector<float>{0, 3, 0, 0.5f}).ok());
    std::vector<float> steps(4);
    ASSERT_TRUE(s->read_max_steps(steps).ok());
    EXPECT_EQ(steps, (std::vector<float>{1, 3, 1, 0.5f}));
    // Exactly the limit is allowed (|d|^2 > L^2 is too far).
    ASSERT_TRUE(s->step(std::vector<Vec2>{{3, 2}, {8.9f, 2}, {10, 3.5f}, {14, 2.5f}}).ok());
    std::vector<Verdict> got(4);
    ASSERT_TRUE(s->read_verdicts(got).ok());
    EXPECT_EQ(got, (std::vector<Verdict>{Verdict::Moved, Verdict::Moved, Verdict::TooFar, Verdict::Moved}));
    EXPECT_EQ(s->last_stats().too_far, 1u);
    // Retain keeps each survivor's own limit.
    ASSERT_TRUE(s->retain(std::vector<std::uint8_t>{0, 1, 1, 1}).ok());
    steps.resize(3);
    ASSERT_TRUE(s->read_max_steps(steps).ok());
    EXPECT_EQ(steps, (std::vector<float>{3, 1, 0.5f}));
    ASSERT_TRUE(s->step(std::vector<Vec2>{{11.8f, 2}, {10, 2.9f}, {14, 3.1f}}).ok());
    got.resize(3);
    ASSERT_TRUE(s->read_verdicts(got).ok());
    EXPECT_EQ(got, (std::vector<Verdict>{Verdict::Moved, Verdict::Moved, Verdict::TooFar}));
  }
}

TEST(Crowd, ANonFiniteProposalIsThatAgentsOutOfWorldVerdictAlone) {
  CrowdConfig c;
  c.world = {0.0f, 0.0f, 20.0f, 20.0f};
  c.radius = 0.5f;
  for (CrowdMovement m : {CrowdMovement::AcceptReject, CrowdMovement::Avoid})
    for (CrowdVariant v : available_variants()) {
      if (m == CrowdMovement::Avoid && (v == CrowdVariant::GpuSort || v == CrowdVariant::GpuTiled)) continue;
      SCOPED_TRACE(std::string(variant_name(v)) + " " + movement_name(m));
      c.variant = v;
      c.movement = m;
      c.max_step = m == CrowdMovement::Avoid ? 2.0f : 0.0f;
      std::unique_ptr<CrowdSolver> s;
      ASSERT_TRUE(CrowdSolver::create(*context_for(v), c, s).ok());
      const std::vector<Vec2> start = {{2, 2}, {6, 2}, {10, 2}, {14, 2}};
      ASSERT_TRUE(s->reset(start).ok());
      // NaN, infinity, a huge finite value next to a regular move.
      const std::vector<Vec2> prop = {{NAN, 2}, {6, INFINITY}, {-3e38f, 3e38f}, {15, 2}};
      ASSERT_TRUE(s->step(prop).ok());
      std::vector<Verdict> got(4);
      ASSERT_TRUE(s->read_verdicts(got).ok());
      std::vector<Vec2> pos(4);
      ASSERT_TRUE(s->read_positions(pos).ok());
      EXPECT_EQ(got[0], Verdict::OutOfWorld);
      EXPECT_EQ(got[1], Verdict::OutOfWorld);
      EXPECT_EQ(got[3], Verdict::Moved);
      EXPECT_EQ(pos[3].x, 15.0f);
      EXPECT_EQ(pos[0].x, 2.0f);
      if (m == CrowdMovement::AcceptReject) {
        EXPECT_EQ(got[2], Verdict::OutOfWorld);
      } else {
        EXPECT_EQ(got[2], Verdict::Stayed);  // |d|^2 overflows float: every candidate is the old position
      }
    }
}

// ---- Avoid ---------------------------------------------------------------------------------------

// Runs Avoid on a scenario, holding every tick's verdicts and targets to the brute-force oracle and the
// guarantees (no overlap, no wall entered or passed, each mover at one of its candidates within its
// maximum step).
Trace run_avoid(const Scenario& sc, CrowdVariant v, bool check_oracle) {
  CrowdConfig c = sc.config;
  c.variant = v;
  std::unique_ptr<CrowdSolver> s;
  Status st = CrowdSolver::create(*context_for(v), c, s);
  EXPECT_TRUE(st.ok()) << st.message();
  Trace r;
  if (!st.ok()) return r;
  EXPECT_TRUE(s->reset(sc.start).ok());
  std::vector<Vec2> pos = sc.start;
  for (int t = 0; t < sc.ticks; ++t) {
    const std::vector<Vec2> want = sc.propose(pos, t);
    EXPECT_TRUE(s->step(want).ok());
    std::vector<Verdict> verd(pos.size());
    std::vector<Vec2> next(pos.size());
    EXPECT_TRUE(s->read_verdicts(verd).ok());
    EXPECT_TRUE(s->read_positions(next).ok());
    if (check_oracle) {
      std::vector<Vec2> targets;
      EXPECT_EQ(verd, ::warpmind::oracle::crowd_avoid_verdicts(c, pos, want, targets)) << "tick " << t;
      for (std::size_t i = 0; i < pos.size(); ++i)
        if (verd[i] == Verdict::Moved) {
          EXPECT_EQ(next[i].x, targets[i].x) << "agent " << i;
          EXPECT_EQ(next[i].y, targets[i].y) << "agent " << i;
        }
    }
    EXPECT_EQ(count_overlaps(next, c.radius), 0u) << "tick " << t;
    for (std::size_t i = 0; i < pos.size(); ++i) {
      if (verd[i] != Verdict::Moved) {
        EXPECT_TRUE(next[i].x == pos[i].x && next[i].y == pos[i].y) << "agent " << i;
        continue;
      }
      const float dx = next[i].x - pos[i].x, dy = next[i].y - pos[i].y;
      EXPECT_LE(std::sqrt(dx * dx + dy * dy), c.max_step * 1.0001f) << "agent " << i;
      EXPECT_FALSE(::warpmind::oracle::crowd_segment_blocked(c, pos[i], next[i])) << "agent " << i;
    }
    r.verdicts.push_back(verd);
    pos = next;
  }
  r.final_positions = pos;
  return r;
}

std::vector<Scenario> avoid_scenarios() {
  std::vector<Scenario> out;
  for (Scenario sc : scenarios()) {
    sc.config.movement = CrowdMovement::Avoid;
    sc.config.max_step = 0.6f;
    sc.config.rule = CrowdRule::LowestIdWins;
    out.push_back(sc);
  }
  Scenario strict = out[1];  // dense_near_packed under the strict rule
  strict.name += "_strict";
  strict.config.rule = CrowdRule::Strict;
  out.push_back(strict);
  return out;
}

TEST(CrowdAvoid, VerdictsAndTargetsMatchTheOracleOnEveryScenario) {
  for (CrowdVariant v : available_variants()) {
    if (v == CrowdVariant::GpuSort || v == CrowdVariant::GpuTiled) continue;
    for (const Scenario& sc : avoid_scenarios()) {
      SCOPED_TRACE(std::string(variant_name(v)) + " " + sc.name);
      const Trace r = run_avoid(sc, v, true);
      if (sc.name == "empty") continue;
      std::size_t moved = 0;
      for (const auto& tick : r.verdicts)
        for (Verdict x : tick) moved += x == Verdict::Moved;
      EXPECT_GT(moved, 0u);
    }
  }
}

// 50,000 agents with walls, wanting random points up to 2 away (beyond the maximum step): gpu-static-grid
// equals cpu-reference bit for bit, every tick, through host and device proposals and a retain.
TEST(CrowdAvoid, GpuEqualsTheCpuReferenceOnALargeCrowd) {
  WM_REQUIRE_GPU();
  CrowdConfig c;
  c.world = {0, 0, 300, 300};
  c.radius = kR;
  c.rule = CrowdRule::LowestIdWins;
  c.movement = CrowdMovement::Avoid;
  c.max_step = 0.4f;
  c.obstacles.width = c.obstacles.height = 150;
  c.obstacles.blocked.assign(150 * 150, 0);
  for (int y = 10; y < 140; ++y) c.obstacles.blocked[y * 150 + 75] = c.obstacles.blocked[75 * 150 + y] = y % 20 != 0;
  std::vector<Vec2> start;
  for (const Vec2& p : lattice(c.world, 1.25f, 60000, 19))
    if (!c.obstacles.blocked[static_cast<int>(p.y / 2) * 150 + static_cast<int>(p.x / 2)]) start.push_back(p);
  std::unique_ptr<CrowdSolver> cpu, gpu;
  c.variant = CrowdVariant::CpuReference;
  ASSERT_TRUE(CrowdSolver::create(warpmind::test::cpu_context(), c, cpu).ok());
  c.variant = CrowdVariant::GpuStaticGrid;
  ASSERT_TRUE(CrowdSolver::create(*warpmind::test::cuda_context(), c, gpu).ok());
  std::vector<float> steps(start.size());
  for (std::size_t i = 0; i < steps.size(); ++i) steps[i] = i % 3 == 0 ? 0.0f : 0.2f + 0.1f * static_cast<float>(i % 4);
  ASSERT_TRUE(cpu->reset(start, steps).ok());
  ASSERT_TRUE(gpu->reset(start, steps).ok());
  std::vector<Vec2> pos = start, a(start.size()), b(start.size());
  std::vector<Verdict> va(start.size()), vb(start.size());
  DeviceBytes dev;
  ASSERT_TRUE(dev.allocate(*warpmind::test::cuda_context(), start.size() * sizeof(Vec2)).ok());
  for (int t = 0; t < 8; ++t) {
    if (t == 4) {  // every fifth agent leaves
      std::vector<std::uint8_t> keep(pos.size());
      for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = i % 5 != 0;
      ASSERT_TRUE(cpu->retain(keep).ok());
      ASSERT_TRUE(gpu->retain(keep).ok());
      std::size_t w = 0;
      for (std::size_t i = 0; i < pos.size(); ++i)
        if (keep[i]) pos[w++] = pos[i];
      pos.resize(w);
      a.resize(w);
      b.resize(w);
      va.resize(w);
      vb.resize(w);
    }
    std::vector<Vec2> want = random_moves(pos, 2.0f, 1900 + t);
    if (t == 2) want[17] = {NAN, 1.0f};
    ASSERT_TRUE(cpu->step(want).ok());
    if (t % 2) {
      ASSERT_TRUE(dev.upload(*warpmind::test::cuda_context(), want.data(), want.size() * sizeof(Vec2)).ok());
      ASSERT_TRUE(gpu->step_device(static_cast<const Vec2*>(dev.get())).ok());
      ASSERT_TRUE(gpu->fetch_stats().ok());
    } else {
      ASSERT_TRUE(gpu->step(want).ok());
    }
    ASSERT_TRUE(cpu->read_positions(a).ok());
    ASSERT_TRUE(gpu->read_positions(b).ok());
    ASSERT_TRUE(cpu->read_verdicts(va).ok());
    ASSERT_TRUE(gpu->read_verdicts(vb).ok());
    ASSERT_EQ(va, vb) << "tick " << t;
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec2))) << "tick " << t;
    EXPECT_EQ(cpu->last_stats().moved, gpu->last_stats().moved);
    EXPECT_GT(cpu->last_stats().moved, pos.size() / 2) << "tick " << t;
    pos = a;
  }
}

}  // namespace
}  // namespace warpmind::crowd
