// Every variant against the brute-force oracle (tests/oracles/field_oracle.h, no code shared with the
// variants), bit for bit (the field is defined exactly: tolerance 0), on the cases of field_cases.h;
// plus the pinned signature, determinism and error handling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "field_cases.h"
#include "field_oracle.h"
#include "gpu_helpers.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/core/device_ceilings.h"
#include "field/field_math.h"
#include "warpmind/core/hash.h"
#include "warpmind/core/random.h"
#include "warpmind/field/field.h"

namespace warpmind::field {
namespace {

using test::FieldCase;

Context* context_for(FieldVariant v) {
  return is_gpu_variant(v) ? warpmind::test::cuda_context() : &warpmind::test::cpu_context();
}

std::vector<std::vector<float>> build_all(Context& ctx, FieldConfig cfg, FieldVariant v,
                                          const std::vector<Entity>& entities,
                                          const std::vector<Entity>* poison = nullptr) {
  cfg.variant = v;
  std::unique_ptr<FieldLayers> f;
  Status s = FieldLayers::create(ctx, cfg, f);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  if (poison) {
    EXPECT_TRUE(f->build(*poison).ok());
  }  // leaves non-zero values behind: unwritten cells would show
  s = f->build(entities);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<std::vector<float>> out(f->layer_count(),
                                      std::vector<float>(static_cast<std::size_t>(cfg.width) * cfg.height));
  for (int l = 0; l < f->layer_count(); ++l) EXPECT_TRUE(f->read(l, out[l]).ok());
  return out;
}

// The oracle's whole layers (O(cells x entities): the cases where that is affordable in a unit test).
std::vector<std::vector<float>> oracle_layers(const FieldConfig& c, const std::vector<Entity>& entities) {
  std::vector<std::vector<float>> out;
  for (int l = 0; l < static_cast<int>(c.layers.size()); ++l)
    out.push_back(::warpmind::oracle::field_layer(c, l, entities));
  return out;
}

// A deterministic sample of cells for the cases too big for the whole oracle: every border cell, the
// 3 x 3 blocks around the cells holding the most entities (hot spots), and random cells.
std::vector<std::size_t> sample_cells(const FieldConfig& c, const std::vector<Entity>& entities) {
  const std::size_t w = static_cast<std::size_t>(c.width), h = static_cast<std::size_t>(c.height);
  std::vector<char> take(w * h, 0);
  for (std::size_t x = 0; x < w; ++x) take[x] = take[(h - 1) * w + x] = 1;
  for (std::size_t y = 0; y < h; ++y) take[y * w] = take[y * w + w - 1] = 1;
  std::vector<std::uint32_t> count(w * h, 0);
  const float cw = c.world.width / static_cast<float>(c.width), ch = c.world.height / static_cast<float>(c.height);
  for (const Entity& e : entities) {
    const double ex = std::floor(static_cast<double>((e.x - c.world.x0) / cw));
    const double ey = std::floor(static_cast<double>((e.y - c.world.y0) / ch));
    if (ex >= 0 && ey >= 0 && ex < static_cast<double>(w) && ey < static_cast<double>(h))
      ++count[static_cast<std::size_t>(ey) * w + static_cast<std::size_t>(ex)];
  }
  std::vector<std::size_t> order(w * h);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::size_t hot = std::min<std::size_t>(8, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(hot), order.end(),
                    [&](std::size_t a, std::size_t b) { return count[a] != count[b] ? count[a] > count[b] : a < b; });
  for (std::size_t k = 0; k < hot; ++k) {
    const std::ptrdiff_t cx = static_cast<std::ptrdiff_t>(order[k] % w), cy = static_cast<std::ptrdiff_t>(order[k] / w);
    for (std::ptrdiff_t y = cy - 1; y <= cy + 1; ++y)
      for (std::ptrdiff_t x = cx - 1; x <= cx + 1; ++x)
        if (x >= 0 && y >= 0 && x < static_cast<std::ptrdiff_t>(w) && y < static_cast<std::ptrdiff_t>(h))
          take[static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x)] = 1;
  }
  SplitMix64 rng(2024);
  for (int k = 0; k < 1500; ++k) take[static_cast<std::size_t>(rng.next() % (w * h))] = 1;
  std::vector<std::size_t> cells;
  for (std::size_t i = 0; i < take.size(); ++i)
    if (take[i]) cells.push_back(i);
  return cells;
}

// The reference of a case. Where cells x entities is affordable (naive_reference): the oracle's whole
// layers. On the big cases: the oracle's values on sample_cells(), and cpu-stamp's whole layers, which
// the other variants must equal everywhere (cpu-stamp itself is held against the oracle's sample).
struct Reference {
  std::vector<std::vector<float>> layers;  // whole layers (the oracle's, or cpu-stamp's on big cases)
  bool layers_from_oracle = true;
  std::vector<std::size_t> cells;           // big cases: the sampled cells
  std::vector<std::vector<float>> sampled;  // big cases: the oracle's values there, per layer
};

const Reference& reference(const FieldCase& c) {
  static std::map<std::string, Reference> cache;
  auto it = cache.find(c.name);
  if (it != cache.end()) return it->second;
  Reference r;
  if (c.naive_reference) {
    r.layers = oracle_layers(c.config, c.entities);
  } else {
    r.layers_from_oracle = false;
    r.layers = build_all(warpmind::test::cpu_context(), c.config, FieldVariant::CpuStamp, c.entities);
    r.cells = sample_cells(c.config, c.entities);
    for (int l = 0; l < static_cast<int>(c.config.layers.size()); ++l) {
      std::vector<float> v;
      for (std::size_t i : r.cells)
        v.push_back(::warpmind::oracle::field_cell(c.config, l, c.entities,
                                                   static_cast<int>(i % static_cast<std::size_t>(c.config.width)),
                                                   static_cast<int>(i / static_cast<std::size_t>(c.config.width))));
      r.sampled.push_back(std::move(v));
    }
  }
  return cache.emplace(c.name, std::move(r)).first->second;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

// Every cell of `got` against `want`, bit for bit; reports the number of mismatches and the first one.
void expect_same_layer(const std::vector<float>& got, const std::vector<float>& want, int width, std::size_t layer,
                       const char* against) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!same_bits(got[i], want[i]) && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << "layer " << layer << " against " << against << ": first mismatch at cell " << first << " (x "
                     << first % static_cast<std::size_t>(width) << ", y " << first / static_cast<std::size_t>(width)
                     << "): got " << got[first] << ", want " << want[first];
}

class FieldVariantTest : public testing::TestWithParam<FieldVariant> {};

TEST_P(FieldVariantTest, MatchesReferenceBitForBit) {
  const FieldVariant v = GetParam();
  if (is_gpu_variant(v)) WM_REQUIRE_GPU();
  for (const FieldCase& c : test::field_cases()) {
    SCOPED_TRACE(c.name);
    const Reference& ref = reference(c);
    if (!ref.layers_from_oracle) {
      ASSERT_GT(ref.cells.size(), 2000u);  // borders, hot spots, random cells
    }
    const std::vector<Entity> poison = test::random_entities(c.config.world, 64, kMaxGroups, 99);
    const auto got = build_all(*context_for(v), c.config, v, c.entities, &poison);
    ASSERT_EQ(got.size(), c.config.layers.size());
    for (std::size_t l = 0; l < got.size(); ++l) {
      if (ref.layers_from_oracle || v != FieldVariant::CpuStamp)
        expect_same_layer(got[l], ref.layers[l], c.config.width, l,
                          ref.layers_from_oracle ? "the oracle" : "cpu-stamp");
      if (ref.layers_from_oracle) continue;
      // The sampled cells against the oracle.
      std::size_t bad = 0, first = 0;
      for (std::size_t k = 0; k < ref.cells.size(); ++k)
        if (!same_bits(got[l][ref.cells[k]], ref.sampled[l][k]) && bad++ == 0) first = k;
      EXPECT_EQ(bad, 0u) << "layer " << l << " against the oracle: first mismatch at cell " << ref.cells[first]
                         << ": got " << got[l][ref.cells[first]] << ", want " << ref.sampled[l][first];
    }
  }
}

TEST_P(FieldVariantTest, SeedGridCornerCase) {
  // The seed's set-up at a small resolution: 256-unit world, radius 15, many entities.
  const FieldVariant v = GetParam();
  if (is_gpu_variant(v)) WM_REQUIRE_GPU();
  const FieldScenario sc = test::seed_setup(96, 300, 15.0f, 21);
  static const std::vector<float> ref = ::warpmind::oracle::field_layer(sc.config, 0, sc.entities);
  const auto got = build_all(*context_for(v), sc.config, v, sc.entities);
  ASSERT_EQ(got.size(), 1u);
  expect_same_layer(got[0], ref, sc.config.width, 0, "the oracle");
  EXPECT_NE(std::count(ref.begin(), ref.end(), 0.0f), static_cast<std::ptrdiff_t>(ref.size()));  // not a trivial field
}

INSTANTIATE_TEST_SUITE_P(AllVariants, FieldVariantTest,
                         testing::Values(FieldVariant::CpuNaive, FieldVariant::CpuStamp, FieldVariant::GpuNaive,
                                         FieldVariant::GpuCoalesced, FieldVariant::GpuShared, FieldVariant::GpuBinned),
                         [](const testing::TestParamInfo<FieldVariant>& i) {
                           std::string n = variant_name(i.param);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Field, HandComputedValues) {
  // One circle of the seed's native radius on 1-unit cells: the field is Figure 2.2 sampled at cell centres.
  FieldConfig c;
  c.world = {0, 0, 64, 64};
  c.width = c.height = 64;
  c.kinds = {circle(7.14f), attack(5.0f)};
  c.layers = {{"base", {{0, 0}}}, {"enemy", {{1, 1}}}};
  const std::vector<Entity> e = {{32.5f, 32.5f, 0, 0}, {10.2f, 50.9f, 1, 0}};
  const auto f = build_all(warpmind::test::cpu_context(), c, FieldVariant::CpuStamp, e);
  const auto at = [&](int l, int x, int y) { return f[l][static_cast<std::size_t>(y) * 64 + x]; };
  EXPECT_EQ(at(0, 32, 32), -37.5f);
  EXPECT_EQ(at(0, 36, 32), -16.5f);  // d = 4: 5.25*4 - 37.5
  EXPECT_EQ(at(0, 32, 39), -0.5f);   // d = 7: 3.5*7 - 25
  EXPECT_EQ(at(0, 40, 32), 0.0f);    // beyond 7.14
  EXPECT_EQ(at(1, 13, 50), 60.0f);   // attack, d = 3 < MSD - 1: 100*3/5
  EXPECT_EQ(at(1, 15, 50), 100.0f);  // d = 5 = MSD
  EXPECT_EQ(at(1, 10, 60), 75.0f);   // d = 10: 80 - (10 - 5)
  // Rounding to 2^-10: a value that is not a multiple keeps within half a step of the float value.
  const float exact = circle(7.14f).value(std::sqrt(5.0f));
  EXPECT_NEAR(at(0, 34, 33), exact, 0.5f / 1024);
}

TEST(Field, PinnedSignature) {
  // Changing the field's definition changes this hash; do it on purpose and say so in docs/field.md.
  const FieldScenario sc = test::seed_setup(256, 100, 8.0f, 7);
  const auto f = build_all(warpmind::test::cpu_context(), sc.config, FieldVariant::CpuStamp, sc.entities);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(fnv1a(f[0].data(), f[0].size() * sizeof(float)), 0x38ddfaf140744df7ull);
}

TEST(Field, IndependentOfThreadsAndEntityOrder) {
  FieldScenario sc = test::seed_setup(200, 500, 8.0f, 3);
  std::unique_ptr<Context> one;
  ContextOptions o;
  o.backend = Backend::Cpu;
  o.cpu_threads = 1;
  ASSERT_TRUE(Context::create(o, one).ok());
  const auto a = build_all(*one, sc.config, FieldVariant::CpuStamp, sc.entities);
  std::reverse(sc.entities.begin(), sc.entities.end());
  const auto b = build_all(warpmind::test::cpu_context(), sc.config, FieldVariant::CpuStamp, sc.entities);
  EXPECT_TRUE(std::memcmp(a[0].data(), b[0].data(), a[0].size() * sizeof(float)) == 0);
}

TEST(Field, BadEntitiesAreRejectedAndLeaveLayersUnchanged) {
  const FieldScenario sc = test::seed_setup(64, 20, 8.0f, 1);
  for (Context* ctx : {&warpmind::test::cpu_context(), warpmind::test::cuda_context()}) {
    if (!ctx) continue;
    FieldConfig cfg = sc.config;
    cfg.variant = ctx->cuda() ? FieldVariant::GpuBinned : FieldVariant::CpuStamp;
    std::unique_ptr<FieldLayers> f;
    ASSERT_TRUE(FieldLayers::create(*ctx, cfg, f).ok());
    ASSERT_TRUE(f->build(sc.entities).ok());
    std::vector<float> before(64 * 64), after(64 * 64);
    ASSERT_TRUE(f->read(0, before).ok());
    std::vector<Entity> bad = sc.entities;
    bad[7].y = NAN;
    Status s = f->build(bad);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
    EXPECT_NE(s.message().find("entity 7"), std::string::npos) << s.message();
    bad = sc.entities;
    bad[3].group = 64;
    EXPECT_NE(f->build(bad).message().find("entity 3"), std::string::npos);
    ASSERT_TRUE(f->read(0, after).ok());
    EXPECT_EQ(before, after);
    EXPECT_FALSE(f->read(1, after).ok());
    std::vector<float> small(10);
    EXPECT_FALSE(f->read(0, small).ok());
  }
}

TEST(Field, CreateRejectsBadConfigs) {
  Context& ctx = warpmind::test::cpu_context();
  const auto err = [&](FieldConfig c) {
    std::unique_ptr<FieldLayers> f;
    Status s = FieldLayers::create(ctx, c, f);
    EXPECT_EQ(s.ok(), f != nullptr);
    return s.ok() ? std::string("ok") : s.message();
  };
  FieldConfig good;
  good.kinds = {circle(4)};
  good.layers = {{"f", {{0, 0}}}};
  EXPECT_EQ(err(good), "ok");
  FieldConfig c = good;
  c.width = 0;
  EXPECT_NE(err(c).find("resolution"), std::string::npos);
  c = good;
  c.world.width = -1;
  EXPECT_NE(err(c).find("world"), std::string::npos);
  c = good;
  c.kinds.clear();
  EXPECT_NE(err(c).find("kinds"), std::string::npos);
  c = good;
  c.layers = {{"f", {{0, 3}}}};
  EXPECT_NE(err(c).find("kind index 3"), std::string::npos);
  c = good;
  c.layers = {{"f", {{70, 0}}}};
  EXPECT_NE(err(c).find("group 70"), std::string::npos);
  c = good;
  c.layers = {{"f", {{1, 0}, {1, 0}}}};
  EXPECT_NE(err(c).find("two rules"), std::string::npos);
  c = good;
  c.layers = {{"f", {}}, {"f", {}}};
  EXPECT_NE(err(c).find("duplicate"), std::string::npos);
  c = good;
  c.kinds = {circle(-3)};
  EXPECT_NE(err(c).find("kinds[0]"), std::string::npos);
  c = good;
  c.width = c.height = 8192;
  c.world = {0, 0, 1, 1};
  EXPECT_NE(err(c).find("cells"), std::string::npos);  // cut-off spans > 4096 cells
  if (!warpmind::test::cuda_context()) {
    c = good;
    c.variant = FieldVariant::GpuBinned;
    std::unique_ptr<FieldLayers> f;
    EXPECT_EQ(FieldLayers::create(ctx, c, f).code(), StatusCode::Unavailable);
  }
}

TEST(Field, AutoVariantFollowsBackend) {
  FieldConfig c;
  c.kinds = {circle(4)};
  c.layers = {{"f", {{0, 0}}}};
  std::unique_ptr<FieldLayers> f;
  ASSERT_TRUE(FieldLayers::create(warpmind::test::cpu_context(), c, f).ok());
  EXPECT_EQ(f->variant(), FieldVariant::CpuStamp);
  EXPECT_EQ(f->device_layer(0).data, nullptr);
  if (Context* g = warpmind::test::cuda_context()) {
    ASSERT_TRUE(FieldLayers::create(*g, c, f).ok());
    EXPECT_EQ(f->variant(), FieldVariant::GpuBinned);
    EXPECT_NE(f->device_layer(0).data, nullptr);
    EXPECT_EQ(f->device_layer(0).stream, g->stream());
  }
}

TEST(Field, VariantNamesRoundTrip) {
  for (FieldVariant v : {FieldVariant::Auto, FieldVariant::CpuNaive, FieldVariant::CpuStamp, FieldVariant::GpuNaive,
                         FieldVariant::GpuCoalesced, FieldVariant::GpuShared, FieldVariant::GpuBinned}) {
    FieldVariant back;
    ASSERT_TRUE(parse_variant(variant_name(v), back));
    EXPECT_EQ(back, v);
  }
  FieldVariant x;
  EXPECT_FALSE(parse_variant("gpu-fastest", x));
}

TEST(Field, BuildDeviceMatchesHostBuild) {
  WM_REQUIRE_GPU();
  Context& ctx = *warpmind::test::cuda_context();
  FieldScenario sc = test::seed_setup(300, 1000, 8.0f, 1, Distribution::Clustered);
  const auto ref = build_all(warpmind::test::cpu_context(), sc.config, FieldVariant::CpuStamp, sc.entities);
  for (FieldVariant v : {FieldVariant::GpuNaive, FieldVariant::GpuShared, FieldVariant::GpuBinned}) {
    sc.config.variant = v;
    std::unique_ptr<FieldLayers> f;
    ASSERT_TRUE(FieldLayers::create(ctx, sc.config, f).ok());
    DeviceBytes d;
    ASSERT_TRUE(d.allocate(ctx, sc.entities.size() * sizeof(Entity)).ok());
    ASSERT_TRUE(d.upload(ctx, sc.entities.data(), sc.entities.size() * sizeof(Entity)).ok());
    ASSERT_TRUE(f->build_device(static_cast<const Entity*>(d.get()), sc.entities.size()).ok());
    std::vector<float> got(ref[0].size());
    ASSERT_TRUE(f->read(0, got).ok());
    EXPECT_TRUE(std::memcmp(got.data(), ref[0].data(), got.size() * sizeof(float)) == 0) << variant_name(v);
  }
}

// build_device_points: fixed records and points with a group byte each, assembled on the device, build
// the field that build() makes of the same entities, bit for bit, also when the point count changes.
TEST(Field, BuildDevicePointsEqualsTheHostBuild) {
  WM_REQUIRE_GPU();
  Context& ctx = *warpmind::test::cuda_context();
  FieldScenario sc = test::seed_setup(256, 900, 10.0f, 1);
  sc.config.kinds.push_back(obstacle(1.0f, -300.0f));
  sc.config.layers[0].rules.push_back({2, 1});
  sc.config.variant = FieldVariant::GpuBinned;
  std::unique_ptr<FieldLayers> f;
  ASSERT_TRUE(FieldLayers::create(ctx, sc.config, f).ok());
  std::vector<Entity> fixed;
  for (int i = 0; i < 40; ++i) fixed.push_back({100.5f + i, 30.5f, 2, 0});
  DeviceBytes dfixed, dpoints, dgroups;
  ASSERT_TRUE(dfixed.allocate(ctx, fixed.size() * sizeof(Entity)).ok());
  ASSERT_TRUE(dfixed.upload(ctx, fixed.data(), fixed.size() * sizeof(Entity)).ok());
  ASSERT_TRUE(dpoints.allocate(ctx, sc.entities.size() * sizeof(Vec2)).ok());
  ASSERT_TRUE(dgroups.allocate(ctx, sc.entities.size()).ok());
  for (std::size_t n : {sc.entities.size(), sc.entities.size() / 3, std::size_t{0}}) {
    std::vector<Vec2> pts;
    std::vector<std::uint8_t> groups;
    std::vector<Entity> all = fixed;
    for (std::size_t i = 0; i < n; ++i) {
      pts.push_back({sc.entities[i].x, sc.entities[i].y});
      groups.push_back(static_cast<std::uint8_t>(sc.entities[i].group));
      all.push_back(sc.entities[i]);
    }
    if (n > 0) {
      ASSERT_TRUE(dpoints.upload(ctx, pts.data(), n * sizeof(Vec2)).ok());
      ASSERT_TRUE(dgroups.upload(ctx, groups.data(), n).ok());
    }
    ASSERT_TRUE(f->build_device_points(static_cast<const Entity*>(dfixed.get()), fixed.size(),
                                       static_cast<const Vec2*>(dpoints.get()),
                                       static_cast<const std::uint8_t*>(dgroups.get()), n)
                    .ok());
    std::vector<float> got(256 * 256);
    ASSERT_TRUE(f->read(0, got).ok());
    const auto ref = build_all(warpmind::test::cpu_context(), sc.config, FieldVariant::CpuStamp, all);
    EXPECT_EQ(0, std::memcmp(got.data(), ref[0].data(), got.size() * sizeof(float))) << n << " points";
  }
  std::unique_ptr<FieldLayers> cpu;
  sc.config.variant = FieldVariant::CpuStamp;
  ASSERT_TRUE(FieldLayers::create(warpmind::test::cpu_context(), sc.config, cpu).ok());
  EXPECT_FALSE(cpu->build_device_points(nullptr, 0, nullptr, nullptr, 0).ok());
}

TEST(Field, RepeatedDeviceBuildsFollowMovingEntities) {
  // Repeated builds from one device buffer are replayed from a captured graph: they must still read
  // the buffer's current contents, and a new count or buffer must rebuild correctly.
  WM_REQUIRE_GPU();
  Context& ctx = *warpmind::test::cuda_context();
  for (FieldVariant v : {FieldVariant::GpuBinned, FieldVariant::GpuShared}) {
    FieldScenario sc = test::seed_setup(256, 800, 12.0f, 1);
    sc.config.variant = v;
    std::unique_ptr<FieldLayers> f;
    ASSERT_TRUE(FieldLayers::create(ctx, sc.config, f).ok());
    DeviceBytes d;
    ASSERT_TRUE(d.allocate(ctx, sc.entities.size() * sizeof(Entity)).ok());
    for (int step = 0; step < 5; ++step) {
      std::size_t n = step == 3 ? sc.entities.size() / 2 : sc.entities.size();  // a count change mid-way
      for (auto& e : sc.entities) e.x = std::fmod(e.x + 3.7f, 256.0f);
      const std::vector<Entity> used(sc.entities.begin(), sc.entities.begin() + static_cast<std::ptrdiff_t>(n));
      ASSERT_TRUE(d.upload(ctx, used.data(), n * sizeof(Entity)).ok());
      ASSERT_TRUE(f->build_device(static_cast<const Entity*>(d.get()), n).ok());
      std::vector<float> got(256 * 256);
      ASSERT_TRUE(f->read(0, got).ok());
      const auto ref = build_all(warpmind::test::cpu_context(), sc.config, FieldVariant::CpuStamp, used);
      EXPECT_EQ(0, std::memcmp(got.data(), ref[0].data(), got.size() * sizeof(float)))
          << variant_name(v) << " step " << step;
    }
  }
}

TEST(Field, CountEvaluationsMatchesBruteForce) {
  for (const FieldCase& c : test::field_cases()) {
    if (!c.naive_reference) continue;
    SCOPED_TRACE(c.name);
    const detail::Grid g = detail::make_grid(c.config);
    std::uint64_t brute = 0;
    std::vector<detail::Instance> inst;
    for (const LayerSpec& l : c.config.layers) {
      detail::make_instances(detail::group_map(l), c.entities, g, inst);
      for (const auto& i : inst)
        for (int y = 0; y < g.height; ++y)
          for (int x = 0; x < g.width; ++x)
            brute += detail::cell_distance(x - i.ix, y - i.iy, g) <= c.config.kinds[i.kind].cutoff();
    }
    EXPECT_EQ(count_evaluations(c.config, c.entities), brute);
  }
}

// Every variant this build and machine can run.
std::vector<FieldVariant> available_variants() {
  std::vector<FieldVariant> v = {FieldVariant::CpuNaive, FieldVariant::CpuStamp};
  if (warpmind::test::cuda_context())
    for (FieldVariant g :
         {FieldVariant::GpuNaive, FieldVariant::GpuCoalesced, FieldVariant::GpuShared, FieldVariant::GpuBinned})
      v.push_back(g);
  return v;
}

TEST(Field, RoundingTiesGoToEven) {
  // Constant charges of exact half steps, one entity each on 1-unit cells (cut-off 0.5: one cell): each
  // cell holds its contribution rounded to a multiple of 2^-10, ties to even, on every variant (the
  // naive GPU variants round on the device, the others through host tables).
  const float half_steps[] = {0.5f, 1.5f, 2.5f, 3.5f, -0.5f, -1.5f, -2.5f, -3.5f, 1000.5f, 1001.5f};
  const float want[] = {0.0f, 2.0f, 2.0f, 4.0f, 0.0f, -2.0f, -2.0f, -4.0f, 1000.0f, 1002.0f};
  FieldConfig c;
  c.world = {0, 0, 32, 4};
  c.width = 32;
  c.height = 4;
  LayerSpec layer{"ties", {}};
  std::vector<Entity> e;
  for (std::uint32_t g = 0; g < std::size(half_steps); ++g) {
    ChargeKind k;
    const ChargeSegment seg{0.5f, 0.0f, half_steps[g] / 1024.0f};
    ASSERT_TRUE(make_charge_kind("tie", std::span(&seg, 1), k).ok());
    c.kinds.push_back(k);
    layer.rules.push_back({g, g});
    e.push_back({2.0f * static_cast<float>(g) + 0.5f, 1.5f, g, 0});
  }
  c.layers = {layer};
  for (FieldVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    const auto f = build_all(*context_for(v), c, v, e);
    ASSERT_EQ(f.size(), 1u);
    for (std::size_t g = 0; g < std::size(half_steps); ++g) {
      EXPECT_EQ(f[0][1 * 32 + 2 * g], want[g] / 1024.0f) << half_steps[g] << " steps";
      EXPECT_EQ(f[0][1 * 32 + 2 * g + 1], 0.0f);  // beyond the cut-off
    }
  }
}

TEST(Field, EntitiesOfGroupsWithoutARuleAreIgnored) {
  // Groups 5 and 63 have no rule in the layer: accepted and contributing nothing. Group 64 is an error.
  FieldConfig c;
  c.world = {0, 0, 32, 32};
  c.width = c.height = 32;
  c.kinds = {circle(4.0f), own_unit(3.0f)};
  c.layers = {{"l", {{0, 0}, {7, 1}}}};  // group 7 has a rule but no entity: fine too
  const std::vector<Entity> only = {{10.5f, 10.5f, 0, 0}};
  const std::vector<Entity> mixed = {{12.0f, 9.0f, 5, 0}, {10.5f, 10.5f, 0, 0}, {11.0f, 11.0f, 63, 0}};
  for (FieldVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    const auto a = build_all(*context_for(v), c, v, only);
    const auto b = build_all(*context_for(v), c, v, mixed);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(a[0], b[0]);
    EXPECT_EQ(b[0][10 * 32 + 10], -37.5f);
    FieldConfig cv = c;
    cv.variant = v;
    std::unique_ptr<FieldLayers> f;
    ASSERT_TRUE(FieldLayers::create(*context_for(v), cv, f).ok());
    std::vector<Entity> bad = mixed;
    bad[2].group = 64;
    const Status s = f->build(bad);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
    EXPECT_EQ(s.message(), "entity 2: group 64 out of range (< 64)");
  }
}

TEST(Field, CircleCellsAtAndBeyondTheRadius) {
  // circle(8) on 1-unit cells: the cell exactly 8 away gets u(8) = -0.0100002289, i.e. -10 * 2^-10; the
  // cells beyond get nothing; one step inside, d = 7: -25 + 3.12375 * 7 = -3.13375 -> -3209 * 2^-10.
  FieldConfig c;
  c.world = {0, 0, 40, 40};
  c.width = c.height = 40;
  c.kinds = {circle(8.0f)};
  c.layers = {{"c", {{0, 0}}}};
  const std::vector<Entity> e = {{20.25f, 20.75f, 0, 0}};
  for (FieldVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    const auto f = build_all(*context_for(v), c, v, e);
    ASSERT_EQ(f.size(), 1u);
    const auto at = [&](int x, int y) { return f[0][static_cast<std::size_t>(y) * 40 + x]; };
    EXPECT_EQ(at(20, 20), -37.5f);
    EXPECT_EQ(at(28, 20), -10.0f / 1024);
    EXPECT_EQ(at(20, 12), -10.0f / 1024);
    EXPECT_EQ(at(29, 20), 0.0f);
    EXPECT_EQ(at(27, 20), -3209.0f / 1024);
  }
}

// max_abs is the largest |value| of the layer as read(), on every variant: a layer with negative values
// only (a repeller), one with both signs, an empty one; a bad layer index is an error.
TEST(Field, MaxAbsIsTheLargestMagnitudeOfTheLayer) {
  FieldConfig c;
  c.world = {0, 0, 64, 64};
  c.width = c.height = 64;
  c.kinds = {circle(8.0f), attack(6.0f)};
  c.layers = {{"repel", {{0, 0}}}, {"mixed", {{0, 0}, {1, 1}}}, {"none", {{2, 0}}}};
  std::vector<Entity> e;
  SplitMix64 rng(5);
  for (int i = 0; i < 60; ++i) e.push_back({rng.uniform(0.0f, 64.0f), rng.uniform(0.0f, 64.0f), rng.below(2), 0});
  for (FieldVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    c.variant = v;
    std::unique_ptr<FieldLayers> f;
    ASSERT_TRUE(FieldLayers::create(*context_for(v), c, f).ok());
    ASSERT_TRUE(f->build(e).ok());
    for (int l = 0; l < 3; ++l) {
      std::vector<float> layer(64 * 64);
      ASSERT_TRUE(f->read(l, layer).ok());
      float want = 0.0f;
      for (float x : layer) want = std::max(want, std::fabs(x));
      float got = -1.0f;
      ASSERT_TRUE(f->max_abs(l, got).ok());
      EXPECT_EQ(got, want) << "layer " << l;
      if (l == 2)
        EXPECT_EQ(got, 0.0f);
      else
        EXPECT_GT(got, 1.0f);
    }
    float x = 0;
    EXPECT_FALSE(f->max_abs(3, x).ok());
    EXPECT_FALSE(f->max_abs(-1, x).ok());
  }
}

}  // namespace
}  // namespace warpmind::field
