// The C API (warpmind/warpmind.h): the same results as the C++ modules behind it, and every bad argument
// — null handles and pointers, wrong counts, out-of-range numbers, malformed text — an error code with a
// message, never a crash, with the handle's state unchanged. Runs on the CPU backend (a GPU changes
// nothing in the contract).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"
#include "warpmind/search/chess.h"
#include "warpmind/warpmind.h"

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
  const wm_vec2 nan_prop[3] = {{NAN, 1}, {1, 1}, {1, 1}};
  EXPECT_EQ(wm_crowd_step(c, nan_prop, 3, &st), WM_INVALID_ARGUMENT);
  wm_vec2 again[3];
  ASSERT_EQ(wm_crowd_positions(c, again, 3), WM_OK);
  EXPECT_EQ(std::memcmp(again, now, sizeof now), 0);  // unchanged by the rejected steps
  EXPECT_EQ(wm_crowd_positions(c, again, 2), WM_INVALID_ARGUMENT);
  wm_crowd_destroy(c);
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
