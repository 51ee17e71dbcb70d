// warpmind crowd: run N agents for K ticks of random moves through the collision-checked solver.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/args.h"
#include "commands.h"
#include "warpmind/core/context.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"

namespace warpmind::cli {

namespace {

constexpr const char* kHelp =
    "usage: warpmind crowd [options]\n"
    "\n"
    "Runs N agents for K ticks: each tick every agent proposes a move and the solver accepts or rejects\n"
    "it so that no two agents ever overlap (docs/crowd.md).\n"
    "\n"
    "  --scenario FILE     world, radius, rule, obstacles, agents and moves from JSON (docs/crowd.md)\n"
    "  --agents N          generated: agents (default 10000) on a jittered lattice, random moves\n"
    "  --steps K           ticks (default 100)\n"
    "  --radius R          agent radius (default 0.5)\n"
    "  --spacing S         start lattice pitch in units of 2R (default 1.25, >= 1)\n"
    "  --step-size D       largest move per axis per tick (default: R)\n"
    "  --rule RULE         strict | lowest-id (default strict)\n"
    "  --backend B         cpu | cuda | auto (default auto)\n"
    "  --variant V         auto, cpu-reference, gpu-sort, gpu-tiled, gpu-static-grid\n"
    "  --threads N         CPU threads, 0..1024; 0 (the default) = one per hardware thread\n"
    "  --seed N            generator seed (default 1)\n"
    "  --verify            check the guarantees after every tick (no overlap, old or proposed position)\n"
    "  --json              one JSON summary object on stdout\n";

int bad(const std::string& why) {
  std::fprintf(stderr, "warpmind crowd: %s\n", why.c_str());
  return 2;
}

}  // namespace

int crowd_command(int argc, char** argv) {
  demos::Args args(argc, argv, 1,
                   {"agents", "steps", "radius", "spacing", "step-size", "rule", "backend", "variant", "threads",
                    "seed", "scenario"},
                   {"verify", "json", "help"});
  if (!args.error().empty()) return bad(args.error());
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  crowd::CrowdScenario sc;
  if (args.has("scenario")) {
    for (const char* f : {"agents", "radius", "spacing", "step-size"})
      if (args.has(f)) return bad(std::string("--") + f + " cannot be combined with --scenario");
    Status st = crowd::load_crowd_scenario(args.str("scenario"), sc);
    if (!st.ok()) return bad(st.message());
  } else {
    const auto agents = static_cast<std::size_t>(args.integer("agents", 10000, 0, 1 << 28));
    sc.config.radius = static_cast<float>(args.number("radius", 0.5, 1e-4, 1e4));
    const float spacing = static_cast<float>(args.number("spacing", 1.25, 1.0, 100.0));
    sc.moves.step = static_cast<float>(args.number("step-size", sc.config.radius, 0.0, 1e6));
    sc.moves.seed = static_cast<std::uint64_t>(args.integer("seed", 1, 0, INT64_MAX));
    if (!args.error().empty()) return bad(args.error());
    sc.config.world = crowd::lattice_world(agents, sc.config.radius, spacing);
    sc.start = crowd::lattice_start(agents, sc.config.radius, spacing, sc.config, sc.moves.seed);
  }
  const int steps = static_cast<int>(args.integer("steps", 100, 0, 1000000));
  crowd::CrowdConfig& cfg = sc.config;
  if (args.has("rule") && !crowd::parse_rule(args.str("rule"), cfg.rule))
    return bad("--rule: expected strict or lowest-id, got '" + args.str("rule") + "'");
  if (args.has("variant") && !crowd::parse_variant(args.str("variant"), cfg.variant))
    return bad("--variant: unknown variant '" + args.str("variant") + "'");
  if (!args.error().empty()) return bad(args.error());
  const bool json = args.has("json"), verify = args.has("verify");

  std::unique_ptr<Context> ctx;
  if (const std::string err = demos::open_context(args, json, ctx); !err.empty()) return bad(err);
  Status st;
  std::unique_ptr<crowd::CrowdSolver> solver;
  st = crowd::CrowdSolver::create(*ctx, cfg, solver);
  if (!st.ok()) return bad(st.message());
  const std::size_t n = sc.start.size();
  const float radius = cfg.radius;
  std::vector<Vec2> pos = sc.start, prop, next(n);
  st = solver->reset(pos);
  if (!st.ok()) return bad(st.message());

  std::vector<double> ms;
  std::size_t accepted = 0, overlaps = 0, violations = 0;
  for (int t = 0; t < steps; ++t) {
    crowd::make_proposals(sc.moves, ctx->pool(), pos, static_cast<std::uint64_t>(t), prop);
    const auto t0 = std::chrono::steady_clock::now();
    st = solver->step(prop);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!st.ok()) return bad(st.message());
    accepted += solver->last_stats().moved;
    st = solver->read_positions(next);
    if (!st.ok()) return bad(st.message());
    if (verify) {
      overlaps += crowd::count_overlaps(next, radius);
      for (std::size_t i = 0; i < n; ++i) {
        const bool at_old = next[i].x == pos[i].x && next[i].y == pos[i].y;
        const bool at_new = next[i].x == prop[i].x && next[i].y == prop[i].y;
        violations += !(at_old || at_new);
      }
    }
    pos.swap(next);
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
  const double rate = n && steps ? static_cast<double>(accepted) / (static_cast<double>(n) * steps) : 0.0;
  if (json) {
    std::printf("{\"command\":\"crowd\",\"agents\":%zu,\"steps\":%d,\"radius\":%g,\"rule\":\"%s\",\"variant\":\"%s\","
                "\"backend\":\"%s\",\"threads\":%u,\"accepted\":%zu,\"acceptance\":%.6f,\"verified\":%s,\"overlaps\":%zu,"
                "\"violations\":%zu,\"ms_per_step\":%.6f}\n",
                n, steps, radius, crowd::rule_name(cfg.rule), crowd::variant_name(solver->variant()),
                backend_name(ctx->backend()), ctx->pool().size(), accepted, rate, verify ? "true" : "false", overlaps, violations, median);
  } else {
    std::printf("crowd: %zu agents of radius %g in a %gx%g world, %d ticks, rule %s, variant %s on %s\n", n, radius,
                cfg.world.width, cfg.world.height, steps, crowd::rule_name(cfg.rule),
                crowd::variant_name(solver->variant()), backend_name(ctx->backend()));
    std::printf("accepted %zu moves (%.1f%%), median %.4f ms per tick (host proposals in, verdicts counted)\n",
                accepted, 100.0 * rate, median);
    if (verify) std::printf("verified every tick: %zu overlaps, %zu agents off their old/proposed spot\n", overlaps, violations);
  }
  return overlaps || violations ? 1 : 0;
}

}  // namespace warpmind::cli
