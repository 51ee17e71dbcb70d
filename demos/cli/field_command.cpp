// warpmind field: build potential-field layers and write them as PNG heat maps and/or raw float32.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "flags.h"
#include "output.h"
#include "warpmind/core/context.h"
#include "warpmind/core/hash.h"
#include "warpmind/engine/image.h"
#include "warpmind/field/field.h"
#include "warpmind/field/scenario.h"

namespace warpmind::cli {

namespace {

constexpr demos::Refusal bad{"warpmind field"};

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

// The flags of `warpmind field`.
struct Flags {
  std::string scenario, resolution, distribution = "uniform", variant, png, raw, layer, range;
  field::FieldGenParams gen;
  demos::ContextFlags context;
  int repeat = 1;
  bool json = false;
};

int run(const Flags& f, const CLI::App& app) {
  field::FieldScenario sc;
  if (app.count("--scenario")) {
    for (const char* flag : {"--resolution", "--count", "--radius", "--world", "--distribution"})
      if (app.count(flag)) return bad(std::string(flag) + " cannot be combined with --scenario");
    Status st = field::load_field_scenario(f.scenario, sc);
    if (!st.ok()) return bad(st.message());
  } else {
    field::FieldGenParams p = f.gen;
    if (app.count("--resolution")) parse_resolution(f.resolution, p.width, p.height);  // checked when parsed
    field::parse_distribution(f.distribution, p.distribution);
    sc = field::generate_field_scenario(p);
  }
  if (app.count("--variant")) field::parse_variant(f.variant, sc.config.variant);
  const int repeat = f.repeat;
  engine::HeatRange range;
  if (app.count("--range")) std::sscanf(f.range.c_str(), "%f:%f", &range.lo, &range.hi);
  const bool json = f.json;

  std::unique_ptr<Context> ctx;
  if (const std::string err = demos::open_context(f.context, json, ctx); !err.empty()) return bad(err);
  Status st;
  std::unique_ptr<field::FieldLayers> layers;
  st = field::FieldLayers::create(*ctx, sc.config, layers);
  if (!st.ok()) return bad(st.message());
  int only = -1;
  if (app.count("--layer") && (only = layers->layer_index(f.layer)) < 0)
    return bad("--layer: no layer named '" + f.layer + "'");

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
    if (app.count("--png")) {
      const std::string path = layer_path(f.png, name, several);
      engine::heatmap_rgba(data.data(), cfg.width, cfg.height, range, engine::ColorRamp::Diverging, rgba);
      std::string err = engine::write_png(path, cfg.width, cfg.height, rgba.data());
      if (!err.empty()) return bad(err);
      if (!json) std::printf("wrote %s\n", path.c_str());
    }
    if (app.count("--raw")) {
      const std::string path = layer_path(f.raw, name, several);
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

}  // namespace

demos::Subcommand field_command(CLI::App& parent) {
  CLI::App* app =
      demos::add_subcommand(parent, "field",
                            "build potential-field layers from a scenario or generated entities; write PNG/raw\n"
                            "Builds every layer of a field scenario and reports timings and per-layer statistics.");
  auto f = std::make_shared<Flags>();
  const std::string input = "input (a scenario file, or generated circle entities as in the seed benchmark)";
  demos::add_text(*app, "--scenario", f->scenario, "FILE.json",
                  "world, resolution, charge kinds, layers, entities (docs/field.md)")
      ->group(input);
  demos::add_text(
      *app, "--resolution", f->resolution, "N|WxH", "cells",
      [](const std::string& s) {
        int w = 0, h = 0;
        return parse_resolution(s, w, h) ? std::string()
                                         : "expected N or WxH with 1..32768 cells per side, got '" + s + "'";
      },
      "1024")
      ->group(input);
  demos::add_integer(*app, "--count", f->gen.count, 0, 100000000, "N", "entities")->group(input);
  demos::add_number(*app, "--radius", f->gen.radius, 1e-3, 1e6, "R", "circle radius, world units")->group(input);
  demos::add_number(*app, "--world", f->gen.world, 1e-3, 1e9, "W", "square world side")->group(input);
  demos::add_choice(*app, "--distribution", f->distribution, {"uniform", "clustered"}, "where entities are placed")
      ->group(input);
  demos::add_integer(*app, "--seed", f->gen.seed, 0, INT64_MAX, "N", "generator seed")->group(input);
  const std::string execution = "execution";
  demos::add_context_flags(*app, f->context);
  app->get_option("--backend")->group(execution);
  demos::add_text(*app, "--variant", f->variant, "V",
                  "auto, cpu-naive, cpu-stamp, gpu-naive, gpu-coalesced, gpu-shared, gpu-binned",
                  [](const std::string& s) {
                    field::FieldVariant v;
                    return field::parse_variant(s, v) ? std::string() : "unknown variant '" + s + "'";
                  })
      ->group(execution);
  app->get_option("--threads")->group(execution);
  demos::add_integer(*app, "--repeat", f->repeat, 1, 100000, "N", "build N times and report the median")
      ->group(execution);
  const std::string output = "output";
  demos::add_text(*app, "--png", f->png, "PATH", "heat map per layer (PATH, or PATH-<layer>.png for several layers)")
      ->group(output);
  demos::add_text(*app, "--raw", f->raw, "PATH", "float32 little-endian, row-major, row 0 = lowest y (same naming)")
      ->group(output);
  demos::add_text(*app, "--layer", f->layer, "NAME", "write only this layer")->group(output);
  demos::add_text(
      *app, "--range", f->range, "LO:HI", "heat-map range",
      [](const std::string& s) {
        engine::HeatRange r;
        return std::sscanf(s.c_str(), "%f:%f", &r.lo, &r.hi) == 2 && r.lo < r.hi
                   ? std::string()
                   : "expected LO:HI with LO < HI, got '" + s + "'";
      },
      "symmetric around 0 from the data")
      ->group(output);
  demos::add_flag(*app, "--json", f->json, "one JSON summary object on stdout")->group(output);
  return {app, [f, app] { return run(*f, *app); }};
}

}  // namespace warpmind::cli
