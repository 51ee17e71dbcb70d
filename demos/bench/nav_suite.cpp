// Suite "nav": navigation fields (warpmind/nav/nav.h) on generated maps (nav/generate.h: open ground with
// obstacles, rooms with doors, a maze) at 1024 x 1024, and open ground at 4096 x 4096 (--quick: 256 x 256):
// one goal (Dijkstra on one thread) and 64 goals at once (the goals on the context's threads), the goals
// seeded among the passable cells, and the incremental update of a 100-cell change (nav_fields.h). The
// 64 goals' fields are compared with the one-goal runs of their first goals, the updated field with a
// full computation, bit for bit. With CUDA, the GPU variant on the same goals after each CPU row (every
// field compared with the CPU's, bit for bit; timed by the device's time, the call's beside it). On the
// maps up to 1024 x 1024, the many goals also as one goal set (goal_set_field, DeviceNavField) and a
// million units steered by its field (nav::steer, DeviceNavField::steer_device). Then the real maps of
// --maps (assets/maps/movingai: StarCraft, Dragon Age, Baldur's Gate II, mazes, rooms, a city, with their
// scenario files): one goal and --goals goals, the goals those of problems spread over the scenario file,
// every field's start of those problems checked against the file's optimal length, and with CUDA the
// GPU's fields against the CPU's, bit for bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "warpmind/core/device_ceilings.h"
#include "results.h"
#include "suites.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/core/random.h"
#include "warpmind/nav/device_field.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/nav_fields.h"
#include "output.h"

namespace warpmind::bench {

namespace {

struct Flags {
  SuiteFlags suite;
  int goals = 64;
  std::string maps;  // the real maps' folder; empty: WARPMIND_SOURCE_DIR's (or the working folder's) assets
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
int update_rows(Context& ctx, const std::string& map, int side, const nav::Grid& start, Results& results) {
  if (side > 1024) return 0;
  nav::Grid grid = start;
  const std::vector<nav::Cell> goal = seeded_goals(grid, 1, 7);
  // The rounds' changes, made once and replayed by each variant.
  SplitMix64 rng(9);
  std::vector<std::vector<nav::CellChange>> rounds(20);
  for (auto& changes : rounds) {
    const int cx = static_cast<int>(rng.below(static_cast<std::uint32_t>(side - 10)));
    const int cy = static_cast<int>(rng.below(static_cast<std::uint32_t>(side - 10)));
    for (int y = cy; y < cy + 10; ++y)
      for (int x = cx; x < cx + 10; ++x) {
        if (nav::Cell{x, y} == goal[0]) continue;
        const std::uint8_t cost = grid.cost[grid.index(x, y)] == nav::kBlocked ? 1 : nav::kBlocked;
        changes.push_back({{x, y}, cost});
        grid.cost[grid.index(x, y)] = cost;
      }
  }
  std::vector<float> want(grid.cells());
  std::vector<std::int8_t> want_dir(grid.cells());
  if (!nav::distance_fields(ctx, grid, goal, want, want_dir, nullptr, nav::NavVariant::Cpu).ok()) return 1;
  std::unique_ptr<nav::NavFields> fields;
  if (!nav::NavFields::create(ctx, start, goal, fields).ok()) return 1;
  Timing t;
  nav::FieldStats stats;
  for (const auto& changes : rounds) {
    if (!fields->update(changes, &stats).ok()) return 1;
    t.ms.push_back(stats.ms);
  }
  std::sort(t.ms.begin(), t.ms.end());
  std::vector<float> got(fields->distance(0).begin(), fields->distance(0).end());
  if (corrupt("cpu-update")) got[0] = -1.0f;
  const bool same = std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0 &&
                    std::memcmp(want_dir.data(), fields->direction(0).data(), want_dir.size()) == 0;
  std::printf("%-6s %6d %6d | %-12s %10.3f %12s %14llu %s\n", map.c_str(), side, 1, "cpu-update", t.median(),
              "100 cells", static_cast<unsigned long long>(stats.settled), same ? "equal" : "DIFFER");
  Record r;
  r.variant = "cpu-update";
  r.backend = "cpu";
  r.timing = t;
  r.compared("cpu-1-thread", same);
  r.params_json = std::string("{\"map\": \"") + map + "\", \"width\": " + std::to_string(side) +
                  ", \"height\": " + std::to_string(side) + ", \"goals\": 1, \"changed_cells\": 100}";
  results.add(r);
  if (!ctx.cuda()) return same ? 0 : 1;
  // The same rounds on the device (DeviceNavField::update), timed by the device.
  std::unique_ptr<nav::DeviceNavField> dev;
  if (!nav::DeviceNavField::create(ctx, start, dev).ok() || !dev->compute(goal).ok()) return 1;
  Timing g;
  std::uint64_t relaxed = 0;
  for (const auto& changes : rounds) {
    if (!dev->update(changes, &stats).ok()) return 1;
    g.ms.push_back(stats.device_ms);
    relaxed += stats.tiles_relaxed;
  }
  std::sort(g.ms.begin(), g.ms.end());
  std::vector<float> gd(grid.cells());
  std::vector<std::int8_t> gr(grid.cells());
  if (!dev->read(gd, gr).ok()) return 1;
  if (corrupt("gpu-update")) gd[0] = -1.0f;
  const bool gsame = std::memcmp(want.data(), gd.data(), want.size() * sizeof(float)) == 0 &&
                     std::memcmp(want_dir.data(), gr.data(), want_dir.size()) == 0;
  std::printf("%-6s %6d %6d | %-12s %10.3f %12s %14s %s  (%.1fx the CPU's update, %.0f tile relaxations a round)\n",
              map.c_str(), side, 1, "gpu-update", g.median(), "100 cells", "", gsame ? "equal" : "DIFFER",
              t.median() / g.median(), static_cast<double>(relaxed) / static_cast<double>(rounds.size()));
  Record u;
  u.variant = "gpu-update";
  u.backend = "cuda";
  u.timing = g;
  u.compared("cpu-1-thread", gsame);
  u.params_json = r.params_json;
  char extra[160];
  std::snprintf(extra, sizeof extra, "\"speedup\": %.2f, \"tiles_relaxed_per_round\": %.1f", t.median() / g.median(),
                static_cast<double>(relaxed) / static_cast<double>(rounds.size()));
  u.extra_json = extra;
  results.add(u);
  return (same ? 0 : 1) + (gsame ? 0 : 1);
}

// The GPU variant on the same goals: timed by the device's time (the call's, copies included, beside it),
// every field compared bit for bit with the CPU's, the floor the results' bytes written once and the map
// read once at the measured copy bandwidth.
int gpu_row(Context& ctx, const DeviceCeilings& ceil, const std::string& map, const nav::Grid& grid,
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
      map.c_str(), grid.width, n, "gpu", t.median(), t.median() / static_cast<double>(n),
      static_cast<unsigned long long>(stats.settled), same ? "equal" : "DIFFER", call.median(), cpu_ms / t.median(),
      static_cast<unsigned long long>(stats.tiles_relaxed), floor_ms);
  Record r;
  r.variant = "gpu";
  r.backend = "cuda";
  r.timing = t;
  r.floor_ms = floor_ms;
  r.compared(cpu_variant, same);
  char params[200], extra[300];
  std::snprintf(params, sizeof params, "{\"map\": \"%s\", \"width\": %d, \"height\": %d, \"goals\": %zu}", map.c_str(),
                grid.width, grid.height, n);
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

// A record of the goal-set and steering rows: params map, side, goals; extra as given.
void add_row(Results& results, const char* variant, const char* backend, const Timing& t, const std::string& map,
             int side, std::size_t goals, const std::string& extra, const char* against, bool same,
             double floor_ms = 0) {
  Record r;
  r.variant = variant;
  r.backend = backend;
  r.timing = t;
  r.floor_ms = floor_ms;
  if (against) r.compared(against, same);
  r.params_json = std::string("{\"map\": \"") + map + "\", \"width\": " + std::to_string(side) +
                  ", \"height\": " + std::to_string(side) + ", \"goals\": " + std::to_string(goals) + "}";
  r.extra_json = extra;
  results.add(r);
}

// The field of a goal set (all the many-goal row's goals as one set): on one CPU thread, its distances
// compared with the least of the many-goal fields; with CUDA, DeviceNavField's (device time) compared
// with the CPU's bit for bit, then the steering of a million units on the device (steer_device, wall time
// to the stream's end) against nav::steer on one thread, bit for bit.
int goal_set_rows(Context& ctx, const DeviceCeilings& ceil, const std::string& map, const nav::Grid& grid,
                  const std::vector<nav::Cell>& goals, const std::vector<float>& fields, Results& results) {
  const std::size_t cells = grid.cells();
  std::vector<float> dist(cells);
  std::vector<std::int8_t> dir(cells);
  nav::FieldStats stats;
  Timing t;
  if (!time_runs(
          [&] {
            return nav::goal_set_field(ctx, grid, goals, dist, dir, &stats, nav::NavVariant::Cpu).ok() ? stats.ms
                                                                                                       : -1.0;
          },
          0, 1, 5, 10000, t))
    return 1;
  bool same = true;
  for (std::size_t c = 0; c < cells; ++c) {
    float least = fields[c];
    for (std::size_t g = 1; g < goals.size(); ++g) least = std::min(least, fields[g * cells + c]);
    same &= std::memcmp(&least, &dist[c], sizeof least) == 0;
  }
  if (corrupt("cpu-goal-set")) same = false;
  std::printf("%-6s %6d %6zu | %-12s %10.3f %12s %14llu %s\n", map.c_str(), grid.width, goals.size(), "cpu-goal-set",
              t.median(), "one field", static_cast<unsigned long long>(stats.settled), same ? "equal" : "DIFFER");
  add_row(results, "cpu-goal-set", "cpu", t, map, grid.width, goals.size(),
          "\"settled\": " + std::to_string(stats.settled), "cpu-threads", same);
  int failures = same ? 0 : 1;
  if (!ctx.cuda()) return failures;
  const double cpu_ms = t.median();
  std::unique_ptr<nav::DeviceNavField> field;
  if (!nav::DeviceNavField::create(ctx, grid, field).ok()) return failures + 1;
  Timing g;
  if (!time_runs([&] { return field->compute(goals, &stats).ok() ? stats.device_ms : -1.0; }, 1, 3, 10, 20000, g))
    return failures + 1;
  std::vector<float> gd(cells);
  std::vector<std::int8_t> gr(cells);
  if (!field->read(gd, gr).ok()) return failures + 1;
  if (corrupt("gpu-goal-set")) gd[0] = -1.0f;
  const bool gsame =
      std::memcmp(gd.data(), dist.data(), cells * sizeof(float)) == 0 && std::memcmp(gr.data(), dir.data(), cells) == 0;
  std::printf("%-6s %6d %6zu | %-12s %10.3f %12s %14llu %s  (%.1fx the CPU, %llu tile relaxations)\n", map.c_str(),
              grid.width, goals.size(), "gpu-goal-set", g.median(), "one field",
              static_cast<unsigned long long>(stats.settled), gsame ? "equal" : "DIFFER", cpu_ms / g.median(),
              static_cast<unsigned long long>(stats.tiles_relaxed));
  char extra[200];
  std::snprintf(extra, sizeof extra, "\"settled\": %llu, \"tiles_relaxed\": %llu, \"speedup\": %.2f",
                static_cast<unsigned long long>(stats.settled), static_cast<unsigned long long>(stats.tiles_relaxed),
                cpu_ms / g.median());
  add_row(results, "gpu-goal-set", "cuda", g, map, grid.width, goals.size(), extra, "cpu-goal-set", gsame,
          (static_cast<double>(cells) * (1 + sizeof(float) + 1)) / ceil.copy_bytes_per_s * 1e3);
  failures += gsame ? 0 : 1;

  // A million units anywhere on the map (some outside it), steered by the field.
  constexpr std::size_t kUnits = 1'000'000;
  SplitMix64 rng(17);
  std::vector<Vec2> pos(kUnits), hs(kUnits), ds(kUnits);
  std::vector<float> hd(kUnits), dd(kUnits);
  const float side = static_cast<float>(grid.width);
  for (Vec2& p : pos) p = {rng.uniform(-1.0f, side + 1.0f), rng.uniform(-1.0f, side + 1.0f)};
  Timing h, d;
  if (!time_runs(
          [&] {
            const auto t0 = std::chrono::steady_clock::now();
            if (!nav::steer(grid, gd, gr, pos, hs, hd).ok()) return -1.0;
            return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          },
          1, 3, 10, 10000, h))
    return failures + 1;
  DeviceBytes pd, sd, dist_d;
  if (!pd.allocate(ctx, kUnits * sizeof(Vec2)).ok() || !sd.allocate(ctx, kUnits * sizeof(Vec2)).ok() ||
      !dist_d.allocate(ctx, kUnits * sizeof(float)).ok() || !pd.upload(ctx, pos.data(), kUnits * sizeof(Vec2)).ok())
    return failures + 1;
  if (!time_runs(
          [&] {
            const auto t0 = std::chrono::steady_clock::now();
            if (!field
                     ->steer_device(static_cast<const Vec2*>(pd.get()), kUnits, static_cast<Vec2*>(sd.get()),
                                    static_cast<float*>(dist_d.get()))
                     .ok() ||
                !ctx.synchronize().ok())
              return -1.0;
            return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          },
          2, 5, 20, 10000, d))
    return failures + 1;
  if (!sd.download(ctx, ds.data(), kUnits * sizeof(Vec2)).ok() || !dist_d.download(ctx, dd.data(), kUnits * 4).ok())
    return failures + 1;
  if (corrupt("gpu-steer")) dd[0] = -1.0f;
  const bool ssame = std::memcmp(hs.data(), ds.data(), kUnits * sizeof(Vec2)) == 0 &&
                     std::memcmp(hd.data(), dd.data(), kUnits * sizeof(float)) == 0;
  const double steer_floor =
      static_cast<double>(kUnits) * (sizeof(Vec2) * 2 + sizeof(float)) / ceil.copy_bytes_per_s * 1e3;
  std::printf("%-6s %6d %6s | %-12s %10.3f %12s %14s %s  (cpu-steer %.3f ms on one thread, %.1fx; floor %.4f ms)\n",
              map.c_str(), grid.width, "1M", "gpu-steer", d.median(), "", "", ssame ? "equal" : "DIFFER", h.median(),
              h.median() / d.median(), steer_floor);
  add_row(results, "cpu-steer", "cpu", h, map, grid.width, goals.size(), "\"units\": 1000000", nullptr, true);
  std::snprintf(extra, sizeof extra, "\"units\": 1000000, \"speedup\": %.2f", h.median() / d.median());
  add_row(results, "gpu-steer", "cuda", d, map, grid.width, goals.size(), extra, "cpu-steer", ssame, steer_floor);
  return failures + (ssame ? 0 : 1);
}

// Each field's start of its problem (problems[i] for goal i) against the scenario file's optimal length,
// to its rounding (half a unit of its last digit, plus the float's own); a length of 0 between distinct
// cells marks a problem without a path (+infinity). Returns how many failed.
std::size_t scenario_failures(const nav::Grid& g, std::span<const nav::Scenario> problems,
                              const std::vector<float>& dist) {
  std::size_t failed = 0;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const nav::Scenario& s = problems[i];
    const double got = dist[i * g.cells() + g.index(s.start.x, s.start.y)];
    const bool none = s.optimal == 0 && !(s.start == s.goal);
    failed +=
        none ? !std::isinf(got) : !(std::fabs(got - s.optimal) <= 0.5 * std::pow(10.0, -s.decimals) + 1e-7 * s.optimal);
  }
  return failed;
}

// The CPU's row of one map and goal count (one goal: Dijkstra on one thread; more: the context's
// threads, the first goals' fields compared with one goal at a time), its scenario checks where the goals
// are problems', then the GPU's row on the same goals and, for the many goals up to 1024², the goal-set
// and steering rows.
int field_rows(Context& ctx, const DeviceCeilings& ceil, const std::string& map, const nav::Grid& grid,
               const std::vector<nav::Cell>& goals, std::span<const nav::Scenario> problems, Results& results) {
  const std::size_t n = goals.size();
  std::vector<float> dist(n * grid.cells());
  std::vector<std::int8_t> dir(dist.size());
  nav::FieldStats stats;
  Timing t;
  Status st;
  const bool ok = time_runs(
      [&] {
        st = nav::distance_fields(ctx, grid, goals, dist, dir, &stats, nav::NavVariant::Cpu);
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
    for (std::size_t g = 0; g < std::min<std::size_t>(n, 4); ++g, ++compared) {
      if (!nav::distance_fields(ctx, grid, std::span(goals).subspan(g, 1), one, one_dir, nullptr, nav::NavVariant::Cpu)
               .ok())
        return 1;
      if (corrupt("cpu-threads") && g == 0) one[goals[0].y * grid.width + goals[0].x] = 1.0f;
      differ += std::memcmp(one.data(), dist.data() + g * grid.cells(), one.size() * sizeof(float)) != 0 ||
                std::memcmp(one_dir.data(), dir.data() + g * grid.cells(), one_dir.size()) != 0;
    }
  }
  const std::size_t scen_failed = scenario_failures(grid, problems, dist);
  const char* variant = n == 1 ? "cpu-1-thread" : "cpu-threads";
  std::printf("%-14s %5dx%-5d %6zu | %-12s %10.2f %12.3f %14llu %s%s\n", map.c_str(), grid.width, grid.height, n,
              variant, t.median(), t.median() / static_cast<double>(n), static_cast<unsigned long long>(stats.settled),
              n == 1   ? ""
              : differ ? "DIFFER"
                       : "equal",
              problems.empty() ? ""
              : scen_failed    ? (n == 1 ? "scenario length DIFFER" : "; scenario lengths DIFFER")
                               : (n == 1 ? "scenario length equal" : "; scenario lengths equal"));
  Record r;
  r.variant = variant;
  r.backend = "cpu";
  r.timing = t;
  if (n > 1)
    r.compared("cpu-1-thread", differ == 0 && scen_failed == 0);
  else if (!problems.empty())
    r.compared("scenarios", scen_failed == 0);
  char params[300], extra[300];
  std::snprintf(params, sizeof params,
                "{\"map\": \"%s\", \"width\": %d, \"height\": %d, \"goals\": %zu, \"threads\": %u}", map.c_str(),
                grid.width, grid.height, n, n == 1 ? 1u : ctx.pool().size());
  std::snprintf(extra, sizeof extra,
                "\"settled\": %llu, \"ms_per_goal\": %.4f, \"compared_goals\": %zu, \"scenarios_checked\": %zu, "
                "\"scenarios_failed\": %zu",
                static_cast<unsigned long long>(stats.settled), t.median() / static_cast<double>(n), compared,
                problems.size(), scen_failed);
  r.params_json = params;
  r.extra_json = extra;
  results.add(r);
  int failures = (differ != 0) + (scen_failed != 0);
  if (ctx.cuda()) failures += gpu_row(ctx, ceil, map, grid, goals, dist, dir, t.median(), variant, results);
  if (n > 1 && grid.width <= 1024 && grid.height <= 1024 && grid.width == grid.height && problems.empty())
    failures += goal_set_rows(ctx, ceil, map, grid, goals, dist, results);
  return failures;
}

// The real maps of `dir` (NAME.map.gz with NAME.map.scen.gz): one goal and `goals` goals, those of
// problems spread over the scenario file (the one goal's a long one, 90% down a file sorted short to long).
int real_map_rows(Context& ctx, const DeviceCeilings& ceil, const std::string& dir, bool quick, int goals,
                  ResultsFile& file, Results& results) {
  std::vector<std::string> names = {"TheFrozenSea", "Berlin_1_1024", "Caldera", "Triskelion",  "AR0309SR",
                                    "64room_003",   "brc504d",       "lak512d", "maze512-1-8", "maze512-8-8"};
  if (quick) names = {"maze512-1-8", "brc504d"};
  int failures = 0;
  for (const std::string& name : names) {
    std::string text, scen_text;
    std::string err = demos::read_file(dir + "/" + name + ".map.gz", text);
    if (err.empty()) err = demos::read_file(dir + "/" + name + ".map.scen.gz", scen_text);
    nav::Grid grid;
    std::vector<nav::Scenario> scen;
    Status st = err.empty() ? nav::read_moving_ai(text, grid) : Status::Invalid(err);
    if (st.ok()) st = nav::read_moving_ai_scenarios(scen_text, scen);
    if (st.ok() && scen.empty()) st = Status::Invalid("no problems");
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench nav: %s: %s\n", name.c_str(), st.message().c_str());
      return failures + 1;
    }
    std::vector<nav::Scenario> one = {scen[(scen.size() - 1) * 9 / 10]}, many;
    for (int i = 0; i < goals; ++i)
      many.push_back(scen[(scen.size() - 1) * static_cast<std::size_t>(i) / static_cast<std::size_t>(goals - 1)]);
    for (const std::vector<nav::Scenario>* problems : {&one, &many}) {
      std::vector<nav::Cell> cells;
      for (const nav::Scenario& p : *problems) cells.push_back(p.goal);
      failures += field_rows(ctx, ceil, name, grid, cells, *problems, results);
    }
    if (!file.write(results)) return failures + 1;
  }
  return failures;
}

int run(const Flags& f) {
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "nav", ctx)) return rc;
  std::string maps_dir = f.maps;
  if (maps_dir.empty()) {
    const char* root = std::getenv("WARPMIND_SOURCE_DIR");
    maps_dir = std::string(root && *root ? root : ".") + "/assets/maps/movingai";
  }
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
  std::printf("%-14s %11s %6s | %-12s %10s %12s %14s %s\n", "map", "size", "goals", "variant", "ms", "ms a goal",
              "cells settled", "checked");
  int failures = 0;
  for (const MapCase& m : maps) {
    nav::Grid grid;
    if (!nav::generate_map(m.kind, m.side, m.side, 1, grid).ok()) return 1;
    for (const int n : {1, f.goals})
      failures += field_rows(*ctx, ceil, nav::map_kind_name(m.kind), grid, seeded_goals(grid, n, 7), {}, results);
    failures += update_rows(*ctx, nav::map_kind_name(m.kind), m.side, grid, results);
    if (!file.write(results)) return 1;
  }
  failures += real_map_rows(*ctx, ceil, maps_dir, f.suite.quick, f.goals, file, results);
  file.finish(results);
  return failures ? 1 : 0;
}

}  // namespace

demos::Subcommand nav_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_suite(
      parent, "nav",
      "navigation fields: one goal and many on generated and real maps\n"
      "Navigation fields on generated maps (open ground, rooms, a maze at 1024 x 1024; open ground at 4096 x 4096) "
      "and the real maps of --maps: one goal by Dijkstra on one thread, and many goals at once on the context's "
      "threads.",
      "Checks: the many-goal fields of the first goals against one goal at a time, bit for bit; on the real maps, "
      "the start of every goal's problem against the scenario file's optimal length.",
      "256 x 256 open ground and maze; the real maps maze512-1-8 and brc504d", f->suite);
  demos::add_integer(*app, "--goals", f->goals, 2, 4096, "N", "the goals of the many-goal rows");
  demos::add_text(*app, "--maps", f->maps, "DIR",
                  "the real maps' folder (NAME.map.gz and NAME.map.scen.gz); default "
                  "$WARPMIND_SOURCE_DIR/assets/maps/movingai, else ./assets/maps/movingai");
  return {app, [f] { return run(*f); }};
}

}  // namespace warpmind::bench
