// warpmind aoi: run a generated or JSON-described MMO world for K ticks of client commands through the
// AOI tick (commands, conflict merge, range query, enter/leave events).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "flags.h"
#include "output.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/core/context.h"
#include "stats.h"

namespace warpmind::cli {

namespace {

using demos::median;

constexpr demos::Refusal bad{"warpmind aoi"};

// The flags of `warpmind aoi`.
struct Flags {
  std::string scenario, shape = "square", notifications, variant;
  std::size_t clients = 4096;
  int hot_spots = 0, ticks = 10;
  float map = 2500, aoi = 10, attack_share = 0.1f;
  std::uint64_t seed = 1;
  demos::ContextFlags context;
  bool no_visibility = false, json = false;
};

int run(const Flags& f, const CLI::App& app) {
  const auto given = [&app](const char* flag) { return app.count(flag) != 0; };
  aoi::AoiScenario sc;
  if (given("--scenario")) {
    for (const char* flag : {"--clients", "--hot-spots", "--map", "--seed"})
      if (given(flag)) return bad(std::string(flag) + " cannot be combined with --scenario");
    Status st = aoi::load_aoi_scenario(f.scenario, sc);
    if (!st.ok()) return bad(st.message());
  } else {
    sc.config.world = {0, 0, f.map, f.map};
    sc.players = aoi::generate_players(f.clients, sc.config.world, f.hot_spots, f.seed);
    sc.commands.seed = f.seed;
  }
  aoi::AoiConfig& cfg = sc.config;
  if (given("--aoi")) cfg.aoi = cfg.max_move = cfg.attack_range = f.aoi;
  if (given("--shape")) (void)aoi::parse_shape(f.shape, cfg.shape);          // checked when parsed
  if (given("--variant")) (void)aoi::parse_variant(f.variant, cfg.variant);  // checked when parsed
  if (given("--attack-share")) sc.commands.attack_share = f.attack_share;
  cfg.track_visibility = !f.no_visibility;
  const int ticks = f.ticks;
  const bool json = f.json;

  std::unique_ptr<Context> ctx;
  if (const std::string err = demos::open_context(f.context, json, ctx); !err.empty()) return bad(err);
  Status st;
  std::unique_ptr<aoi::AoiWorld> world;
  st = aoi::AoiWorld::create(*ctx, cfg, world);
  if (!st.ok()) return bad(st.message());
  st = world->reset(sc.players);
  if (!st.ok()) return bad(st.message());

  std::vector<aoi::Command> cmds;
  aoi::TickResult r;
  std::vector<double> ms, logic, query, vis;
  std::size_t notes = 0, updates = 0, entered = 0, left = 0, accepted = 0, rejected = 0;
  for (int t = 0; t < ticks; ++t) {
    aoi::make_commands(sc.commands, cfg, ctx->pool(), sc.players.size(), static_cast<std::uint64_t>(t), cmds);
    const auto t0 = std::chrono::steady_clock::now();
    st = world->tick(cmds, r);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!st.ok()) return bad(st.message());
    logic.push_back(r.ms_logic);
    query.push_back(r.ms_query);
    vis.push_back(r.ms_visibility);
    notes += r.notifications.size();
    updates += r.updates.size();
    entered += r.entered.size();
    left += r.left.size();
    accepted += r.accepted;
    for (std::size_t k : r.rejected) rejected += k;
  }
  if (given("--notifications")) {
    std::string text = "receiver,subject,field,value\n";
    for (const aoi::Notification& n : r.notifications) {
      char line[96];
      if (n.field == aoi::Field::Hp)
        std::snprintf(line, sizeof line, "%u,%u,hp,%d\n", n.receiver, n.subject, aoi::value_as_int(n.value));
      else
        std::snprintf(line, sizeof line, "%u,%u,%s,%.9g\n", n.receiver, n.subject, n.field == aoi::Field::X ? "x" : "y",
                      aoi::value_as_float(n.value));
      text += line;
    }
    const std::string err = demos::write_file(f.notifications, text);
    if (!err.empty()) return bad(err);
  }
  const std::size_t n = sc.players.size();
  if (json) {
    std::printf(
        "{\"command\":\"aoi\",\"clients\":%zu,\"ticks\":%d,\"aoi\":%g,\"shape\":\"%s\",\"variant\":\"%s\","
        "\"backend\":\"%s\",\"threads\":%u,\"accepted\":%zu,\"rejected\":%zu,\"updates\":%zu,\"notifications\":%zu,"
        "\"entered\":%zu,\"left\":%zu,\"ms_per_tick\":%.6f,\"ms_logic\":%.6f,\"ms_query\":%.6f,"
        "\"ms_visibility\":%.6f}\n",
        n, ticks, cfg.aoi, aoi::shape_name(cfg.shape), aoi::variant_name(world->variant()),
        backend_name(ctx->backend()), ctx->pool().size(), accepted, rejected, updates, notes, entered, left, median(ms),
        median(logic), median(query), median(vis));
  } else {
    std::printf("aoi: %zu clients in a %gx%g world, AOI %g (%s), %d ticks, variant %s on %s\n", n, cfg.world.width,
                cfg.world.height, cfg.aoi, aoi::shape_name(cfg.shape), ticks, aoi::variant_name(world->variant()),
                backend_name(ctx->backend()));
    std::printf(
        "over all ticks: %zu commands accepted, %zu rejected; %zu updates, %zu notifications, %zu entered, "
        "%zu left\n",
        accepted, rejected, updates, notes, entered, left);
    std::printf("median ms per tick: %.3f (logic %.3f, range query %.3f, visibility %.3f)\n", median(ms), median(logic),
                median(query), median(vis));
  }
  return 0;
}

}  // namespace

demos::Subcommand aoi_command(CLI::App& parent) {
  CLI::App* app = demos::add_subcommand(
      parent, "aoi",
      "run an MMO world's ticks: client commands, conflict merge, area-of-interest updates\n"
      "Runs K ticks of an MMO server: every client sends one command (move or attack) per tick; the server "
      "merges conflicting updates and tells every player whose area of interest holds the subject (docs/aoi.md).");
  auto f = std::make_shared<Flags>();
  demos::add_text(*app, "--scenario", f->scenario, "FILE",
                  "world, AOI, players and command mix from JSON (docs/aoi.md)");
  demos::add_integer(*app, "--clients", f->clients, 0, 1 << 30, "N", "generated: players, uniform over the map");
  demos::add_integer(*app, "--hot-spots", f->hot_spots, 0, 1000, "K",
                     "generated: most players clustered around K centres");
  demos::add_number(*app, "--map", f->map, 1.0, 1e7, "S", "generated: map side");
  demos::add_number(*app, "--aoi", f->aoi, 1e-3, 1e7, "A",
                    "bucket side (square) or radius (circle), also max move and attack range");
  demos::add_choice(*app, "--shape", f->shape, {"square", "circle"}, "the area of interest's shape");
  demos::add_number(*app, "--attack-share", f->attack_share, 0.0, 1.0, "F", "fraction of clients attacking each tick");
  demos::add_integer(*app, "--ticks", f->ticks, 0, 1000000, "K", "ticks");
  demos::add_flag(*app, "--no-visibility", f->no_visibility, "skip enter/leave events");
  demos::add_text(*app, "--notifications", f->notifications, "F",
                  "write the last tick's notifications to F (CSV: receiver,subject,field,value)");
  demos::add_context_flags(*app, f->context);
  demos::add_text(*app, "--variant", f->variant, "V", "auto, cpu-grid, cpu-fast, gpu-sorted, gpu-fast",
                  [](const std::string& s) {
                    aoi::AoiVariant v;
                    return aoi::parse_variant(s, v) ? std::string() : "unknown variant '" + s + "'";
                  });
  demos::add_integer(*app, "--seed", f->seed, 0, INT64_MAX, "N",
                     "generated: player and command seed; a scenario has its own");
  demos::add_flag(*app, "--json", f->json,
                  "one JSON summary object on stdout: accepted, rejected, updates, notifications, entered and left "
                  "are totals over all ticks");
  return {app, [f, app] { return run(*f, *app); }};
}

}  // namespace warpmind::cli
