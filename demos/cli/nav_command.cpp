// warpmind nav: the navigation fields of a Moving AI map (warpmind/nav/nav.h): the distance from every cell
// to each goal, as raw float32 (row-major, one field after another), and the step directions.
#include <chrono>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "flags.h"
#include "output.h"
#include "warpmind/core/context.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"

namespace warpmind::cli {

namespace {

constexpr demos::Refusal bad{"warpmind nav"};

struct Flags {
  std::string map, generate, size = "256x256", out, directions, write_map;
  std::uint64_t seed = 1;
  std::vector<std::string> goals;
  demos::ContextFlags context;
  bool json = false;
};

// "X,Y": two decimal integers ("" when it reads, else what is wrong).
std::string parse_goal(const std::string& text, nav::Cell& out) {
  const std::size_t comma = text.find(',');
  const auto number = [](std::string_view s, int& v) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size();
  };
  if (comma == std::string::npos || !number(std::string_view(text).substr(0, comma), out.x) ||
      !number(std::string_view(text).substr(comma + 1), out.y))
    return "--goal: expected X,Y (two whole numbers), got '" + text + "'";
  return {};
}

template <class T>
std::string write_raw(const std::string& path, const std::vector<T>& v) {
  return demos::write_file(path, std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)));
}

// The map: read from --map, or made by --generate.
int load(const Flags& f, const CLI::App& app, nav::Grid& grid) {
  if (f.map.empty() == f.generate.empty()) return bad("give one of --map and --generate");
  if (!f.map.empty()) {
    for (const char* flag : {"--size", "--seed"})
      if (app.count(flag)) return bad(std::string(flag) + " goes with --generate, not --map");
    std::string text;
    if (const std::string err = demos::read_file(f.map, text); !err.empty()) return bad(err);
    if (const Status st = nav::read_moving_ai(text, grid); !st.ok()) return bad(f.map + ": " + st.message());
    return 0;
  }
  nav::MapKind kind = nav::MapKind::Open;
  (void)nav::parse_map_kind(f.generate, kind);  // checked when parsed
  int w = 0, h = 0;
  const std::size_t x = f.size.find('x');
  const auto number = [](std::string_view s, int& v) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size();
  };
  if (x == std::string::npos || !number(std::string_view(f.size).substr(0, x), w) ||
      !number(std::string_view(f.size).substr(x + 1), h))
    return bad("--size: expected WIDTHxHEIGHT, got '" + f.size + "'");
  if (const Status st = nav::generate_map(kind, w, h, f.seed, grid); !st.ok()) return bad(st.message());
  return 0;
}

int run(const Flags& f, const CLI::App& app) {
  nav::Grid grid;
  if (const int rc = load(f, app, grid)) return rc;
  std::vector<nav::Cell> goals(f.goals.size());
  for (std::size_t i = 0; i < goals.size(); ++i)
    if (const std::string err = parse_goal(f.goals[i], goals[i]); !err.empty()) return bad(err);
  if (goals.empty() && f.write_map.empty()) return bad("--goal: at least one goal (none: --write-map alone)");
  std::unique_ptr<Context> ctx;
  if (const std::string err = demos::open_context(f.context, f.json, ctx); !err.empty()) return bad(err);
  if (!f.write_map.empty()) {
    std::string map;
    if (const Status st = nav::write_moving_ai(grid, map); !st.ok()) return bad(st.message());
    if (const std::string err = demos::write_file(f.write_map, map); !err.empty()) return bad(err);
  }
  const std::size_t cells = grid.cells();
  if (goals.size() > (std::size_t{1} << 34) / cells)
    return bad("--goal: " + std::to_string(goals.size()) + " fields of " + std::to_string(cells) +
               " cells exceed 2^34 values");
  std::vector<float> dist(goals.size() * cells);
  std::vector<std::int8_t> dir(f.directions.empty() ? 0 : dist.size());
  nav::FieldStats stats;
  if (const Status st = nav::distance_fields(*ctx, grid, goals, dist, dir, &stats); !st.ok()) return bad(st.message());
  if (!f.out.empty())
    if (const std::string err = write_raw(f.out, dist); !err.empty()) return bad(err);
  if (!f.directions.empty())
    if (const std::string err = write_raw(f.directions, dir); !err.empty()) return bad(err);
  std::size_t reached = 0;
  double farthest = 0;
  for (float d : dist)
    if (std::isfinite(d)) {
      ++reached;
      farthest = std::max(farthest, static_cast<double>(d));
    }
  if (f.json)
    std::printf(
        "{\"command\":\"nav\",\"width\":%d,\"height\":%d,\"goals\":%zu,\"backend\":\"%s\",\"threads\":%u,"
        "\"reached\":%zu,\"unreachable\":%zu,\"farthest\":%.9g,\"ms\":%.6f}\n",
        grid.width, grid.height, goals.size(), backend_name(ctx->backend()), ctx->pool().size(), reached,
        dist.size() - reached, farthest, stats.ms);
  else
    std::printf("nav: %d x %d map, %zu goal%s: %zu cells reached, %zu not, farthest %.6g, %.3f ms on %u threads\n",
                grid.width, grid.height, goals.size(), goals.size() == 1 ? "" : "s", reached, dist.size() - reached,
                farthest, stats.ms, ctx->pool().size());
  return 0;
}

}  // namespace

demos::Subcommand nav_command(CLI::App& parent) {
  CLI::App* app = demos::add_subcommand(
      parent, "nav",
      "navigation fields: the walking distance from every cell of a map to each goal\n"
      "Reads a Moving AI map (type octile; '.', 'G', 'S' passable, '@', 'O', 'T', 'W' blocked), or generates one, "
      "and computes, for "
      "each goal, the least octile distance from every cell (straight steps 1, diagonal sqrt(2), no corner "
      "cutting; +infinity where the goal cannot be reached) and the direction to step (docs/nav.md).");
  auto f = std::make_shared<Flags>();
  demos::add_text(*app, "--map", f->map, "FILE.map",
                  "the map, in the Moving AI format, or that gzip-compressed (FILE.map.gz; or --generate)");
  demos::add_choice(*app, "--generate", f->generate, {"open", "rooms", "maze"},
                    "a generated map instead (docs/nav.md): open ground with obstacles, rooms with doors, or a maze",
                    "");
  demos::add_text(*app, "--size", f->size, "WxH", "--generate: the map's width and height in cells");
  demos::add_integer(*app, "--seed", f->seed, 0, INT64_MAX, "N", "--generate: the map's seed");
  app->add_option("--goal", f->goals,
                  "a goal cell, column X and row Y from the map's top-left (repeat for more; none with --write-map "
                  "alone writes the map)")
      ->type_name("X,Y")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  demos::add_text(*app, "--out", f->out, "FILE",
                  "the distances: raw little-endian float32, row-major (y * width + x), one field per goal in order");
  demos::add_text(*app, "--directions", f->directions, "FILE",
                  "the step directions: one signed byte a cell (0..7: E, SE, S, SW, W, NW, N, NE; -1: none), laid "
                  "out as --out");
  demos::add_text(*app, "--write-map", f->write_map, "FILE", "the map as read, written back in the Moving AI format");
  demos::add_context_flags(*app, f->context);
  demos::add_flag(*app, "--json", f->json, "one JSON summary object on stdout");
  return {app, [f, app] { return run(*f, *app); }};
}

}  // namespace warpmind::cli
