// Crowds of several sizes (CrowdConfig::min_radius, per-agent radii): every variant, rule and movement
// against the brute-force oracle with the radii, radii all R equal to a one-size crowd bit for bit, the
// GPU variants equal to cpu-reference on a large mixed crowd, bad radii refused with nothing changed, and
// spawn, despawn, save and restore keeping each agent's radius (format-1 saves still read).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "crowd_helpers.h"
#include "crowd_oracle.h"
#include "gpu_helpers.h"
#include "warpmind/core/random.h"
#include "warpmind/crowd/crowd_solver.h"

namespace warpmind::crowd {
namespace {

constexpr float kR = 0.8f;  // the largest radius

using test::context_of;
using test::random_moves;
using test::variants;

struct Agents {
  std::vector<Vec2> pos;
  std::vector<float> radii;
};

// n agents of random radii in [lo, kR] (every fourth one lo itself, every seventh kR) placed without
// overlap by rejection; `touching`: each new agent is first tried exactly the sum of the radii from the
// last one placed (rounding at the boundary), then at random.
Agents random_agents(const WorldRect& w, float lo, std::size_t n, std::uint64_t seed, bool touching = false) {
  SplitMix64 rng(seed);
  Agents a;
  const int cols = static_cast<int>(w.width / (2 * kR)) + 1, rows = static_cast<int>(w.height / (2 * kR)) + 1;
  std::vector<std::vector<std::uint32_t>> grid(static_cast<std::size_t>(cols) * rows);
  const auto cell = [&](Vec2 p) {
    return std::make_pair(std::clamp(static_cast<int>((p.x - w.x0) / (2 * kR)), 0, cols - 1),
                          std::clamp(static_cast<int>((p.y - w.y0) / (2 * kR)), 0, rows - 1));
  };
  const auto fits = [&](Vec2 p, float r) {
    if (!(p.x >= w.x0 && p.x < w.x0 + w.width && p.y >= w.y0 && p.y < w.y0 + w.height)) return false;
    const auto [cx, cy] = cell(p);
    for (int y = std::max(cy - 1, 0); y <= std::min(cy + 1, rows - 1); ++y)
      for (int x = std::max(cx - 1, 0); x <= std::min(cx + 1, cols - 1); ++x)
        for (std::uint32_t j : grid[static_cast<std::size_t>(y) * cols + x])
          if (!oracle::crowd_apart(p, a.pos[j], r, a.radii[j])) return false;
    return true;
  };
  for (int tries = 0; a.pos.size() < n && tries < 200 * static_cast<int>(n); ++tries) {
    const std::size_t i = a.pos.size();
    const float r = i % 4 == 0 ? lo : i % 7 == 0 ? kR : rng.uniform(lo, kR);
    Vec2 p{rng.uniform(w.x0 + kR, w.x0 + w.width - kR), rng.uniform(w.y0 + kR, w.y0 + w.height - kR)};
    if (touching && i > 0 && tries % 2 == 0) p = {a.pos.back().x + (a.radii.back() + r), a.pos.back().y};
    if (!fits(p, r)) continue;
    const auto [cx, cy] = cell(p);
    grid[static_cast<std::size_t>(cy) * cols + cx].push_back(static_cast<std::uint32_t>(i));
    a.pos.push_back(p);
    a.radii.push_back(r);
  }
  return a;
}

// Tick t's proposals: random moves, every third tick a third of the agents drawn towards the middle (many
// wanting one region), a few outside the world or NaN.
std::vector<Vec2> proposals(const WorldRect& w, const std::vector<Vec2>& pos, int t) {
  std::vector<Vec2> p = random_moves(pos, 1.2f, 500 + static_cast<std::uint64_t>(t));
  const Vec2 mid{w.x0 + w.width / 2, w.y0 + w.height / 2};
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (t % 3 == 2 && i % 3 == 0) p[i] = {pos[i].x + (mid.x - pos[i].x) * 0.3f, pos[i].y + (mid.y - pos[i].y) * 0.3f};
    if ((i + static_cast<std::size_t>(t)) % 53 == 0) p[i].x = w.x0 - 0.5f;
    if ((i + static_cast<std::size_t>(t)) % 97 == 0) p[i].y = std::numeric_limits<float>::quiet_NaN();
  }
  return p;
}

CrowdConfig mixed_config(float lo, CrowdMovement m, CrowdRule rule, CrowdVariant v) {
  CrowdConfig c;
  c.world = {0, 0, 48, 36};
  c.radius = kR;
  c.min_radius = lo;
  c.obstacles.width = 48;
  c.obstacles.height = 36;
  c.obstacles.blocked.assign(48 * 36, 0);
  for (int y = 4; y < 32; ++y) c.obstacles.blocked[y * 48 + 30] = y % 9 != 0;  // a wall with gaps
  c.rule = rule;
  c.movement = m;
  c.max_step = m == CrowdMovement::Avoid ? 0.6f : 0.0f;
  c.variant = v;
  return c;
}

Agents outside_walls(const CrowdConfig& c, Agents a) {
  Agents out;
  for (std::size_t i = 0; i < a.pos.size(); ++i)
    if (!c.obstacles.blocked[static_cast<int>(a.pos[i].y) * 48 + static_cast<int>(a.pos[i].x)]) {
      out.pos.push_back(a.pos[i]);
      out.radii.push_back(a.radii[i]);
    }
  return out;
}

std::unique_ptr<CrowdSolver> make(const CrowdConfig& c) {
  std::unique_ptr<CrowdSolver> s;
  const Status st = CrowdSolver::create(context_of(c.variant), c, s);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

// Every tick against the oracle (verdicts; Avoid: targets too) and the guarantees by the sum of the radii.
void expect_oracle(const CrowdConfig& c, const Agents& start, int ticks) {
  auto s = make(c);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->reset(start.pos, {}, start.radii).ok());
  std::vector<Vec2> pos = start.pos;
  std::size_t moved = 0, collided = 0;
  for (int t = 0; t < ticks; ++t) {
    const std::vector<Vec2> prop = proposals(c.world, pos, t);
    ASSERT_TRUE(s->step(prop).ok());
    std::vector<Verdict> got(pos.size());
    std::vector<Vec2> next(pos.size());
    ASSERT_TRUE(s->read_verdicts(got).ok());
    ASSERT_TRUE(s->read_positions(next).ok());
    std::vector<Vec2> targets = prop;
    const std::vector<Verdict> want = c.movement == CrowdMovement::Avoid
                                          ? oracle::crowd_avoid_verdicts(c, pos, prop, targets, {}, start.radii)
                                          : oracle::crowd_verdicts(c, pos, prop, {}, start.radii);
    ASSERT_EQ(got, want) << "tick " << t;
    for (std::size_t i = 0; i < pos.size(); ++i) {
      const Vec2 expect = got[i] == Verdict::Moved ? targets[i] : pos[i];
      ASSERT_TRUE(next[i].x == expect.x && next[i].y == expect.y) << "agent " << i << " tick " << t;
      moved += got[i] == Verdict::Moved;
      collided += got[i] == Verdict::Collision;
    }
    ASSERT_EQ(count_overlaps(next, start.radii), 0u) << "tick " << t;
    pos = next;
  }
  EXPECT_GT(moved, 0u);
  EXPECT_GT(collided, 0u);
}

TEST(CrowdRadii, EveryVariantRuleAndMovementMatchesTheOracle) {
  for (CrowdMovement m : {CrowdMovement::AcceptReject, CrowdMovement::Avoid})
    for (CrowdVariant v : variants(m))
      for (CrowdRule rule : {CrowdRule::Strict, CrowdRule::LowestIdWins})
        // Radii down to R/4 (the static grid's widest neighbourhood, 6 cells), to R/2 (4), and agents
        // placed touching.
        for (const auto& [lo, touching] :
             {std::pair{kR / 4, false}, std::pair{kR / 2, false}, std::pair{kR / 4, true}}) {
          SCOPED_TRACE(std::string(variant_name(v)) + " " + rule_name(rule) + " " + movement_name(m) + " lo " +
                       std::to_string(lo) + (touching ? " touching" : ""));
          const CrowdConfig c = mixed_config(lo, m, rule, v);
          expect_oracle(c, outside_walls(c, random_agents(c.world, lo, 700, 31, touching)), 6);
        }
}

// A crowd whose radii are all R, given as radii (R or 0) to a config with a min_radius, moves exactly as
// the one-size crowd: the same verdicts and positions every tick on every variant (on gpu-static-grid
// through the finer grid and the radius kernels).
TEST(CrowdRadii, RadiiAllRMoveAsTheOneSizeCrowd) {
  for (CrowdMovement m : {CrowdMovement::AcceptReject, CrowdMovement::Avoid})
    for (CrowdVariant v : variants(m)) {
      SCOPED_TRACE(std::string(variant_name(v)) + " " + movement_name(m));
      const CrowdConfig sized = mixed_config(kR / 3, m, CrowdRule::LowestIdWins, v);
      CrowdConfig plain = sized;
      plain.min_radius = 0;
      const Agents a = outside_walls(sized, random_agents(sized.world, kR, 500, 41));
      std::vector<float> radii(a.pos.size(), kR);
      for (std::size_t i = 0; i < radii.size(); i += 2) radii[i] = 0;  // 0: the config's R
      auto s = make(sized), p = make(plain);
      ASSERT_TRUE(s->reset(a.pos, {}, radii).ok());
      ASSERT_TRUE(p->reset(a.pos).ok());
      std::vector<Vec2> pos = a.pos, other(pos.size());
      std::vector<Verdict> vs(pos.size()), vp(pos.size());
      for (int t = 0; t < 10; ++t) {
        const std::vector<Vec2> prop = proposals(sized.world, pos, t);
        ASSERT_TRUE(s->step(prop).ok());
        ASSERT_TRUE(p->step(prop).ok());
        ASSERT_TRUE(s->read_verdicts(vs).ok());
        ASSERT_TRUE(p->read_verdicts(vp).ok());
        ASSERT_EQ(vs, vp) << "tick " << t;
        ASSERT_TRUE(s->read_positions(pos).ok());
        ASSERT_TRUE(p->read_positions(other).ok());
        ASSERT_EQ(std::memcmp(pos.data(), other.data(), pos.size() * sizeof(Vec2)), 0) << "tick " << t;
      }
    }
}

// 20,000 agents of radii from R/4 to R: the GPU variants equal cpu-reference bit for bit, every tick.
TEST(CrowdRadii, GpuVariantsEqualTheCpuReferenceOnALargeMixedCrowd) {
  WM_REQUIRE_GPU();
  for (CrowdMovement m : {CrowdMovement::AcceptReject, CrowdMovement::Avoid})
    for (CrowdVariant v : variants(m)) {
      if (!is_gpu_variant(v)) continue;
      SCOPED_TRACE(std::string(variant_name(v)) + " " + movement_name(m));
      CrowdConfig c = mixed_config(kR / 4, m, CrowdRule::LowestIdWins, CrowdVariant::CpuReference);
      c.world = {0, 0, 200, 200};
      c.obstacles = {};
      const Agents a = random_agents(c.world, kR / 4, 20000, 57);
      ASSERT_GT(a.pos.size(), 15000u);
      auto cpu = make(c);
      c.variant = v;
      auto gpu = make(c);
      ASSERT_TRUE(cpu->reset(a.pos, {}, a.radii).ok());
      ASSERT_TRUE(gpu->reset(a.pos, {}, a.radii).ok());
      std::vector<Vec2> pos = a.pos, other(pos.size());
      std::vector<Verdict> vc(pos.size()), vg(pos.size());
      std::size_t moved = 0;
      for (int t = 0; t < 6; ++t) {
        const std::vector<Vec2> prop = proposals(c.world, pos, t);
        ASSERT_TRUE(cpu->step(prop).ok());
        ASSERT_TRUE(gpu->step(prop).ok());
        ASSERT_TRUE(cpu->read_verdicts(vc).ok());
        ASSERT_TRUE(gpu->read_verdicts(vg).ok());
        ASSERT_EQ(vc, vg) << "tick " << t;
        ASSERT_TRUE(cpu->read_positions(pos).ok());
        ASSERT_TRUE(gpu->read_positions(other).ok());
        ASSERT_EQ(std::memcmp(pos.data(), other.data(), pos.size() * sizeof(Vec2)), 0) << "tick " << t;
        moved += cpu->last_stats().moved;
      }
      EXPECT_GT(moved, 0u);
      EXPECT_EQ(count_overlaps(pos, a.radii), 0u);
    }
}

TEST(CrowdRadii, BadSizesAreRefusedAndChangeNothing) {
  Context& ctx = warpmind::test::cpu_context();
  CrowdConfig c = mixed_config(kR / 4, CrowdMovement::AcceptReject, CrowdRule::Strict, CrowdVariant::CpuReference);
  std::unique_ptr<CrowdSolver> s;
  for (float bad : {kR / 4 * 0.999f, kR * 1.001f, -1.0f, std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity()}) {
    CrowdConfig b = c;
    b.min_radius = bad;
    EXPECT_EQ(CrowdSolver::create(ctx, b, s).code(), StatusCode::InvalidArgument) << bad;
  }
  ASSERT_TRUE(CrowdSolver::create(ctx, c, s).ok());
  const std::vector<Vec2> two = {{5, 5}, {6.4f, 5}};  // 1.4 apart
  ASSERT_TRUE(s->reset(two, {}, std::vector<float>{0.6f, 0.7f}).ok());
  std::vector<float> r(2);
  ASSERT_TRUE(s->read_radii(r).ok());
  EXPECT_EQ(r, (std::vector<float>{0.6f, 0.7f}));
  const auto unchanged = [&] {
    std::vector<Vec2> p(s->size());
    EXPECT_TRUE(s->read_positions(p).ok());
    EXPECT_TRUE(p.size() == two.size() && std::memcmp(p.data(), two.data(), p.size() * sizeof(Vec2)) == 0);
  };
  // The sum of the radii: 0.7 + 0.8 > 1.4 overlaps; a radius out of [min_radius, R]; a wrong count.
  EXPECT_NE(s->reset(two, {}, std::vector<float>{0.7f, 0.8f}).message().find("sum of their radii"), std::string::npos);
  for (float bad : {kR / 4 * 0.99f, kR * 1.01f, -0.5f, std::numeric_limits<float>::quiet_NaN()})
    EXPECT_EQ(s->reset(two, {}, std::vector<float>{bad, 0.5f}).code(), StatusCode::InvalidArgument) << bad;
  EXPECT_EQ(s->reset(two, {}, std::vector<float>{0.5f}).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s->spawn(std::vector<Vec2>{{7.5f, 5}}, {}, {}, std::vector<float>{0.5f}).code(),
            StatusCode::InvalidArgument);  // 1.1 from the 0.7 agent
  unchanged();
  ASSERT_TRUE(s->spawn(std::vector<Vec2>{{7.5f, 5}}, {}, {}, std::vector<float>{0.35f}).ok());
  EXPECT_EQ(s->size(), 3u);
  // A config without min_radius takes R (or 0) only.
  c.min_radius = 0;
  ASSERT_TRUE(CrowdSolver::create(ctx, c, s).ok());
  EXPECT_EQ(s->reset(two, {}, std::vector<float>{0.6f, 0.6f}).code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(s->reset(std::vector<Vec2>{{5, 5}, {6.7f, 5}}, {}, std::vector<float>{kR, 0}).ok());
}

TEST(CrowdRadii, ScanCountsPairsByTheSumOfTheirRadii) {
  const std::vector<Vec2> p = {{0, 0}, {1, 0}, {3, 0}};
  EXPECT_EQ(count_overlaps(p, std::vector<float>{0.5f, 0.5f, 1.0f}), 0u);        // 1 = 0.5 + 0.5, 2 = 1 + 1
  EXPECT_EQ(count_overlaps(p, std::vector<float>{0.5f, 0.6f, 1.0f}), 1u);        // 0-1
  EXPECT_EQ(count_overlaps(p, std::vector<float>{0.5f, 0.6f, 1.5f}), 2u);        // 0-1 and 1-2
  EXPECT_EQ(count_overlaps(p, std::vector<float>{0.5f, 0.6f}), SIZE_MAX);        // a wrong count
  EXPECT_EQ(count_overlaps(p, std::vector<float>{0.5f, 0.0f, 1.0f}), SIZE_MAX);  // a radius that is not > 0
}

// Radii follow their agents through spawn, despawn and a save restored on another variant; the ticks
// after the restore equal those of the saved crowd.
TEST(CrowdRadii, SpawnDespawnSaveAndRestoreKeepEachRadius) {
  for (CrowdMovement m : {CrowdMovement::AcceptReject, CrowdMovement::Avoid}) {
    const std::vector<CrowdVariant> vs = variants(m);
    for (std::size_t k = 0; k < vs.size(); ++k) {
      const CrowdVariant from = vs[k], to = vs[(k + 1) % vs.size()];
      SCOPED_TRACE(std::string(variant_name(from)) + " -> " + variant_name(to) + " " + movement_name(m));
      const CrowdConfig c = mixed_config(kR / 4, m, CrowdRule::LowestIdWins, from);
      Agents a = outside_walls(c, random_agents(c.world, kR / 4, 300, 61));
      const Agents extra{{a.pos.end() - 20, a.pos.end()}, {a.radii.end() - 20, a.radii.end()}};
      a.pos.resize(a.pos.size() - 20);
      a.radii.resize(a.radii.size() - 20);
      auto s = make(c);
      ASSERT_TRUE(s->reset(a.pos, {}, a.radii).ok());
      ASSERT_TRUE(s->spawn(extra.pos, {}, {}, extra.radii).ok());
      ASSERT_TRUE(s->despawn(std::vector<std::uint32_t>{0, 5, 290}).ok());
      std::vector<float> expect = a.radii;
      expect.insert(expect.end(), extra.radii.begin(), extra.radii.end());
      expect.erase(expect.begin() + 290);
      expect.erase(expect.begin() + 5);
      expect.erase(expect.begin());
      std::vector<float> got(s->size());
      ASSERT_TRUE(s->read_radii(got).ok());
      EXPECT_EQ(got, expect);
      std::vector<std::uint8_t> bytes;
      ASSERT_TRUE(s->save(bytes).ok());
      EXPECT_EQ(bytes.size(), 84 + 20 * s->size());
      CrowdConfig c2 = c;
      c2.variant = to;
      auto r = make(c2);
      ASSERT_TRUE(r->restore(bytes).ok());
      ASSERT_TRUE(r->read_radii(got).ok());
      EXPECT_EQ(got, expect);
      std::vector<Vec2> pa(s->size()), pb(s->size());
      for (int t = 0; t < 8; ++t) {
        ASSERT_TRUE(s->read_positions(pa).ok());
        const std::vector<Vec2> prop = proposals(c.world, pa, t);
        ASSERT_TRUE(s->step(prop).ok());
        ASSERT_TRUE(r->step(prop).ok());
        ASSERT_TRUE(s->read_positions(pa).ok());
        ASSERT_TRUE(r->read_positions(pb).ok());
        ASSERT_EQ(std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(Vec2)), 0) << "tick " << t;
      }
      EXPECT_EQ(count_overlaps(pa, expect), 0u);
      // A config of another min_radius refuses the bytes.
      c2.min_radius = kR / 2;
      auto other = make(c2);
      EXPECT_EQ(other->restore(bytes).code(), StatusCode::InvalidArgument);
    }
  }
}

// Format 1 (before per-agent radii: no min_radius, no radii) is still read by a one-size crowd, and
// refused by a crowd with a min_radius.
TEST(CrowdRadii, FormatOneSavesAreStillRead) {
  CrowdConfig c = mixed_config(0, CrowdMovement::AcceptReject, CrowdRule::Strict, CrowdVariant::CpuReference);
  c.radius = 0.5f;
  const Agents a = outside_walls(c, random_agents(c.world, kR, 100, 71));
  auto s = make(c);
  ASSERT_TRUE(s->reset(a.pos).ok());
  std::vector<std::uint8_t> v2;
  ASSERT_TRUE(s->save(v2).ok());
  const std::size_t n = s->size();
  ASSERT_EQ(v2.size(), 84 + 20 * n);
  // Format 1: the same without min_radius (bytes 56..59) and without the radii (after the maximum steps).
  std::vector<std::uint8_t> v1(v2.begin(), v2.begin() + 56);
  v1.insert(v1.end(), v2.begin() + 60, v2.begin() + 84 + 12 * static_cast<std::ptrdiff_t>(n));
  v1.insert(v1.end(), v2.begin() + 84 + 16 * static_cast<std::ptrdiff_t>(n), v2.end());
  v1[8] = 1;
  ASSERT_EQ(v1.size(), 80 + 16 * n);
  auto r = make(c);
  const Status st = r->restore(v1);
  ASSERT_TRUE(st.ok()) << st.message();
  std::vector<std::uint8_t> again;
  ASSERT_TRUE(r->save(again).ok());
  EXPECT_EQ(again, v2);
  c.min_radius = 0.25f;
  auto sized = make(c);
  EXPECT_EQ(sized->restore(v1).code(), StatusCode::InvalidArgument);
}

}  // namespace
}  // namespace warpmind::crowd
