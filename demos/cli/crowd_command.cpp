// warpmind crowd: run N agents for K ticks of random, goal or explicit (--moves) moves through the
// collision-checked solver; optionally write the final positions and the per-tick verdict counts.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "commands.h"
#include "flags.h"
#include "output.h"
#include "stats.h"
#include "warpmind/core/context.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"

namespace warpmind::cli {

namespace {

constexpr demos::Refusal bad{"warpmind crowd"};

// One line of a --moves file.
struct ExplicitMove {
  std::uint64_t tick;
  std::uint32_t agent;
  Vec2 target;
};

// Reads a --moves file: lines "TICK AGENT X Y" (decimal integers, then two floats read with strtof),
// '#' to the end of a line is a comment, blank lines are skipped. `steps` < 0: any tick up to 999999.
// Returns "" or a one-line reason naming the file and line. `out` is sorted by tick (stable).
std::string read_moves(const std::string& path, std::size_t agents, long long steps, std::vector<ExplicitMove>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + ": cannot open file";
  out.clear();
  std::unordered_map<std::uint64_t, std::size_t> seen;  // tick * agents + agent -> line
  std::string line;
  for (std::size_t no = 1; std::getline(in, line); ++no) {
    const std::string where = path + ":" + std::to_string(no) + ": ";
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::vector<std::string> f;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      const std::size_t b = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
      if (i > b) f.push_back(line.substr(b, i - b));
    }
    if (f.empty()) continue;
    if (f.size() != 4) return where + "expected 'TICK AGENT X Y', got " + std::to_string(f.size()) + " field(s)";
    const auto whole = [](const std::string& t, unsigned long long hi, unsigned long long& v) {
      if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos) return false;
      errno = 0;
      v = std::strtoull(t.c_str(), nullptr, 10);
      return errno == 0 && v <= hi;
    };
    unsigned long long tick = 0, agent = 0;
    const unsigned long long last_tick = steps >= 0 ? static_cast<unsigned long long>(steps) - 1 : 999999ull;
    if (!whole(f[0], 999999ull, tick)) return where + "tick '" + f[0] + "': expected an integer in 0..999999";
    if (steps >= 0 && (steps == 0 || tick > last_tick))
      return where + "tick " + f[0] + " is past the last tick (--steps " + std::to_string(steps) +
             (steps ? " runs ticks 0.." + std::to_string(steps - 1) + ")" : std::string(" runs none)"));
    if (!whole(f[1], ~0ull, agent) || agent >= agents)
      return where + "agent '" + f[1] + "': " +
             (agents ? "expected an agent id in 0.." + std::to_string(agents - 1) : std::string("there are no agents"));
    float xy[2];
    for (int k = 0; k < 2; ++k) {
      char* end = nullptr;
      xy[k] = std::strtof(f[2 + k].c_str(), &end);  // overflow gives inf, refused below
      if (*end != '\0' || !std::isfinite(xy[k]))
        return where + (k ? "y" : "x") + " '" + f[2 + k] + "': expected a finite number";
    }
    const std::uint64_t key = tick * static_cast<std::uint64_t>(agents) + agent;
    if (const auto [it, fresh] = seen.emplace(key, no); !fresh)
      return where + "agent " + f[1] + " already has a move in tick " + f[0] + " (line " + std::to_string(it->second) +
             ")";
    out.push_back({tick, static_cast<std::uint32_t>(agent), {xy[0], xy[1]}});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ExplicitMove& a, const ExplicitMove& b) { return a.tick < b.tick; });
  return {};
}

// The flags of `warpmind crowd`.
struct Flags {
  std::string scenario, moves, rule = "strict", variant, positions, ticks, movement = "accept-reject";
  std::size_t agents = 10000;
  float radius = 0.5f, spacing = 1.25f, step_size = 0, max_step = 0;
  std::uint64_t seed = 1;
  long long steps = 100;
  demos::ContextFlags context;
  bool verify = false, json = false;
};

int run(const Flags& f, const CLI::App& app) {
  const auto given = [&app](const char* flag) { return app.count(flag) != 0; };
  crowd::CrowdScenario sc;
  if (given("--moves") && given("--step-size")) return bad("--step-size cannot be combined with --moves");
  if (given("--scenario")) {
    for (const char* flag : {"--agents", "--radius", "--spacing", "--step-size", "--seed"})
      if (given(flag)) return bad(std::string(flag) + " cannot be combined with --scenario");
    Status st = crowd::load_crowd_scenario(f.scenario, sc);
    if (!st.ok()) return bad(st.message());
  } else {
    sc.config.radius = f.radius;
    sc.moves.step = given("--step-size") ? f.step_size : f.radius;
    sc.moves.seed = f.seed;
    sc.config.world = crowd::lattice_world(f.agents, sc.config.radius, f.spacing);
    sc.start = crowd::lattice_start(f.agents, sc.config.radius, f.spacing, sc.config, sc.moves.seed);
  }
  const long long given_steps = given("--steps") ? f.steps : -1;
  std::vector<ExplicitMove> explicit_moves;
  if (given("--moves")) {
    const std::string err = read_moves(f.moves, sc.start.size(), given_steps, explicit_moves);
    if (!err.empty()) return bad(err);
  }
  int steps = 100;
  if (given_steps >= 0)
    steps = static_cast<int>(given_steps);
  else if (given("--moves"))
    steps = explicit_moves.empty() ? 0 : static_cast<int>(explicit_moves.back().tick) + 1;
  crowd::CrowdConfig& cfg = sc.config;
  if (given("--rule")) (void)crowd::parse_rule(f.rule, cfg.rule);                  // checked when parsed
  if (given("--variant")) (void)crowd::parse_variant(f.variant, cfg.variant);      // checked when parsed
  if (given("--movement")) (void)crowd::parse_movement(f.movement, cfg.movement);  // checked when parsed
  if (given("--max-step")) cfg.max_step = f.max_step;
  const bool avoid = cfg.movement == crowd::CrowdMovement::Avoid;
  const bool json = f.json, verify = f.verify;

  std::unique_ptr<Context> ctx;
  if (const std::string err = demos::open_context(f.context, json, ctx); !err.empty()) return bad(err);
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
  std::string tick_rows = "tick,moved,stayed,out_of_world,blocked,collisions,too_far,left\n";
  std::size_t left = 0;  // agents gone at their goal (a standard scenario's exits)
  std::vector<std::uint8_t> keep;
  std::size_t next_move = 0;
  for (int t = 0; t < steps; ++t) {
    if (given("--moves")) {
      prop = pos;  // no line for an agent in this tick: it proposes to stay
      for (; next_move < explicit_moves.size() && explicit_moves[next_move].tick == static_cast<std::uint64_t>(t);
           ++next_move)
        prop[explicit_moves[next_move].agent] = explicit_moves[next_move].target;
    } else {
      crowd::make_proposals(sc.moves, ctx->pool(), pos, static_cast<std::uint64_t>(t), prop);
    }
    const auto t0 = std::chrono::steady_clock::now();
    st = solver->step(prop);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!st.ok()) return bad(st.message());
    const crowd::StepStats& ts = solver->last_stats();
    accepted += ts.moved;
    if (given("--ticks")) {
      char row[128];
      std::snprintf(row, sizeof row, "%d,%zu,%zu,%zu,%zu,%zu,%zu,%zu\n", t, ts.moved, ts.stayed, ts.out_of_world,
                    ts.blocked, ts.collisions, ts.too_far, left);
      tick_rows += row;
    }
    st = solver->read_positions(next);
    if (!st.ok()) return bad(st.message());
    if (verify) {
      overlaps += crowd::count_overlaps(next, radius);
      for (std::size_t i = 0; i < pos.size(); ++i) {
        const bool at_old = next[i].x == pos[i].x && next[i].y == pos[i].y;
        const bool at_new = next[i].x == prop[i].x && next[i].y == prop[i].y;
        // Avoid: a mover is at one of its candidates, within its maximum step (a hair for rounding).
        const float dx = next[i].x - pos[i].x, dy = next[i].y - pos[i].y;
        violations += avoid ? !(at_old || std::sqrt(dx * dx + dy * dy) <= cfg.max_step * 1.0001f) : !(at_old || at_new);
      }
    }
    pos.swap(next);
    // Agents at their goal leave (a standard scenario's goals; never with --moves, whose ids are fixed).
    if (const std::size_t gone = given("--moves") ? 0 : crowd::depart(sc, pos, keep); gone > 0) {
      if (!(st = solver->retain(keep)).ok()) return bad(st.message());
      next.resize(pos.size());
      left += gone;
    }
  }
  if (given("--positions")) {
    std::string text;
    text.reserve(n * 32);
    for (std::size_t i = 0; i < pos.size(); ++i) {
      char line[96];
      std::snprintf(line, sizeof line, "%zu %.9g %.9g\n", i, pos[i].x, pos[i].y);
      text += line;
    }
    if (const std::string err = demos::write_file(f.positions, text); !err.empty()) return bad(err);
  }
  if (given("--ticks"))
    if (const std::string err = demos::write_file(f.ticks, tick_rows); !err.empty()) return bad(err);
  const double median = demos::median(ms);
  const double rate = n && steps ? static_cast<double>(accepted) / (static_cast<double>(n) * steps) : 0.0;
  if (json) {
    std::printf(
        "{\"command\":\"crowd\",\"agents\":%zu,\"steps\":%d,\"radius\":%g,\"rule\":\"%s\",\"variant\":\"%s\","
        "\"movement\":\"%s\",\"max_step\":%g,\"backend\":\"%s\",\"threads\":%u,\"accepted\":%zu,\"acceptance\":%.6f,"
        "\"left\":%zu,\"verified\":%s,\"overlaps\":%zu,\"violations\":%zu,\"ms_per_step\":%.6f}\n",
        n, steps, radius, crowd::rule_name(cfg.rule), crowd::variant_name(solver->variant()),
        crowd::movement_name(cfg.movement), cfg.max_step, backend_name(ctx->backend()), ctx->pool().size(), accepted,
        rate, left, verify ? "true" : "false", overlaps, violations, median);
  } else {
    std::printf("crowd: %zu agents of radius %g in a %gx%g world, %d ticks, rule %s, variant %s on %s\n", n, radius,
                cfg.world.width, cfg.world.height, steps, crowd::rule_name(cfg.rule),
                crowd::variant_name(solver->variant()), backend_name(ctx->backend()));
    std::printf("accepted %zu moves (%.1f%%), median %.4f ms per tick (host proposals in, verdicts counted)\n",
                accepted, 100.0 * rate, median);
    if (verify)
      std::printf("verified every tick: %zu overlaps, %zu agents off their old/proposed spot\n", overlaps, violations);
  }
  return overlaps || violations ? 1 : 0;
}

}  // namespace

demos::Subcommand crowd_command(CLI::App& parent) {
  CLI::App* app = demos::add_subcommand(
      parent, "crowd",
      "run a generated crowd through the collision-checked movement solver\n"
      "Runs N agents for K ticks: each tick every agent proposes a move and the solver accepts or rejects it so "
      "that no two agents ever overlap (docs/crowd.md).");
  auto f = std::make_shared<Flags>();
  const std::string input = "input";
  demos::add_text(*app, "--scenario", f->scenario, "FILE",
                  "world, radius, rule, obstacles, agents and moves from JSON (docs/crowd.md)")
      ->group(input);
  demos::add_integer(*app, "--agents", f->agents, 0, 1 << 28, "N",
                     "generated: agents on a jittered lattice, random moves")
      ->group(input);
  demos::add_number(*app, "--radius", f->radius, 1e-4, 1e4, "R", "generated: agent radius")->group(input);
  demos::add_number(*app, "--spacing", f->spacing, 1.0, 100.0, "S", "generated: start lattice pitch in units of 2R")
      ->group(input);
  demos::add_number(*app, "--step-size", f->step_size, 0.0, 1e6, "D",
                    "generated: largest random move per axis per tick", "R")
      ->group(input);
  demos::add_integer(*app, "--seed", f->seed, 0, INT64_MAX, "N",
                     "generated: lattice and move seed; a scenario has its own")
      ->group(input);
  demos::add_text(*app, "--moves", f->moves, "FILE",
                  "explicit proposals instead of generated or scenario moves, one per line: 'TICK AGENT X Y' "
                  "(ticks from 0, X Y the target); an agent without a line in a tick proposes to stay; '#' starts "
                  "a comment; errors name the line")
      ->group(input);
  demos::add_integer(*app, "--steps", f->steps, 0, 1000000, "K", "ticks",
                     "100; with --moves: one more than the file's last tick")
      ->group(input);
  demos::add_choice(*app, "--rule", f->rule, {"strict", "lowest-id"}, "overrides the scenario's \"rule\"")
      ->group(input);
  demos::add_choice(*app, "--movement", f->movement, {"accept-reject", "avoid"},
                    "overrides the scenario's \"movement\" (avoid: refused agents slide or sidestep; needs a max step)")
      ->group(input);
  demos::add_number(*app, "--max-step", f->max_step, 0.0, 1e6, "D",
                    "every agent's maximum step a tick (0: none), overrides the scenario's \"max_step\"")
      ->group(input);
  const std::string execution = "execution";
  demos::add_context_flags(*app, f->context);
  app->get_option("--backend")->group(execution);
  demos::add_text(*app, "--variant", f->variant, "V", "auto, cpu-reference, gpu-sort, gpu-tiled, gpu-static-grid",
                  [](const std::string& s) {
                    crowd::CrowdVariant v;
                    return crowd::parse_variant(s, v) ? std::string() : "unknown variant '" + s + "'";
                  })
      ->group(execution);
  app->get_option("--threads")->group(execution);
  demos::add_flag(*app, "--verify", f->verify,
                  "check the guarantees after every tick (no overlap, old or proposed position)")
      ->group(execution);
  const std::string output = "output";
  demos::add_text(*app, "--positions", f->positions, "FILE",
                  "final positions, one line 'ID X Y' per agent in id order (%.9g: exact floats)")
      ->group(output);
  demos::add_text(*app, "--ticks", f->ticks, "FILE",
                  "CSV, one row per tick: tick,moved,stayed,out_of_world,blocked,collisions,too_far,left (left: agents "
                  "gone at their goal so far, a standard scenario's)")
      ->group(output);
  demos::add_flag(*app, "--json", f->json,
                  "one JSON summary object on stdout (\"accepted\": Moved verdicts, all ticks)")
      ->group(output);
  return {app, [f, app] { return run(*f, *app); }};
}

}  // namespace warpmind::cli
