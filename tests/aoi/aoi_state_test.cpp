// AOI save and restore (aoi.h): a world saved mid-game and restored on any variant continues bit for bit
// (players, updates, notifications and visibility events), and hostile bytes are refused with nothing
// changed.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gpu_helpers.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/warpmind.h"

namespace warpmind::aoi {
namespace {

constexpr AoiVariant kVariants[] = {AoiVariant::CpuGrid, AoiVariant::CpuFast, AoiVariant::GpuSorted,
                                    AoiVariant::GpuFast};

bool is_gpu(AoiVariant v) { return v == AoiVariant::GpuSorted || v == AoiVariant::GpuFast; }

std::unique_ptr<AoiWorld> make(AoiConfig c, AoiVariant v) {
  Context* ctx = is_gpu(v) ? test::cuda_context() : &test::cpu_context();
  if (!ctx) return nullptr;
  c.variant = v;
  std::unique_ptr<AoiWorld> w;
  EXPECT_TRUE(AoiWorld::create(*ctx, c, w).ok());
  return w;
}

// What a tick shows: players, updates, notifications and visibility changes, as raw bytes.
std::vector<std::uint8_t> seen(const AoiWorld& w, const TickResult& r) {
  std::vector<std::uint8_t> b;
  auto put = [&](const auto& v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
    b.insert(b.end(), p, p + v.size() * sizeof(v[0]));
  };
  put(w.players());
  put(r.updates);
  put(r.notifications);
  put(r.entered);
  put(r.left);
  return b;
}

AoiConfig config(AoiShape shape) {
  AoiConfig c;
  c.world = {-50, 10, 400, 300};
  c.aoi = 25;
  c.shape = shape;
  c.max_move = 8;
  c.attack_range = 30;
  return c;
}

TEST(AoiState, SaveAndRestoreContinueBitForBit) {
  for (AoiShape shape : {AoiShape::Square, AoiShape::Circle}) {
    const AoiConfig c = config(shape);
    CommandSpec spec;
    spec.attack_share = 0.3f;
    spec.seed = 7;
    std::vector<Command> cmds;
    for (AoiVariant from : kVariants) {
      if (is_gpu(from) && !test::cuda_context()) continue;
      auto a = make(c, from);
      ASSERT_NE(a, nullptr);
      ASSERT_TRUE(a->reset(generate_players(600, c.world, 3, 11)).ok());
      TickResult r;
      for (int t = 0; t < 4; ++t) {
        make_commands(spec, c, test::cpu_context().pool(), 600, t, cmds);
        ASSERT_TRUE(a->tick(cmds, r).ok());
      }
      std::vector<std::uint8_t> saved;
      ASSERT_TRUE(a->save(saved).ok());
      ASSERT_EQ(saved.size(), 64u + 12u * 600u);
      std::vector<std::vector<std::uint8_t>> after;  // the original's next ticks
      for (int t = 4; t < 8; ++t) {
        make_commands(spec, c, test::cpu_context().pool(), 600, t, cmds);
        ASSERT_TRUE(a->tick(cmds, r).ok());
        after.push_back(seen(*a, r));
      }
      for (AoiVariant to : kVariants) {
        if (is_gpu(to) && !test::cuda_context()) continue;
        SCOPED_TRACE(std::string(variant_name(from)) + " -> " + variant_name(to));
        auto b = make(c, to);
        ASSERT_TRUE(b->reset(generate_players(10, c.world, 0, 3)).ok());  // other players, replaced
        ASSERT_TRUE(b->restore(saved).ok());
        std::vector<std::uint8_t> again;
        ASSERT_TRUE(b->save(again).ok());
        EXPECT_EQ(again, saved);
        for (int t = 4; t < 8; ++t) {
          make_commands(spec, c, test::cpu_context().pool(), 600, t, cmds);
          ASSERT_TRUE(b->tick(cmds, r).ok());
          EXPECT_EQ(seen(*b, r), after[t - 4]) << "tick " << t;
        }
      }
    }
  }
}

TEST(AoiState, RestoreRefusesBadBytesAndChangesNothing) {
  const AoiConfig c = config(AoiShape::Circle);
  auto a = make(c, AoiVariant::CpuFast);
  ASSERT_TRUE(a->reset(generate_players(50, c.world, 0, 5)).ok());
  std::vector<std::uint8_t> good;
  ASSERT_TRUE(a->save(good).ok());
  auto target = make(c, AoiVariant::CpuFast);
  ASSERT_TRUE(target->reset(generate_players(20, c.world, 0, 9)).ok());
  std::vector<std::uint8_t> before;
  ASSERT_TRUE(target->save(before).ok());
  const auto refused = [&](const std::vector<std::uint8_t>& b, const char* why) {
    const Status e = target->restore(b);
    EXPECT_EQ(e.code(), StatusCode::InvalidArgument) << why;
    EXPECT_EQ(e.message().rfind("restore: ", 0), 0u) << e.message();
    std::vector<std::uint8_t> now;
    ASSERT_TRUE(target->save(now).ok());
    EXPECT_EQ(now, before) << why;
  };
  const auto put = [](std::vector<std::uint8_t>& b, std::size_t at, auto v) { std::memcpy(&b[at], &v, 4); };
  refused({}, "empty");
  refused(std::vector<std::uint8_t>(good.begin(), good.end() - 1), "short");
  auto b = good;
  b.push_back(0);
  refused(b, "long");
  b = good;
  b[1] = 'X';
  refused(b, "magic");
  b = good;
  b[8] = 2;
  refused(b, "format");
  b = good;
  b[12] = 1;
  refused(b, "reserved");
  b = good;
  put(b, 16, 0u);  // the shape: square
  refused(b, "config");
  b = good;
  put(b, 28 + 16, 26.0f);  // the aoi
  refused(b, "aoi");
  b = good;
  b[63] = 0x80;  // a count of 2^63 + 50
  refused(b, "count");
  b = good;
  put(b, 64, std::numeric_limits<float>::quiet_NaN());
  refused(b, "not finite");
  b = good;
  put(b, 64, 350.0f);  // x0 + width
  refused(b, "outside");
  b = good;
  put(b, 64 + 8, -1);
  refused(b, "negative HP");
  // Random damage: refused or, when it still reads as a valid state, restored whole.
  std::mt19937 rng(1);
  for (int i = 0; i < 300; ++i) {
    b = good;
    b[rng() % b.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    auto w = make(c, AoiVariant::CpuFast);
    ASSERT_TRUE(w->reset({}).ok());
    const Status s = w->restore(b);
    std::vector<std::uint8_t> now;
    ASSERT_TRUE(w->save(now).ok());
    if (s.ok())
      EXPECT_EQ(now, b);
    else
      EXPECT_EQ(now.size(), 64u) << "a refused restore left players behind";
  }
  // A world of another config refuses a good save; an empty world saves and restores.
  AoiConfig other = c;
  other.track_visibility = false;
  auto o = make(other, AoiVariant::CpuFast);
  EXPECT_EQ(o->restore(good).code(), StatusCode::InvalidArgument);
  ASSERT_TRUE(o->reset({}).ok());
  std::vector<std::uint8_t> empty;
  ASSERT_TRUE(o->save(empty).ok());
  EXPECT_EQ(empty.size(), 64u);
  EXPECT_TRUE(o->restore(empty).ok());
}

// The C API saves the same bytes as the C++ world and restores them; bad bytes are an error code.
TEST(AoiState, CApiSavesTheSameBytes) {
  const AoiConfig c = config(AoiShape::Square);
  auto cpp = make(c, AoiVariant::CpuFast);
  const std::vector<Player> players = generate_players(40, c.world, 1, 4);
  ASSERT_TRUE(cpp->reset(players).ok());
  std::vector<std::uint8_t> want;
  ASSERT_TRUE(cpp->save(want).ok());
  wm_context* ctx = nullptr;
  ASSERT_EQ(wm_context_create(WM_BACKEND_CPU, 2, &ctx), WM_OK);
  wm_aoi_config wc{};
  wc.x0 = c.world.x0, wc.y0 = c.world.y0, wc.width = c.world.width, wc.height = c.world.height;
  wc.aoi = c.aoi, wc.shape = WM_AOI_SQUARE, wc.max_move = c.max_move, wc.attack_range = c.attack_range;
  wc.track_visibility = 1;
  wm_aoi* a = nullptr;
  ASSERT_EQ(wm_aoi_create(ctx, &wc, &a), WM_OK) << wm_last_error();
  EXPECT_EQ(wm_aoi_restore(a, want.data(), want.size()), WM_OK) << wm_last_error();
  const std::uint8_t* got = nullptr;
  std::size_t size = 0;
  ASSERT_EQ(wm_aoi_save(a, &got, &size), WM_OK);
  EXPECT_EQ(std::vector<std::uint8_t>(got, got + size), want);
  std::vector<std::uint8_t> bad = want;
  bad[12] = 7;
  EXPECT_EQ(wm_aoi_restore(a, bad.data(), bad.size()), WM_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(wm_last_error()).rfind("restore: ", 0), 0u) << wm_last_error();
  EXPECT_EQ(wm_aoi_restore(a, nullptr, 5), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_aoi_save(a, nullptr, &size), WM_INVALID_ARGUMENT);
  ASSERT_EQ(wm_aoi_save(a, &got, &size), WM_OK);
  EXPECT_EQ(std::vector<std::uint8_t>(got, got + size), want) << "a refused restore changed the world";
  wm_aoi_destroy(a);
  wm_context_destroy(ctx);
}

}  // namespace
}  // namespace warpmind::aoi
