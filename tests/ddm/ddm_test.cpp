// Region matching: every variant against a brute-force oracle written from the half-open contract, on
// uniform regions of overlap degree alpha (extent = alpha * L / N), the seed's 3-hotspot distribution,
// touching and zero-width boxes, one huge region, 3D boxes, and incremental updates over many steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ddm_oracle.h"
#include "gpu_helpers.h"
#include "warpmind/core/random.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/ddm/scenario.h"

namespace warpmind::ddm {
namespace {

constexpr float kL = 10000.0f;

template <int D>
struct TestRegion {
  RegionKind kind;
  Box<D> box;
  bool alive = true;
};

// Brute force from the half-open contract (tests/oracles/ddm_oracle.h).
template <int D>
std::vector<Pair> oracle(const std::vector<TestRegion<D>>& r) {
  std::vector<RegionKind> kind;
  std::vector<Box<D>> box;
  std::vector<bool> alive;
  for (const TestRegion<D>& t : r) {
    kind.push_back(t.kind);
    box.push_back(t.box);
    alive.push_back(t.alive);
  }
  return ::warpmind::oracle::ddm_pairs<D>(kind, box, alive);
}

template <int D>
Box<D> box_at(SplitMix64& rng, float side, bool hotspot) {
  static const float spots[3][2] = {{1000, 1000}, {5000, 5000}, {9000, 9000}};
  Box<D> b;
  const int h = static_cast<int>(rng.next() % 3);
  for (int k = 0; k < D; ++k) {
    const float c = hotspot ? spots[h][k % 2] + rng.uniform(-300, 300) : rng.uniform(0, kL);
    b.lo[k] = c - side / 2;
    b.hi[k] = c + side / 2;
  }
  return b;
}

template <int D>
std::vector<TestRegion<D>> world(std::size_t n, float alpha, bool hotspots, std::uint64_t seed) {
  SplitMix64 rng(seed);
  const float side = alpha * kL / static_cast<float>(n);
  std::vector<TestRegion<D>> r;
  for (std::size_t i = 0; i < n; ++i)
    r.push_back(
        {i % 2 ? RegionKind::Subscription : RegionKind::Publication, box_at<D>(rng, side, hotspots && i % 5 == 0)});
  return r;
}

bool is_gpu(DdmVariant v) { return v == DdmVariant::GpuRegion || v == DdmVariant::GpuGrid; }

Context& context_for(DdmVariant v) {
  return is_gpu(v) ? *warpmind::test::cuda_context() : warpmind::test::cpu_context();
}

template <int D>
void expect_matches(const std::vector<TestRegion<D>>& regions, DdmVariant v, const char* what, float grid_cell = 0) {
  SCOPED_TRACE(std::string(what) + " " + variant_name(v));
  std::unique_ptr<RegionMatcher<D>> m;
  ASSERT_TRUE(RegionMatcher<D>::create(context_for(v), {v, grid_cell}, m).ok());
  for (std::size_t i = 0; i < regions.size(); ++i) {
    RegionId id = 0;
    ASSERT_TRUE(m->add(regions[i].kind, regions[i].box, id).ok());
    ASSERT_EQ(id, i);
  }
  std::vector<Pair> got;
  ASSERT_TRUE(m->match(got).ok());
  const std::vector<Pair> want = oracle(regions);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want);
}

class DdmVariantTest : public testing::TestWithParam<DdmVariant> {};

TEST_P(DdmVariantTest, MatchesTheOracle) {
  const DdmVariant v = GetParam();
  if (is_gpu(v)) WM_REQUIRE_GPU();
  for (float alpha : {0.01f, 1.0f, 100.0f}) {
    expect_matches(world<2>(2000, alpha, false, 1), v, ("uniform alpha " + std::to_string(alpha)).c_str());
    expect_matches(world<2>(2000, alpha, true, 2), v, ("hotspots alpha " + std::to_string(alpha)).c_str());
  }
  expect_matches(world<3>(1500, 200.0f, false, 3), v, "3D");
  EXPECT_GT(oracle(world<2>(2000, 100.0f, false, 1)).size(), 5000u);  // the dense case has work in it
  EXPECT_GT(oracle(world<3>(1500, 200.0f, false, 3)).size(), 100u);
  // Touching boxes (no overlap), zero-width boxes (match nothing), one overlap of one ulp.
  std::vector<TestRegion<2>> edge = {{RegionKind::Publication, {{0, 0}, {10, 10}}},
                                     {RegionKind::Subscription, {{10, 0}, {20, 10}}},
                                     {RegionKind::Subscription, {{0, 10}, {10, 20}}},
                                     {RegionKind::Subscription, {{5, 5}, {5, 8}}},
                                     {RegionKind::Publication, {{3, 3}, {3, 3}}},
                                     {RegionKind::Subscription, {{0, 0}, {10, 10}}},
                                     {RegionKind::Subscription, {{std::nextafter(10.0f, 0.0f), 9}, {12, 12}}}};
  expect_matches(edge, v, "touching and zero-width");
  std::vector<Pair> want = oracle(edge);
  EXPECT_EQ(want, (std::vector<Pair>{{0, 5}, {0, 6}}));
  // One huge region covering everything among small ones.
  std::vector<TestRegion<2>> huge = world<2>(3000, 1.0f, false, 4);
  huge.push_back({RegionKind::Subscription, {{-1, -1}, {kL + 1, kL + 1}}});
  huge.push_back({RegionKind::Publication, {{-5, 2}, {kL + 5, 3}}});
  expect_matches(huge, v, "one huge region");
}

TEST_P(DdmVariantTest, IncrementalChangesOverManySteps) {
  const DdmVariant v = GetParam();
  if (is_gpu(v)) WM_REQUIRE_GPU();
  std::vector<TestRegion<2>> r = world<2>(1200, 4.0f, true, 9);
  std::unique_ptr<RegionMatcher<2>> m;
  ASSERT_TRUE(RegionMatcher<2>::create(context_for(v), {v}, m).ok());
  for (const auto& q : r) {
    RegionId id;
    ASSERT_TRUE(m->add(q.kind, q.box, id).ok());
  }
  std::vector<Pair> appeared, disappeared, before = oracle(r);
  ASSERT_TRUE(m->match_changes(appeared, disappeared).ok());  // first call: everything appears
  EXPECT_EQ(appeared, before);
  EXPECT_TRUE(disappeared.empty());
  SplitMix64 rng(11);
  std::size_t seen_appear = 0, seen_disappear = 0;
  for (int step = 0; step < 30; ++step) {
    // Every region moves by half its size in a random compass direction (the seed's set-up); a few are
    // removed and added.
    for (RegionId id = 0; id < r.size(); ++id) {
      if (!r[id].alive || rng.uniform() < 0.5f) continue;
      const int dir = static_cast<int>(rng.next() % 8);
      const float dx = (dir % 3 - 1) * 0.5f * (r[id].box.hi[0] - r[id].box.lo[0]);
      const float dy = (dir / 3 % 3 - 1) * 0.5f * (r[id].box.hi[1] - r[id].box.lo[1]);
      r[id].box.lo[0] += dx, r[id].box.hi[0] += dx, r[id].box.lo[1] += dy, r[id].box.hi[1] += dy;
      ASSERT_TRUE(m->update(id, r[id].box).ok());
    }
    const RegionId gone = static_cast<RegionId>(rng.next() % r.size());
    if (r[gone].alive) {
      r[gone].alive = false;
      ASSERT_TRUE(m->remove(gone).ok());
    }
    RegionId id;
    const TestRegion<2> fresh{step % 2 ? RegionKind::Subscription : RegionKind::Publication,
                              box_at<2>(rng, 40.0f, true)};
    ASSERT_TRUE(m->add(fresh.kind, fresh.box, id).ok());
    r.push_back(fresh);
    ASSERT_EQ(id, r.size() - 1);
    ASSERT_TRUE(m->match_changes(appeared, disappeared).ok());
    const std::vector<Pair> now = oracle(r);
    std::vector<Pair> want_in, want_out;
    std::set_difference(now.begin(), now.end(), before.begin(), before.end(), std::back_inserter(want_in));
    std::set_difference(before.begin(), before.end(), now.begin(), now.end(), std::back_inserter(want_out));
    ASSERT_EQ(appeared, want_in) << "step " << step;
    ASSERT_EQ(disappeared, want_out) << "step " << step;
    seen_appear += appeared.size();
    seen_disappear += disappeared.size();
    before = now;
  }
  EXPECT_GT(seen_appear, 0u);
  EXPECT_GT(seen_disappear, 0u);
  std::vector<Pair> full;
  ASSERT_TRUE(m->match(full).ok());
  EXPECT_EQ(full, before);
}

INSTANTIATE_TEST_SUITE_P(AllVariants, DdmVariantTest,
                         testing::Values(DdmVariant::CpuBrute, DdmVariant::CpuSort, DdmVariant::GpuRegion,
                                         DdmVariant::GpuGrid),
                         [](const auto& i) {
                           std::string n = variant_name(i.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// gpu-grid with cells far smaller than the regions (most regions wide), far larger (one cell), and the
// automatic cell; both GPU variants on larger worlds against cpu-sort.
TEST(DdmGpu, GridCellSizesAndLargerWorlds) {
  WM_REQUIRE_GPU();
  // Sides of 50: cells of 6 make most regions wide (> 64 cells), 20 and 50 a few cells each, 20000 one.
  const auto w = world<2>(4000, 20.0f, true, 21);
  for (float cell : {0.0f, 6.0f, 20.0f, 50.0f, 20000.0f}) expect_matches(w, DdmVariant::GpuGrid, "cell", cell);
  // 3D: sides of 150 over cells of 75 (2-3 cells per axis), a few wide regions among them.
  auto w3 = world<3>(3000, 45.0f, true, 22);
  for (std::size_t i = 0; i < w3.size(); i += 100)
    for (int k = 0; k < 3; ++k) w3[i].box.hi[k] = w3[i].box.lo[k] + 2000;
  expect_matches(w3, DdmVariant::GpuGrid, "3D mixed", 75.0f);
  // Integer boxes on a unit grid: bounds and intersection corners exactly on cell boundaries.
  std::vector<TestRegion<2>> lattice;
  SplitMix64 rng(24);
  for (int i = 0; i < 3000; ++i) {
    const float x = static_cast<float>(rng.next() % 60), y = static_cast<float>(rng.next() % 60);
    lattice.push_back(
        {i % 2 ? RegionKind::Subscription : RegionKind::Publication,
         {{x, y}, {x + 1 + static_cast<float>(rng.next() % 4), y + 1 + static_cast<float>(rng.next() % 4)}}});
  }
  expect_matches(lattice, DdmVariant::GpuGrid, "unit lattice", 1.0f);
  for (float alpha : {0.01f, 1.0f, 10.0f}) {
    std::unique_ptr<RegionMatcher<2>> ref, grid, region;
    ASSERT_TRUE(RegionMatcher<2>::create(warpmind::test::cpu_context(), {DdmVariant::CpuSort}, ref).ok());
    ASSERT_TRUE(RegionMatcher<2>::create(*warpmind::test::cuda_context(), {DdmVariant::GpuGrid}, grid).ok());
    ASSERT_TRUE(RegionMatcher<2>::create(*warpmind::test::cuda_context(), {DdmVariant::GpuRegion}, region).ok());
    // The benchmark's workload: alpha is the overlap degree in area (side = L * sqrt(alpha / N)), so
    // alpha 1 and 10 give some 10^5 and 10^6 pairs among 200,000 regions.
    GenerateSpec g;
    g.regions = 200000;
    g.space = kL;
    g.alpha = alpha;
    g.seed = 23;
    for (const Region<2>& q : generate_regions<2>(g)) {
      RegionId id;
      for (auto* m : {ref.get(), grid.get(), region.get()}) ASSERT_TRUE(m->add(q.kind, q.box, id).ok());
    }
    std::vector<Pair> a, b, c;
    ASSERT_TRUE(ref->match(a).ok());
    ASSERT_TRUE(grid->match(b).ok());
    ASSERT_TRUE(region->match(c).ok());
    EXPECT_TRUE(a == b) << "gpu-grid, alpha " << alpha;
    EXPECT_TRUE(a == c) << "gpu-region, alpha " << alpha;
    if (alpha >= 1) {
      EXPECT_GT(a.size(), 10000u);
    }
  }
}

// match_changes on the GPU (the diff against the previous match made on the device) against cpu-sort
// on 100,000 regions: no change, a few regions moved, every region moved, a match() in between.
TEST(DdmGpu, ChangesDiffedOnTheDeviceEqualTheCpu) {
  WM_REQUIRE_GPU();
  GenerateSpec g;
  g.regions = 100000;
  g.space = kL;
  g.alpha = 1.0f;
  g.seed = 31;
  std::vector<Region<2>> regions = generate_regions<2>(g);
  std::unique_ptr<RegionMatcher<2>> ref, grid, region;
  ASSERT_TRUE(RegionMatcher<2>::create(warpmind::test::cpu_context(), {DdmVariant::CpuSort}, ref).ok());
  ASSERT_TRUE(RegionMatcher<2>::create(*warpmind::test::cuda_context(), {DdmVariant::GpuGrid}, grid).ok());
  ASSERT_TRUE(RegionMatcher<2>::create(*warpmind::test::cuda_context(), {DdmVariant::GpuRegion}, region).ok());
  for (const Region<2>& q : regions) {
    RegionId id;
    for (auto* m : {ref.get(), grid.get(), region.get()}) ASSERT_TRUE(m->add(q.kind, q.box, id).ok());
  }
  std::vector<Pair> in_ref, out_ref, in, out;
  for (int step = 0; step < 6; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    // 0: first call (everything appears); 1: nothing moved; 2: ten moved; 3: all moved; 4: match() first,
    // then all moved; 5: nothing moved again.
    const std::size_t moving = step == 2 ? 10 : step == 3 || step == 4 ? regions.size() : 0;
    if (moving) ddm::move_regions<2>(regions, g.seed, step);
    for (std::size_t i = 0; i < moving; ++i) {
      for (auto* m : {ref.get(), grid.get(), region.get()}) {
        ASSERT_TRUE(m->update(static_cast<RegionId>(i), regions[i].box).ok());
      }
    }
    if (step == 4) {
      for (auto* m : {ref.get(), grid.get(), region.get()}) {
        ASSERT_TRUE(m->match(in).ok());
      }
    }
    ASSERT_TRUE(ref->match_changes(in_ref, out_ref).ok());
    if (step == 0) {
      EXPECT_GT(in_ref.size(), 10000u);
    }
    if (step == 3) {
      EXPECT_FALSE(in_ref.empty() || out_ref.empty());
    }
    if (step == 1 || step == 5) {
      EXPECT_TRUE(in_ref.empty() && out_ref.empty());
    }
    for (auto* m : {grid.get(), region.get()}) {
      ASSERT_TRUE(m->match_changes(in, out).ok());
      EXPECT_TRUE(in == in_ref) << variant_name(m->variant()) << ": " << in.size() << " vs " << in_ref.size();
      EXPECT_TRUE(out == out_ref) << variant_name(m->variant()) << ": " << out.size() << " vs " << out_ref.size();
    }
  }
}

// On every variant (the GPU ones on a GPU only; the suite name keeps it in the sanitizer runs' filter):
// an empty matcher, publications only, subscriptions only — no pairs, and no changes.
TEST(DdmGpu, EmptyMatchersAndOneKindOnly) {
  for (DdmVariant v : {DdmVariant::CpuBrute, DdmVariant::CpuSort, DdmVariant::GpuRegion, DdmVariant::GpuGrid}) {
    if (is_gpu(v) && !warpmind::test::cuda_context()) continue;
    for (const RegionKind only : {RegionKind::Publication, RegionKind::Subscription}) {
      SCOPED_TRACE(std::string(variant_name(v)) +
                   (only == RegionKind::Publication ? " publications" : " subscriptions"));
      std::unique_ptr<RegionMatcher<2>> m;
      ASSERT_TRUE(RegionMatcher<2>::create(context_for(v), {v}, m).ok());
      std::vector<Pair> out{{1, 2}}, appeared{{3, 4}}, disappeared{{5, 6}};
      ASSERT_TRUE(m->match(out).ok());
      EXPECT_TRUE(out.empty());
      ASSERT_TRUE(m->match_changes(appeared, disappeared).ok());
      EXPECT_TRUE(appeared.empty());
      EXPECT_TRUE(disappeared.empty());
      // Overlapping boxes of one kind: nothing to match.
      RegionId id;
      for (int i = 0; i < 50; ++i) {
        const float x = static_cast<float>(i % 7);
        ASSERT_TRUE(m->add(only, {{x, x}, {x + 5, x + 5}}, id).ok());
      }
      ASSERT_TRUE(m->add(only, {{-1, -1}, {20, 20}}, id).ok());
      out = {{1, 2}};
      ASSERT_TRUE(m->match(out).ok());
      EXPECT_TRUE(out.empty());
      ASSERT_TRUE(m->match_changes(appeared, disappeared).ok());
      EXPECT_TRUE(appeared.empty());
      EXPECT_TRUE(disappeared.empty());
      // One region of the other kind: it matches every box.
      ASSERT_TRUE(m->add(only == RegionKind::Publication ? RegionKind::Subscription : RegionKind::Publication,
                         {{0, 0}, {30, 30}}, id)
                      .ok());
      ASSERT_TRUE(m->match(out).ok());
      EXPECT_EQ(out.size(), 51u);
    }
  }
}

TEST(DdmGpu, GpuVariantsNeedTheCudaBackend) {
  std::unique_ptr<RegionMatcher<2>> m;
  const Status st = RegionMatcher<2>::create(warpmind::test::cpu_context(), {DdmVariant::GpuGrid}, m);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("CUDA"), std::string::npos) << st.message();
  EXPECT_FALSE(RegionMatcher<2>::create(warpmind::test::cpu_context(), {DdmVariant::CpuSort, NAN}, m).ok());
}

TEST(DdmScenario, ParsesFilesAndNamesTheBadField) {
  DdmScenario s;
  ASSERT_TRUE(load_ddm_scenario(warpmind::test::source_dir() + "/assets/scenarios/ddm_demo.json", s).ok());
  EXPECT_EQ(s.regions.size(), 20000u);
  EXPECT_EQ(s.steps, 10);
  ASSERT_TRUE(
      parse_ddm_scenario(R"({"dimensions": 3, "regions": [{"kind": "publication", "lo": [0, 0, 0], "hi": [1, 2, 3]}]})",
                         "inline", s)
          .ok());
  ASSERT_EQ(s.regions.size(), 1u);
  EXPECT_EQ(s.dimensions, 3);
  EXPECT_EQ(s.regions[0].hi[2], 3.0f);
  const auto fails = [](const char* text, const char* field) {
    DdmScenario out;
    out.steps = 77;
    const Status st = parse_ddm_scenario(text, "d.json", out);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_NE(st.message().find(field), std::string::npos) << st.message();
    EXPECT_EQ(out.steps, 77);  // unchanged
  };
  fails("[", "not valid JSON");
  fails(R"({"steps": 3})", "regions");
  fails(R"({"regions": [{"kind": "both", "lo": [0, 0], "hi": [1, 1]}]})", "regions[0].kind");
  fails(R"({"regions": [{"kind": "publication", "lo": [0], "hi": [1, 1]}]})", "regions[0].lo");
  fails(R"({"regions": [{"kind": "publication", "lo": [2, 0], "hi": [1, 1]}]})", "lo > hi");
  fails(R"({"dimensions": 5, "regions": []})", "dimensions");
  fails(R"({"generate": {"distribution": "clumps"}})", "generate.distribution");
}

TEST(DdmScenario, AlphaIsTheVolumeRatioAndMovesAreHalfASide) {
  GenerateSpec g;
  g.regions = 10000;
  g.alpha = 4.0f;
  const auto r = generate_regions<2>(g);
  ASSERT_EQ(r.size(), 10000u);
  EXPECT_NEAR(r[0].box.hi[0] - r[0].box.lo[0], 10000.0f * std::sqrt(4.0f / 10000.0f), 1e-2f);  // 200
  EXPECT_EQ(r[0].kind, RegionKind::Publication);
  EXPECT_EQ(r[1].kind, RegionKind::Subscription);
  auto moved = r;
  move_regions<2>(moved, 5, 0);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const float dx = std::fabs(moved[i].box.lo[0] - r[i].box.lo[0]),
                dy = std::fabs(moved[i].box.lo[1] - r[i].box.lo[1]);
    EXPECT_TRUE(dx == 0.0f || std::fabs(dx - 100.0f) < 1e-2f) << i;
    EXPECT_TRUE(dy == 0.0f || std::fabs(dy - 100.0f) < 1e-2f) << i;
    EXPECT_TRUE(dx > 0.0f || dy > 0.0f) << i;  // every region moves
  }
}

TEST(Ddm, BadInputIsAClearErrorAndChangesNothing) {
  std::unique_ptr<RegionMatcher<2>> m;
  if (Context* g = warpmind::test::cuda_context()) {  // Auto follows the context's backend
    ASSERT_TRUE(RegionMatcher<2>::create(*g, {DdmVariant::Auto}, m).ok());
    EXPECT_EQ(m->variant(), DdmVariant::GpuGrid);
  }
  ASSERT_TRUE(RegionMatcher<2>::create(warpmind::test::cpu_context(), {DdmVariant::Auto}, m).ok());
  EXPECT_EQ(m->variant(), DdmVariant::CpuSort);
  RegionId a, b, c = 77;
  ASSERT_TRUE(m->add(RegionKind::Publication, {{0, 0}, {5, 5}}, a).ok());
  ASSERT_TRUE(m->add(RegionKind::Subscription, {{1, 1}, {2, 2}}, b).ok());
  EXPECT_FALSE(m->add(RegionKind::Subscription, {{NAN, 0}, {1, 1}}, c).ok());
  EXPECT_FALSE(m->add(RegionKind::Subscription, {{0, 0}, {INFINITY, 1}}, c).ok());
  const Status st = m->add(RegionKind::Subscription, {{0, 3}, {1, 2}}, c);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("lo > hi"), std::string::npos) << st.message();
  EXPECT_EQ(c, 77u);
  EXPECT_EQ(m->subscriptions(), 1u);
  EXPECT_FALSE(m->update(99, {{0, 0}, {1, 1}}).ok());
  EXPECT_FALSE(m->update(b, {{0, 0}, {-1, 1}}).ok());
  EXPECT_FALSE(m->remove(99).ok());
  ASSERT_TRUE(m->remove(b).ok());
  EXPECT_FALSE(m->remove(b).ok());  // already removed
  EXPECT_FALSE(m->update(b, {{0, 0}, {1, 1}}).ok());
  std::vector<Pair> out;
  ASSERT_TRUE(m->match(out).ok());
  EXPECT_TRUE(out.empty());
  DdmVariant v;
  EXPECT_TRUE(parse_variant("cpu-brute", v));
  EXPECT_FALSE(parse_variant("gpu-nothing", v));
}

// ---- the contract's edges, pinned ------------------------------------------------------------------

std::vector<DdmVariant> available_variants() {
  std::vector<DdmVariant> v = {DdmVariant::CpuBrute, DdmVariant::CpuSort};
  if (warpmind::test::cuda_context()) v.insert(v.end(), {DdmVariant::GpuRegion, DdmVariant::GpuGrid});
  return v;
}

TEST(Ddm, ZeroWidthBoxesMatchNothingEvenInsideAnother) {
  // lo_a < hi_b and lo_b < hi_a hold for [5, 5) inside [0, 10), so that alone is not the rule: both boxes
  // must also be non-empty on every axis.
  for (DdmVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    std::unique_ptr<RegionMatcher<2>> m;
    ASSERT_TRUE(RegionMatcher<2>::create(context_for(v), {v}, m).ok());
    RegionId id;
    ASSERT_TRUE(m->add(RegionKind::Publication, {{0, 0}, {10, 10}}, id).ok());     // 0
    ASSERT_TRUE(m->add(RegionKind::Subscription, {{5, 0}, {5, 10}}, id).ok());     // 1: zero width on x
    ASSERT_TRUE(m->add(RegionKind::Subscription, {{2, 3}, {8, 3}}, id).ok());      // 2: zero height
    ASSERT_TRUE(m->add(RegionKind::Subscription, {{4, 4}, {4, 4}}, id).ok());      // 3: a point
    ASSERT_TRUE(m->add(RegionKind::Subscription, {{4, 4}, {6, 6}}, id).ok());      // 4: a real overlap
    ASSERT_TRUE(m->add(RegionKind::Publication, {{5, 5}, {5, 9}}, id).ok());       // 5: zero width, inside 4's column
    ASSERT_TRUE(m->add(RegionKind::Subscription, {{-1, -1}, {11, 11}}, id).ok());  // 6: contains everything
    for (int i = 0; i < 60; ++i) {  // far-away publications: one update below is few enough to be incremental
      const float x = 100.0f + 3.0f * static_cast<float>(i);
      ASSERT_TRUE(m->add(RegionKind::Publication, {{x, 0}, {x + 1, 1}}, id).ok());
    }
    std::vector<Pair> out;
    ASSERT_TRUE(m->match(out).ok());
    EXPECT_EQ(out, (std::vector<Pair>{{0, 4}, {0, 6}}));
    // Becoming empty makes a pair disappear; regaining width brings it back.
    std::vector<Pair> in, gone;
    ASSERT_TRUE(m->match_changes(in, gone).ok());
    ASSERT_TRUE(m->update(4, {{4, 4}, {6, 4}}).ok());
    ASSERT_TRUE(m->match_changes(in, gone).ok());
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(gone, (std::vector<Pair>{{0, 4}}));
    ASSERT_TRUE(m->update(5, {{5, 5}, {5.5f, 9}}).ok());
    ASSERT_TRUE(m->match_changes(in, gone).ok());
    EXPECT_EQ(in, (std::vector<Pair>{{5, 6}}));  // 5 now non-empty, inside 6; 4 is still empty
    EXPECT_TRUE(gone.empty());
  }
  // 3D: empty on the third axis only.
  for (DdmVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    std::unique_ptr<RegionMatcher<3>> m;
    ASSERT_TRUE(RegionMatcher<3>::create(context_for(v), {v}, m).ok());
    RegionId id;
    ASSERT_TRUE(m->add(RegionKind::Publication, {{0, 0, 0}, {10, 10, 10}}, id).ok());
    ASSERT_TRUE(m->add(RegionKind::Subscription, {{1, 1, 5}, {9, 9, 5}}, id).ok());
    ASSERT_TRUE(m->add(RegionKind::Subscription, {{1, 1, 5}, {9, 9, std::nextafter(5.0f, 9.0f)}}, id).ok());
    std::vector<Pair> out;
    ASSERT_TRUE(m->match(out).ok());
    EXPECT_EQ(out, (std::vector<Pair>{{0, 2}}));
  }
  const Box<2> a{{0, 0}, {10, 10}}, z{{5, 0}, {5, 10}};
  EXPECT_FALSE(overlaps<2>(a, z));
  EXPECT_FALSE(overlaps<2>(z, a));
  EXPECT_FALSE(::warpmind::oracle::ddm_overlap<2>(a, z));
}

TEST(DdmScenario, CoordinatesAreRoundedToFloatThroughDouble) {
  // 1 + 2^-24 + 1e-25: the nearest double is the midpoint 1 + 2^-24 exactly, which rounds to even, 1.0f
  // (the decimal rounded once would be 1 + 2^-23). Integers go straight from 64 bits to float.
  DdmScenario s;
  ASSERT_TRUE(parse_ddm_scenario(R"({"regions": [{"kind": "publication",
      "lo": [1.0000000596046447753906251, 16777217], "hi": [16777219, 1e38]}]})",
                                 "r.json", s)
                  .ok());
  ASSERT_EQ(s.regions.size(), 1u);
  EXPECT_EQ(s.regions[0].lo[0], 1.0f);
  EXPECT_EQ(s.regions[0].lo[1], 16777216.0f);
  EXPECT_EQ(s.regions[0].hi[0], 16777220.0f);
  EXPECT_EQ(s.regions[0].hi[1], 1e38f);
  const Status st =
      parse_ddm_scenario(R"({"regions": [{"kind": "publication", "lo": [0, 0], "hi": [1e39, 1]}]})", "r.json", s);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("regions[0].hi: must be finite"), std::string::npos) << st.message();
}

// ---- batch updates ----------------------------------------------------------------------------------

// The seed's move of one region: half its size in one of the eight compass directions.
template <int D>
Box<D> moved(const Box<D>& b, SplitMix64& rng) {
  Box<D> m = b;
  const int dir = static_cast<int>(rng.next() % 8);
  const int step[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
  for (int k = 0; k < 2; ++k) {
    const float d = static_cast<float>(step[dir][k]) * 0.5f * (b.hi[k] - b.lo[k]);
    m.lo[k] += d;
    m.hi[k] += d;
  }
  return m;
}

template <class T>
void shuffle(std::vector<T>& v, SplitMix64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
}

template <int D>
std::vector<RegionId> live_ids(const std::vector<TestRegion<D>>& r) {
  std::vector<RegionId> ids;
  for (RegionId id = 0; id < r.size(); ++id)
    if (r[id].alive) ids.push_back(id);
  return ids;
}

template <int D>
std::unique_ptr<RegionMatcher<D>> matcher_with(DdmVariant v, const std::vector<TestRegion<D>>& r) {
  std::unique_ptr<RegionMatcher<D>> m;
  EXPECT_TRUE(RegionMatcher<D>::create(context_for(v), {v}, m).ok());
  for (std::size_t i = 0; m && i < r.size(); ++i) {
    RegionId id = 0;
    EXPECT_TRUE(m->add(r[i].kind, r[i].box, id).ok());
    EXPECT_EQ(id, i);
  }
  return m;
}

class DdmBatchTest : public testing::TestWithParam<DdmVariant> {};

// One script run twice: through update(id, box) one region at a time and through the batch update.
// Every step's changes must be the same, and the oracle's: every region moved in id order, a few (the
// CPU variants' incremental path), a third in random order, single updates and a batch in one step,
// every region in random order, then a third of the regions removed (holes, then compaction at the next
// match) and half the survivors moved, every region moved and new regions added, a few removed (holes
// that stay) and every live region moved, and every region moved again. 2D and 3D.
template <int D>
void batch_equals_one_by_one(DdmVariant v, std::size_t n, std::uint64_t seed) {
  std::vector<TestRegion<D>> r = world<D>(n, D == 2 ? 20.0f : 200.0f, true, seed);
  std::unique_ptr<RegionMatcher<D>> single = matcher_with<D>(v, r), batch = matcher_with<D>(v, r);
  ASSERT_TRUE(single && batch);
  std::vector<Pair> in1, out1, in2, out2, before = oracle(r);
  ASSERT_TRUE(single->match_changes(in1, out1).ok());
  ASSERT_TRUE(batch->match_changes(in2, out2).ok());
  ASSERT_EQ(in1, before);
  ASSERT_EQ(in2, before);
  SplitMix64 rng(seed + 100);
  std::vector<RegionId> ids;
  std::vector<Box<D>> boxes;
  std::size_t changes = 0;
  for (int step = 0; step < 9; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    ids = live_ids(r);
    if (step == 1) ids.resize(std::min<std::size_t>(ids.size(), 40));  // few: incremental on the CPU
    if (step == 2 || step == 3) {
      shuffle(ids, rng);
      ids.resize(ids.size() / 3);
    }
    if (step == 3) {  // single updates first, on regions the batch leaves alone
      for (RegionId id : live_ids(r)) {
        if (std::find(ids.begin(), ids.end(), id) != ids.end() || rng.next() % 10) continue;
        r[id].box = moved(r[id].box, rng);
        ASSERT_TRUE(single->update(id, r[id].box).ok());
        ASSERT_TRUE(batch->update(id, r[id].box).ok());
      }
    }
    if (step == 4) shuffle(ids, rng);
    if (step == 7) {  // a few removed (holes too few to be closed), then every live region in one batch
      for (RegionId id : ids)
        if (rng.next() % 20 == 0) {
          r[id].alive = false;
          ASSERT_TRUE(single->remove(id).ok());
          ASSERT_TRUE(batch->remove(id).ok());
        }
      ids = live_ids(r);
    }
    if (step == 5) {  // a third removed: more than a quarter of the slots become holes
      for (RegionId id : ids)
        if (rng.next() % 3 == 0) {
          r[id].alive = false;
          ASSERT_TRUE(single->remove(id).ok());
          ASSERT_TRUE(batch->remove(id).ok());
        }
      ids = live_ids(r);
      shuffle(ids, rng);
      ids.resize(ids.size() / 2);
    }
    boxes.clear();
    for (RegionId id : ids) {
      r[id].box = moved(r[id].box, rng);
      boxes.push_back(r[id].box);
      ASSERT_TRUE(single->update(id, r[id].box).ok());
    }
    ASSERT_TRUE(batch->update(ids, boxes).ok());
    if (step == 6) {  // additions after the holes were closed: new slots at the end
      for (int i = 0; i < 30; ++i) {
        const TestRegion<D> fresh{i % 2 ? RegionKind::Subscription : RegionKind::Publication,
                                  box_at<D>(rng, D == 2 ? 40.0f : 400.0f, true)};
        RegionId a = 0, b = 0;
        ASSERT_TRUE(single->add(fresh.kind, fresh.box, a).ok());
        ASSERT_TRUE(batch->add(fresh.kind, fresh.box, b).ok());
        ASSERT_EQ(a, r.size());
        ASSERT_EQ(b, r.size());
        r.push_back(fresh);
      }
    }
    ASSERT_TRUE(single->match_changes(in1, out1).ok());
    ASSERT_TRUE(batch->match_changes(in2, out2).ok());
    const std::vector<Pair> now = oracle(r);
    std::vector<Pair> want_in, want_out;
    std::set_difference(now.begin(), now.end(), before.begin(), before.end(), std::back_inserter(want_in));
    std::set_difference(before.begin(), before.end(), now.begin(), now.end(), std::back_inserter(want_out));
    EXPECT_EQ(in1, want_in);
    EXPECT_EQ(out1, want_out);
    EXPECT_EQ(in2, want_in);
    EXPECT_EQ(out2, want_out);
    changes += in2.size() + out2.size();
    before = now;
  }
  EXPECT_GT(changes, 100u);
  std::vector<Pair> full1, full2;
  ASSERT_TRUE(single->match(full1).ok());
  ASSERT_TRUE(batch->match(full2).ok());
  EXPECT_EQ(full1, before);
  EXPECT_EQ(full2, before);
  EXPECT_EQ(batch->publications(), single->publications());
  EXPECT_EQ(batch->subscriptions(), single->subscriptions());
}

TEST_P(DdmBatchTest, BatchUpdateEqualsOneByOne) {
  const DdmVariant v = GetParam();
  if (is_gpu(v)) WM_REQUIRE_GPU();
  {
    SCOPED_TRACE("2D");
    batch_equals_one_by_one<2>(v, 3000, 51);
  }
  {
    SCOPED_TRACE("3D");
    batch_equals_one_by_one<3>(v, 1500, 52);
  }
}

// Rejected batches change nothing: after each, match_changes reports no change and match() the pairs of
// before. The message names the first offending index (the entries before it are valid moves that would
// change pairs if they were applied).
TEST_P(DdmBatchTest, BadBatchesAreErrorsAndChangeNothing) {
  const DdmVariant v = GetParam();
  if (is_gpu(v)) WM_REQUIRE_GPU();
  std::vector<TestRegion<2>> r = world<2>(1200, 8.0f, true, 61);
  std::unique_ptr<RegionMatcher<2>> m = matcher_with<2>(v, r);
  ASSERT_TRUE(m);
  const RegionId removed = 7;
  ASSERT_TRUE(m->remove(removed).ok());
  r[removed].alive = false;
  std::vector<Pair> all, in, out;
  ASSERT_TRUE(m->match(all).ok());
  ASSERT_EQ(all, oracle(r));
  ASSERT_GT(all.size(), 100u);
  // Every live region moved, in id order; then one entry spoiled.
  std::vector<RegionId> good = live_ids(r);
  std::vector<Box<2>> good_boxes;
  for (RegionId id : good) {  // publications one way, subscriptions the other: pairs change
    const float dx = r[id].kind == RegionKind::Publication ? 37.0f : -37.0f;
    good_boxes.push_back({{r[id].box.lo[0] + dx, r[id].box.lo[1]}, {r[id].box.hi[0] + dx, r[id].box.hi[1]}});
  }
  const auto rejected = [&](std::vector<RegionId> ids, std::vector<Box<2>> boxes, const std::string& expect) {
    SCOPED_TRACE(expect);
    const Status st = m->update(std::span<const RegionId>(ids), std::span<const Box<2>>(boxes));
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.code(), StatusCode::InvalidArgument);
    EXPECT_NE(st.message().find(expect), std::string::npos) << st.message();
    ASSERT_TRUE(m->match_changes(in, out).ok());
    EXPECT_TRUE(in.empty()) << in.size();
    EXPECT_TRUE(out.empty()) << out.size();
  };
  {
    auto ids = good;
    auto boxes = good_boxes;
    boxes.pop_back();
    rejected(ids, boxes,
             "update: batch of " + std::to_string(ids.size()) + " ids but " + std::to_string(boxes.size()) + " boxes");
  }
  {
    auto ids = good;
    ids[500] = 999999;
    rejected(ids, good_boxes, "batch index 500: unknown region 999999");
  }
  {
    auto ids = good;
    ids[300] = removed;
    rejected(ids, good_boxes, "batch index 300: region 7 was removed");
  }
  {
    auto boxes = good_boxes;
    boxes[900].lo[1] = NAN;
    rejected(good, boxes,
             "batch index 900 (region " + std::to_string(good[900]) + "): bounds on axis 1 must be finite");
  }
  {
    auto boxes = good_boxes;
    boxes[901].hi[0] = INFINITY;
    rejected(good, boxes,
             "batch index 901 (region " + std::to_string(good[901]) + "): bounds on axis 0 must be finite");
  }
  {
    auto boxes = good_boxes;
    boxes[1000].lo[0] = boxes[1000].hi[0] + 1;
    rejected(good, boxes, "batch index 1000 (region " + std::to_string(good[1000]) + "): lo > hi on axis 0");
  }
  {
    // Several faults: the first in batch order is named.
    auto ids = good;
    auto boxes = good_boxes;
    boxes[800].lo[0] = NAN;
    ids[650] = 123456;
    boxes[640].hi[1] = boxes[640].lo[1] - 1;
    rejected(ids, boxes, "batch index 640");
  }
  {
    // Repeats: adjacent (ascending otherwise), far apart in a shuffled batch, and more entries than
    // regions.
    auto ids = good;
    auto boxes = good_boxes;
    ids[11] = ids[10];
    rejected(ids, boxes, "batch index 11: region " + std::to_string(good[10]) + " is also at batch index 10");
    SplitMix64 rng(62);
    std::vector<std::size_t> order(good.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    shuffle(order, rng);
    ids.clear();
    boxes.clear();
    for (std::size_t i : order) ids.push_back(good[i]), boxes.push_back(good_boxes[i]);
    ids[1100] = ids[20];
    rejected(ids, boxes, "batch index 1100: region " + std::to_string(ids[20]) + " is also at batch index 20");
    ids = good;
    boxes = good_boxes;
    ids.push_back(good[3]);
    boxes.push_back(good_boxes[3]);
    rejected(ids, boxes,
             "batch index " + std::to_string(good.size()) + ": region " + std::to_string(good[3]) +
                 " is also at batch index 3");
  }
  // An empty batch is fine and changes nothing.
  EXPECT_TRUE(m->update(std::span<const RegionId>(), std::span<const Box<2>>()).ok());
  ASSERT_TRUE(m->match_changes(in, out).ok());
  EXPECT_TRUE(in.empty() && out.empty());
  std::vector<Pair> after;
  ASSERT_TRUE(m->match(after).ok());
  EXPECT_EQ(after, all);
  // The good batch itself is accepted, and moves the pairs.
  ASSERT_TRUE(m->update(good, good_boxes).ok());
  for (std::size_t i = 0; i < good.size(); ++i) r[good[i]].box = good_boxes[i];
  ASSERT_TRUE(m->match_changes(in, out).ok());
  EXPECT_FALSE(in.empty() || out.empty());
  ASSERT_TRUE(m->match(after).ok());
  EXPECT_EQ(after, oracle(r));
}

// Batches larger than a chunk of the thread pool's passes (16,384 regions), so the checks and the
// writes run on several threads: in id order (the whole set: its bounds replace the matcher's), in
// random order (the repeat check by stamps), half of them; bad ones near the end of such batches.
// Against the same updates one by one with cpu-sort. (cpu-brute is left out: 40,000 regions is all-pairs
// work it needs seconds for on a small machine; it shares the update code with cpu-sort.)
TEST_P(DdmBatchTest, LargeBatchesOnThePool) {
  const DdmVariant v = GetParam();
  if (v == DdmVariant::CpuBrute) GTEST_SKIP() << "covered by cpu-sort (same update code, quadratic match)";
  if (is_gpu(v)) WM_REQUIRE_GPU();
  GenerateSpec g;
  g.regions = 40000;
  g.space = kL;
  g.alpha = 2.0f;
  g.seed = 71;
  std::vector<Region<2>> regions = generate_regions<2>(g);
  std::unique_ptr<RegionMatcher<2>> ref, m;
  ASSERT_TRUE(RegionMatcher<2>::create(warpmind::test::cpu_context(), {DdmVariant::CpuSort}, ref).ok());
  ASSERT_TRUE(RegionMatcher<2>::create(context_for(v), {v}, m).ok());
  for (const Region<2>& q : regions) {
    RegionId id;
    ASSERT_TRUE(ref->add(q.kind, q.box, id).ok());
    ASSERT_TRUE(m->add(q.kind, q.box, id).ok());
  }
  std::vector<Pair> in_ref, out_ref, in, out;
  ASSERT_TRUE(ref->match_changes(in_ref, out_ref).ok());
  ASSERT_TRUE(m->match_changes(in, out).ok());
  ASSERT_EQ(in, in_ref);
  ASSERT_GT(in_ref.size(), 10000u);
  SplitMix64 rng(72);
  std::vector<RegionId> ids;
  std::vector<Box<2>> boxes;
  // Steps 0, 3, 5: whole batches in id order (swapped in from the spare arrays); 1: whole, shuffled; 2:
  // half, shuffled (written in place); 4: whole after a removal (a hole); 5: a single update after the
  // whole batch, before the match.
  constexpr RegionId kRemoved = 7, kSingle = 10;
  for (int step = 0; step < 6; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    move_regions<2>(regions, g.seed, step);
    if (step == 4) {
      ASSERT_TRUE(ref->remove(kRemoved).ok());
      ASSERT_TRUE(m->remove(kRemoved).ok());
    }
    ids.clear();
    for (std::size_t i = 0; i < regions.size(); ++i)
      if (step < 4 || i != kRemoved) ids.push_back(static_cast<RegionId>(i));
    if (step == 1 || step == 2) shuffle(ids, rng);
    if (step == 2) ids.resize(ids.size() / 2);
    boxes.clear();
    for (RegionId id : ids) boxes.push_back(regions[id].box);
    for (RegionId id : ids) ASSERT_TRUE(ref->update(id, regions[id].box).ok());
    // A bad entry near the end first: rejected, nothing changes.
    std::vector<Box<2>> spoiled = boxes;
    spoiled[ids.size() - 5].hi[1] = NAN;
    const Status st = m->update(ids, spoiled);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("batch index " + std::to_string(ids.size() - 5)), std::string::npos) << st.message();
    std::vector<RegionId> repeated = ids;
    repeated[ids.size() - 3] = repeated[ids.size() / 2];
    EXPECT_FALSE(m->update(repeated, boxes).ok());
    ASSERT_TRUE(m->update(ids, boxes).ok());
    if (step == 5) {
      Box<2> moved = regions[kSingle].box;
      moved.lo[0] += 3.0f;
      moved.hi[0] += 3.0f;
      ASSERT_TRUE(ref->update(kSingle, moved).ok());
      ASSERT_TRUE(m->update(kSingle, moved).ok());
    }
    ASSERT_TRUE(ref->match_changes(in_ref, out_ref).ok());
    ASSERT_TRUE(m->match_changes(in, out).ok());
    EXPECT_FALSE(in_ref.empty() || out_ref.empty());
    EXPECT_TRUE(in == in_ref) << in.size() << " vs " << in_ref.size();
    EXPECT_TRUE(out == out_ref) << out.size() << " vs " << out_ref.size();
  }
  std::vector<Pair> a, b;
  ASSERT_TRUE(ref->match(a).ok());
  ASSERT_TRUE(m->match(b).ok());
  EXPECT_TRUE(a == b);
}

INSTANTIATE_TEST_SUITE_P(AllVariants, DdmBatchTest,
                         testing::Values(DdmVariant::CpuBrute, DdmVariant::CpuSort, DdmVariant::GpuRegion,
                                         DdmVariant::GpuGrid),
                         [](const auto& i) {
                           std::string n = variant_name(i.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace warpmind::ddm
