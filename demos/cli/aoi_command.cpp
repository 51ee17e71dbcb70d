// warpmind aoi: run a generated or JSON-described MMO world for K ticks of client commands through the
// AOI tick (commands, conflict merge, range query, enter/leave events).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/args.h"
#include "commands.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/core/context.h"

namespace warpmind::cli {

namespace {

constexpr const char* kHelp =
    "usage: warpmind aoi [options]\n"
    "\n"
    "Runs K ticks of an MMO server: every client sends one command (move or attack) per tick; the\n"
    "server merges conflicting updates and tells every player whose area of interest holds the subject\n"
    "(docs/aoi.md).\n"
    "\n"
    "  --scenario FILE     world, AOI, players and command mix from JSON (docs/aoi.md)\n"
    "  --clients N         generated: players (default 4096), uniform over the map\n"
    "  --hot-spots K       generated: most players clustered around K centres (default 0)\n"
    "  --map S             generated: map side (default 2500)\n"
    "  --aoi A             bucket side (square) or radius (circle), also max move and attack range\n"
    "                      (default 10)\n"
    "  --shape S           square | circle (default square)\n"
    "  --attack-share F    fraction of clients attacking each tick (default 0.1)\n"
    "  --ticks K           ticks (default 10)\n"
    "  --no-visibility     skip enter/leave events\n"
    "  --notifications F   write the last tick's notifications to F (CSV: receiver,subject,field,value)\n"
    "  --backend B         cpu | cuda | auto (default auto)\n"
    "  --variant V         auto, cpu-grid, cpu-fast, gpu-seed, gpu-fast\n"
    "  --threads N         CPU threads, 0..1024; 0 (the default) = one per hardware thread\n"
    "  --seed N            generated: player and command seed (default 1; a scenario has its own)\n"
    "  --json              one JSON summary object on stdout: accepted, rejected, updates,\n"
    "                      notifications, entered and left are totals over all ticks\n";

int bad(const std::string& why) {
  std::fprintf(stderr, "warpmind aoi: %s\n", why.c_str());
  return 2;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int aoi_command(int argc, char** argv) {
  demos::Args args(argc, argv, 1,
                   {"scenario", "clients", "hot-spots", "map", "aoi", "shape", "attack-share", "ticks", "notifications",
                    "backend", "variant", "threads", "seed"},
                   {"no-visibility", "json", "help"});
  if (!args.error().empty()) return bad(args.error());
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  aoi::AoiScenario sc;
  if (args.has("scenario")) {
    for (const char* f : {"clients", "hot-spots", "map", "seed"})
      if (args.has(f)) return bad(std::string("--") + f + " cannot be combined with --scenario");
    Status st = aoi::load_aoi_scenario(args.str("scenario"), sc);
    if (!st.ok()) return bad(st.message());
  } else {
    const auto clients = static_cast<std::size_t>(args.integer("clients", 4096, 0, 1 << 30));
    const auto hot = static_cast<int>(args.integer("hot-spots", 0, 0, 1000));
    const float map = static_cast<float>(args.number("map", 2500.0, 1.0, 1e7));
    const auto seed = static_cast<std::uint64_t>(args.integer("seed", 1, 0, INT64_MAX));
    if (!args.error().empty()) return bad(args.error());
    sc.config.world = {0, 0, map, map};
    sc.players = aoi::generate_players(clients, sc.config.world, hot, seed);
    sc.commands.seed = seed;
  }
  aoi::AoiConfig& cfg = sc.config;
  if (args.has("aoi"))
    cfg.aoi = cfg.max_move = cfg.attack_range = static_cast<float>(args.number("aoi", 10.0, 1e-3, 1e7));
  if (args.has("shape") && !aoi::parse_shape(args.str("shape"), cfg.shape))
    return bad("--shape: expected square or circle, got '" + args.str("shape") + "'");
  if (args.has("variant") && !aoi::parse_variant(args.str("variant"), cfg.variant))
    return bad("--variant: unknown variant '" + args.str("variant") + "'");
  if (args.has("attack-share"))
    sc.commands.attack_share = static_cast<float>(args.number("attack-share", 0.1, 0.0, 1.0));
  cfg.track_visibility = !args.has("no-visibility");
  const int ticks = static_cast<int>(args.integer("ticks", 10, 0, 1000000));
  if (!args.error().empty()) return bad(args.error());
  const bool json = args.has("json");

  std::unique_ptr<Context> ctx;
  if (const std::string err = demos::open_context(args, json, ctx); !err.empty()) return bad(err);
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
  if (args.has("notifications")) {
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
    const std::string err = demos::write_file(args.str("notifications"), text);
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

}  // namespace warpmind::cli
