// warpmind field: build potential-field layers and write them as PNG heat maps and/or raw float32.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/args.h"
#include "commands.h"
#include "warpmind/core/context.h"
#include "warpmind/core/hash.h"
#include "warpmind/engine/image.h"
#include "warpmind/field/field.h"
#include "warpmind/field/scenario.h"

namespace warpmind::cli {

namespace {

constexpr const char* kHelp =
    "usage: warpmind field [options]\n"
    "\n"
    "Builds every layer of a field scenario and reports timings and per-layer statistics.\n"
    "\n"
    "input (a scenario file, or generated circle entities as in the seed benchmark):\n"
    "  --scenario FILE.json     world, resolution, charge kinds, layers, entities (docs/field.md)\n"
    "  --resolution N|WxH       cells (default 1024)        --count N        entities (default 256)\n"
    "  --radius R               circle radius, world units (default 8)\n"
    "  --world W                square world side (default 256)\n"
    "  --distribution D         uniform | clustered (default uniform)\n"
    "  --seed N                 generator seed (default 1)\n"
    "execution:\n"
    "  --backend B              cpu | cuda | auto (default auto)\n"
    "  --variant V              auto, cpu-naive, cpu-stamp, gpu-naive, gpu-coalesced, gpu-shared, gpu-binned\n"
    "  --threads N              CPU threads, 0..1024; 0 (the default) = one per hardware thread\n"
    "  --repeat N               build N times and report the median (default 1)\n"
    "output:\n"
    "  --png PATH               heat map per layer (PATH, or PATH-<layer>.png for several layers)\n"
    "  --raw PATH               float32 little-endian, row-major, row 0 = lowest y (same naming)\n"
    "  --layer NAME             write only this layer\n"
    "  --range LO:HI            heat-map range (default symmetric around 0 from the data)\n"
    "  --json                   one JSON summary object on stdout\n";

int bad(const std::string& why) {
  std::fprintf(stderr, "warpmind field: %s\n", why.c_str());
  return 2;
}

std::string layer_path(const std::string& path, const std::string& layer, bool several) {
  if (!several) return path;
  const auto dot = path.rfind('.');
  const auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + "-" + layer;
  return path.substr(0, dot) + "-" + layer + path.substr(dot);
}

bool parse_resolution(const std::string& s, int& w, int& h) {
  int a = 0, b = 0;
  char extra = 0;
  if (std::sscanf(s.c_str(), "%dx%d%c", &a, &b, &extra) == 2) {
    w = a;
    h = b;
  } else if (std::sscanf(s.c_str(), "%d%c", &a, &extra) == 1) {
    w = h = a;
  } else {
    return false;
  }
  return w >= 1 && h >= 1 && w <= field::kMaxCellsPerSide && h <= field::kMaxCellsPerSide;
}

}  // namespace

int field_command(int argc, char** argv) {
  demos::Args args(argc, argv, 1,
                   {"scenario", "resolution", "count", "radius", "world", "distribution", "seed", "backend", "variant",
                    "threads", "repeat", "png", "raw", "layer", "range"},
                   {"json", "help"});
  if (!args.error().empty()) return bad(args.error());
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }

  field::FieldScenario sc;
  if (args.has("scenario")) {
    for (const char* f : {"resolution", "count", "radius", "world", "distribution"})
      if (args.has(f)) return bad(std::string("--") + f + " cannot be combined with --scenario");
    Status st = field::load_field_scenario(args.str("scenario"), sc);
    if (!st.ok()) return bad(st.message());
  } else {
    field::FieldGenParams p;
    if (args.has("resolution") && !parse_resolution(args.str("resolution"), p.width, p.height))
      return bad("--resolution: expected N or WxH with 1..32768 cells per side, got '" + args.str("resolution") + "'");
    p.count = static_cast<std::size_t>(args.integer("count", 256, 0, 100000000));
    p.radius = static_cast<float>(args.number("radius", 8.0, 1e-3, 1e6));
    p.world = static_cast<float>(args.number("world", 256.0, 1e-3, 1e9));
    p.seed = static_cast<std::uint64_t>(args.integer("seed", 1, 0, INT64_MAX));
    if (!field::parse_distribution(args.str("distribution", "uniform"), p.distribution))
      return bad("--distribution: expected uniform or clustered, got '" + args.str("distribution") + "'");
    if (!args.error().empty()) return bad(args.error());
    sc = field::generate_field_scenario(p);
  }

  ContextOptions co;
  if (!parse_backend(args.str("backend", "auto"), co.backend))
    return bad("--backend: expected cpu, cuda or auto, got '" + args.str("backend") + "'");
  if (args.has("variant") && !field::parse_variant(args.str("variant"), sc.config.variant))
    return bad("--variant: unknown variant '" + args.str("variant") + "'");
  co.cpu_threads = static_cast<unsigned>(args.integer("threads", 0, 0, 1024));
  const int repeat = static_cast<int>(args.integer("repeat", 1, 1, 100000));
  engine::HeatRange range;
  if (args.has("range") &&
      (std::sscanf(args.str("range").c_str(), "%f:%f", &range.lo, &range.hi) != 2 || !(range.lo < range.hi)))
    return bad("--range: expected LO:HI with LO < HI, got '" + args.str("range") + "'");
  if (!args.error().empty()) return bad(args.error());
  const bool json = args.has("json");
  co.quiet = json;

  std::unique_ptr<Context> ctx;
  Status st = Context::create(co, ctx);
  if (!st.ok()) return bad(st.message());
  std::unique_ptr<field::FieldLayers> layers;
  st = field::FieldLayers::create(*ctx, sc.config, layers);
  if (!st.ok()) return bad(st.message());
  int only = -1;
  if (args.has("layer") && (only = layers->layer_index(args.str("layer"))) < 0)
    return bad("--layer: no layer named '" + args.str("layer") + "'");

  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    st = layers->build(sc.entities);
    if (st.ok()) st = ctx->synchronize();
    if (!st.ok()) return bad(st.message());
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];

  const auto& cfg = sc.config;
  const std::size_t cells = static_cast<std::size_t>(cfg.width) * cfg.height;
  std::vector<float> data(cells);
  std::vector<std::uint8_t> rgba;
  std::string layer_json;
  const bool several = only < 0 && layers->layer_count() > 1;
  if (!json)
    std::printf("field: %dx%d cells over a %gx%g world, %zu entities, %d layer(s), variant %s on %s (%s)\n", cfg.width,
                cfg.height, cfg.world.width, cfg.world.height, sc.entities.size(), layers->layer_count(),
                field::variant_name(layers->variant()), backend_name(ctx->backend()), ctx->device().name.c_str());
  for (int l = 0; l < layers->layer_count(); ++l) {
    if (only >= 0 && l != only) continue;
    st = layers->read(l, data);
    if (!st.ok()) return bad(st.message());
    const std::string& name = cfg.layers[l].name;
    double sum = 0;
    float lo = data[0], hi = data[0];
    for (float v : data) {
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const std::uint64_t h = fnv1a(data.data(), cells * sizeof(float));
    if (json) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "%s{\"name\":\"%s\",\"min\":%.9g,\"max\":%.9g,\"mean\":%.9g,\"hash\":\"%016" PRIx64 "\"}",
                    layer_json.empty() ? "" : ",", demos::json_escape(name).c_str(), lo, hi, sum / cells, h);
      layer_json += buf;
    } else {
      std::printf("layer %-12s min %10.3f  max %10.3f  mean %10.4f  hash %016" PRIx64 "\n", name.c_str(), lo, hi,
                  sum / cells, h);
    }
    if (args.has("png")) {
      const std::string path = layer_path(args.str("png"), name, several);
      engine::heatmap_rgba(data.data(), cfg.width, cfg.height, range, engine::ColorRamp::Diverging, rgba);
      std::string err = engine::write_png(path, cfg.width, cfg.height, rgba.data());
      if (!err.empty()) return bad(err);
      if (!json) std::printf("wrote %s\n", path.c_str());
    }
    if (args.has("raw")) {
      const std::string path = layer_path(args.str("raw"), name, several);
      std::string err =
          demos::write_file(path, std::string(reinterpret_cast<const char*>(data.data()), cells * sizeof(float)));
      if (!err.empty()) return bad(err);
      if (!json) std::printf("wrote %s\n", path.c_str());
    }
  }
  if (json) {
    std::printf(
        "{\"command\":\"field\",\"width\":%d,\"height\":%d,\"entities\":%zu,\"variant\":\"%s\",\"backend\":\"%s\","
        "\"device\":\"%s\",\"threads\":%u,\"repeats\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"max_ms\":%.6f,"
        "\"layers\":[%s]}\n",
        cfg.width, cfg.height, sc.entities.size(), field::variant_name(layers->variant()), backend_name(ctx->backend()),
        demos::json_escape(ctx->device().name).c_str(), ctx->pool().size(), repeat, median, times.front(), times.back(),
        layer_json.c_str());
  } else {
    std::printf("build: median %.3f ms over %d run(s) (min %.3f, max %.3f), host-to-result\n", median, repeat,
                times.front(), times.back());
  }
  return 0;
}

}  // namespace warpmind::cli
