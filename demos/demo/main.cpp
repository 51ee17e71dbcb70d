// warpmind-demo — the library at work: two armies steer over live potential-field layers (enemies
// attract up to weapon range, friends and walls repel), every move goes through the collision-checked
// crowd solver, and the frames are rendered by the engine. This first version runs headless: it writes
// PNG frames and a stats summary (the windowed ImGui front end comes with the engine issue).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "../common/args.h"
#include "warpmind/core/context.h"
#include "warpmind/core/random.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/engine/image.h"
#include "warpmind/engine/renderer.h"
#include "warpmind/field/field.h"

namespace {

using namespace warpmind;
using Clock = std::chrono::steady_clock;

constexpr const char* kHelp =
    "usage: warpmind-demo --headless [options]\n"
    "\n"
    "Two armies on a 128 x 128 map with walls: potential-field layers per team, best-neighbour moves,\n"
    "collision-checked crowd movement, rendered offscreen to PNG.\n"
    "\n"
    "  --headless        render offscreen (required for now)\n"
    "  --frames N        frames to write (default 10)       --ticks-per-frame K   (default 5)\n"
    "  --out DIR         where frame-NNNN.png and stats.json go (default out/demo)\n"
    "  --units N         units per army (default 600)\n"
    "  --size WxH        image size (default 768x768)\n"
    "  --backend B       cpu | cuda | auto (default auto)\n"
    "  --seed N          (default 1)\n";

int bad(const std::string& why) {
  std::fprintf(stderr, "warpmind-demo: %s\n", why.c_str());
  return 2;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  demos::Args args(argc, argv, 1, {"frames", "ticks-per-frame", "out", "units", "size", "backend", "seed"},
                   {"headless", "help"});
  if (!args.error().empty()) return bad(args.error());
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (!args.has("headless")) return bad("only --headless is available in this version (see --help)");
  const int frames = static_cast<int>(args.integer("frames", 10, 1, 100000));
  const int per_frame = static_cast<int>(args.integer("ticks-per-frame", 5, 1, 1000));
  const auto units = static_cast<std::size_t>(args.integer("units", 600, 1, 50000));
  const auto seed = static_cast<std::uint64_t>(args.integer("seed", 1, 0, INT64_MAX));
  int img_w = 768, img_h = 768;
  if (args.has("size") && (std::sscanf(args.str("size").c_str(), "%dx%d", &img_w, &img_h) != 2 || img_w < 16 ||
                           img_h < 16 || img_w > 8192 || img_h > 8192))
    return bad("--size: expected WxH between 16 and 8192");
  ContextOptions co;
  if (!parse_backend(args.str("backend", "auto"), co.backend)) return bad("--backend: expected cpu, cuda or auto");
  if (!args.error().empty()) return bad(args.error());
  const std::string out = args.str("out", "out/demo");
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return bad("--out: cannot create '" + out + "'");

  std::unique_ptr<Context> ctx;
  Status st = Context::create(co, ctx);
  if (!st.ok()) return bad(st.message());

  // The map: 128 x 128 world units, walls as blocked 1-unit cells.
  constexpr int kMap = 128;
  const WorldRect world{0, 0, kMap, kMap};
  crowd::CrowdConfig cc;
  cc.world = world;
  cc.radius = 0.5f;
  cc.rule = crowd::CrowdRule::LowestIdWins;
  cc.obstacles.width = cc.obstacles.height = kMap;
  cc.obstacles.blocked.assign(kMap * kMap, 0);
  std::vector<field::Entity> walls;
  const auto wall = [&](int x0, int y0, int x1, int y1) {
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        cc.obstacles.blocked[y * kMap + x] = 1;
        walls.push_back({x + 0.5f, y + 0.5f, 2, 0});
      }
  };
  wall(62, 10, 65, 50);
  wall(62, 78, 65, 118);
  wall(30, 62, 45, 65);
  wall(82, 62, 97, 65);

  // Two armies on jittered lattices on opposite sides.
  SplitMix64 rng(seed);
  std::vector<Vec2> pos;
  std::vector<int> team;
  for (int t = 0; t < 2; ++t) {
    const float x0 = t == 0 ? 6.0f : 90.0f;
    const int cols = 30;
    for (std::size_t k = 0; k < units; ++k) {
      const float x = x0 + 1.2f * static_cast<float>(k % cols) + rng.uniform(-0.05f, 0.05f);
      const float y = 30.0f + 1.2f * static_cast<float>(k / cols) + rng.uniform(-0.05f, 0.05f);
      if (y >= kMap - 1 || cc.obstacles.blocked[static_cast<int>(y) * kMap + static_cast<int>(x)]) continue;
      pos.push_back({x, y});
      team.push_back(t);
    }
  }
  std::unique_ptr<crowd::CrowdSolver> solver;
  st = crowd::CrowdSolver::create(*ctx, cc, solver);
  if (st.ok()) st = solver->reset(pos);
  if (!st.ok()) return bad(st.message());

  field::FieldConfig fc;
  fc.world = world;
  fc.width = fc.height = 256;
  fc.kinds = {field::attack(6.0f, 100.0f, 60.0f), field::own_unit(1.5f), field::obstacle(1.0f, -300.0f)};
  fc.layers = {{"team0", {{1, 0}, {0, 1}, {2, 2}}}, {"team1", {{0, 0}, {1, 1}, {2, 2}}}};
  std::unique_ptr<field::FieldLayers> layers;
  st = field::FieldLayers::create(*ctx, fc, layers);
  if (!st.ok()) return bad(st.message());

  std::unique_ptr<engine::OffscreenRenderer> renderer;
  const std::string rerr = engine::OffscreenRenderer::create(img_w, img_h, renderer);
  if (!rerr.empty()) return bad(rerr + " (install Mesa's Vulkan drivers: scripts/setup.sh)");

  std::vector<field::Entity> entities;
  std::vector<Vec2> team_pts[2], proposal(pos.size());
  std::vector<std::size_t> team_ids[2];
  std::vector<field::MoveChoice> choice;
  std::vector<float> heat(static_cast<std::size_t>(fc.width) * fc.height);
  std::vector<engine::UnitInstance> inst;
  std::vector<std::uint8_t> rgba;
  std::vector<double> t_field, t_decide, t_crowd, t_render;
  std::size_t moved = 0, ticks = 0;
  for (int f = 0; f < frames; ++f) {
    for (int k = 0; k < per_frame; ++k, ++ticks) {
      auto t0 = Clock::now();
      entities.assign(walls.begin(), walls.end());
      for (std::size_t i = 0; i < pos.size(); ++i) entities.push_back({pos[i].x, pos[i].y, static_cast<std::uint32_t>(team[i]), 0});
      st = layers->build(entities);
      if (st.ok()) st = ctx->synchronize();
      if (!st.ok()) return bad(st.message());
      t_field.push_back(ms_since(t0));
      t0 = Clock::now();
      for (int t = 0; t < 2; ++t) {
        team_pts[t].clear();
        team_ids[t].clear();
      }
      for (std::size_t i = 0; i < pos.size(); ++i) {
        team_pts[team[i]].push_back(pos[i]);
        team_ids[team[i]].push_back(i);
      }
      for (int t = 0; t < 2; ++t) {
        choice.resize(team_pts[t].size());
        st = layers->best_move(t, team_pts[t], 3, choice);
        if (!st.ok()) return bad(st.message());
        for (std::size_t k2 = 0; k2 < choice.size(); ++k2) {
          const std::size_t i = team_ids[t][k2];
          const float dx = choice[k2].target.x - pos[i].x, dy = choice[k2].target.y - pos[i].y;
          const float d = std::sqrt(dx * dx + dy * dy), step = 0.35f;
          proposal[i] = d > step ? Vec2{pos[i].x + dx / d * step, pos[i].y + dy / d * step} : choice[k2].target;
        }
      }
      t_decide.push_back(ms_since(t0));
      t0 = Clock::now();
      st = solver->step(proposal);
      if (st.ok()) st = solver->read_positions(pos);
      if (!st.ok()) return bad(st.message());
      moved += solver->last_stats().moved;
      t_crowd.push_back(ms_since(t0));
    }
    const auto t0 = Clock::now();
    st = layers->read(0, heat);
    if (!st.ok()) return bad(st.message());
    inst.clear();
    for (std::size_t i = 0; i < pos.size(); ++i)
      inst.push_back({pos[i].x, pos[i].y, 0.5f, team[i] == 0 ? 0xffffe040u : 0xffff70ffu});  // cyan, pink (RGBA, R low)
    engine::Frame fr;
    fr.camera = {0, 0, kMap, kMap};
    fr.heat = heat.data();
    fr.heat_w = fc.width;
    fr.heat_h = fc.height;
    fr.heat_area = {0, 0, kMap, kMap};
    const float m = std::max(1.0f, *std::max_element(heat.begin(), heat.end()));
    fr.heat_lo = -m;
    fr.heat_hi = m;
    fr.units = inst.data();
    fr.unit_count = inst.size();
    std::string err = renderer->render(fr, rgba);
    if (!err.empty()) return bad(err);
    char name[64];
    std::snprintf(name, sizeof name, "/frame-%04d.png", f);
    err = engine::write_png(out + name, img_w, img_h, rgba.data());
    if (!err.empty()) return bad(err);
    t_render.push_back(ms_since(t0));
  }
  const std::string stats = demos::write_file(
      out + "/stats.json",
      "{\"units\": " + std::to_string(pos.size()) + ", \"ticks\": " + std::to_string(ticks) + ", \"frames\": " +
          std::to_string(frames) + ", \"backend\": \"" + backend_name(ctx->backend()) + "\", \"field_variant\": \"" +
          field::variant_name(layers->variant()) + "\", \"crowd_variant\": \"" + crowd::variant_name(solver->variant()) +
          "\", \"renderer\": \"" + demos::json_escape(renderer->device_name()) + "\", \"overlaps\": " +
          std::to_string(crowd::count_overlaps(pos, cc.radius)) + ", \"moves_accepted\": " + std::to_string(moved) +
          ", \"median_ms\": {\"field\": " + std::to_string(median(t_field)) + ", \"decisions\": " +
          std::to_string(median(t_decide)) + ", \"crowd\": " + std::to_string(median(t_crowd)) +
          ", \"render_and_png\": " + std::to_string(median(t_render)) + "}}\n");
  if (!stats.empty()) return bad(stats);
  std::printf("warpmind-demo: %zu units, %zu ticks, %d frames in %s (backend %s, renderer %s)\n", pos.size(), ticks,
              frames, out.c_str(), backend_name(ctx->backend()), renderer->device_name().c_str());
  std::printf("median ms per tick: field %.3f, decisions %.3f, crowd %.3f; per frame render+PNG %.1f\n",
              median(t_field), median(t_decide), median(t_crowd), median(t_render));
  return 0;
}
