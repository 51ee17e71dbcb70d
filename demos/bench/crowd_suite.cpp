// Suite "crowd": Viguera et al.'s set-up — N agents, 100 random moves each — for 10,000 .. 1,000,000
// agents, plus 4M and 16M (fewer ticks). The CPU reference and every GPU variant step in lockstep on
// the same proposals; every tick's verdicts are compared with the reference.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "results.h"
#include "suites.h"
#include "warpmind/core/context.h"
#include "warpmind/core/device_ceilings.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"
#include "warpmind/core/random.h"
#include "crowd_avoid_suite.h"
#include "crowd_oracle.h"

namespace warpmind::bench {

namespace {

// Bytes a tick must move per agent at the least: old position and proposal in, position and verdict out.
constexpr double kBytesPerAgent = 8 + 8 + 8 + 1;

using Clock = std::chrono::steady_clock;

// The flags of the crowd suite.
struct Flags {
  SuiteFlags suite;
  int ticks = 100;
  std::string rule = "strict";
  bool no_scale = false;
  bool no_avoid = false;
  bool only_avoid = false;
};

int run(const Flags& f) {
  const int ticks = f.ticks;
  crowd::CrowdRule rule = crowd::CrowdRule::Strict;
  (void)crowd::parse_rule(f.rule, rule);  // checked when parsed
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "crowd", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "crowd")) return rc;
  Status st;
  DeviceCeilings ceil;
  if (ctx->cuda()) {
    st = measure_ceilings(*ctx, ceil);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench crowd: %s\n", st.message().c_str());
      return 1;
    }
    std::printf("device %s: copy bandwidth %.0f GB/s; CPU threads %u\n", ctx->device().name.c_str(),
                ceil.copy_bytes_per_s / 1e9, ctx->pool().size());
  } else {
    std::printf("CPU only; CPU threads %u\n", ctx->pool().size());
  }
  std::vector<std::size_t> sizes = f.suite.quick
                                       ? std::vector<std::size_t>{10000, 50000}
                                       : std::vector<std::size_t>{10000, 20000, 50000, 100000, 200000, 500000, 1000000};
  if (!f.suite.quick && !f.no_scale) {
    sizes.push_back(4000000);
    sizes.push_back(16000000);
  }
  std::vector<crowd::CrowdVariant> variants = {crowd::CrowdVariant::CpuReference};
  if (ctx->cuda()) {
    variants.push_back(crowd::CrowdVariant::GpuSort);
    variants.push_back(crowd::CrowdVariant::GpuTiled);
    variants.push_back(crowd::CrowdVariant::GpuStaticGrid);
  }
  const std::size_t nv = variants.size();

  Results results("crowd", ctx->cuda() ? ctx->device().name : "cpu");
  int failures = 0;
  const float radius = 0.5f, spacing = 1.25f, step = radius;
  std::printf("%9s %6s | %13s %9s %9s %9s | %9s %9s %9s   (ms per tick, medians; GPU: device time)\n", "agents",
              "ticks", "cpu-reference", "gpu-sort", "gpu-tiled", "gpu-sgrid", "best x cpu", "floor", "accepted");
  if (f.only_avoid) sizes.clear();
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::size_t n = sizes[si];
    const int k = n > 1000000 ? std::max(1, ticks / 5) : ticks;
    std::fprintf(stderr, "[%zu/%zu] %zu agents, %d ticks\n", si + 1, sizes.size(), n, k);
    crowd::CrowdConfig cfg;
    cfg.world = crowd::lattice_world(n, radius, spacing);
    cfg.radius = radius;
    cfg.rule = rule;
    std::vector<std::unique_ptr<crowd::CrowdSolver>> solvers;
    std::vector<Vec2> pos = crowd::lattice_start(n, radius, spacing, cfg, 7 + si), prop;
    const crowd::MoveSpec moves{crowd::MoveSpec::Kind::Random, step, 11, {}, {}};
    for (crowd::CrowdVariant v : variants) {
      cfg.variant = v;
      std::unique_ptr<crowd::CrowdSolver> s;
      st = crowd::CrowdSolver::create(*ctx, cfg, s);
      if (st.ok()) st = s->reset(pos);
      if (!st.ok()) {
        std::fprintf(stderr, "  %s: %s\n", crowd::variant_name(v), st.message().c_str());
        return 1;
      }
      solvers.push_back(std::move(s));
    }
    // Per variant: device-resident ticks (GPU: proposals already on the device, device time), then,
    // for the last fifth of the ticks, host-to-host ones (GPU: proposals up, the tick, positions and
    // verdicts down; wall clock). Every variant steps once per tick in lockstep; the resident ticks run
    // back to back as in a simulation that lives on the GPU (the readbacks the checks need happen
    // between ticks and are not timed).
    std::vector<std::vector<double>> ms(nv), host_ms(nv);
    std::vector<long long> mismatches(nv, 0), overlaps(nv, 0);
    std::vector<std::vector<crowd::Verdict>> verdicts(nv, std::vector<crowd::Verdict>(n));
    std::vector<std::vector<Vec2>> after(nv, std::vector<Vec2>(n));
    std::size_t accepted = 0, oracle_checked = 0;
    long long oracle_mismatches = 0;
    SplitMix64 sampler(31 + si);
    DeviceBytes dev_prop;
    GpuTimer timer;
    if (ctx->cuda() && !(st = dev_prop.allocate(*ctx, n * sizeof(Vec2))).ok()) {
      std::fprintf(stderr, "  %s\n", st.message().c_str());
      return 1;
    }
    const int host_ticks = k >= 2 ? std::max(1, k / 5) : 0;
    for (int t = 0; t < k; ++t) {
      const bool resident = t < k - host_ticks;
      crowd::make_proposals(moves, ctx->pool(), pos, static_cast<std::uint64_t>(t), prop);
      if (ctx->cuda() && resident && !(st = dev_prop.upload(*ctx, prop.data(), n * sizeof(Vec2))).ok()) return 1;
      for (std::size_t v = 0; v < nv; ++v) {
        const bool gpu = crowd::is_gpu_variant(variants[v]);
        const auto t0 = Clock::now();
        if (gpu && resident) {
          float gpu_ms = 0;
          st = timer.start(*ctx);
          if (st.ok()) st = solvers[v]->step_device(static_cast<const Vec2*>(dev_prop.get()));
          if (st.ok()) st = timer.stop(*ctx, gpu_ms);
          ms[v].push_back(gpu_ms);
          if (st.ok()) st = solvers[v]->fetch_stats();
        } else {
          st = solvers[v]->step(prop);
          const double step_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
          if (!gpu) ms[v].push_back(step_ms);
        }
        if (st.ok()) st = solvers[v]->read_positions(after[v]);
        if (st.ok()) st = solvers[v]->read_verdicts(verdicts[v]);
        if (gpu && !resident)
          host_ms[v].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!st.ok()) {
          std::fprintf(stderr, "  %s: %s\n", crowd::variant_name(variants[v]), st.message().c_str());
          return 1;
        }
        if (corrupt(crowd::variant_name(variants[v])))
          for (crowd::Verdict& x : verdicts[v])
            x = x == crowd::Verdict::Moved ? crowd::Verdict::Collision : crowd::Verdict::Moved;
        overlaps[v] += static_cast<long long>(oracle::crowd_overlaps(after[v], radius, ctx->pool()));
      }
      // The reference against the brute-force rule on 64 random agents, and every agent at its old
      // position or its proposal as its verdict says; the other variants against the reference.
      std::vector<std::size_t> sample(std::min<std::size_t>(64, n));
      for (std::size_t& i : sample) i = sampler.next() % n;
      std::vector<crowd::Verdict> want(sample.size());
      ctx->pool().parallel_for(sample.size(), [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) want[i] = oracle::crowd_verdict(cfg, pos, prop, sample[i]);
      });
      for (std::size_t i = 0; i < sample.size(); ++i) oracle_mismatches += want[i] != verdicts[0][sample[i]];
      for (std::size_t i = 0; i < n; ++i) {
        const bool moved = verdicts[0][i] == crowd::Verdict::Moved || verdicts[0][i] == crowd::Verdict::Stayed;
        const Vec2 w = moved ? prop[i] : pos[i];
        oracle_mismatches += std::memcmp(&w, &after[0][i], sizeof w) != 0;
      }
      oracle_checked += sample.size();
      for (std::size_t v = 1; v < nv; ++v)
        for (std::size_t i = 0; i < n; ++i)
          mismatches[v] +=
              verdicts[v][i] != verdicts[0][i] || std::memcmp(&after[v][i], &after[0][i], sizeof(Vec2)) != 0;
      accepted += solvers[0]->last_stats().moved;
      pos = after[0];
    }
    mismatches[0] = oracle_mismatches;
    char row[320];
    std::vector<double> med(nv, -1);
    for (std::size_t v = 0; v < nv; ++v) {
      const bool gpu = crowd::is_gpu_variant(variants[v]);
      Record r;
      r.timing.ms = ms[v];
      std::sort(r.timing.ms.begin(), r.timing.ms.end());
      r.variant = crowd::variant_name(variants[v]);
      r.backend = gpu ? "cuda" : "cpu";
      std::snprintf(row, sizeof row,
                    "{\"agents\": %zu, \"ticks\": %d, \"radius\": %g, \"spacing\": %g, \"step\": %g, \"rule\": \"%s\"}",
                    n, k, radius, spacing, step, crowd::rule_name(rule));
      r.params_json = row;
      r.compared(v == 0 ? "oracle" : crowd::variant_name(variants[0]), mismatches[v] == 0 && overlaps[v] == 0);
      if (mismatches[v]) {
        std::fprintf(stderr, "  MISMATCH: %s differs from %s %lld times\n", r.variant.c_str(),
                     r.checked_against.c_str(), mismatches[v]);
        ++failures;
      }
      if (overlaps[v]) {
        std::fprintf(stderr, "  OVERLAPS: %s: %lld\n", r.variant.c_str(), overlaps[v]);
        ++failures;
      }
      if (gpu) r.floor_ms = kBytesPerAgent * n / ceil.copy_bytes_per_s * 1e3;
      std::sort(host_ms[v].begin(), host_ms[v].end());
      const double with_transfers = host_ms[v].empty() ? -1.0 : host_ms[v][host_ms[v].size() / 2];
      std::snprintf(row, sizeof row,
                    "\"mismatches\": %lld, \"overlaps\": %lld, \"acceptance\": %.6f, \"checks_per_s\": %.6g",
                    mismatches[v], overlaps[v], static_cast<double>(accepted) / (static_cast<double>(n) * k),
                    n / (r.timing.median() * 1e-3));
      r.extra_json = row;
      if (v == 0) r.extra_json += ", \"oracle_agents\": " + std::to_string(oracle_checked);
      if (gpu && with_transfers >= 0) {
        std::snprintf(row, sizeof row, ", \"with_transfers_ms\": %.6g", with_transfers);
        r.extra_json += row;
      }
      med[v] = r.timing.median();
      results.add(r);
    }
    double best = -1;
    for (std::size_t v = 1; v < med.size(); ++v)
      if (best < 0 || med[v] < best) best = med[v];
    const auto cell = [](double x) { return x < 0 ? std::string("-") : std::to_string(x).substr(0, 8); };
    const auto gpu_cell = [&](std::size_t v) { return cell(v < med.size() ? med[v] : -1); };
    std::printf("%9zu %6d | %13.4f %9s %9s %9s | %8.1fx %9.5f %8.1f%%\n", n, k, med[0], gpu_cell(1).c_str(),
                gpu_cell(2).c_str(), gpu_cell(3).c_str(), best > 0 ? med[0] / best : 0.0,
                ctx->cuda() ? kBytesPerAgent * n / ceil.copy_bytes_per_s * 1e3 : 0.0,
                100.0 * static_cast<double>(accepted) / (static_cast<double>(n) * k));
    std::fflush(stdout);
    if (!file.write(results)) return 1;
  }
  if (!f.no_avoid)
    failures += run_avoid_suite(*ctx, f.suite.quick, f.suite.quick ? 20 : std::min(ticks, 50),
                                ctx->cuda() ? ceil.copy_bytes_per_s : 1.0, results, file);
  file.finish(results);
  return failures ? 1 : 0;
}

}  // namespace

demos::Subcommand crowd_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_suite(
      parent, "crowd",
      "collision-checked movement, 10,000 to 16,000,000 agents (Viguera et al.)\n"
      "Collision-checked movement of 10,000 to 1,000,000 agents (and 4M and 16M), every variant in one run.",
      "Checks, every tick: cpu-reference against the brute-force rule on 64 random agents and every agent at its "
      "old position or its proposal as its verdict says; every other variant's verdicts and positions against "
      "cpu-reference's; overlaps counted on each variant's own positions.\n"
      "GPU times: the first four fifths of the ticks with the proposals already on the device (device time, the "
      "median reported), the last fifth host to host (proposals up, positions and verdicts down; "
      "with_transfers_ms).",
      "two small crowds (a smoke test)", f->suite);
  demos::add_integer(*app, "--ticks", f->ticks, 1, 100000, "N", "ticks per crowd up to 1M agents; 4M and 16M run N/5");
  demos::add_flag(*app, "--no-scale", f->no_scale, "skip 4M and 16M agents");
  demos::add_flag(*app, "--no-avoid", f->no_avoid, "skip the Avoid rows and the standard scenarios");
  demos::add_flag(*app, "--only-avoid", f->only_avoid, "only the Avoid rows and the standard scenarios");
  demos::add_choice(*app, "--rule", f->rule, {"strict", "lowest-id"}, "the solver's conflict rule");
  return {app, [f] { return run(*f); }};
}

}  // namespace warpmind::bench
