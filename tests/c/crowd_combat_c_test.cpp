// The C API's whole crowd configuration (obstacles, rule, variant), its verdicts and retain, and combat:
// the same results as the C++ modules on the same inputs, bit for bit, and every bad argument an error
// code with the handle unchanged. CPU backend (the contract does not depend on it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/combat/combat.h"
#include "warpmind/core/context.h"
#include "warpmind/core/random.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/warpmind.h"

namespace {

using namespace warpmind;

struct CpuContexts {
  wm_context* c = nullptr;
  std::unique_ptr<Context> cpp;
  CpuContexts() {
    EXPECT_EQ(wm_context_create(WM_BACKEND_CPU, 2, &c), WM_OK) << wm_last_error();
    ContextOptions o;
    o.backend = Backend::Cpu;
    o.cpu_threads = 2;
    o.quiet = true;
    EXPECT_TRUE(Context::create(o, cpp).ok());
  }
  ~CpuContexts() { wm_context_destroy(c); }
};

// Agents on a 64 x 64 world with a 16 x 16 obstacle grid (every fifth cell blocked), placed one per
// free 2 x 2 block so that none overlap.
struct CrowdCase {
  std::vector<std::uint8_t> blocked;
  std::vector<Vec2> start;
  CrowdCase() {
    blocked.resize(16 * 16);
    for (std::size_t i = 0; i < blocked.size(); ++i) blocked[i] = i % 5 == 2;
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x) {
        const Vec2 p{2.0f * x + 1.0f, 2.0f * y + 1.0f};
        if (!blocked[static_cast<std::size_t>(int(p.y / 4) * 16 + int(p.x / 4))] && (x + y) % 3 == 0)
          start.push_back(p);
      }
  }
};

TEST(CApi, CrowdWithObstaclesAndRuleEqualsTheCppSolver) {
  CpuContexts h;
  const CrowdCase k;
  for (const wm_crowd_rule rule : {WM_CROWD_STRICT, WM_CROWD_LOWEST_ID_WINS}) {
    const wm_crowd_config config = {
        0, 0, 64, 64, 0.5f, 16, 16, k.blocked.data(), rule, WM_CROWD_CPU_REFERENCE, WM_CROWD_ACCEPT_REJECT, 0.0f, 0.0f};
    wm_crowd* c = nullptr;
    ASSERT_EQ(wm_crowd_create_with(h.c, &config, &c), WM_OK) << wm_last_error();
    crowd::CrowdConfig cc;
    cc.world = {0, 0, 64, 64};
    cc.radius = 0.5f;
    cc.obstacles = {16, 16, k.blocked};
    cc.rule = rule == WM_CROWD_STRICT ? crowd::CrowdRule::Strict : crowd::CrowdRule::LowestIdWins;
    cc.variant = crowd::CrowdVariant::CpuReference;
    std::unique_ptr<crowd::CrowdSolver> cpp;
    ASSERT_TRUE(crowd::CrowdSolver::create(*h.cpp, cc, cpp).ok());
    const std::size_t n = k.start.size();
    ASSERT_EQ(wm_crowd_reset(c, reinterpret_cast<const wm_vec2*>(k.start.data()), n), WM_OK) << wm_last_error();
    ASSERT_TRUE(cpp->reset(k.start).ok());
    std::vector<std::uint8_t> verdicts(n);
    ASSERT_EQ(wm_crowd_verdicts(c, verdicts.data(), n), WM_OK) << wm_last_error();
    SplitMix64 rng(rule + 11);
    std::vector<Vec2> now = k.start, proposals(n), cpp_now(n);
    std::vector<crowd::Verdict> cpp_verdicts(n);
    std::size_t counts[5] = {};
    for (int tick = 0; tick < 20; ++tick) {
      for (std::size_t i = 0; i < n; ++i)  // steps up to 1.5 cells: into walls, onto others, off the map
        proposals[i] = {now[i].x + rng.uniform(-1.5f, 1.5f), now[i].y + rng.uniform(-1.5f, 1.5f)};
      wm_crowd_stats st{};
      ASSERT_EQ(wm_crowd_step(c, reinterpret_cast<const wm_vec2*>(proposals.data()), n, &st), WM_OK);
      ASSERT_TRUE(cpp->step(proposals).ok());
      ASSERT_EQ(wm_crowd_positions(c, reinterpret_cast<wm_vec2*>(now.data()), n), WM_OK);
      ASSERT_EQ(wm_crowd_verdicts(c, verdicts.data(), n), WM_OK);
      ASSERT_TRUE(cpp->read_positions(cpp_now).ok());
      ASSERT_TRUE(cpp->read_verdicts(cpp_verdicts).ok());
      ASSERT_EQ(std::memcmp(now.data(), cpp_now.data(), n * sizeof(Vec2)), 0) << "tick " << tick;
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(verdicts[i], static_cast<std::uint8_t>(cpp_verdicts[i])) << "agent " << i << " tick " << tick;
        ++counts[verdicts[i]];
      }
      EXPECT_EQ(st.blocked, cpp->last_stats().blocked);
    }
    // The case reaches every verdict but Stayed (random proposals never equal the old position).
    EXPECT_GT(counts[WM_VERDICT_MOVED], 0u);
    EXPECT_GT(counts[WM_VERDICT_BLOCKED], 0u);
    EXPECT_GT(counts[WM_VERDICT_OUT_OF_WORLD], 0u);
    EXPECT_GT(counts[WM_VERDICT_COLLISION], 0u);
    // Retain: every third agent leaves, the others renumbered in order, as the C++ solver does.
    std::vector<std::uint8_t> keep(n);
    for (std::size_t i = 0; i < n; ++i) keep[i] = i % 3 != 0;
    ASSERT_EQ(wm_crowd_retain(c, keep.data(), n), WM_OK) << wm_last_error();
    ASSERT_TRUE(cpp->retain(keep).ok());
    ASSERT_EQ(wm_crowd_size(c), cpp->size());
    now.resize(cpp->size());
    cpp_now.resize(cpp->size());
    ASSERT_EQ(wm_crowd_positions(c, reinterpret_cast<wm_vec2*>(now.data()), now.size()), WM_OK);
    ASSERT_TRUE(cpp->read_positions(cpp_now).ok());
    EXPECT_EQ(std::memcmp(now.data(), cpp_now.data(), now.size() * sizeof(Vec2)), 0);
    EXPECT_EQ(wm_crowd_retain(c, keep.data(), n), WM_INVALID_ARGUMENT);  // the old count
    EXPECT_EQ(wm_crowd_size(c), cpp->size());
    // Spawn, despawn and ids as the C++ solver's; a refused spawn changes nothing.
    std::vector<Vec2> spots;  // two free spots: open cells, 2R from every agent and each other
    for (float y = 0.5f; y < 64 && spots.size() < 2; y += 1.0f)
      for (float x = 0.5f; x < 64 && spots.size() < 2; x += 1.0f) {
        bool free = !k.blocked[static_cast<std::size_t>(int(y / 4) * 16 + int(x / 4))];
        for (const Vec2& q : now) free = free && (q.x - x) * (q.x - x) + (q.y - y) * (q.y - y) >= 1.0f;
        for (const Vec2& q : spots) free = free && (q.x - x) * (q.x - x) + (q.y - y) * (q.y - y) >= 1.0f;
        if (free) spots.push_back({x, y});
      }
    ASSERT_EQ(spots.size(), 2u);
    const wm_vec2 fresh[2] = {{spots[0].x, spots[0].y}, {spots[1].x, spots[1].y}};
    const float steps[2] = {0.0f, 2.0f};
    uint32_t got[2] = {};
    std::vector<std::uint32_t> cpp_got(2);
    ASSERT_EQ(wm_crowd_spawn(c, fresh, steps, 2, got), WM_OK) << wm_last_error();
    ASSERT_TRUE(cpp->spawn(spots, steps, cpp_got).ok());
    EXPECT_EQ(got[0], cpp_got[0]);
    EXPECT_EQ(got[1], static_cast<uint32_t>(n + 1));
    EXPECT_EQ(wm_crowd_spawn(c, fresh, nullptr, 1, nullptr), WM_INVALID_ARGUMENT);  // onto an agent
    EXPECT_EQ(wm_crowd_spawn(c, nullptr, nullptr, 1, nullptr), WM_INVALID_ARGUMENT);
    const uint32_t gone[2] = {got[0], 4};
    ASSERT_EQ(wm_crowd_despawn(c, gone, 2), WM_OK) << wm_last_error();
    ASSERT_TRUE(cpp->despawn(std::vector<std::uint32_t>{got[0], 4}).ok());
    EXPECT_EQ(wm_crowd_despawn(c, gone, 1), WM_INVALID_ARGUMENT);  // already gone
    std::vector<uint32_t> ids(wm_crowd_size(c)), cpp_ids(cpp->size());
    ASSERT_EQ(wm_crowd_ids(c, ids.data(), ids.size()), WM_OK);
    ASSERT_TRUE(cpp->read_ids(cpp_ids).ok());
    EXPECT_EQ(ids, cpp_ids);
    EXPECT_EQ(wm_crowd_ids(c, ids.data(), ids.size() + 1), WM_INVALID_ARGUMENT);
    // Save, then restore into a fresh crowd of the same settings: the same agents, ids included.
    const uint8_t* bytes = nullptr;
    size_t size = 0;
    ASSERT_EQ(wm_crowd_save(c, &bytes, &size), WM_OK) << wm_last_error();
    std::vector<std::uint8_t> cpp_bytes;
    ASSERT_TRUE(cpp->save(cpp_bytes).ok());
    ASSERT_EQ(std::vector<std::uint8_t>(bytes, bytes + size), cpp_bytes);
    wm_crowd* copy = nullptr;
    ASSERT_EQ(wm_crowd_create_with(h.c, &config, &copy), WM_OK);
    ASSERT_EQ(wm_crowd_restore(copy, bytes, size), WM_OK) << wm_last_error();
    std::vector<uint32_t> copy_ids(wm_crowd_size(copy));
    ASSERT_EQ(wm_crowd_ids(copy, copy_ids.data(), copy_ids.size()), WM_OK);
    EXPECT_EQ(copy_ids, ids);
    EXPECT_EQ(wm_crowd_restore(copy, bytes, size - 1), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_crowd_size(copy), ids.size());
    EXPECT_EQ(wm_crowd_save(copy, nullptr, &size), WM_INVALID_ARGUMENT);
    wm_crowd_destroy(copy);
    wm_crowd_destroy(c);
  }
}

TEST(CApi, CrowdConfigRejectsWhatIsNotAConfig) {
  CpuContexts h;
  const std::uint8_t blocked[4] = {0, 1, 0, 0};
  wm_crowd* c = nullptr;
  const auto create = [&](wm_crowd_config config) { return wm_crowd_create_with(h.c, &config, &c); };
  const wm_crowd_config good = {
      0, 0, 10, 10, 0.5f, 2, 2, blocked, WM_CROWD_STRICT, WM_CROWD_AUTO, WM_CROWD_ACCEPT_REJECT, 0.0f, 0.0f};
  wm_crowd_config bad = good;
  bad.rule = static_cast<wm_crowd_rule>(42);
  EXPECT_EQ(create(bad), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("rule 42"), std::string::npos) << wm_last_error();
  bad = good;
  bad.variant = static_cast<wm_crowd_variant>(9);
  EXPECT_EQ(create(bad), WM_INVALID_ARGUMENT);
  bad = good;
  bad.variant = static_cast<wm_crowd_variant>(-1);
  EXPECT_EQ(create(bad), WM_INVALID_ARGUMENT);
  bad = good;
  bad.obstacles_height = 0;
  EXPECT_EQ(create(bad), WM_INVALID_ARGUMENT);
  bad = good;
  bad.obstacles_width = -2;
  EXPECT_EQ(create(bad), WM_INVALID_ARGUMENT);
  bad = good;
  bad.blocked = nullptr;
  EXPECT_EQ(create(bad), WM_INVALID_ARGUMENT);
  bad = good;
  bad.radius = 0;
  EXPECT_EQ(create(bad), WM_INVALID_ARGUMENT);
  bad = good;
  bad.variant = WM_CROWD_GPU_STATIC_GRID;  // a GPU variant on a CPU context
  EXPECT_EQ(create(bad), WM_UNAVAILABLE) << wm_last_error();
  EXPECT_EQ(c, nullptr);  // nothing was created by the bad calls
  EXPECT_EQ(wm_crowd_create_with(h.c, nullptr, &c), WM_INVALID_ARGUMENT);
  ASSERT_EQ(create(good), WM_OK) << wm_last_error();
  // Blocked: agent 0 steps into the blocked cell (1, 0) = [5, 10) x [0, 5), agent 1 moves.
  const wm_vec2 start[2] = {{2, 2}, {2, 8}};
  ASSERT_EQ(wm_crowd_reset(c, start, 2), WM_OK) << wm_last_error();
  const wm_vec2 to[2] = {{6, 2}, {3, 8}};
  ASSERT_EQ(wm_crowd_step(c, to, 2, nullptr), WM_OK);
  std::uint8_t v[2] = {9, 9};
  ASSERT_EQ(wm_crowd_verdicts(c, v, 2), WM_OK);
  EXPECT_EQ(v[0], WM_VERDICT_BLOCKED);
  EXPECT_EQ(v[1], WM_VERDICT_MOVED);
  EXPECT_EQ(wm_crowd_verdicts(c, v, 1), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_crowd_verdicts(c, nullptr, 2), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_crowd_retain(c, nullptr, 2), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_crowd_size(c), 2u);
  wm_crowd_destroy(c);
}

// Agents of several sizes through the C API: the same radii in and out, the pair rule by the sum of the
// radii, and bad radii refused with nothing changed.
TEST(CApi, CrowdAgentsOfSeveralSizes) {
  CpuContexts h;
  wm_crowd_config config{};
  config.width = config.height = 20;
  config.radius = 1.0f;
  config.variant = WM_CROWD_CPU_REFERENCE;
  config.min_radius = 0.2f;  // below radius / 4
  wm_crowd* c = nullptr;
  EXPECT_EQ(wm_crowd_create_with(h.c, &config, &c), WM_INVALID_ARGUMENT);
  config.min_radius = 0.25f;
  ASSERT_EQ(wm_crowd_create_with(h.c, &config, &c), WM_OK) << wm_last_error();
  const wm_vec2 start[2] = {{5, 5}, {6.5f, 5}};  // 1.5 apart
  const float big[2] = {1.0f, 0.6f}, ok[2] = {0.25f, 0}, small[2] = {0.24f, 0.5f};
  EXPECT_EQ(wm_crowd_reset_agents(c, start, nullptr, big, 2), WM_INVALID_ARGUMENT);    // 1.6 > 1.5
  EXPECT_EQ(wm_crowd_reset_agents(c, start, nullptr, small, 2), WM_INVALID_ARGUMENT);  // below min_radius
  EXPECT_EQ(wm_crowd_size(c), 0u);
  ASSERT_EQ(wm_crowd_reset_agents(c, start, nullptr, ok, 2), WM_OK) << wm_last_error();
  const wm_vec2 more[1] = {{7.9f, 5}};  // 1.4 from the agent of radius 1 (0 above: the config's)
  const float too_big[1] = {0.5f}, fits[1] = {0.25f};
  std::uint32_t id = 0;
  EXPECT_EQ(wm_crowd_spawn_agents(c, more, nullptr, too_big, 1, &id), WM_INVALID_ARGUMENT);  // 1.5 > 1.4
  EXPECT_EQ(wm_crowd_spawn_agents(c, more, nullptr, nullptr, 1, &id), WM_INVALID_ARGUMENT);  // radius 1: 2 > 1.4
  EXPECT_EQ(wm_crowd_size(c), 2u);
  ASSERT_EQ(wm_crowd_spawn_agents(c, more, nullptr, fits, 1, &id), WM_OK) << wm_last_error();
  EXPECT_EQ(id, 2u);
  float radii[3] = {};
  ASSERT_EQ(wm_crowd_radii(c, radii, 3), WM_OK);
  EXPECT_EQ(radii[0], 0.25f);
  EXPECT_EQ(radii[1], 1.0f);
  EXPECT_EQ(radii[2], 0.25f);
  EXPECT_EQ(wm_crowd_radii(c, radii, 2), WM_INVALID_ARGUMENT);
  // Agent 2 steps towards agent 1: to 1.3 from it (moves), then to 1.2 (below the sum 1.25: refused).
  wm_crowd_stats stats{};
  const wm_vec2 to[3] = {{5, 5}, {6.5f, 5}, {7.8f, 5}};
  ASSERT_EQ(wm_crowd_step(c, to, 3, &stats), WM_OK);
  EXPECT_EQ(stats.moved, 1u);
  const wm_vec2 closer[3] = {{5, 5}, {6.5f, 5}, {7.7f, 5}};
  ASSERT_EQ(wm_crowd_step(c, closer, 3, &stats), WM_OK);
  EXPECT_EQ(stats.collisions, 1u);
  wm_crowd_destroy(c);
}

TEST(CApi, CombatEqualsTheCppVolleys) {
  CpuContexts h;
  const wm_combat_config config = {0, 0, 100, 100, 6.0f, 12.0f, 2, WM_COMBAT_CPU};
  wm_combat* c = nullptr;
  ASSERT_EQ(wm_combat_create(h.c, &config, &c), WM_OK) << wm_last_error();
  combat::CombatConfig cc;
  cc.world = {0, 0, 100, 100};
  cc.range = 6.0f;
  cc.damage = 12.0f;
  cc.cooldown_ticks = 2;
  cc.variant = combat::CombatVariant::Cpu;
  std::unique_ptr<combat::Volleys> cpp;
  ASSERT_TRUE(combat::Volleys::create(*h.cpp, cc, cpp).ok());
  // Two armies of 300 facing each other across x = 50, some exactly in range of each other.
  SplitMix64 rng(5);
  std::vector<std::uint8_t> teams;
  std::vector<float> hp;
  std::vector<Vec2> pos;
  for (int i = 0; i < 600; ++i) {
    teams.push_back(static_cast<std::uint8_t>(i % 2));
    hp.push_back(rng.uniform(10.0f, 60.0f));
    pos.push_back({i % 2 ? rng.uniform(50.0f, 60.0f) : rng.uniform(40.0f, 50.0f), rng.uniform(0.0f, 100.0f)});
  }
  pos[0] = {44, 10};
  pos[1] = {50, 10};  // 6 apart: in range
  ASSERT_EQ(wm_combat_reset(c, teams.data(), hp.data(), teams.size()), WM_OK) << wm_last_error();
  ASSERT_TRUE(cpp->reset(teams, hp).ok());
  std::size_t died = 0;
  for (int volley = 0; volley < 8 && !pos.empty(); ++volley) {
    const std::size_t n = pos.size();
    std::vector<std::uint8_t> keep(n, 7), cpp_keep(n);
    ASSERT_EQ(wm_combat_fire(c, reinterpret_cast<const wm_vec2*>(pos.data()), n, keep.data()), WM_OK)
        << wm_last_error();
    ASSERT_TRUE(cpp->fire(pos, cpp_keep).ok());
    ASSERT_EQ(keep, cpp_keep) << "volley " << volley;
    ASSERT_EQ(wm_combat_size(c), cpp->size());
    const std::size_t m = cpp->size();
    std::vector<std::uint8_t> t(m), cpp_t;
    std::vector<float> p(m), cpp_p;
    std::vector<std::int32_t> cd(m), cpp_cd;
    ASSERT_EQ(wm_combat_state(c, t.data(), p.data(), cd.data(), m), WM_OK) << wm_last_error();
    ASSERT_TRUE(cpp->read(&cpp_t, &cpp_p, &cpp_cd).ok());
    EXPECT_EQ(t, cpp_t);
    EXPECT_EQ(std::memcmp(p.data(), cpp_p.data(), m * sizeof(float)), 0);
    EXPECT_EQ(cd, cpp_cd);
    std::vector<Vec2> survivors;  // the positions follow the renumbering, as a crowd's retain would
    for (std::size_t i = 0; i < n; ++i)
      if (keep[i]) survivors.push_back(pos[i]);
    died += n - survivors.size();
    pos = survivors;
  }
  EXPECT_GT(died, 0u);  // the volleys killed
  // Bad input: nothing changes.
  const std::size_t n = wm_combat_size(c);
  std::vector<std::uint8_t> keep(n + 1);
  EXPECT_EQ(wm_combat_fire(c, reinterpret_cast<const wm_vec2*>(pos.data()), n + 1, keep.data()), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_combat_fire(c, reinterpret_cast<const wm_vec2*>(pos.data()), n, nullptr), WM_INVALID_ARGUMENT);
  const std::uint8_t one_team = 0;
  const float dead = 0.0f;
  EXPECT_EQ(wm_combat_reset(c, &one_team, &dead, 1), WM_INVALID_ARGUMENT);  // HP must be > 0
  EXPECT_EQ(wm_combat_size(c), n);
  EXPECT_EQ(wm_combat_state(c, nullptr, nullptr, nullptr, n + 1), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_combat_state(c, nullptr, nullptr, nullptr, n), WM_OK);
  wm_combat_destroy(c);
  wm_combat_config bad = config;
  bad.variant = static_cast<wm_combat_variant>(7);
  wm_combat* none = nullptr;
  EXPECT_EQ(wm_combat_create(h.c, &bad, &none), WM_INVALID_ARGUMENT);
  bad = config;
  bad.range = NAN;
  EXPECT_EQ(wm_combat_create(h.c, &bad, &none), WM_INVALID_ARGUMENT);
  bad = config;
  bad.variant = WM_COMBAT_GPU;
  EXPECT_EQ(wm_combat_create(h.c, &bad, &none), WM_UNAVAILABLE) << wm_last_error();
  EXPECT_EQ(wm_combat_create(h.c, nullptr, &none), WM_INVALID_ARGUMENT);
  EXPECT_EQ(none, nullptr);
}

}  // namespace
