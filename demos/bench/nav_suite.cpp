// Suite "nav": navigation fields (warpmind/nav/nav.h) on generated maps (nav/generate.h: open ground with
// obstacles, rooms with doors, a maze) at 1024 x 1024, and open ground at 4096 x 4096 (--quick: 256 x 256):
// one goal (Dijkstra on one thread) and 64 goals at once (the goals on the context's threads), the goals
// seeded among the passable cells, and the incremental update of a 100-cell change (nav_fields.h). The
// 64 goals' fields are compared with the one-goal runs of their first goals, the updated field with a
// full computation, bit for bit. With CUDA, the GPU variant on the same goals after each CPU row (every
// field compared with the CPU's, bit for bit; timed by the device's time, the call's beside it).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "results.h"
#include "suites.h"
#include "warpmind/core/random.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/nav_fields.h"

namespace warpmind::bench {

namespace {

struct Flags {
  SuiteFlags suite;
  int goals = 64;
};

std::vector<nav::Cell> seeded_goals(const nav::Grid& g, int n, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<nav::Cell> out;
  while (static_cast<int>(out.size()) < n) {
    const nav::Cell c{static_cast<int>(rng.below(static_cast<std::uint32_t>(g.width))),
                      static_cast<int>(rng.below(static_cast<std::uint32_t>(g.height)))};
    if (g.passable(c.x, c.y)) out.push_back(c);
  }
  return out;
}

// A building placed: 100 cells around a point changed (blocked, or reopened where they were blocked) in
// one NavFields::update of one goal's field, timed over rounds that toggle them back and forth, and the
// field after the last round compared with distance_fields on the changed grid.
int update_rows(Context& ctx, nav::MapKind kind, int side, const nav::Grid& start, Results& results) {
  if (side > 1024) return 0;
  nav::Grid grid = start;
  const std::vector<nav::Cell> goal = seeded_goals(grid, 1, 7);
  std::unique_ptr<nav::NavFields> fields;
  if (!nav::NavFields::create(ctx, grid, goal, fields).ok()) return 1;
  SplitMix64 rng(9);
  std::vector<nav::CellChange> changes;
  Timing t;
  nav::FieldStats stats;
  for (int round = 0; round < 20; ++round) {
    const int cx = static_cast<int>(rng.below(static_cast<std::uint32_t>(side - 10)));
    const int cy = static_cast<int>(rng.below(static_cast<std::uint32_t>(side - 10)));
    changes.clear();
    for (int y = cy; y < cy + 10; ++y)
      for (int x = cx; x < cx + 10; ++x) {
        if (nav::Cell{x, y} == goal[0]) continue;
        const std::uint8_t cost = grid.cost[grid.index(x, y)] == nav::kBlocked ? 1 : nav::kBlocked;
        changes.push_back({{x, y}, cost});
        grid.cost[grid.index(x, y)] = cost;
      }
    if (!fields->update(changes, &stats).ok()) return 1;
    t.ms.push_back(stats.ms);
  }
  std::sort(t.ms.begin(), t.ms.end());
  std::vector<float> want(grid.cells());
  std::vector<std::int8_t> want_dir(grid.cells());
  if (!nav::distance_fields(ctx, grid, goal, want, want_dir, nullptr, nav::NavVariant::Cpu).ok()) return 1;
  if (corrupt("cpu-update")) want[0] = -1.0f;
  const bool same = std::memcmp(want.data(), fields->distance(0).data(), want.size() * sizeof(float)) == 0 &&
                    std::memcmp(want_dir.data(), fields->direction(0).data(), want_dir.size()) == 0;
  std::printf("%-6s %6d %6d | %-12s %10.3f %12s %14llu %s\n", nav::map_kind_name(kind), side, 1, "cpu-update",
              t.median(), "100 cells", static_cast<unsigned long long>(stats.settled), same ? "equal" : "DIFFER");
  Record r;
  r.variant = "cpu-update";
  r.backend = "cpu";
  r.timing = t;
  r.compared("cpu-1-thread", same);
  r.params_json = std::string("{\"map\": \"") + nav::map_kind_name(kind) + "\", \"width\": " + std::to_string(side) +
                  ", \"height\": " + std::to_string(side) + ", \"goals\": 1, \"changed_cells\": 100}";
  results.add(r);
  return same ? 0 : 1;
}

// The GPU variant on the same goals: timed by the device's time (the call's, copies included, beside it),
// every field compared bit for bit with the CPU's, the floor the results' bytes written once and the map
// read once at the measured copy bandwidth.
int gpu_row(Context& ctx, const DeviceCeilings& ceil, nav::MapKind kind, const nav::Grid& grid,
            const std::vector<nav::Cell>& goals, const std::vector<float>& cpu_dist,
            const std::vector<std::int8_t>& cpu_dir, double cpu_ms, const char* cpu_variant, Results& results) {
  const std::size_t n = goals.size();
  std::vector<float> dist(cpu_dist.size());
  std::vector<std::int8_t> dir(cpu_dir.size());
  nav::FieldStats stats;
  Timing t, call;
  Status st;
  const bool ok = time_runs(
      [&] {
        st = nav::distance_fields(ctx, grid, goals, dist, dir, &stats, nav::NavVariant::Gpu);
        if (!st.ok()) return -1.0;
        call.ms.push_back(stats.ms);
        return stats.device_ms;
      },
      1, 3, 10, 20000, t);
  if (!ok) {
    std::fprintf(stderr, "warpmind-bench nav: gpu: %s\n", st.message().c_str());
    return 1;
  }
  std::sort(call.ms.begin(), call.ms.end());
  if (corrupt("gpu")) dist[0] = -1.0f;
  const bool same = std::memcmp(dist.data(), cpu_dist.data(), dist.size() * sizeof(float)) == 0 &&
                    std::memcmp(dir.data(), cpu_dir.data(), dir.size()) == 0;
  const double floor_ms =
      (static_cast<double>(grid.cells()) + static_cast<double>(n * grid.cells()) * (sizeof(float) + 1)) /
      ceil.copy_bytes_per_s * 1e3;
  std::printf(
      "%-6s %6d %6zu | %-12s %10.3f %12.4f %14llu %s  (call %.2f ms, %.1fx the CPU, %llu tile relaxations, floor %.4f "
      "ms)\n",
      nav::map_kind_name(kind), grid.width, n, "gpu", t.median(), t.median() / static_cast<double>(n),
      static_cast<unsigned long long>(stats.settled), same ? "equal" : "DIFFER", call.median(), cpu_ms / t.median(),
      static_cast<unsigned long long>(stats.tiles_relaxed), floor_ms);
  Record r;
  r.variant = "gpu";
  r.backend = "cuda";
  r.timing = t;
  r.floor_ms = floor_ms;
  r.compared(cpu_variant, same);
  char params[200], extra[300];
  std::snprintf(params, sizeof params, "{\"map\": \"%s\", \"width\": %d, \"height\": %d, \"goals\": %zu}",
                nav::map_kind_name(kind), grid.width, grid.height, n);
  std::snprintf(
      extra, sizeof extra,
      "\"settled\": %llu, \"ms_per_goal\": %.5f, \"call_ms\": %.4f, \"tiles_relaxed\": %llu, \"speedup\": %.2f, "
      "\"speedup_against\": \"%s\"",
      static_cast<unsigned long long>(stats.settled), t.median() / static_cast<double>(n), call.median(),
      static_cast<unsigned long long>(stats.tiles_relaxed), cpu_ms / t.median(), cpu_variant);
  r.params_json = params;
  r.extra_json = extra;
  results.add(r);
  return same ? 0 : 1;
}

int run(const Flags& f) {
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "nav", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "nav")) return rc;
  Results results("nav", ctx->cuda() ? ctx->device().name : "cpu");
  DeviceCeilings ceil;
  if (ctx->cuda()) {
    const Status st = measure_ceilings(*ctx, ceil);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench nav: %s\n", st.message().c_str());
      return 1;
    }
    std::printf("device %s: copy bandwidth %.0f GB/s; CPU threads %u\n", ctx->device().name.c_str(),
                ceil.copy_bytes_per_s / 1e9, ctx->pool().size());
  } else {
    std::printf("CPU only; CPU threads %u\n", ctx->pool().size());
  }
  struct MapCase {
    nav::MapKind kind;
    int side;
  };
  std::vector<MapCase> maps = {
      {nav::MapKind::Open, 1024}, {nav::MapKind::Rooms, 1024}, {nav::MapKind::Maze, 1024}, {nav::MapKind::Open, 4096}};
  if (f.suite.quick) maps = {{nav::MapKind::Open, 256}, {nav::MapKind::Maze, 256}};
  std::printf("%-6s %6s %6s | %-12s %10s %12s %14s %s\n", "map", "side", "goals", "variant", "ms", "ms a goal",
              "cells settled", "checked");
  int failures = 0;
  for (const MapCase& m : maps) {
    nav::Grid grid;
    if (!nav::generate_map(m.kind, m.side, m.side, 1, grid).ok()) return 1;
    for (const int n : {1, f.goals}) {
      const std::vector<nav::Cell> goals = seeded_goals(grid, n, 7);
      std::vector<float> dist(goals.size() * grid.cells());
      std::vector<std::int8_t> dir(dist.size());
      nav::FieldStats stats;
      Timing t;
      Status st;
      const bool ok = time_runs(
          [&] {
            st = nav::distance_fields(*ctx, grid, goals, dist, dir, &stats, nav::NavVariant::Cpu);
            return st.ok() ? stats.ms : -1.0;
          },
          0, 1, n == 1 ? 5 : 3, 10000, t);
      if (!ok) {
        std::fprintf(stderr, "warpmind-bench nav: %s\n", st.message().c_str());
        return 1;
      }
      // The many-goal fields against one goal at a time, for the first goals.
      std::size_t differ = 0, compared = 0;
      if (n > 1) {
        std::vector<float> one(grid.cells());
        std::vector<std::int8_t> one_dir(grid.cells());
        for (std::size_t g = 0; g < std::min<std::size_t>(goals.size(), 4); ++g, ++compared) {
          if (!nav::distance_fields(*ctx, grid, std::span(goals).subspan(g, 1), one, one_dir, nullptr,
                                    nav::NavVariant::Cpu)
                   .ok())
            return 1;
          if (corrupt("cpu-threads") && g == 0) one[goals[0].y * grid.width + goals[0].x] = 1.0f;
          differ += std::memcmp(one.data(), dist.data() + g * grid.cells(), one.size() * sizeof(float)) != 0 ||
                    std::memcmp(one_dir.data(), dir.data() + g * grid.cells(), one_dir.size()) != 0;
        }
      }
      failures += differ != 0;
      const char* variant = n == 1 ? "cpu-1-thread" : "cpu-threads";
      std::printf("%-6s %6d %6d | %-12s %10.2f %12.3f %14llu %s\n", nav::map_kind_name(m.kind), m.side, n, variant,
                  t.median(), t.median() / n, static_cast<unsigned long long>(stats.settled),
                  n == 1   ? ""
                  : differ ? "DIFFER"
                           : "equal");
      Record r;
      r.variant = variant;
      r.backend = "cpu";
      r.timing = t;
      if (n > 1) r.compared("cpu-1-thread", differ == 0);
      char params[200], extra[200];
      std::snprintf(params, sizeof params,
                    "{\"map\": \"%s\", \"width\": %d, \"height\": %d, \"goals\": %d, \"threads\": %u}",
                    nav::map_kind_name(m.kind), m.side, m.side, n, n == 1 ? 1u : ctx->pool().size());
      std::snprintf(extra, sizeof extra, "\"settled\": %llu, \"ms_per_goal\": %.4f, \"compared_goals\": %zu",
                    static_cast<unsigned long long>(stats.settled), t.median() / n, compared);
      r.params_json = params;
      r.extra_json = extra;
      results.add(r);
      if (ctx->cuda()) failures += gpu_row(*ctx, ceil, m.kind, grid, goals, dist, dir, t.median(), variant, results);
    }
    failures += update_rows(*ctx, m.kind, m.side, grid, results);
    if (!file.write(results)) return 1;
  }
  file.finish(results);
  return failures ? 1 : 0;
}

}  // namespace

demos::Subcommand nav_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_suite(
      parent, "nav",
      "navigation fields: one goal and many on generated maps\n"
      "Navigation fields on generated maps (open ground, rooms, a maze at 1024 x 1024; open ground at 4096 x 4096): "
      "one goal by Dijkstra on one thread, and many goals at once on the context's threads.",
      "Checks: the many-goal fields of the first goals against one goal at a time, bit for bit.",
      "256 x 256 open ground and maze", f->suite);
  demos::add_integer(*app, "--goals", f->goals, 2, 4096, "N", "the goals of the many-goal rows");
  return {app, [f] { return run(*f); }};
}

}  // namespace warpmind::bench
