// The C API (warpmind/warpmind.h): the same results as the C++ modules behind it, and every bad argument
// — null handles and pointers, wrong counts, out-of-range numbers, malformed text — an error code with a
// message, never a crash, with the handle's state unchanged. Runs on the CPU backend (a GPU changes
// nothing in the contract).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <cstring>
#include <string>
#include <vector>

#include "warpmind/aoi/aoi.h"
#include "warpmind/core/context.h"
#include "warpmind/core/random.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"
#include "warpmind/search/chess.h"
#include "warpmind/warpmind.h"
#include "gpu_helpers.h"

namespace {

struct Handles {
  wm_context* ctx = nullptr;
  ~Handles() { wm_context_destroy(ctx); }
};

wm_context* cpu_context(Handles& h) {
  EXPECT_EQ(wm_context_create(WM_BACKEND_CPU, 2, &h.ctx), WM_OK) << wm_last_error();
  return h.ctx;
}

TEST(CApi, ContextAndBadArguments) {
  EXPECT_STREQ(wm_version(), "0.2.0");
  EXPECT_EQ(wm_context_create(WM_BACKEND_CPU, 0, nullptr), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("out is null"), std::string::npos) << wm_last_error();
  wm_context* ctx = nullptr;
  EXPECT_EQ(wm_context_create(static_cast<wm_backend>(3), 0, &ctx), WM_INVALID_ARGUMENT);  // no such backend
  EXPECT_EQ(ctx, nullptr);
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  EXPECT_EQ(wm_context_uses_gpu(h.ctx), 0);
  EXPECT_EQ(wm_context_uses_gpu(nullptr), 0);
  wm_context_destroy(nullptr);  // accepted
  // Every create with a null context or output.
  wm_field* f = nullptr;
  wm_field_config fc{};
  EXPECT_EQ(wm_field_create(nullptr, &fc, &f), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_field_create(h.ctx, nullptr, &f), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_field_create(h.ctx, &fc, &f), WM_INVALID_ARGUMENT);  // no layers
  EXPECT_EQ(f, nullptr);
  wm_crowd* c = nullptr;
  EXPECT_EQ(wm_crowd_create(nullptr, 0, 0, 10, 10, 0.5f, &c), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_crowd_create(h.ctx, 0, 0, 10, 10, -1.0f, &c), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_crowd_create(h.ctx, 0, 0, NAN, 10, 0.5f, &c), WM_INVALID_ARGUMENT);
  EXPECT_EQ(c, nullptr);
  wm_chess* chess = nullptr;
  EXPECT_EQ(wm_chess_create(h.ctx, 0, 1, &chess), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_chess_create(h.ctx, 16, 0, &chess), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_connect6_create(h.ctx, 0, nullptr), WM_INVALID_ARGUMENT);
  // Calls on null handles.
  wm_vec2 p{1, 1};
  float v = 0;
  wm_search_limits lim{1, 0, 0};
  wm_search_result r{};
  EXPECT_EQ(wm_field_build(nullptr, nullptr, 0), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_field_sample(nullptr, 0, &p, 1, &v), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_crowd_step(nullptr, &p, 1, nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_crowd_positions(nullptr, &p, 1), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_crowd_size(nullptr), 0u);
  EXPECT_EQ(wm_chess_set_position(nullptr, nullptr, nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_chess_search(nullptr, &lim, &r), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_connect6_search(nullptr, &lim, &r), WM_INVALID_ARGUMENT);
  wm_field_destroy(nullptr);
  wm_crowd_destroy(nullptr);
  wm_chess_destroy(nullptr);
  wm_connect6_destroy(nullptr);
}

TEST(CApi, FieldEqualsTheCppModule) {
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  // Two kinds, two layers: layer 0 group 1 attracts, layer 1 group 0 repels.
  const wm_charge_kind kinds[2] = {{2, {1.0f, 60.0f}, {0.0f, -1.0f}, {50.0f, 60.0f}}, {1, {5.0f}, {0.0f}, {-20.0f}}};
  const wm_layer_rule rules[2] = {{0, 1, 0}, {1, 0, 1}};
  const wm_field_config fc{0.0f, 0.0f, 64.0f, 32.0f, 64, 32, kinds, 2, rules, 2, 2};
  wm_field* f = nullptr;
  ASSERT_EQ(wm_field_create(h.ctx, &fc, &f), WM_OK) << wm_last_error();
  const std::vector<wm_entity> entities = {{10.5f, 10.5f, 1}, {30.0f, 20.0f, 0}, {50.0f, 5.0f, 1}};
  ASSERT_EQ(wm_field_build(f, entities.data(), entities.size()), WM_OK) << wm_last_error();

  // The C++ module with the same configuration.
  std::unique_ptr<warpmind::Context> ctx;
  warpmind::ContextOptions o;
  o.backend = warpmind::Backend::Cpu;
  o.quiet = true;
  ASSERT_TRUE(warpmind::Context::create(o, ctx).ok());
  warpmind::field::FieldConfig cfg;
  cfg.world = {0, 0, 64, 32};
  cfg.width = 64;
  cfg.height = 32;
  const warpmind::field::ChargeSegment s0[2] = {{1.0f, 0.0f, 50.0f}, {60.0f, -1.0f, 60.0f}},
                                       s1[1] = {{5.0f, 0.0f, -20.0f}};
  cfg.kinds.resize(2);
  ASSERT_TRUE(warpmind::field::make_charge_kind("a", s0, cfg.kinds[0]).ok());
  ASSERT_TRUE(warpmind::field::make_charge_kind("b", s1, cfg.kinds[1]).ok());
  cfg.layers = {{"l0", {{1, 0}}}, {"l1", {{0, 1}}}};
  std::unique_ptr<warpmind::field::FieldLayers> layers;
  ASSERT_TRUE(warpmind::field::FieldLayers::create(*ctx, cfg, layers).ok());
  const std::vector<warpmind::field::Entity> cpp_entities = {
      {10.5f, 10.5f, 1, 0}, {30.0f, 20.0f, 0, 0}, {50.0f, 5.0f, 1, 0}};
  ASSERT_TRUE(layers->build(cpp_entities).ok());

  std::vector<wm_vec2> points;
  std::vector<warpmind::Vec2> cpp_points;
  for (float y = -3.0f; y < 36.0f; y += 2.7f) {
    for (float x = -3.0f; x < 68.0f; x += 3.1f) {
      points.push_back({x, y});
      cpp_points.push_back({x, y});
    }
  }
  for (uint32_t layer = 0; layer < 2; ++layer) {
    std::vector<float> a(points.size()), b(points.size());
    ASSERT_EQ(wm_field_sample(f, layer, points.data(), points.size(), a.data()), WM_OK);
    ASSERT_TRUE(layers->sample(static_cast<int>(layer), cpp_points, b).ok());
    EXPECT_EQ(a, b);
    std::vector<wm_move> m(points.size());
    std::vector<warpmind::field::MoveChoice> cm(points.size());
    ASSERT_EQ(wm_field_best_move(f, layer, points.data(), points.size(), 5, m.data()), WM_OK);
    ASSERT_TRUE(layers->best_move(static_cast<int>(layer), cpp_points, 5, cm).ok());
    for (std::size_t i = 0; i < m.size(); ++i) {
      EXPECT_EQ(m[i].cell_x, cm[i].cell_x);
      EXPECT_EQ(m[i].cell_y, cm[i].cell_y);
      EXPECT_EQ(m[i].value, cm[i].value);
    }
    std::vector<wm_vec2> g(points.size());
    std::vector<warpmind::Vec2> cg(points.size());
    ASSERT_EQ(wm_field_gradient(f, layer, points.data(), points.size(), g.data()), WM_OK);
    ASSERT_TRUE(layers->gradient(static_cast<int>(layer), cpp_points, cg).ok());
    for (std::size_t i = 0; i < g.size(); ++i) {
      EXPECT_EQ(g[i].x, cg[i].x);
      EXPECT_EQ(g[i].y, cg[i].y);
    }
  }
  // Steering: every point on a layer of its own (2: past the last, so it stays), headings kept where the
  // step is zero.
  {
    std::vector<std::uint8_t> layer_of(points.size());
    for (std::size_t i = 0; i < layer_of.size(); ++i) layer_of[i] = static_cast<std::uint8_t>(i % 3);
    std::vector<wm_vec2> out(points.size());
    std::vector<float> heading(points.size(), 7.0f);
    std::vector<warpmind::Vec2> cpp_out(points.size());
    std::vector<float> cpp_heading(points.size(), 7.0f);
    ASSERT_EQ(wm_field_steer(f, points.data(), layer_of.data(), points.size(), 3, 0.75f, out.data(), heading.data()),
              WM_OK)
        << wm_last_error();
    ASSERT_TRUE(layers->steer(cpp_points, layer_of, 3, 0.75f, cpp_out, cpp_heading).ok());
    std::size_t moved = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i].x, cpp_out[i].x) << i;
      EXPECT_EQ(out[i].y, cpp_out[i].y) << i;
      EXPECT_EQ(heading[i], cpp_heading[i]) << i;
      if (layer_of[i] == 2) {
        EXPECT_TRUE(out[i].x == points[i].x && out[i].y == points[i].y && heading[i] == 7.0f) << i;
      }
      moved += out[i].x != points[i].x || out[i].y != points[i].y;
    }
    EXPECT_GT(moved, points.size() / 3);
    std::vector<wm_vec2> no_heading(points.size());
    ASSERT_EQ(wm_field_steer(f, points.data(), layer_of.data(), points.size(), 3, 0.75f, no_heading.data(), nullptr),
              WM_OK);
    for (std::size_t i = 0; i < out.size(); ++i)
      EXPECT_TRUE(no_heading[i].x == out[i].x && no_heading[i].y == out[i].y);
    // Refused: an even window, a negative or non-finite step, null arrays; nothing written.
    wm_vec2 one = {-1.0f, -1.0f};
    EXPECT_EQ(wm_field_steer(f, points.data(), layer_of.data(), 1, 4, 0.75f, &one, nullptr), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_field_steer(f, points.data(), layer_of.data(), 1, 3, -1.0f, &one, nullptr), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_field_steer(f, points.data(), layer_of.data(), 1, 3, NAN, &one, nullptr), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_field_steer(f, points.data(), nullptr, 1, 3, 0.75f, &one, nullptr), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_field_steer(f, nullptr, layer_of.data(), 1, 3, 0.75f, &one, nullptr), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_field_steer(f, points.data(), layer_of.data(), 1, 3, 0.75f, nullptr, nullptr), WM_INVALID_ARGUMENT);
    EXPECT_TRUE(one.x == -1.0f && one.y == -1.0f);
    EXPECT_EQ(wm_field_steer(f, nullptr, nullptr, 0, 3, 0.75f, nullptr, nullptr), WM_OK);
  }
  // Bad queries and builds: codes, and the layers unchanged.
  float v = 0;
  EXPECT_EQ(wm_field_sample(f, 2, points.data(), 1, &v), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("layer 2 out of range"), std::string::npos) << wm_last_error();
  EXPECT_EQ(wm_field_sample(f, 0, nullptr, 1, &v), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_field_sample(f, 0, points.data(), 1, nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_field_best_move(f, 0, points.data(), 1, 4, nullptr), WM_INVALID_ARGUMENT);
  wm_move mv{};
  EXPECT_EQ(wm_field_best_move(f, 0, points.data(), 1, 4, &mv), WM_INVALID_ARGUMENT);  // even window
  const wm_entity bad[2] = {{1.0f, 1.0f, 1}, {NAN, 2.0f, 0}};
  EXPECT_EQ(wm_field_build(f, bad, 2), WM_INVALID_ARGUMENT);
  const wm_entity bad_group{1.0f, 1.0f, 64};
  EXPECT_EQ(wm_field_build(f, &bad_group, 1), WM_INVALID_ARGUMENT);
  std::vector<float> after(points.size()), cpp(points.size());
  ASSERT_EQ(wm_field_sample(f, 0, points.data(), points.size(), after.data()), WM_OK);
  ASSERT_TRUE(layers->sample(0, cpp_points, cpp).ok());
  EXPECT_EQ(after, cpp);
  EXPECT_EQ(wm_field_sample(f, 0, points.data(), 0, nullptr), WM_OK);  // nothing asked, nothing needed
  // Bad configurations.
  wm_field* g = nullptr;
  wm_field_config bad_cfg = fc;
  bad_cfg.kinds = nullptr;
  EXPECT_EQ(wm_field_create(h.ctx, &bad_cfg, &g), WM_INVALID_ARGUMENT);
  bad_cfg = fc;
  const wm_layer_rule far_rule{5, 0, 0};
  bad_cfg.rules = &far_rule;
  bad_cfg.rule_count = 1;
  EXPECT_EQ(wm_field_create(h.ctx, &bad_cfg, &g), WM_INVALID_ARGUMENT);
  bad_cfg = fc;
  const wm_charge_kind bad_kind{9, {}, {}, {}};
  bad_cfg.kinds = &bad_kind;
  bad_cfg.kind_count = 1;
  EXPECT_EQ(wm_field_create(h.ctx, &bad_cfg, &g), WM_INVALID_ARGUMENT);
  bad_cfg = fc;
  bad_cfg.cells_x = 0;
  EXPECT_EQ(wm_field_create(h.ctx, &bad_cfg, &g), WM_INVALID_ARGUMENT);
  EXPECT_EQ(g, nullptr);
  wm_field_destroy(f);
}

TEST(CApi, CrowdKeepsItsGuaranteesAndRejectsBadInput) {
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  wm_crowd* c = nullptr;
  ASSERT_EQ(wm_crowd_create(h.ctx, 0, 0, 20, 20, 0.5f, &c), WM_OK) << wm_last_error();
  const wm_vec2 start[3] = {{2, 2}, {4, 2}, {6, 2}};
  ASSERT_EQ(wm_crowd_reset(c, start, 3), WM_OK);
  EXPECT_EQ(wm_crowd_size(c), 3u);
  const wm_vec2 overlap[2] = {{2, 2}, {2.5f, 2}};
  EXPECT_EQ(wm_crowd_reset(c, overlap, 2), WM_INVALID_ARGUMENT);  // closer than two radii
  EXPECT_EQ(wm_crowd_size(c), 3u);
  // Agent 0 moves, agent 1 would land on agent 2's target, agent 2 leaves the world.
  const wm_vec2 proposals[3] = {{2, 3}, {6, 3}, {25, 2}};
  wm_crowd_stats st{};
  ASSERT_EQ(wm_crowd_step(c, proposals, 3, &st), WM_OK) << wm_last_error();
  EXPECT_EQ(st.moved + st.stayed + st.out_of_world + st.blocked + st.collisions, 3u);
  EXPECT_EQ(st.out_of_world, 1u);
  wm_vec2 now[3];
  ASSERT_EQ(wm_crowd_positions(c, now, 3), WM_OK);
  EXPECT_EQ(now[0].y, 3.0f);
  EXPECT_EQ(now[2].x, 6.0f);  // stayed
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) EXPECT_GE(std::hypot(now[i].x - now[j].x, now[i].y - now[j].y), 1.0f);
  EXPECT_EQ(wm_crowd_step(c, proposals, 2, &st), WM_INVALID_ARGUMENT);  // wrong count
  EXPECT_NE(std::string(wm_last_error()).find("2 proposals for 3 agents"), std::string::npos) << wm_last_error();
  // A non-finite proposal is that agent's OutOfWorld verdict; the others proceed (here: stay).
  const wm_vec2 nan_prop[3] = {{NAN, 1}, now[1], now[2]};
  ASSERT_EQ(wm_crowd_step(c, nan_prop, 3, &st), WM_OK) << wm_last_error();
  EXPECT_EQ(st.out_of_world, 1u);
  EXPECT_EQ(st.stayed, 2u);
  uint8_t verdicts[3];
  ASSERT_EQ(wm_crowd_verdicts(c, verdicts, 3), WM_OK);
  EXPECT_EQ(verdicts[0], WM_VERDICT_OUT_OF_WORLD);
  wm_vec2 again[3];
  ASSERT_EQ(wm_crowd_positions(c, again, 3), WM_OK);
  EXPECT_EQ(std::memcmp(again, now, sizeof now), 0);  // unchanged by the rejected and the NaN step
  EXPECT_EQ(wm_crowd_positions(c, again, 2), WM_INVALID_ARGUMENT);
  wm_crowd_destroy(c);
}

// wm_aoi_tick_chunked: the notifications of wm_aoi_tick, handed to the sink in order in chunks of whole
// receivers within config.chunk_notifications, every receiver once; none kept in the handle.
namespace {
struct Collected {
  std::vector<wm_notification> notes;
  std::uint32_t next_receiver = 0;
  std::uint64_t next_notification = 0, bound = 0;
  std::size_t chunks = 0;
  bool ordered = true;
};
void collect(const wm_notification_chunk* c, void* user) {
  auto& k = *static_cast<Collected*>(user);
  k.ordered &= c->first_receiver == k.next_receiver && c->first_notification == k.next_notification &&
               c->end_receiver > c->first_receiver && (c->count <= k.bound || c->end_receiver - c->first_receiver == 1);
  for (std::size_t i = 0; i < c->count; ++i)
    k.ordered &= c->notifications[i].receiver >= c->first_receiver && c->notifications[i].receiver < c->end_receiver;
  k.notes.insert(k.notes.end(), c->notifications, c->notifications + c->count);
  k.next_receiver = c->end_receiver;
  k.next_notification += c->count;
  ++k.chunks;
}
}  // namespace

TEST(CApi, AoiChunkedTickHandsEveryNotificationOnce) {
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  wm_aoi_config cfg{};
  cfg.width = cfg.height = 100;
  cfg.aoi = 10;
  cfg.shape = WM_AOI_SQUARE;
  cfg.max_move = 3;
  cfg.attack_range = 10;
  cfg.variant = WM_AOI_CPU_FAST;
  cfg.chunk_notifications = 100;
  wm_aoi *stored = nullptr, *chunked = nullptr;
  ASSERT_EQ(wm_aoi_create(h.ctx, &cfg, &stored), WM_OK) << wm_last_error();
  ASSERT_EQ(wm_aoi_create(h.ctx, &cfg, &chunked), WM_OK) << wm_last_error();
  warpmind::SplitMix64 rng(8);
  const std::size_t n = 500;
  std::vector<wm_player> players(n);
  for (wm_player& p : players)
    p = {static_cast<float>(rng.next() % 9900) / 100.0f, static_cast<float>(rng.next() % 9900) / 100.0f, 50};
  ASSERT_EQ(wm_aoi_reset(stored, players.data(), n), WM_OK);
  ASSERT_EQ(wm_aoi_reset(chunked, players.data(), n), WM_OK);
  for (int tick = 0; tick < 3; ++tick) {
    std::vector<wm_command> cmd(n);
    for (std::size_t i = 0; i < n; ++i) cmd[i] = {static_cast<uint32_t>(i), WM_COMMAND_MOVE, 1.0f, -1.0f, 0, 0};
    wm_aoi_tick_stats a{}, b{};
    ASSERT_EQ(wm_aoi_tick(stored, cmd.data(), n, &a), WM_OK);
    Collected k;
    k.bound = cfg.chunk_notifications;
    ASSERT_EQ(wm_aoi_tick_chunked(chunked, cmd.data(), n, collect, &k, &b), WM_OK) << wm_last_error();
    const wm_notification* want = nullptr;
    std::size_t count = 0;
    ASSERT_EQ(wm_aoi_notifications(stored, &want, &count), WM_OK);
    EXPECT_TRUE(k.ordered);
    EXPECT_EQ(k.next_receiver, n);
    EXPECT_GT(k.chunks, 10u);
    EXPECT_EQ(b.notifications, count);
    ASSERT_EQ(k.notes.size(), count);
    EXPECT_EQ(std::memcmp(k.notes.data(), want, count * sizeof(wm_notification)), 0);
    const wm_notification* none = nullptr;
    std::size_t zero = 1;
    ASSERT_EQ(wm_aoi_notifications(chunked, &none, &zero), WM_OK);
    EXPECT_EQ(zero, 0u);
  }
  EXPECT_EQ(wm_aoi_tick_chunked(chunked, nullptr, 0, nullptr, nullptr, nullptr), WM_INVALID_ARGUMENT);
  wm_aoi_destroy(stored);
  wm_aoi_destroy(chunked);
}

// The AOI world through the C API: the C++ world's notifications, events, counts and players on a random
// world with moves, attacks and invalid commands; bad arguments are errors that change nothing.
TEST(CApi, AoiEqualsTheCppWorld) {
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  wm_aoi_config cfg{};
  cfg.x0 = -50;
  cfg.y0 = 0;
  cfg.width = 200;
  cfg.height = 120;
  cfg.aoi = 12;
  cfg.shape = WM_AOI_CIRCLE;
  cfg.max_move = 5;
  cfg.attack_range = 12;
  cfg.track_visibility = 1;
  cfg.variant = WM_AOI_CPU_FAST;
  wm_aoi* w = nullptr;
  ASSERT_EQ(wm_aoi_create(h.ctx, &cfg, &w), WM_OK) << wm_last_error();

  warpmind::aoi::AoiConfig cc;
  cc.world = {cfg.x0, cfg.y0, cfg.width, cfg.height};
  cc.aoi = cfg.aoi;
  cc.shape = warpmind::aoi::AoiShape::Circle;
  cc.max_move = cfg.max_move;
  cc.attack_range = cfg.attack_range;
  cc.variant = warpmind::aoi::AoiVariant::CpuGrid;  // another variant: the same results
  std::unique_ptr<warpmind::aoi::AoiWorld> ref;
  ASSERT_TRUE(warpmind::aoi::AoiWorld::create(warpmind::test::cpu_context(), cc, ref).ok());

  warpmind::SplitMix64 rng(21);
  const auto uniform = [&](float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(rng.next() >> 40) / static_cast<float>(1 << 24);
  };
  const std::size_t n = 400;
  std::vector<wm_player> players(n);
  std::vector<warpmind::aoi::Player> ref_players(n);
  for (std::size_t i = 0; i < n; ++i) {
    players[i] = {uniform(-50, 149), uniform(0, 119), static_cast<int32_t>(rng.next() % 100)};
    ref_players[i] = {players[i].x, players[i].y, players[i].hp};
  }
  ASSERT_EQ(wm_aoi_reset(w, players.data(), n), WM_OK) << wm_last_error();
  ASSERT_TRUE(ref->reset(ref_players).ok());
  EXPECT_EQ(wm_aoi_size(w), n);
  warpmind::aoi::TickResult want;
  for (int tick = 0; tick < 4; ++tick) {
    std::vector<wm_command> cmd;
    std::vector<warpmind::aoi::Command> ref_cmd;
    for (std::size_t k = 0; k < 600; ++k) {
      wm_command c{};
      c.player = static_cast<uint32_t>(rng.next() % (n + 3));                      // a few unknown players
      c.type = rng.next() % 10 == 0 ? 7u : static_cast<uint32_t>(rng.next() % 2);  // and unknown types
      c.dx = uniform(-6, 6);                                                       // some beyond max_move
      c.dy = uniform(-6, 6);
      c.target = static_cast<uint32_t>(rng.next() % n);
      c.damage = static_cast<int32_t>(rng.next() % 20) - 2;  // some negative
      cmd.push_back(c);
      ref_cmd.push_back({c.player, static_cast<warpmind::aoi::CommandType>(c.type), c.dx, c.dy, c.target, c.damage});
    }
    wm_aoi_tick_stats st{};
    ASSERT_EQ(wm_aoi_tick(w, cmd.data(), cmd.size(), &st), WM_OK) << wm_last_error();
    ASSERT_TRUE(ref->tick(ref_cmd, want).ok());
    EXPECT_EQ(st.accepted, want.accepted);
    for (int r = 0; r < 7; ++r) EXPECT_EQ(st.rejected[r], want.rejected[static_cast<std::size_t>(r)]) << r;
    EXPECT_GT(st.rejected[1], 0u);  // unknown types were there
    EXPECT_EQ(st.updates, want.updates.size());
    const wm_notification* got = nullptr;
    std::size_t count = 0;
    ASSERT_EQ(wm_aoi_notifications(w, &got, &count), WM_OK);
    ASSERT_EQ(count, want.notifications.size());
    EXPECT_EQ(st.notifications, count);
    EXPECT_GT(count, 0u);
    for (std::size_t i = 0; i < count; ++i) {
      const warpmind::aoi::Notification& r = want.notifications[i];
      ASSERT_EQ(got[i].receiver, r.receiver) << i;
      ASSERT_EQ(got[i].subject, r.subject) << i;
      ASSERT_EQ(got[i].field, static_cast<uint32_t>(r.field)) << i;
      ASSERT_EQ(got[i].value, r.value) << i;
    }
    const wm_visibility_event *in = nullptr, *out = nullptr;
    std::size_t n_in = 0, n_out = 0;
    ASSERT_EQ(wm_aoi_visibility(w, &in, &n_in, &out, &n_out), WM_OK);
    ASSERT_EQ(n_in, want.entered.size());
    ASSERT_EQ(n_out, want.left.size());
    for (std::size_t i = 0; i < n_in; ++i)
      ASSERT_TRUE(in[i].receiver == want.entered[i].receiver && in[i].other == want.entered[i].other) << i;
    for (std::size_t i = 0; i < n_out; ++i)
      ASSERT_TRUE(out[i].receiver == want.left[i].receiver && out[i].other == want.left[i].other) << i;
  }
  std::vector<wm_player> now(n);
  ASSERT_EQ(wm_aoi_players(w, now.data(), n), WM_OK);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(now[i].x, ref->players()[i].x) << i;
    EXPECT_EQ(now[i].y, ref->players()[i].y) << i;
    EXPECT_EQ(now[i].hp, ref->players()[i].hp) << i;
  }
  EXPECT_EQ(wm_aoi_value_float(0x3f800000u), 1.0f);
  EXPECT_EQ(wm_aoi_value_int(0xffffffffu), -1);

  // Bad arguments: errors, the world unchanged.
  const wm_player outside[1] = {{500, 0, 10}};
  EXPECT_EQ(wm_aoi_reset(w, outside, 1), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_aoi_size(w), n);
  EXPECT_EQ(wm_aoi_reset(w, nullptr, 3), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_aoi_tick(w, nullptr, 2, nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_aoi_tick(nullptr, nullptr, 0, nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_aoi_players(w, now.data(), n - 1), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_aoi_notifications(w, nullptr, nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_aoi_visibility(nullptr, nullptr, nullptr, nullptr, nullptr), WM_INVALID_ARGUMENT);
  std::vector<wm_player> again(n);
  ASSERT_EQ(wm_aoi_players(w, again.data(), n), WM_OK);
  EXPECT_EQ(std::memcmp(again.data(), now.data(), n * sizeof(wm_player)), 0);
  ASSERT_EQ(wm_aoi_tick(w, nullptr, 0, nullptr), WM_OK);  // an empty batch is a tick
  wm_aoi_destroy(w);

  wm_aoi_config bad = cfg;
  wm_aoi* b = nullptr;
  bad.aoi = 0;
  EXPECT_EQ(wm_aoi_create(h.ctx, &bad, &b), WM_INVALID_ARGUMENT);
  bad = cfg;
  bad.shape = static_cast<wm_aoi_shape>(1);
  bad.variant = WM_AOI_GPU_FAST;  // a GPU variant on a CPU context
  EXPECT_EQ(wm_aoi_create(h.ctx, &bad, &b), WM_UNAVAILABLE);
  // Values a C caller can store but no enumerator has (written as C would, without a C++ enum cast).
  for (const int v : {5, 77, -1}) {
    bad = cfg;
    std::memcpy(&bad.shape, &v, sizeof v);
    EXPECT_EQ(wm_aoi_create(h.ctx, &bad, &b), WM_INVALID_ARGUMENT) << v;
    EXPECT_NE(std::string(wm_last_error()).find("unknown shape"), std::string::npos) << wm_last_error();
    bad = cfg;
    std::memcpy(&bad.variant, &v, sizeof v);
    EXPECT_EQ(wm_aoi_create(h.ctx, &bad, &b), WM_INVALID_ARGUMENT) << v;
    EXPECT_NE(std::string(wm_last_error()).find("unknown variant"), std::string::npos) << wm_last_error();
  }
  bad = cfg;
  bad.variant = static_cast<wm_aoi_variant>(4);
  bad.width = NAN;
  EXPECT_EQ(wm_aoi_create(h.ctx, &bad, &b), WM_INVALID_ARGUMENT);
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(wm_aoi_create(nullptr, &cfg, &b), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_aoi_create(h.ctx, nullptr, &b), WM_INVALID_ARGUMENT);
  wm_aoi_destroy(nullptr);
}

// The region matcher through the C API, 2D and 3D: the brute-force C++ matcher's pairs through adds,
// updates, removals and match_changes; bad arguments are errors.
TEST(CApi, RegionsEqualTheCppMatcher) {
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  for (const int dims : {2, 3}) {
    SCOPED_TRACE("dimensions " + std::to_string(dims));
    wm_regions* r = nullptr;
    ASSERT_EQ(wm_regions_create(h.ctx, dims, WM_DDM_AUTO, 0, &r), WM_OK) << wm_last_error();
    warpmind::SplitMix64 rng(7 + static_cast<std::uint64_t>(dims));
    const auto coord = [&] { return static_cast<float>(rng.next() % 1000) / 10.0f; };
    // Boxes kept here too; the oracle is the half-open test of ddm.h.
    std::vector<std::array<float, 6>> box;
    std::vector<int> kind, alive;
    const auto make = [&](std::array<float, 6>& b) {
      for (int k = 0; k < dims; ++k) {
        const float a = coord(), w = static_cast<float>(rng.next() % 150) / 10.0f;
        b[static_cast<std::size_t>(k)] = a;
        b[static_cast<std::size_t>(k + 3)] = a + w;
      }
    };
    for (int i = 0; i < 300; ++i) {
      std::array<float, 6> b{};
      make(b);
      const wm_region_kind k = i % 2 ? WM_SUBSCRIPTION : WM_PUBLICATION;
      uint32_t id = 99999;
      ASSERT_EQ(wm_regions_add(r, k, b.data(), b.data() + 3, &id), WM_OK) << wm_last_error();
      ASSERT_EQ(id, static_cast<uint32_t>(i));
      box.push_back(b);
      kind.push_back(k);
      alive.push_back(1);
    }
    const auto oracle = [&] {
      std::vector<std::pair<uint32_t, uint32_t>> pairs;
      for (std::size_t p = 0; p < box.size(); ++p)
        for (std::size_t q = 0; q < box.size(); ++q) {
          if (!alive[p] || !alive[q] || kind[p] != WM_PUBLICATION || kind[q] != WM_SUBSCRIPTION) continue;
          bool hit = true;
          for (int k = 0; k < dims; ++k) {
            const float alo = box[p][static_cast<std::size_t>(k)], ahi = box[p][static_cast<std::size_t>(k + 3)];
            const float blo = box[q][static_cast<std::size_t>(k)], bhi = box[q][static_cast<std::size_t>(k + 3)];
            hit = hit && alo < bhi && blo < ahi && alo < ahi && blo < bhi;
          }
          if (hit) pairs.push_back({static_cast<uint32_t>(p), static_cast<uint32_t>(q)});
        }
      return pairs;
    };
    const auto as_pairs = [](const wm_pair* p, std::size_t n) {
      std::vector<std::pair<uint32_t, uint32_t>> v;
      for (std::size_t i = 0; i < n; ++i) v.push_back({p[i].publication, p[i].subscription});
      return v;
    };
    const wm_pair* pairs = nullptr;
    std::size_t count = 0;
    ASSERT_EQ(wm_regions_match(r, &pairs, &count), WM_OK);
    auto before = oracle();
    EXPECT_GT(before.size(), 10u);
    EXPECT_EQ(as_pairs(pairs, count), before);
    EXPECT_EQ(wm_regions_count(r, WM_PUBLICATION), 150u);
    // Moves and removals, then the changes.
    for (int i = 0; i < 40; ++i) {
      const uint32_t id = static_cast<uint32_t>(rng.next() % box.size());
      if (!alive[id]) continue;
      if (i % 4 == 0) {
        ASSERT_EQ(wm_regions_remove(r, id), WM_OK);
        alive[id] = 0;
      } else {
        make(box[id]);
        ASSERT_EQ(wm_regions_update(r, id, box[id].data(), box[id].data() + 3), WM_OK) << wm_last_error();
      }
    }
    const wm_pair *app = nullptr, *dis = nullptr;
    std::size_t n_app = 0, n_dis = 0;
    ASSERT_EQ(wm_regions_match_changes(r, &app, &n_app, &dis, &n_dis), WM_OK) << wm_last_error();
    const auto after = oracle();
    std::vector<std::pair<uint32_t, uint32_t>> want_app, want_dis;
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(want_app));
    std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(want_dis));
    EXPECT_EQ(as_pairs(app, n_app), want_app);
    EXPECT_EQ(as_pairs(dis, n_dis), want_dis);
    EXPECT_GT(n_app + n_dis, 0u);
    // Bad arguments.
    const float nan_lo[3] = {NAN, 0, 0}, lo[3] = {5, 5, 5}, hi[3] = {1, 9, 9};
    uint32_t id = 0;
    EXPECT_EQ(wm_regions_add(r, WM_PUBLICATION, nan_lo, hi, &id), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_regions_add(r, WM_PUBLICATION, lo, hi, &id), WM_INVALID_ARGUMENT);  // lo > hi
    EXPECT_EQ(wm_regions_add(r, static_cast<wm_region_kind>(1), nullptr, hi, &id), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_regions_update(r, 100000, lo, lo), WM_INVALID_ARGUMENT);  // unknown id
    EXPECT_EQ(wm_regions_remove(r, 100000), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_regions_match(r, nullptr, &count), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_regions_match(nullptr, &pairs, &count), WM_INVALID_ARGUMENT);
    ASSERT_EQ(wm_regions_match(r, &pairs, &count), WM_OK);
    EXPECT_EQ(as_pairs(pairs, count), after);  // nothing the rejected calls did
    wm_regions_destroy(r);
  }
  wm_regions* r = nullptr;
  EXPECT_EQ(wm_regions_create(h.ctx, 4, WM_DDM_AUTO, 0, &r), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_regions_create(h.ctx, 2, WM_DDM_GPU_GRID, 0, &r), WM_UNAVAILABLE);
  EXPECT_EQ(wm_regions_create(h.ctx, 2, WM_DDM_CPU_SORT, -1, &r), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_regions_create(h.ctx, 2, static_cast<wm_ddm_variant>(7), 0, &r), WM_INVALID_ARGUMENT);
  EXPECT_EQ(r, nullptr);
  EXPECT_EQ(wm_regions_count(nullptr, WM_PUBLICATION), 0u);
  wm_regions_destroy(nullptr);
}

// wm_regions_update_many against wm_regions_update one region at a time, 2D and 3D: the same changes
// after moving every region, then a shuffled few; bad batches are errors naming the index and change
// nothing; count 0 is fine with null pointers.
TEST(CApi, RegionsUpdateManyEqualsOneByOne) {
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  for (const int dims : {2, 3}) {
    SCOPED_TRACE("dimensions " + std::to_string(dims));
    wm_regions *one = nullptr, *many = nullptr;
    ASSERT_EQ(wm_regions_create(h.ctx, dims, WM_DDM_CPU_SORT, 0, &one), WM_OK) << wm_last_error();
    ASSERT_EQ(wm_regions_create(h.ctx, dims, WM_DDM_CPU_BRUTE, 0, &many), WM_OK) << wm_last_error();
    warpmind::SplitMix64 rng(17 + static_cast<std::uint64_t>(dims));
    const std::size_t n = 400, d = static_cast<std::size_t>(dims);
    std::vector<float> lo(n * d), hi(n * d);
    const auto make = [&](std::size_t i) {
      for (std::size_t k = 0; k < d; ++k) {
        lo[i * d + k] = static_cast<float>(rng.next() % 1000) / 10.0f;
        hi[i * d + k] = lo[i * d + k] + static_cast<float>(rng.next() % 150) / 10.0f;
      }
    };
    for (std::size_t i = 0; i < n; ++i) {
      make(i);
      const wm_region_kind k = i % 2 ? WM_SUBSCRIPTION : WM_PUBLICATION;
      uint32_t a = 0, b = 0;
      ASSERT_EQ(wm_regions_add(one, k, &lo[i * d], &hi[i * d], &a), WM_OK) << wm_last_error();
      ASSERT_EQ(wm_regions_add(many, k, &lo[i * d], &hi[i * d], &b), WM_OK) << wm_last_error();
    }
    const wm_pair *a1 = nullptr, *d1 = nullptr, *a2 = nullptr, *d2 = nullptr;
    std::size_t na1 = 0, nd1 = 0, na2 = 0, nd2 = 0;
    ASSERT_EQ(wm_regions_match_changes(one, &a1, &na1, &d1, &nd1), WM_OK);
    ASSERT_EQ(wm_regions_match_changes(many, &a2, &na2, &d2, &nd2), WM_OK);
    const auto same = [](const wm_pair* x, std::size_t nx, const wm_pair* y, std::size_t ny) {
      if (nx != ny) return false;
      for (std::size_t i = 0; i < nx; ++i)
        if (x[i].publication != y[i].publication || x[i].subscription != y[i].subscription) return false;
      return true;
    };
    EXPECT_TRUE(same(a1, na1, a2, na2));
    EXPECT_GT(na1, 10u);
    std::vector<uint32_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<uint32_t>(i);
    for (int step = 0; step < 2; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      std::vector<uint32_t> batch = ids;
      if (step == 1) {  // a shuffled few
        for (std::size_t i = batch.size(); i > 1; --i) std::swap(batch[i - 1], batch[rng.next() % i]);
        batch.resize(30);
      }
      std::vector<float> blo, bhi;
      for (uint32_t id : batch) {
        make(id);
        ASSERT_EQ(wm_regions_update(one, id, &lo[id * d], &hi[id * d]), WM_OK) << wm_last_error();
        blo.insert(blo.end(), lo.begin() + id * d, lo.begin() + (id + 1) * d);
        bhi.insert(bhi.end(), hi.begin() + id * d, hi.begin() + (id + 1) * d);
      }
      ASSERT_EQ(wm_regions_update_many(many, batch.data(), batch.size(), blo.data(), bhi.data()), WM_OK)
          << wm_last_error();
      ASSERT_EQ(wm_regions_match_changes(one, &a1, &na1, &d1, &nd1), WM_OK);
      ASSERT_EQ(wm_regions_match_changes(many, &a2, &na2, &d2, &nd2), WM_OK);
      EXPECT_TRUE(same(a1, na1, a2, na2));
      EXPECT_TRUE(same(d1, nd1, d2, nd2));
      EXPECT_GT(na1 + nd1, 0u);
    }
    // Bad batches: each names its first offending index and changes nothing.
    std::vector<float> blo(lo.begin(), lo.begin() + 3 * d), bhi(lo.begin(), lo.begin() + 3 * d);
    for (std::size_t k = 0; k < 3 * d; ++k) bhi[k] = blo[k] + 50;  // three boxes that would add pairs
    const auto rejected = [&](std::vector<uint32_t> batch, std::vector<float> l, std::vector<float> u,
                              const char* expect) {
      SCOPED_TRACE(expect);
      EXPECT_EQ(wm_regions_update_many(many, batch.data(), batch.size(), l.data(), u.data()), WM_INVALID_ARGUMENT);
      EXPECT_NE(std::string(wm_last_error()).find(expect), std::string::npos) << wm_last_error();
      ASSERT_EQ(wm_regions_match_changes(many, &a2, &na2, &d2, &nd2), WM_OK);
      EXPECT_EQ(na2 + nd2, 0u);
    };
    rejected({0, 1, 99999}, blo, bhi, "batch index 2: unknown region 99999");
    rejected({0, 1, 0}, blo, bhi, "batch index 2: region 0 is also at batch index 0");
    std::vector<float> nan_lo = blo;
    nan_lo[d] = NAN;
    rejected({0, 1, 2}, nan_lo, bhi, "batch index 1 (region 1)");
    std::vector<float> low_hi = bhi;
    low_hi[0] = blo[0] - 1;
    rejected({4, 5, 6}, blo, low_hi, "batch index 0 (region 4): lo > hi on axis 0");
    ASSERT_EQ(wm_regions_remove(many, 2), WM_OK);
    ASSERT_EQ(wm_regions_match_changes(many, &a2, &na2, &d2, &nd2), WM_OK);
    rejected({0, 1, 2}, blo, bhi, "batch index 2: region 2 was removed");
    // Null pointers: an error unless count is 0.
    const uint32_t one_id = 0;
    EXPECT_EQ(wm_regions_update_many(many, nullptr, 1, blo.data(), bhi.data()), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_regions_update_many(many, &one_id, 1, nullptr, bhi.data()), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_regions_update_many(nullptr, &one_id, 1, blo.data(), bhi.data()), WM_INVALID_ARGUMENT);
    EXPECT_EQ(wm_regions_update_many(many, nullptr, 0, nullptr, nullptr), WM_OK);
    ASSERT_EQ(wm_regions_match_changes(many, &a2, &na2, &d2, &nd2), WM_OK);
    EXPECT_EQ(na2 + nd2, 0u);
    wm_regions_destroy(one);
    wm_regions_destroy(many);
  }
}

TEST(CApi, ChessAndConnect6Engines) {
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  wm_chess* chess = nullptr;
  ASSERT_EQ(wm_chess_create(h.ctx, 16, 1, &chess), WM_OK);
  wm_search_limits lim{4, 0, 0};
  wm_search_result r{};
  ASSERT_EQ(wm_chess_set_position(chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", nullptr), WM_OK);
  ASSERT_EQ(wm_chess_search(chess, &lim, &r), WM_OK) << wm_last_error();
  EXPECT_STREQ(r.move, "a1a8");  // mate in one
  EXPECT_GT(r.score, 30000);
  EXPECT_GT(r.nodes, 0u);
  // A bad FEN or an illegal move changes nothing: the mate is still found.
  EXPECT_EQ(wm_chess_set_position(chess, "8/8/8 w - - 0 1", nullptr), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()), "");
  EXPECT_EQ(wm_chess_set_position(chess, nullptr, "e2e4 e7e5 e1e3"), WM_INVALID_ARGUMENT);
  ASSERT_EQ(wm_chess_search(chess, &lim, &r), WM_OK);
  EXPECT_STREQ(r.move, "a1a8");
  // From the start with moves; every answer legal.
  ASSERT_EQ(wm_chess_set_position(chess, nullptr, "e2e4 e7e5 g1f3"), WM_OK);
  ASSERT_EQ(wm_chess_search(chess, &lim, &r), WM_OK);
  warpmind::search::chess::Position p;
  ASSERT_TRUE(warpmind::search::chess::parse_fen(warpmind::search::chess::kStartFen, p).ok());
  for (const char* m : {"e2e4", "e7e5", "g1f3"}) {
    warpmind::search::chess::Move mv;
    ASSERT_TRUE(warpmind::search::chess::parse_uci_move(p, m, mv).ok());
    warpmind::search::chess::Undo u;
    warpmind::search::chess::make_move(p, mv, u);
  }
  warpmind::search::chess::Move answer;
  EXPECT_TRUE(warpmind::search::chess::parse_uci_move(p, r.move, answer).ok()) << r.move;
  // Mate on the board: no move.
  ASSERT_EQ(wm_chess_set_position(chess, "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", nullptr), WM_OK);
  ASSERT_EQ(wm_chess_search(chess, &lim, &r), WM_OK);
  EXPECT_STREQ(r.move, "");
  lim.depth = 99;
  EXPECT_EQ(wm_chess_search(chess, &lim, &r), WM_INVALID_ARGUMENT);
  lim = {0, -5, 0};
  EXPECT_EQ(wm_chess_search(chess, &lim, &r), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_chess_search(chess, nullptr, &r), WM_INVALID_ARGUMENT);
  // The evaluation: switching to the classical one, then a bad file, changes nothing more: the search is
  // a fresh classical engine's, node for node.
  ASSERT_EQ(wm_chess_set_position(chess, nullptr, "e2e4"), WM_OK);
  lim = {5, 0, 0};
  wm_search_result with_network{}, classical{}, fresh{};
  ASSERT_EQ(wm_chess_search(chess, &lim, &with_network), WM_OK);
  ASSERT_EQ(wm_chess_set_evaluation(chess, 0, nullptr), WM_OK);
  EXPECT_EQ(wm_chess_set_evaluation(chess, 1, "/nonexistent/net.wmn"), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("net.wmn"), std::string::npos) << wm_last_error();
  EXPECT_EQ(wm_chess_set_evaluation(chess, 2, nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_chess_set_evaluation(nullptr, 1, nullptr), WM_INVALID_ARGUMENT);
  ASSERT_EQ(wm_chess_search(chess, &lim, &classical), WM_OK);
  wm_chess* other = nullptr;
  ASSERT_EQ(wm_chess_create(h.ctx, 16, 1, &other), WM_OK);
  ASSERT_EQ(wm_chess_set_evaluation(other, 0, nullptr), WM_OK);
  ASSERT_EQ(wm_chess_set_position(other, nullptr, "e2e4"), WM_OK);
  ASSERT_EQ(wm_chess_search(other, &lim, &fresh), WM_OK);
  EXPECT_EQ(classical.nodes, fresh.nodes);
  EXPECT_EQ(classical.score, fresh.score);
  EXPECT_NE(with_network.nodes, fresh.nodes);  // the built-in network searches differently
  wm_chess_destroy(other);
  wm_chess_destroy(chess);

  wm_connect6* c6 = nullptr;
  ASSERT_EQ(wm_connect6_create(h.ctx, 1, &c6), WM_OK);
  lim = {2, 0, 0};
  ASSERT_EQ(wm_connect6_search(c6, &lim, &r), WM_OK) << wm_last_error();
  EXPECT_STREQ(r.move, "JJ");  // Black opens in the centre
  // White must block both ends of Black's five in a row (JJ..NJ), its own stones in the corners.
  ASSERT_EQ(wm_connect6_set_position(c6, "JJ AASS KJLJ ASSA MJNJ"), WM_OK) << wm_last_error();
  ASSERT_EQ(wm_connect6_search(c6, &lim, &r), WM_OK);
  const std::string turn = r.move;
  EXPECT_TRUE(turn == "IJOJ" || turn == "OJIJ") << turn;
  EXPECT_EQ(wm_connect6_set_position(c6, "JJ JJKK"), WM_INVALID_ARGUMENT);  // JJ taken: board unchanged
  EXPECT_NE(std::string(wm_last_error()).find("JJKK"), std::string::npos) << wm_last_error();
  EXPECT_EQ(wm_connect6_set_position(c6, "ZZZ"), WM_INVALID_ARGUMENT);
  ASSERT_EQ(wm_connect6_search(c6, &lim, &r), WM_OK);
  EXPECT_EQ(std::string(r.move), turn);  // the same board as before the bad calls
  lim.depth = 21;
  EXPECT_EQ(wm_connect6_search(c6, &lim, &r), WM_INVALID_ARGUMENT);
  wm_connect6_destroy(c6);
}

}  // namespace

namespace {

// wm_tables_search over `positions` on `ctx`; the results, or an empty list after a failure.
std::vector<wm_search_result> search_tables(wm_context* ctx, wm_game game, int width,
                                            const std::vector<const char*>& positions, int depth) {
  wm_tables* t = nullptr;
  EXPECT_EQ(wm_tables_create(ctx, game, width, &t), WM_OK) << wm_last_error();
  std::vector<wm_search_result> r(positions.size());
  std::uint64_t nodes = 0;
  const wm_status s = wm_tables_search(t, positions.data(), positions.size(), depth, r.data(), &nodes);
  EXPECT_EQ(s, WM_OK) << wm_last_error();
  EXPECT_GE(nodes, positions.size());
  wm_tables_destroy(t);
  if (s != WM_OK) r.clear();
  return r;
}

const std::vector<const char*> kTableFens = {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                                             "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",  // mate in one
                                             "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",        // stalemated: no move
                                             "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"};
const std::vector<const char*> kTableTurns = {"", "JJ", "JJ KKLL", "JJ KKLL IIHH"};

}  // namespace

TEST(CApi, TablesSearchManyPositionsAndRefuseBadOnes) {
  Handles h;
  ASSERT_NE(cpu_context(h), nullptr);
  const std::vector<wm_search_result> r = search_tables(h.ctx, WM_GAME_CHESS, 0, kTableFens, 3);
  ASSERT_EQ(r.size(), kTableFens.size());
  EXPECT_STREQ(r[1].move, "a1a8");
  EXPECT_GT(r[1].score, 30000);
  EXPECT_STREQ(r[2].move, "");  // stalemate: the game is over, drawn
  EXPECT_EQ(r[2].score, 0);
  EXPECT_EQ(r[0].depth, 3);
  const std::vector<wm_search_result> c6 = search_tables(h.ctx, WM_GAME_CONNECT6, 8, kTableTurns, 2);
  ASSERT_EQ(c6.size(), kTableTurns.size());
  for (std::size_t i = 0; i < c6.size(); ++i)  // Black opens with one stone, then two stones a turn
    EXPECT_EQ(std::strlen(c6[i].move), i == 0 ? 2u : 4u) << c6[i].move;
  // Bad arguments: codes and messages, nothing written.
  wm_tables* t = nullptr;
  EXPECT_EQ(wm_tables_create(h.ctx, static_cast<wm_game>(7), 8, &t), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_tables_create(h.ctx, WM_GAME_CONNECT6, 0, &t), WM_INVALID_ARGUMENT);
  ASSERT_EQ(wm_tables_create(h.ctx, WM_GAME_CHESS, 0, &t), WM_OK);
  std::vector<const char*> bad = kTableFens;
  bad[2] = "8/8/8 w - - 0 1";
  std::vector<wm_search_result> out(bad.size());
  out[0].score = 4321;
  EXPECT_EQ(wm_tables_search(t, bad.data(), bad.size(), 2, out.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("positions[2]"), std::string::npos) << wm_last_error();
  EXPECT_EQ(out[0].score, 4321);
  bad[2] = nullptr;
  EXPECT_EQ(wm_tables_search(t, bad.data(), bad.size(), 2, out.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_tables_search(t, kTableFens.data(), kTableFens.size(), 0, out.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_tables_search(t, kTableFens.data(), kTableFens.size(), 17, out.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_tables_search(t, nullptr, 2, 2, out.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_tables_search(t, nullptr, 0, 2, nullptr, nullptr), WM_OK);
  EXPECT_EQ(wm_tables_search(nullptr, kTableFens.data(), 1, 2, out.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(out[0].score, 4321);
  wm_tables_destroy(t);
}

TEST(CApi, TablesOnTheGpuEqualTheCpu) {
  WM_REQUIRE_GPU();
  Handles cpu, gpu;
  ASSERT_NE(cpu_context(cpu), nullptr);
  ASSERT_EQ(wm_context_create(WM_BACKEND_CUDA, 0, &gpu.ctx), WM_OK) << wm_last_error();
  for (int depth = 1; depth <= 4; ++depth) {
    const auto a = search_tables(cpu.ctx, WM_GAME_CHESS, 0, kTableFens, depth);
    const auto b = search_tables(gpu.ctx, WM_GAME_CHESS, 0, kTableFens, depth);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_STREQ(a[i].move, b[i].move) << "chess depth " << depth << " position " << i;
      EXPECT_EQ(a[i].score, b[i].score);
    }
  }
  const auto a = search_tables(cpu.ctx, WM_GAME_CONNECT6, 8, kTableTurns, 2);
  const auto b = search_tables(gpu.ctx, WM_GAME_CONNECT6, 8, kTableTurns, 2);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_STREQ(a[i].move, b[i].move) << "connect6 position " << i;
    EXPECT_EQ(a[i].score, b[i].score);
  }
}
