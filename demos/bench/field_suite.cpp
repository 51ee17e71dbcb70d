// Suite "field": Elmir's grid — a fixed 256x256 world, resolutions 256..2048 step 256, entity counts
// 64, 128, 256..2048 step 256, circle radii 15, 8 and 4 world units — every variant in one run, plus a
// scale case (4096-unit world at 4096x4096, 100,000 entities of radius 15).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../common/args.h"
#include "results.h"
#include "suites.h"
#include "warpmind/core/context.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/field/field.h"
#include "warpmind/field/scenario.h"

namespace warpmind::bench {

namespace {

constexpr const char* kHelp =
    "usage: warpmind-bench field [options]\n"
    "  --out FILE.json       write the results\n"
    "  --quick               a few small cases (a smoke test)\n"
    "  --backend B           cpu | cuda | auto (default auto); GPU variants run only on cuda\n"
    "  --threads N           CPU threads for the CPU variants (default: all)\n"
    "  --repeats N           most timed runs per GPU variant (default 30; CPU: 10)\n"
    "  --naive-limit N       run cpu-naive only where cells x entities <= N (default 268435456)\n"
    "  --no-scale            skip the 100,000-entity scale case\n"
    "  --only-scale          run only the scale case\n";

struct Case {
  float world, radius;
  int resolution;
  int count;
  bool scale;
};

using Clock = std::chrono::steady_clock;

struct Suite {
  Context& ctx;
  DeviceCeilings ceil;
  bool gpu;
  int gpu_reps, cpu_reps;
  double naive_limit;
  Results results;
  int failures = 0;

  std::string params(const Case& c, std::uint64_t evals) const {
    char b[256];
    std::snprintf(b, sizeof b,
                  "{\"world\": %g, \"resolution\": %d, \"entities\": %d, \"radius\": %g, \"distribution\": \"uniform\", "
                  "\"evaluations\": %llu%s}",
                  c.world, c.resolution, c.count, c.radius, static_cast<unsigned long long>(evals),
                  c.scale ? ", \"case\": \"scale\"" : "");
    return b;
  }

  // Times one variant; compares its output with `ref` (empty: this variant is the reference and its
  // output is stored there). Returns the median ms, or -1 when the variant was not run.
  double run_variant(const Case& c, const field::FieldScenario& sc, field::FieldVariant v, std::uint64_t evals,
                     std::vector<float>& ref) {
    field::FieldConfig cfg = sc.config;
    cfg.variant = v;
    std::unique_ptr<field::FieldLayers> f;
    Status st = field::FieldLayers::create(ctx, cfg, f);
    if (!st.ok()) {
      std::fprintf(stderr, "  %s: %s\n", field::variant_name(v), st.message().c_str());
      ++failures;
      return -1;
    }
    const bool on_gpu = field::is_gpu_variant(v);
    DeviceBytes dev;
    GpuTimer timer;
    if (on_gpu) {
      st = dev.allocate(ctx, sc.entities.size() * sizeof(field::Entity));
      if (st.ok()) st = dev.upload(ctx, sc.entities.data(), sc.entities.size() * sizeof(field::Entity));
    }
    const auto once = [&]() -> double {
      if (on_gpu) {
        float ms = 0;
        Status s = timer.start(ctx);
        if (s.ok()) s = f->build_device(static_cast<const field::Entity*>(dev.get()), sc.entities.size());
        if (s.ok()) s = timer.stop(ctx, ms);
        if (!s.ok()) st = s;
        return s.ok() ? ms : -1.0;
      }
      const auto t0 = Clock::now();
      Status s = f->build(sc.entities);
      if (!s.ok()) st = s;
      return s.ok() ? std::chrono::duration<double, std::milli>(Clock::now() - t0).count() : -1.0;
    };
    Timing t;
    const bool slow = v == field::FieldVariant::CpuNaive;
    const bool ok = st.ok() && (on_gpu ? time_runs(once, 2, 3, gpu_reps, 1500.0, t)
                                       : time_runs(once, slow ? 0 : 1, slow ? 1 : 3, cpu_reps, slow ? 1.0 : 1500.0, t));
    if (!ok) {
      std::fprintf(stderr, "  %s failed: %s\n", field::variant_name(v), st.message().c_str());
      ++failures;
      return -1;
    }
    std::vector<float> out(static_cast<std::size_t>(cfg.width) * cfg.height);
    st = f->read(0, out);
    long long mismatches = 0;
    if (!st.ok()) {
      ++failures;
      mismatches = -1;
    } else if (ref.empty()) {
      ref = std::move(out);
    } else {
      for (std::size_t i = 0; i < out.size(); ++i) mismatches += std::memcmp(&out[i], &ref[i], sizeof(float)) != 0;
      if (mismatches) {
        std::fprintf(stderr, "  MISMATCH: %s differs from cpu-stamp in %lld cells\n", field::variant_name(v), mismatches);
        ++failures;
      }
    }
    Record r;
    r.params_json = params(c, evals);
    r.variant = field::variant_name(v);
    r.backend = on_gpu ? "cuda" : "cpu";
    r.timing = t;
    r.checked = mismatches == 0;
    if (on_gpu) {
      const double write_ms = static_cast<double>(out.size()) * sizeof(float) / ceil.copy_bytes_per_s * 1e3;
      const double eval_ms = static_cast<double>(evals) / ceil.int_adds_per_s * 1e3;
      r.floor_ms = std::max(write_ms, eval_ms);
    }
    r.extra_json = "\"mismatches\": " + std::to_string(mismatches);
    results.add(r);
    return t.median();
  }
};

void print_header(bool gpu) {
  std::printf("%6s %5s %6s %9s | %10s %10s", "radius", "res", "N", "evals(M)", "cpu-naive", "cpu-stamp");
  if (gpu) std::printf(" %10s %10s %10s %10s | %8s %9s", "gpu-naive", "gpu-coal", "gpu-shared", "gpu-binned", "x stamp", "floor");
  std::printf("   (ms, medians)\n");
}

std::string cell(double ms) {
  char b[32];
  if (ms < 0) std::snprintf(b, sizeof b, "%10s", "-");
  else std::snprintf(b, sizeof b, "%10.4f", ms);
  return b;
}

}  // namespace

int field_suite(int argc, char** argv) {
  demos::Args args(argc, argv, 1, {"out", "backend", "threads", "repeats", "naive-limit"},
                   {"quick", "no-scale", "only-scale", "help"});
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const int reps = static_cast<int>(args.integer("repeats", 30, 1, 100000));
  const double naive_limit = static_cast<double>(args.integer("naive-limit", 1ll << 28, 0, 1ll << 50));
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(args, "field", ctx)) return rc;
  Status st;
  Suite s{*ctx, {}, ctx->cuda(), reps, std::min(reps, 10), naive_limit,
          Results("field", ctx->cuda() ? ctx->device().name : "cpu")};
  if (s.gpu) {
    st = measure_ceilings(*ctx, s.ceil);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench field: %s\n", st.message().c_str());
      return 1;
    }
    std::printf("device %s: %d SMs, copy bandwidth %.0f GB/s (read+write), %.1f G int adds/s; CPU threads %u\n",
                ctx->device().name.c_str(), ctx->device().sm_count, s.ceil.copy_bytes_per_s / 1e9,
                s.ceil.int_adds_per_s / 1e9, ctx->pool().size());
  } else {
    std::printf("CPU only (%s); CPU threads %u\n",
                ctx->fallback_reason().empty() ? "backend cpu" : ctx->fallback_reason().c_str(), ctx->pool().size());
  }

  std::vector<Case> cases;
  const bool quick = args.has("quick");
  if (!args.has("only-scale")) {
    const std::vector<float> radii = quick ? std::vector<float>{8} : std::vector<float>{15, 8, 4};
    std::vector<int> res, counts;
    if (quick) {
      res = {256, 512};
      counts = {64, 256};
    } else {
      for (int r = 256; r <= 2048; r += 256) res.push_back(r);
      counts = {64, 128};
      for (int n = 256; n <= 2048; n += 256) counts.push_back(n);
    }
    for (float r : radii)
      for (int rs : res)
        for (int n : counts) cases.push_back({256.0f, r, rs, n, false});
  }
  if (!quick && !args.has("no-scale")) cases.push_back({4096.0f, 15.0f, 4096, 100000, true});

  using field::FieldVariant;
  const FieldVariant gpu_variants[] = {FieldVariant::GpuNaive, FieldVariant::GpuCoalesced, FieldVariant::GpuShared,
                                       FieldVariant::GpuBinned};
  print_header(s.gpu);
  const auto t_start = Clock::now();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const double elapsed = std::chrono::duration<double>(Clock::now() - t_start).count();
    std::fprintf(stderr, "[%zu/%zu] radius %g, %dx%d, %d entities (%.0f s elapsed)\n", i + 1, cases.size(), c.radius,
                 c.resolution, c.resolution, c.count, elapsed);
    field::FieldGenParams gp;
    gp.world = c.world;
    gp.width = c.resolution;
    gp.count = static_cast<std::size_t>(c.count);
    gp.radius = c.radius;
    gp.seed = 1000 + i;
    const field::FieldScenario sc = field::generate_field_scenario(gp);
    const std::uint64_t evals = field::count_evaluations(sc.config, sc.entities);
    std::vector<float> ref;
    const double stamp = s.run_variant(c, sc, FieldVariant::CpuStamp, evals, ref);
    const double cells_x_n = static_cast<double>(c.resolution) * c.resolution * c.count;
    const double naive = cells_x_n <= s.naive_limit ? s.run_variant(c, sc, FieldVariant::CpuNaive, evals, ref) : -1;
    std::string row = cell(naive) + " " + cell(stamp);
    if (s.gpu) {
      double binned = -1;
      for (FieldVariant v : gpu_variants) {
        const double t = s.run_variant(c, sc, v, evals, ref);
        row += " " + cell(t);
        if (v == FieldVariant::GpuBinned) binned = t;
      }
      const Record& last = s.results.records().back();
      char tail[64];
      std::snprintf(tail, sizeof tail, " | %7.1fx %9.5f", binned > 0 ? stamp / binned : 0.0, last.floor_ms);
      row += tail;
    }
    std::printf("%6g %5d %6d %9.2f | %s\n", c.radius, c.resolution, c.count, evals / 1e6, row.c_str());
    std::fflush(stdout);
    // Rewritten after every case, so an interrupted run still leaves its finished records.
    if (args.has("out")) {
      std::string err = demos::write_file(args.str("out"), s.results.to_json());
      if (!err.empty()) {
        std::fprintf(stderr, "warpmind-bench field: %s\n", err.c_str());
        return 1;
      }
    }
  }
  if (args.has("out")) std::printf("wrote %s (%zu records)\n", args.str("out").c_str(), s.results.records().size());
  if (s.failures) std::fprintf(stderr, "warpmind-bench field: %d failure(s)\n", s.failures);
  return s.failures ? 1 : 0;
}

}  // namespace warpmind::bench
