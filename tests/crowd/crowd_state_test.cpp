// Crowd agents over their lives: stable ids, spawn and despawn without reset(), save and restore — each
// held against a fresh solver reset with the same agents (the ticks after must be the same bit for bit),
// on every variant this machine runs, and hostile saved bytes refused with nothing changed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "crowd_helpers.h"
#include "gpu_helpers.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/core/random.h"
#include "warpmind/crowd/crowd_solver.h"

namespace warpmind::crowd {
namespace {

using test::context_of;
using test::variants;

// A 60 x 40 world with a wall (cells x = 30, y < 30 blocked on a 60 x 40 grid).
CrowdConfig config(CrowdMovement movement, CrowdVariant v) {
  CrowdConfig c;
  c.world = {0, 0, 60, 40};
  c.radius = 0.5f;
  c.obstacles.width = 60;
  c.obstacles.height = 40;
  c.obstacles.blocked.assign(60 * 40, 0);
  for (int y = 0; y < 30; ++y) c.obstacles.blocked[y * 60 + 30] = 1;
  c.rule = CrowdRule::LowestIdWins;
  c.movement = movement;
  c.max_step = movement == CrowdMovement::Avoid ? 0.4f : 0.0f;
  c.variant = v;
  return c;
}

std::unique_ptr<CrowdSolver> make(const CrowdConfig& c) {
  std::unique_ptr<CrowdSolver> s;
  const Status st = CrowdSolver::create(context_of(c.variant), c, s);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

struct State {
  std::vector<Vec2> pos;
  std::vector<float> steps;
  std::vector<std::uint32_t> ids;
  std::vector<Verdict> verdicts;
  bool operator==(const State& o) const {
    return pos.size() == o.pos.size() && std::memcmp(pos.data(), o.pos.data(), pos.size() * sizeof(Vec2)) == 0 &&
           steps == o.steps && ids == o.ids && verdicts == o.verdicts;
  }
};

State state_of(const CrowdSolver& s) {
  State st{std::vector<Vec2>(s.size()), std::vector<float>(s.size()), std::vector<std::uint32_t>(s.size()),
           std::vector<Verdict>(s.size())};
  EXPECT_TRUE(s.read_positions(st.pos).ok());
  EXPECT_TRUE(s.read_max_steps(st.steps).ok());
  EXPECT_TRUE(s.read_ids(st.ids).ok());
  EXPECT_TRUE(s.read_verdicts(st.verdicts).ok());
  return st;
}

// Free spots: a random point of the world that is in no blocked cell and 2R from every point of `taken`.
std::vector<Vec2> free_spots(const CrowdConfig& c, std::vector<Vec2> taken, std::size_t k, SplitMix64& rng) {
  std::vector<Vec2> out;
  for (int tries = 0; out.size() < k && tries < 100000; ++tries) {
    const Vec2 p{rng.uniform(0.5f, 59.5f), rng.uniform(0.5f, 39.5f)};
    if (c.obstacles.blocked[static_cast<int>(p.y) * 60 + static_cast<int>(p.x)]) continue;
    bool ok = true;
    for (const Vec2& q : taken)
      ok = ok && (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y) >= 4 * c.radius * c.radius;
    if (!ok) continue;
    out.push_back(p);
    taken.push_back(p);
  }
  return out;
}

// Proposals towards per-agent goals (by id, so they follow an agent through slot changes), a few NaN.
std::vector<Vec2> proposals(const State& s, int tick) {
  std::vector<Vec2> p(s.pos.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    SplitMix64 r(s.ids[i] * 7919ull + 1);
    const Vec2 goal{r.uniform(1.0f, 59.0f), r.uniform(1.0f, 39.0f)};
    const float dx = goal.x - s.pos[i].x, dy = goal.y - s.pos[i].y, d = std::sqrt(dx * dx + dy * dy);
    const float step = std::min(d, 0.35f);
    p[i] = d > 0 ? Vec2{s.pos[i].x + dx / d * step, s.pos[i].y + dy / d * step} : s.pos[i];
    if ((s.ids[i] + tick) % 97 == 0) p[i].x = std::numeric_limits<float>::quiet_NaN();
  }
  return p;
}

TEST(CrowdState, ResetNumbersSpawnAppendsDespawnKeepsIds) {
  for (CrowdVariant v : variants(CrowdMovement::AcceptReject)) {
    SCOPED_TRACE(variant_name(v));
    const CrowdConfig c = config(CrowdMovement::AcceptReject, v);
    auto s = make(c);
    ASSERT_TRUE(s->reset(std::vector<Vec2>{{5, 5}, {7, 5}, {9, 5}}).ok());
    EXPECT_EQ(state_of(*s).ids, (std::vector<std::uint32_t>{0, 1, 2}));
    std::vector<std::uint32_t> got(2, 99);
    ASSERT_TRUE(s->spawn(std::vector<Vec2>{{5, 9}, {7, 9}}, std::vector<float>{0, 2.5f}, got).ok());
    EXPECT_EQ(got, (std::vector<std::uint32_t>{3, 4}));
    State st = state_of(*s);
    EXPECT_EQ(st.ids, (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(st.pos[4].x, 7.0f);
    EXPECT_EQ(st.steps[3], 0.0f);  // the config's: no limit
    EXPECT_EQ(st.steps[4], 2.5f);
    // Refused, nothing changed: on an agent, on each other, in the wall, outside, NaN, bad step, short ids_out.
    const std::vector<std::vector<Vec2>> bad = {{{5.5f, 5}}, {{20, 20}, {20.9f, 20}}, {{30.5f, 3}},
                                                {{-1, 3}},   {{std::nanf(""), 3}},    {{60, 3}}};
    for (const auto& b : bad) {
      const Status e = s->spawn(b);
      EXPECT_EQ(e.code(), StatusCode::InvalidArgument) << b[0].x;
      EXPECT_EQ(e.message().rfind("spawn: ", 0), 0u) << e.message();
    }
    EXPECT_NE(s->spawn(std::vector<Vec2>{{5.5f, 5}}).message().find("agent id 0"), std::string::npos);
    EXPECT_FALSE(s->spawn(std::vector<Vec2>{{20, 20}}, std::vector<float>{-1}).ok());
    std::vector<std::uint32_t> one(1);
    EXPECT_FALSE(s->spawn(std::vector<Vec2>{{20, 20}, {25, 20}}, {}, one).ok());
    EXPECT_TRUE(state_of(*s) == st);
    EXPECT_TRUE(s->spawn({}).ok());
    // Despawn: the others keep their ids and order; unknown and repeated ids refused.
    ASSERT_TRUE(s->despawn(std::vector<std::uint32_t>{3, 1}).ok());
    State after = state_of(*s);
    EXPECT_EQ(after.ids, (std::vector<std::uint32_t>{0, 2, 4}));
    EXPECT_EQ(after.pos[1].x, 9.0f);
    EXPECT_EQ(after.steps[2], 2.5f);
    std::size_t slot = 0;
    EXPECT_TRUE(s->find(4, slot));
    EXPECT_EQ(slot, 2u);
    EXPECT_FALSE(s->find(1, slot));
    EXPECT_FALSE(s->despawn(std::vector<std::uint32_t>{1}).ok());
    EXPECT_FALSE(s->despawn(std::vector<std::uint32_t>{0, 0}).ok());
    EXPECT_TRUE(state_of(*s) == after);
    // Ids are not given twice: the next spawn continues after 4; reset() starts again.
    ASSERT_TRUE(s->spawn(std::vector<Vec2>{{40, 30}}, {}, one).ok());
    EXPECT_EQ(one[0], 5u);
    ASSERT_TRUE(s->reset(std::vector<Vec2>{{40, 30}}).ok());
    EXPECT_EQ(state_of(*s).ids, (std::vector<std::uint32_t>{0}));
  }
}

// A crowd that spawns and despawns every few ticks moves exactly as a fresh solver reset each tick with
// the same agents (order and maximum steps), on every variant and both movements; and the variants agree.
TEST(CrowdState, SpawnAndDespawnEqualAFreshReset) {
  for (CrowdMovement m : {CrowdMovement::AcceptReject, CrowdMovement::Avoid}) {
    std::vector<State> first;  // the first variant's states, tick by tick
    for (CrowdVariant v : variants(m)) {
      SCOPED_TRACE(std::string(variant_name(v)) + " " + movement_name(m));
      const CrowdConfig c = config(m, v);
      auto s = make(c);
      SplitMix64 rng(5);
      ASSERT_TRUE(s->reset(free_spots(c, {}, 300, rng)).ok());
      std::vector<State> mine;
      for (int t = 0; t < 60; ++t) {
        State now = state_of(*s);
        if (t % 5 == 1) {  // spawn a few, with their own maximum steps
          const auto spots = free_spots(c, now.pos, 12, rng);
          std::vector<float> steps(spots.size());
          for (float& x : steps) x = m == CrowdMovement::Avoid ? rng.uniform(0.1f, 0.5f) : rng.uniform(0.0f, 1.0f);
          ASSERT_TRUE(s->spawn(spots, steps).ok());
        } else if (t % 5 == 3 && !now.ids.empty()) {  // despawn every 9th id present
          std::vector<std::uint32_t> gone;
          for (std::uint32_t id : now.ids)
            if (id % 9 == static_cast<std::uint32_t>(t % 9)) gone.push_back(id);
          ASSERT_TRUE(s->despawn(gone).ok());
        }
        const bool changed = t % 5 == 1 || t % 5 == 3;
        now = state_of(*s);
        for (Verdict x : now.verdicts) {
          if (changed) ASSERT_EQ(x, Verdict::Stayed);  // spawn and despawn clear the verdicts
        }
        const std::vector<Vec2> prop = proposals(now, t);
        auto fresh = make(c);
        ASSERT_TRUE(fresh->reset(now.pos, now.steps).ok());
        ASSERT_TRUE(s->step(prop).ok());
        ASSERT_TRUE(fresh->step(prop).ok());
        State a = state_of(*s), b = state_of(*fresh);
        ASSERT_TRUE(std::memcmp(a.pos.data(), b.pos.data(), a.pos.size() * sizeof(Vec2)) == 0) << "tick " << t;
        ASSERT_EQ(a.verdicts, b.verdicts) << "tick " << t;
        ASSERT_EQ(count_overlaps(a.pos, c.radius), 0u);
        mine.push_back(a);
      }
      EXPECT_GT(mine.back().ids.back(), 300u);
      if (first.empty())
        first = mine;
      else
        for (std::size_t t = 0; t < mine.size(); ++t) ASSERT_TRUE(mine[t] == first[t]) << "tick " << t;
    }
  }
}

// save() then restore() on a solver of another variant: the ticks after it equal the original's.
TEST(CrowdState, SaveAndRestoreContinueBitForBit) {
  for (CrowdMovement m : {CrowdMovement::AcceptReject, CrowdMovement::Avoid}) {
    const std::vector<CrowdVariant> vs = variants(m);
    for (std::size_t k = 0; k < vs.size(); ++k) {
      const CrowdVariant from = vs[k], to = vs[(k + 1) % vs.size()];
      SCOPED_TRACE(std::string(variant_name(from)) + " -> " + variant_name(to) + " " + movement_name(m));
      auto a = make(config(m, from));
      SplitMix64 rng(11);
      ASSERT_TRUE(a->reset(free_spots(a->config(), {}, 200, rng)).ok());
      for (int t = 0; t < 10; ++t) ASSERT_TRUE(a->step(proposals(state_of(*a), t)).ok());
      ASSERT_TRUE(a->despawn(std::vector<std::uint32_t>{3, 50}).ok());
      ASSERT_TRUE(a->spawn(free_spots(a->config(), state_of(*a).pos, 5, rng), std::vector<float>(5, 0.3f)).ok());
      std::vector<std::uint8_t> bytes;
      ASSERT_TRUE(a->save(bytes).ok());
      EXPECT_EQ(bytes.size(), 84 + 20 * a->size());
      auto b = make(config(m, to));
      ASSERT_TRUE(b->reset(std::vector<Vec2>{{1, 1}}).ok());
      ASSERT_TRUE(b->restore(bytes).ok());
      ASSERT_TRUE(state_of(*b) == state_of(*a));
      for (int t = 10; t < 30; ++t) {
        const std::vector<Vec2> prop = proposals(state_of(*a), t);
        ASSERT_TRUE(a->step(prop).ok());
        ASSERT_TRUE(b->step(prop).ok());
        ASSERT_TRUE(state_of(*a) == state_of(*b)) << "tick " << t;
      }
      std::vector<std::uint32_t> ida(1), idb(1);  // the next id came along
      ASSERT_TRUE(a->spawn(free_spots(a->config(), state_of(*a).pos, 1, rng), {}, ida).ok());
      ASSERT_TRUE(b->spawn(std::vector<Vec2>{state_of(*a).pos.back()}, {}, idb).ok());
      EXPECT_EQ(ida, idb);
    }
  }
}

// Hostile bytes: every damaged copy of a saved state is refused with nothing changed, or (where a flipped
// byte still gives a valid state) accepted as a state that keeps the guarantees.
TEST(CrowdState, RestoreRefusesBadBytes) {
  const CrowdConfig c = config(CrowdMovement::AcceptReject, CrowdVariant::CpuReference);
  auto s = make(c);
  SplitMix64 rng(3);
  ASSERT_TRUE(s->reset(free_spots(c, {}, 50, rng)).ok());
  std::vector<std::uint8_t> good;
  ASSERT_TRUE(s->save(good).ok());
  auto target = make(c);
  ASSERT_TRUE(target->reset(std::vector<Vec2>{{2, 2}, {4, 4}}).ok());
  const State before = state_of(*target);
  const auto refused = [&](std::vector<std::uint8_t> b, const char* why) {
    const Status e = target->restore(b);
    EXPECT_EQ(e.code(), StatusCode::InvalidArgument) << why;
    EXPECT_EQ(e.message().rfind("restore: ", 0), 0u) << e.message();
    EXPECT_TRUE(state_of(*target) == before) << why;
  };
  const auto put_f32 = [](std::vector<std::uint8_t>& b, std::size_t at, float v) { std::memcpy(&b[at], &v, 4); };
  const auto put_u32 = [](std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
    std::memcpy(&b[at], &v, 4);
  };
  const std::size_t n = s->size(), pos0 = 84, steps0 = 84 + 8 * n, radii0 = 84 + 12 * n, ids0 = 84 + 16 * n;
  refused({}, "empty");
  refused(std::vector<std::uint8_t>(good.begin(), good.end() - 1), "short");
  auto b = good;
  b.push_back(0);
  refused(b, "long");
  b = good;
  b[0] = 'X';
  refused(b, "magic");
  b = good;
  b[8] = 3;
  refused(b, "format");
  b = good;
  b[8] = 1;  // format 1 has neither min_radius nor radii: its lengths differ
  refused(b, "format 1 length");
  b = good;
  b[12] = 1;
  refused(b, "reserved");
  b = good;
  put_f32(b, 16 + 16 + 16, 0.6f);  // the radius
  refused(b, "config");
  b = good;
  put_f32(b, 56, 0.25f);  // min_radius
  refused(b, "config min_radius");
  b = good;
  b[68] ^= 1;  // the count
  refused(b, "count");
  b = good;
  put_f32(b, radii0, 0.4f);  // this config has no min_radius: every agent has R
  refused(b, "radius");
  b = good;
  put_f32(b, radii0, 0.0f);
  refused(b, "radius 0");
  b = good;
  put_f32(b, pos0, std::numeric_limits<float>::infinity());
  refused(b, "not finite");
  b = good;
  put_f32(b, pos0, 30.5f);
  put_f32(b, pos0 + 4, 2.5f);
  refused(b, "in the wall");
  b = good;
  std::memcpy(&b[pos0 + 8], &b[pos0], 8);  // agent 1 onto agent 0
  refused(b, "overlap");
  b = good;
  put_f32(b, steps0, -1.0f);
  refused(b, "step");
  b = good;
  put_u32(b, ids0 + 4, 0);  // ids 0, 0, ...
  refused(b, "ids");
  b = good;
  put_u32(b, 76, static_cast<std::uint32_t>(n - 1));  // the next id not above the last
  refused(b, "next id");
  // The next id near the end: one more agent, then spawn refuses.
  b = good;
  put_u32(b, 76, 0xfffffffeu);
  ASSERT_TRUE(target->restore(b).ok());
  std::vector<std::uint32_t> id(1);
  ASSERT_TRUE(target->spawn(free_spots(c, state_of(*target).pos, 1, rng), {}, id).ok());
  EXPECT_EQ(id[0], 0xfffffffeu);
  EXPECT_FALSE(target->spawn(free_spots(c, state_of(*target).pos, 1, rng)).ok());
  // Random damage: never a crash, and any state accepted keeps the guarantees.
  for (int k = 0; k < 300; ++k) {
    b = good;
    for (int f = 0; f < 1 + k % 4; ++f) b[rng.below(static_cast<std::uint32_t>(b.size()))] ^= 1u << rng.below(8);
    if (target->restore(b).ok()) {
      const State st = state_of(*target);
      EXPECT_EQ(count_overlaps(st.pos, c.radius), 0u);
      for (const Vec2& p : st.pos) EXPECT_TRUE(std::isfinite(p.x) && p.x >= 0 && p.x < 60 && p.y >= 0 && p.y < 40);
    }
  }
}

// retain_device: the ids follow the device flags; a `kept` that is not their count is refused.
TEST(CrowdStateGpu, RetainDeviceKeepsIdsAndChecksTheCount) {
  WM_REQUIRE_GPU();
  Context& ctx = *warpmind::test::cuda_context();
  auto s = make(config(CrowdMovement::AcceptReject, CrowdVariant::GpuStaticGrid));
  SplitMix64 rng(8);
  ASSERT_TRUE(s->reset(free_spots(s->config(), {}, 40, rng)).ok());
  std::vector<std::uint8_t> keep(40);
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = i % 3 != 0;
  DeviceBytes flags;
  ASSERT_TRUE(flags.allocate(ctx, keep.size()).ok());
  ASSERT_TRUE(flags.upload(ctx, keep.data(), keep.size()).ok());
  const State before = state_of(*s);
  EXPECT_EQ(s->retain_device(static_cast<const std::uint8_t*>(flags.get()), 27).code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(state_of(*s) == before);
  ASSERT_TRUE(s->retain_device(static_cast<const std::uint8_t*>(flags.get()), 26).ok());
  const State after = state_of(*s);
  std::vector<std::uint32_t> want;
  for (std::uint32_t i = 0; i < 40; ++i)
    if (i % 3 != 0) want.push_back(i);
  EXPECT_EQ(after.ids, want);
  EXPECT_EQ(after.pos[0].x, before.pos[1].x);
}

}  // namespace
}  // namespace warpmind::crowd
