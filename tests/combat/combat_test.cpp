// Combat volleys: the CPU variant against a brute-force oracle written from the contract in combat.h
// (every pair, no grid) over many volleys — random armies, three teams, everyone in one cell, units
// outside the world, pairs exactly at range, equidistant enemies, many shooters on one target — and
// the GPU variant against the CPU one bit for bit; bad input is an error that changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "gpu_helpers.h"
#include "warpmind/combat/combat.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/core/random.h"

namespace warpmind::combat {
namespace {

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// The contract, naively: every pair.
struct Oracle {
  CombatConfig c;
  std::vector<std::uint8_t> team;
  std::vector<float> hp;
  std::vector<std::int32_t> cooldown;
  void fire(const std::vector<Vec2>& p, std::vector<std::uint8_t>& keep) {
    const std::size_t n = team.size();
    const float r2 = c.range * c.range;
    std::vector<std::uint32_t> shots(n, 0);
    std::vector<std::int32_t> cd = cooldown;
    for (std::size_t i = 0; i < n; ++i) {
      if (cooldown[i] > 0) {
        cd[i] = cooldown[i] - 1;
        continue;
      }
      std::size_t best = n;
      float best_d2 = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (team[j] == team[i]) continue;
        const float dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;  // built without contraction: no FMA
        const float xx = dx * dx, yy = dy * dy;
        const float d2 = xx + yy;
        if (!(d2 <= r2)) continue;
        if (best == n || d2 < best_d2) best = j, best_d2 = d2;  // j ascends: ties keep the lowest
      }
      if (best < n) {
        ++shots[best];
        cd[i] = c.cooldown_ticks;
      }
    }
    keep.assign(n, 0);
    std::vector<std::uint8_t> t2;
    std::vector<float> h2;
    std::vector<std::int32_t> c2;
    for (std::size_t i = 0; i < n; ++i) {
      float h = hp[i];
      if (shots[i]) {
        float sum = 0;
        for (std::uint32_t k = 0; k < shots[i]; ++k) sum = sum + c.damage;
        h = h - sum;
      }
      keep[i] = h > 0.0f;
      if (keep[i]) t2.push_back(team[i]), h2.push_back(h), c2.push_back(cd[i]);
    }
    team = t2;
    hp = h2;
    cooldown = c2;
  }
};

std::vector<CombatVariant> variants() {
  std::vector<CombatVariant> v = {CombatVariant::Cpu};
  if (warpmind::test::cuda_context()) v.push_back(CombatVariant::Gpu);
  return v;
}
Context& context_for(CombatVariant v) {
  return v == CombatVariant::Gpu ? *warpmind::test::cuda_context() : warpmind::test::cpu_context();
}

struct Army {
  std::string name;
  CombatConfig config;
  std::vector<Vec2> pos;
  std::vector<std::uint8_t> team;
  std::vector<float> hp;
};

std::vector<Army> armies() {
  std::vector<Army> out;
  SplitMix64 rng(9);
  {
    Army a{"two_armies", {}, {}, {}, {}};
    a.config.world = {0, 0, 120, 80};
    for (int i = 0; i < 3000; ++i) {
      const int t = i % 2;
      a.pos.push_back({rng.uniform(t ? 50.0f : 10.0f, t ? 110.0f : 70.0f), rng.uniform(0.0f, 80.0f)});
      a.team.push_back(static_cast<std::uint8_t>(t));
      a.hp.push_back(rng.uniform(10.0f, 60.0f));
    }
    out.push_back(a);
  }
  {
    Army a{"three_teams_some_outside", {}, {}, {}, {}};
    a.config.world = {-20, 10, 60, 60};
    a.config.range = 4.5f;
    a.config.damage = 7.3f;
    a.config.cooldown_ticks = 2;
    for (int i = 0; i < 1500; ++i) {
      a.pos.push_back({rng.uniform(-30.0f, 50.0f), rng.uniform(0.0f, 80.0f)});
      a.team.push_back(static_cast<std::uint8_t>(rng.below(3) * 100));
      a.hp.push_back(rng.uniform(5.0f, 30.0f));
    }
    out.push_back(a);
  }
  {
    Army a{"everyone_in_one_cell", {}, {}, {}, {}};
    a.config.world = {0, 0, 100, 100};
    a.config.range = 10;
    a.config.damage = 3.3f;  // many shots a target: float sums that round
    for (int i = 0; i < 600; ++i) {
      a.pos.push_back({50 + rng.uniform(0.0f, 2.0f), 50 + rng.uniform(0.0f, 2.0f)});
      a.team.push_back(static_cast<std::uint8_t>(i % 2));
      a.hp.push_back(30);
    }
    out.push_back(a);
  }
  {
    // Exactly at range (d2 == range^2: in range), just beyond, and equidistant enemies (lowest id wins).
    Army a{"edges_and_ties", {}, {}, {}, {}};
    a.config.world = {0, 0, 40, 40};
    a.config.range = 3;
    a.pos = {{10, 10}, {13, 10}, {10, 13.0001f}, {20, 20}, {22, 20}, {18, 20}, {30, 30}, {30, 33}};
    a.team = {0, 1, 1, 0, 1, 1, 0, 1};
    a.hp = {100, 5, 5, 100, 11, 11, 100, 12};
    out.push_back(a);
  }
  return out;
}

TEST(Combat, VariantsMatchTheOracleVolleyByVolley) {
  for (CombatVariant v : variants()) {
    std::size_t deaths = 0;
    for (const Army& a : armies()) {
      SCOPED_TRACE(std::string(variant_name(v)) + " " + a.name);
      CombatConfig c = a.config;
      c.variant = v;
      std::unique_ptr<Volleys> vol;
      ASSERT_TRUE(Volleys::create(context_for(v), c, vol).ok());
      ASSERT_TRUE(vol->reset(a.team, a.hp).ok());
      Oracle o{c, a.team, a.hp, std::vector<std::int32_t>(a.team.size(), 0)};
      std::vector<Vec2> pos = a.pos;
      SplitMix64 rng(3);
      for (int t = 0; t < 12 && !pos.empty(); ++t) {
        std::vector<std::uint8_t> keep(pos.size()), want;
        ASSERT_TRUE(vol->fire(pos, keep).ok());
        o.fire(pos, want);
        ASSERT_EQ(keep, want) << "volley " << t;
        std::vector<std::uint8_t> teams;
        std::vector<float> hp;
        std::vector<std::int32_t> cd;
        ASSERT_TRUE(vol->read(&teams, &hp, &cd).ok());
        ASSERT_EQ(teams, o.team);
        ASSERT_EQ(cd, o.cooldown);
        ASSERT_EQ(hp.size(), o.hp.size());
        for (std::size_t i = 0; i < hp.size(); ++i) ASSERT_EQ(bits(hp[i]), bits(o.hp[i])) << i;
        ASSERT_EQ(vol->size(), o.team.size());
        std::vector<Vec2> next;
        for (std::size_t i = 0; i < pos.size(); ++i)
          if (keep[i]) next.push_back({pos[i].x + rng.uniform(-0.5f, 0.5f), pos[i].y + rng.uniform(-0.5f, 0.5f)});
        deaths += pos.size() - next.size();
        pos = next;
      }
    }
    EXPECT_GT(deaths, 100u);
  }
}

TEST(Combat, EdgesAndTiesArePinned) {
  for (CombatVariant v : variants()) {
    SCOPED_TRACE(variant_name(v));
    const Army a = armies()[3];
    CombatConfig c = a.config;
    c.variant = v;
    c.damage = 6;
    std::unique_ptr<Volleys> vol;
    ASSERT_TRUE(Volleys::create(context_for(v), c, vol).ok());
    ASSERT_TRUE(vol->reset(a.team, a.hp).ok());
    std::vector<std::uint8_t> keep(a.pos.size());
    ASSERT_TRUE(vol->fire(a.pos, keep).ok());
    std::vector<float> hp;
    ASSERT_TRUE(vol->read(nullptr, &hp, nullptr).ok());
    // Unit 0 hits 1 (exactly 3 away; 2 is just beyond): 1 dies (5 - 6); 1 and 2 shoot 0 (2 is 3.0001 away
    // from 0: out of range, so only 1 does): 100 - 6. Unit 3 has 4 and 5 both 2 away: it hits 4 (lowest
    // id); 4 and 5 both hit 3. Unit 6 hits 7 (3 away), 7 hits 6.
    EXPECT_EQ(keep, (std::vector<std::uint8_t>{1, 0, 1, 1, 1, 1, 1, 1}));
    ASSERT_EQ(hp.size(), 7u);
    EXPECT_EQ(hp[0], 94.0f);  // unit 0, shot by 1
    EXPECT_EQ(hp[1], 5.0f);   // unit 2, unshot
    EXPECT_EQ(hp[2], 88.0f);  // unit 3, shot by 4 and 5
    EXPECT_EQ(hp[3], 5.0f);   // unit 4, shot by 3
    EXPECT_EQ(hp[4], 11.0f);  // unit 5, unshot
    EXPECT_EQ(hp[5], 94.0f);  // unit 6
    EXPECT_EQ(hp[6], 6.0f);   // unit 7
  }
}

TEST(Combat, BadInputIsAnErrorAndChangesNothing) {
  Context& ctx = warpmind::test::cpu_context();
  std::unique_ptr<Volleys> vol;
  CombatConfig c;
  for (const auto& bad : {CombatConfig{{0, 0, 0, 10}}, CombatConfig{{0, 0, 10, 10}, 0.0f},
                          CombatConfig{{0, 0, 10, 10}, NAN}, CombatConfig{{0, 0, 10, 10}, 1, -1.0f},
                          CombatConfig{{0, 0, 10, 10}, 1, 1, -1}, CombatConfig{{0, 0, 1e9f, 1e9f}, 0.001f}})
    EXPECT_FALSE(Volleys::create(ctx, bad, vol).ok());
  c.variant = CombatVariant::Gpu;
  EXPECT_EQ(Volleys::create(ctx, c, vol).code(), StatusCode::Unavailable);
  c.variant = CombatVariant::Cpu;
  ASSERT_TRUE(Volleys::create(ctx, c, vol).ok());
  const std::vector<std::uint8_t> teams = {0, 1, 1};
  EXPECT_FALSE(vol->reset(teams, std::vector<float>{1, 2}).ok());
  EXPECT_FALSE(vol->reset(teams, std::vector<float>{1, 0, 2}).ok());
  EXPECT_FALSE(vol->reset(teams, std::vector<float>{1, NAN, 2}).ok());
  EXPECT_EQ(vol->size(), 0u);
  ASSERT_TRUE(vol->reset(teams, std::vector<float>{10, 10, 10}).ok());
  std::vector<std::uint8_t> keep(3);
  EXPECT_FALSE(vol->fire(std::vector<Vec2>{{1, 1}, {2, 2}}, keep).ok());
  EXPECT_FALSE(vol->fire(std::vector<Vec2>{{1, 1}, {NAN, 2}, {3, 3}}, keep).ok());
  std::vector<float> hp;
  ASSERT_TRUE(vol->read(nullptr, &hp, nullptr).ok());
  EXPECT_EQ(hp, (std::vector<float>{10, 10, 10}));  // no volley happened
  EXPECT_FALSE(vol->fire_device(nullptr).ok());     // the CPU variant has no device path
  ASSERT_TRUE(vol->reset({}, {}).ok());             // an empty army fires nothing
  std::vector<std::uint8_t> none;
  EXPECT_TRUE(vol->fire({}, none).ok());
  CombatVariant v;
  EXPECT_TRUE(parse_variant("gpu", v));
  EXPECT_EQ(v, CombatVariant::Gpu);
  EXPECT_FALSE(parse_variant("fast", v));
}

// The GPU variant from device positions: the same state as the CPU variant's over many volleys of a
// large battle, the keep flags left on the device.
TEST(CombatGpu, DevicePositionsEqualTheCpuVariant) {
  WM_REQUIRE_GPU();
  Context& g = *warpmind::test::cuda_context();
  CombatConfig c;
  c.world = {0, 0, 768, 768};
  c.range = 6;
  SplitMix64 rng(11);
  std::vector<Vec2> pos;
  std::vector<std::uint8_t> team;
  std::vector<float> hp;
  for (int i = 0; i < 100000; ++i) {
    const int t = i % 2;
    pos.push_back({rng.uniform(t ? 370.0f : 250.0f, t ? 520.0f : 400.0f), rng.uniform(100.0f, 660.0f)});
    team.push_back(static_cast<std::uint8_t>(t));
    hp.push_back(100);
  }
  std::unique_ptr<Volleys> cpu, gpu;
  c.variant = CombatVariant::Cpu;
  ASSERT_TRUE(Volleys::create(warpmind::test::cpu_context(), c, cpu).ok());
  c.variant = CombatVariant::Gpu;
  ASSERT_TRUE(Volleys::create(g, c, gpu).ok());
  ASSERT_TRUE(cpu->reset(team, hp).ok());
  ASSERT_TRUE(gpu->reset(team, hp).ok());
  DeviceBytes d;
  ASSERT_TRUE(d.allocate(g, pos.size() * sizeof(Vec2)).ok());
  for (int t = 0; t < 40; ++t) {
    std::vector<std::uint8_t> keep(pos.size()), got(pos.size());
    ASSERT_TRUE(cpu->fire(pos, keep).ok());
    ASSERT_TRUE(d.upload(g, pos.data(), pos.size() * sizeof(Vec2)).ok());
    ASSERT_TRUE(gpu->fire_device(static_cast<const Vec2*>(d.get())).ok());
    ASSERT_EQ(gpu->size(), cpu->size());
    std::vector<std::uint8_t> t1, t2;
    std::vector<float> h1, h2;
    std::vector<std::int32_t> c1, c2;
    ASSERT_TRUE(cpu->read(&t1, &h1, &c1).ok());
    ASSERT_TRUE(gpu->read(&t2, &h2, &c2).ok());
    ASSERT_EQ(t1, t2) << t;
    ASSERT_EQ(c1, c2) << t;
    ASSERT_EQ(std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float)), 0) << t;
    ASSERT_NE(gpu->device_keep(), nullptr);
    std::vector<Vec2> next;
    for (std::size_t i = 0; i < pos.size(); ++i)
      if (keep[i]) next.push_back({pos[i].x + rng.uniform(-0.3f, 0.6f), pos[i].y});
    pos = next;
  }
  EXPECT_LT(cpu->size(), 100000u);
}

}  // namespace
}  // namespace warpmind::combat
