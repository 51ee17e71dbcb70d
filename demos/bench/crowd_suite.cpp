// Suite "crowd": Viguera et al.'s set-up — N agents, 100 random moves each — for 10,000 .. 1,000,000
// agents, plus 4M and 16M (fewer ticks). The CPU reference and every GPU variant step in lockstep on
// the same proposals; every tick's verdicts are compared with the reference.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "../common/args.h"
#include "results.h"
#include "suites.h"
#include "warpmind/core/context.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"

namespace warpmind::bench {

namespace {

constexpr const char* kHelp =
    "usage: warpmind-bench crowd [options]\n"
    "  --out FILE.json       write the results\n"
    "  --quick               two small crowds (a smoke test)\n"
    "  --backend B           cpu | cuda | auto (default auto)\n"
    "  --threads N           CPU threads (default: all)\n"
    "  --ticks N             ticks per crowd up to 1M agents (default 100; 4M and 16M run N/5)\n"
    "  --no-scale            skip 4M and 16M agents\n"
    "  --rule RULE           strict | lowest-id (default strict)\n";

// Bytes a tick must move per agent at the least: old position and proposal in, position and verdict out.
constexpr double kBytesPerAgent = 8 + 8 + 8 + 1;

using Clock = std::chrono::steady_clock;

}  // namespace

int crowd_suite(int argc, char** argv) {
  demos::Args args(argc, argv, 1, {"out", "backend", "threads", "ticks", "rule"}, {"quick", "no-scale", "help"});
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const int ticks = static_cast<int>(args.integer("ticks", 100, 1, 100000));
  crowd::CrowdRule rule = crowd::CrowdRule::Strict;
  if (!crowd::parse_rule(args.str("rule", "strict"), rule)) args.fail("--rule: expected strict or lowest-id");
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(args, "crowd", ctx)) return rc;
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
  std::vector<std::size_t> sizes = args.has("quick") ? std::vector<std::size_t>{10000, 50000}
                                                     : std::vector<std::size_t>{10000, 20000, 50000, 100000, 200000,
                                                                                500000, 1000000};
  if (!args.has("quick") && !args.has("no-scale")) {
    sizes.push_back(4000000);
    sizes.push_back(16000000);
  }
  std::vector<crowd::CrowdVariant> variants = {crowd::CrowdVariant::CpuReference};
  if (ctx->cuda()) {
    variants.push_back(crowd::CrowdVariant::GpuSort);
    variants.push_back(crowd::CrowdVariant::GpuTiled);
    variants.push_back(crowd::CrowdVariant::GpuStaticGrid);
  }

  Results results("crowd", ctx->cuda() ? ctx->device().name : "cpu");
  int failures = 0;
  const float radius = 0.5f, spacing = 1.25f, step = radius;
  std::printf("%9s %6s | %13s %9s %9s %9s | %9s %9s %9s   (ms per tick, medians; GPU: device time)\n", "agents",
              "ticks", "cpu-reference", "gpu-sort", "gpu-tiled", "gpu-sgrid", "best x cpu", "floor", "accepted");
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
    const crowd::MoveSpec moves{crowd::MoveSpec::Kind::Random, step, 11, {}};
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
    std::vector<std::vector<double>> ms(variants.size());
    std::vector<long long> mismatches(variants.size(), 0);
    std::vector<crowd::Verdict> ref(n), got(n);
    std::size_t accepted = 0;
    DeviceBytes dev_prop;
    GpuTimer timer;
    if (ctx->cuda() && !(st = dev_prop.allocate(*ctx, n * sizeof(Vec2))).ok()) {
      std::fprintf(stderr, "  %s\n", st.message().c_str());
      return 1;
    }
    for (int t = 0; t < k; ++t) {
      crowd::make_proposals(moves, ctx->pool(), pos, static_cast<std::uint64_t>(t), prop);
      if (ctx->cuda() && !(st = dev_prop.upload(*ctx, prop.data(), n * sizeof(Vec2))).ok()) return 1;
      for (std::size_t v = 0; v < variants.size(); ++v) {
        // GPU variants: proposals already on the device, device time of one tick (CUDA events).
        float gpu_ms = 0;
        const auto t0 = Clock::now();
        if (crowd::is_gpu_variant(variants[v])) {
          st = timer.start(*ctx);
          if (st.ok()) st = solvers[v]->step_device(static_cast<const Vec2*>(dev_prop.get()));
          if (st.ok()) st = timer.stop(*ctx, gpu_ms);
        } else {
          st = solvers[v]->step(prop);
        }
        ms[v].push_back(crowd::is_gpu_variant(variants[v])
                            ? gpu_ms
                            : std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!st.ok()) {
          std::fprintf(stderr, "  %s: %s\n", crowd::variant_name(variants[v]), st.message().c_str());
          return 1;
        }
        st = solvers[v]->read_verdicts(v == 0 ? ref : got);
        if (v > 0)
          for (std::size_t i = 0; i < n; ++i) mismatches[v] += ref[i] != got[i];
      }
      accepted += solvers[0]->last_stats().moved;
      st = solvers[0]->read_positions(pos);
    }
    const long long overlaps = static_cast<long long>(crowd::count_overlaps(pos, radius));
    char row[256];
    std::vector<double> med(variants.size(), -1);
    for (std::size_t v = 0; v < variants.size(); ++v) {
      Record r;
      Timing tm;
      tm.ms = ms[v];
      std::sort(tm.ms.begin(), tm.ms.end());
      r.timing = tm;
      r.variant = crowd::variant_name(variants[v]);
      r.backend = crowd::is_gpu_variant(variants[v]) ? "cuda" : "cpu";
      std::snprintf(row, sizeof row,
                    "{\"agents\": %zu, \"ticks\": %d, \"radius\": %g, \"spacing\": %g, \"step\": %g, \"rule\": \"%s\"}", n,
                    k, radius, spacing, step, crowd::rule_name(rule));
      r.params_json = row;
      r.checked = v == 0 || mismatches[v] == 0;
      if (v > 0 && mismatches[v]) {
        std::fprintf(stderr, "  MISMATCH: %s verdicts differ from cpu-reference %lld times\n", r.variant.c_str(), mismatches[v]);
        ++failures;
      }
      if (crowd::is_gpu_variant(variants[v])) r.floor_ms = kBytesPerAgent * n / ceil.copy_bytes_per_s * 1e3;
      std::snprintf(row, sizeof row, "\"mismatches\": %lld, \"overlaps\": %lld, \"acceptance\": %.6f, \"checks_per_s\": %.6g",
                    mismatches[v], overlaps, static_cast<double>(accepted) / (static_cast<double>(n) * k),
                    n / (tm.median() * 1e-3));
      r.extra_json = row;
      med[v] = tm.median();
      results.add(r);
    }
    if (overlaps) {
      std::fprintf(stderr, "  OVERLAPS: %lld\n", overlaps);
      ++failures;
    }
    double best = -1;
    for (std::size_t v = 1; v < med.size(); ++v)
      if (best < 0 || med[v] < best) best = med[v];
    const auto cell = [](double x) { return x < 0 ? std::string("-") : std::to_string(x).substr(0, 8); };
    const auto gpu_cell = [&](std::size_t v) { return cell(v < med.size() ? med[v] : -1); };
    std::printf("%9zu %6d | %13.4f %9s %9s %9s | %8.1fx %9.5f %8.1f%%\n", n, k, med[0], gpu_cell(1).c_str(),
                gpu_cell(2).c_str(), gpu_cell(3).c_str(),
                best > 0 ? med[0] / best : 0.0, ctx->cuda() ? kBytesPerAgent * n / ceil.copy_bytes_per_s * 1e3 : 0.0,
                100.0 * static_cast<double>(accepted) / (static_cast<double>(n) * k));
    std::fflush(stdout);
    if (args.has("out")) {
      std::string err = demos::write_file(args.str("out"), results.to_json());
      if (!err.empty()) {
        std::fprintf(stderr, "warpmind-bench crowd: %s\n", err.c_str());
        return 1;
      }
    }
  }
  if (args.has("out")) std::printf("wrote %s (%zu records)\n", args.str("out").c_str(), results.records().size());
  return failures ? 1 : 0;
}

}  // namespace warpmind::bench
