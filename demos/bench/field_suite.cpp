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

#include "results.h"
#include "suites.h"
#include "warpmind/core/context.h"
#include "warpmind/core/device_ceilings.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/field/field.h"
#include "warpmind/field/scenario.h"
#include "warpmind/core/random.h"
#include "field_oracle.h"

namespace warpmind::bench {

namespace {

struct Case {
  float world, radius;
  int resolution;
  int count;
  bool scale;
};

using Clock = std::chrono::steady_clock;

// One variant's run on one case.
struct Run {
  field::FieldVariant variant;
  Timing timing;
  double with_transfers_ms = -1;  // GPU: build from host entities + layer read back, wall clock
  std::vector<float> out;         // the layer
};

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
    std::snprintf(
        b, sizeof b,
        "{\"world\": %g, \"resolution\": %d, \"entities\": %d, \"radius\": %g, \"distribution\": \"uniform\", "
        "\"evaluations\": %llu%s}",
        c.world, c.resolution, c.count, c.radius, static_cast<unsigned long long>(evals),
        c.scale ? ", \"case\": \"scale\"" : "");
    return b;
  }

  // Times one variant and reads its layer back. False when it failed (counted).
  bool run_variant(const field::FieldScenario& sc, field::FieldVariant v, Run& run) {
    run.variant = v;
    field::FieldConfig cfg = sc.config;
    cfg.variant = v;
    std::unique_ptr<field::FieldLayers> f;
    Status st = field::FieldLayers::create(ctx, cfg, f);
    const bool on_gpu = field::is_gpu_variant(v);
    DeviceBytes dev;
    GpuTimer timer;
    if (st.ok() && on_gpu) {
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
    const bool slow = v == field::FieldVariant::CpuNaive;
    bool ok =
        st.ok() && (on_gpu ? time_runs(once, 2, 3, gpu_reps, 1500.0, run.timing)
                           : time_runs(once, slow ? 0 : 1, slow ? 1 : 3, cpu_reps, slow ? 1.0 : 1500.0, run.timing));
    // The layer the timed builds produced is the one compared.
    run.out.assign(static_cast<std::size_t>(cfg.width) * static_cast<std::size_t>(cfg.height), 0.0f);
    if (ok) ok = (st = f->read(0, run.out)).ok();
    if (ok && on_gpu) {  // host to host: entities up (validated), build, the layer down; the same layer
      Timing t;
      std::vector<float> again(run.out.size());
      ok = time_runs(
          [&]() -> double {
            const auto t0 = Clock::now();
            Status s = f->build(sc.entities);
            if (s.ok()) s = f->read(0, again);
            if (!s.ok()) st = s;
            return s.ok() ? std::chrono::duration<double, std::milli>(Clock::now() - t0).count() : -1.0;
          },
          1, 3, 10, 500.0, t);
      run.with_transfers_ms = t.median();
      if (ok && std::memcmp(again.data(), run.out.data(), again.size() * sizeof(float)) != 0) {
        st = Status::Internal("the host-to-host build differs from the device-resident one");
        ok = false;
      }
    }
    if (!ok || !st.ok()) {
      std::fprintf(stderr, "  %s failed: %s\n", field::variant_name(v), st.message().c_str());
      ++failures;
      return false;
    }
    if (corrupt(field::variant_name(v)))
      for (float& x : run.out) x += 1.0f;
    return true;
  }

  // Cells where the oracle checks the reference: random cells, the cells of up to 256 entities (where
  // charges pile up) and the four corners.
  static std::vector<std::size_t> sample_cells(const field::FieldScenario& sc, std::uint64_t seed) {
    const field::FieldConfig& c = sc.config;
    const std::size_t w = static_cast<std::size_t>(c.width), h = static_cast<std::size_t>(c.height);
    std::vector<std::size_t> cells = {0, w - 1, (h - 1) * w, h * w - 1};
    SplitMix64 rng(seed);
    for (int i = 0; i < 256; ++i) cells.push_back(rng.next() % (w * h));
    const float cw = c.world.width / static_cast<float>(c.width), ch = c.world.height / static_cast<float>(c.height);
    for (std::size_t i = 0; i < sc.entities.size() && i < 256; ++i) {
      const field::Entity& e = sc.entities[(i * 7919) % sc.entities.size()];
      const double x = std::floor((e.x - c.world.x0) / cw), y = std::floor((e.y - c.world.y0) / ch);
      if (x >= 0 && y >= 0 && x < static_cast<double>(w) && y < static_cast<double>(h))
        cells.push_back(static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x));
    }
    return cells;
  }

  // Compares, records and returns the runs of one case. runs[0] is cpu-stamp, the reference the other
  // variants are compared with; cpu-stamp itself is compared with the brute-force oracle on sampled cells.
  void record(const Case& c, const field::FieldScenario& sc, std::uint64_t evals, const std::vector<Run>& runs,
              std::uint64_t seed) {
    const std::vector<float>& ref = runs[0].out;
    for (const Run& run : runs) {
      long long mismatches = 0;
      Record r;
      r.params_json = params(c, evals);
      r.variant = field::variant_name(run.variant);
      r.backend = field::is_gpu_variant(run.variant) ? "cuda" : "cpu";
      r.timing = run.timing;
      std::string extra;
      if (&run == &runs[0]) {
        const std::vector<std::size_t> cells = sample_cells(sc, seed);
        const std::size_t w = static_cast<std::size_t>(sc.config.width);
        std::vector<float> want(cells.size());
        ctx.pool().parallel_for(cells.size(), [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; ++i)
            want[i] = oracle::field_cell(sc.config, 0, sc.entities, static_cast<int>(cells[i] % w),
                                         static_cast<int>(cells[i] / w));
        });
        for (std::size_t i = 0; i < cells.size(); ++i)
          mismatches += std::memcmp(&want[i], &ref[cells[i]], sizeof(float)) != 0;
        r.compared("oracle", mismatches == 0);
        extra = ", \"oracle_cells\": " + std::to_string(cells.size());
      } else {
        for (std::size_t i = 0; i < ref.size(); ++i)
          mismatches += std::memcmp(&run.out[i], &ref[i], sizeof(float)) != 0;
        r.compared(field::variant_name(runs[0].variant), mismatches == 0);
      }
      if (mismatches) {
        std::fprintf(stderr, "  MISMATCH: %s differs from %s in %lld cells\n", r.variant.c_str(),
                     r.checked_against.c_str(), mismatches);
        ++failures;
      }
      if (field::is_gpu_variant(run.variant)) {
        const double write_ms = static_cast<double>(ref.size()) * sizeof(float) / ceil.copy_bytes_per_s * 1e3;
        const double eval_ms = static_cast<double>(evals) / ceil.int_adds_per_s * 1e3;
        r.floor_ms = std::max(write_ms, eval_ms);
        char b[64];
        std::snprintf(b, sizeof b, ", \"with_transfers_ms\": %.6g", run.with_transfers_ms);
        extra += b;
      }
      r.extra_json = "\"mismatches\": " + std::to_string(mismatches) + extra;
      results.add(r);
    }
  }
};

void print_header(bool gpu) {
  std::printf("%6s %5s %6s %9s | %10s %10s", "radius", "res", "N", "evals(M)", "cpu-naive", "cpu-stamp");
  if (gpu)
    std::printf(" %10s %10s %10s %10s | %8s %9s", "gpu-naive", "gpu-coal", "gpu-shared", "gpu-binned", "x stamp",
                "floor");
  std::printf("   (ms, medians)\n");
}

std::string cell(double ms) {
  char b[32];
  if (ms < 0)
    std::snprintf(b, sizeof b, "%10s", "-");
  else
    std::snprintf(b, sizeof b, "%10.4f", ms);
  return b;
}

// The flags of the field suite.
struct Flags {
  SuiteFlags suite;
  int repeats = 30;
  long long naive_limit = 1ll << 28;
  bool no_scale = false, only_scale = false;
};

int run(const Flags& f) {
  const int reps = f.repeats;
  const double naive_limit = static_cast<double>(f.naive_limit);
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "field", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "field")) return rc;
  Status st;
  Suite s{*ctx,
          {},
          ctx->cuda(),
          reps,
          std::min(reps, 10),
          naive_limit,
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
  const bool quick = f.suite.quick;
  if (!f.only_scale) {
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
  if (!quick && !f.no_scale) cases.push_back({4096.0f, 15.0f, 4096, 100000, true});

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
    std::vector<Run> runs(1);
    if (!s.run_variant(sc, FieldVariant::CpuStamp, runs[0])) continue;
    const double cells_x_n = static_cast<double>(c.resolution) * c.resolution * c.count;
    double naive = -1;
    if (cells_x_n <= s.naive_limit && s.run_variant(sc, FieldVariant::CpuNaive, runs.emplace_back()))
      naive = runs.back().timing.median();
    else if (cells_x_n <= s.naive_limit)
      runs.pop_back();
    std::string row = cell(naive) + " " + cell(runs[0].timing.median());
    if (s.gpu) {
      for (FieldVariant v : gpu_variants) {
        const bool ok = s.run_variant(sc, v, runs.emplace_back());
        row += " " + cell(ok ? runs.back().timing.median() : -1);
        if (!ok) runs.pop_back();
      }
    }
    s.record(c, sc, evals, runs, 5000 + i);
    if (s.gpu) {
      const Record* binned = nullptr;
      for (const Record& r : s.results.records())
        if (r.variant == "gpu-binned") binned = &r;
      char tail[96];
      std::snprintf(tail, sizeof tail, " | %7.1fx %9.5f",
                    binned ? runs[0].timing.median() / binned->timing.median() : 0.0, binned ? binned->floor_ms : 0.0);
      row += tail;
    }
    std::printf("%6g %5d %6d %9.2f | %s\n", c.radius, c.resolution, c.count, evals / 1e6, row.c_str());
    std::fflush(stdout);
    if (!file.write(s.results)) return 1;  // after every case: an interrupted run keeps what it finished
  }
  file.finish(s.results);
  if (s.failures) std::fprintf(stderr, "warpmind-bench field: %d failure(s)\n", s.failures);
  return s.failures ? 1 : 0;
}

}  // namespace

demos::Subcommand field_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_suite(
      parent, "field",
      "the potential-field grid of Elmir (2013) plus a 100,000-entity scale case\n"
      "Elmir's grid: a 256x256 world, resolutions 256..2048 step 256, entity counts 64, 128, 256..2048 step 256, "
      "circle radii 15, 8 and 4, every variant in one run (the GPU variants on --backend cuda only); plus a scale "
      "case, 100,000 entities of radius 15 in a 4096-unit world at 4096x4096.",
      "Checks: cpu-stamp against the brute-force oracle on sampled cells (corners, random cells, cells under "
      "entities); every other variant against cpu-stamp, bit for bit, on every cell.",
      "a few small cases (a smoke test)", f->suite);
  demos::add_integer(*app, "--repeats", f->repeats, 1, 100000, "N",
                     "most timed runs per GPU variant; per CPU variant at most 10");
  demos::add_integer(*app, "--naive-limit", f->naive_limit, 0, 1ll << 50, "N",
                     "run cpu-naive only where cells x entities <= N");
  demos::add_flag(*app, "--no-scale", f->no_scale, "skip the 100,000-entity scale case");
  demos::add_flag(*app, "--only-scale", f->only_scale, "run only the scale case");
  return {app, [f] { return run(*f); }};
}

}  // namespace warpmind::bench
