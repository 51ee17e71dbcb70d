// The crowd suite's Avoid part (crowd_suite.cpp runs it after the accept/reject grid): the crowd module's
// movement for games, two ways.
//   avoid      N agents (10,000, 100,000, 1,000,000) on a lattice of pitch 1.25 x 2R, each wanting a
//              random point up to 1 away per axis every tick, maximum step R/2, lowest-id: cpu-reference
//              and gpu-static-grid in lockstep, the GPU's verdicts and positions against the CPU's every
//              tick, and the CPU's chosen targets against the brute-force oracle on a sample; then the
//              largest size again with agents of several sizes (radii uniform in [R/4, R], min_radius R/4:
//              the static grid's cells a quarter as wide, its neighbourhoods 6 cells instead of 2).
//   standard   the standard scenarios (scenario.h): bottleneck 10,000, corridor 2,000, crossing 4,000, and
//              the corridor and the crossing denser (pitch 2.5 and 3 x 2R instead of 3 and 5), run
//              until every agent has left (or 40,000 ticks): ticks, the bottleneck's flow against its ideal,
//              overlaps and wall crossings every tick, the GPU's run against the CPU's tick by tick.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "crowd_avoid_suite.h"
#include "crowd_oracle.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/core/random.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"

namespace warpmind::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Bytes a tick must move per agent at the least: old position, wanted target and maximum step in,
// position and verdict out.
constexpr double kAvoidBytesPerAgent = 8 + 8 + 4 + 8 + 1;

std::vector<crowd::CrowdVariant> avoid_variants(const Context& ctx) {
  std::vector<crowd::CrowdVariant> v = {crowd::CrowdVariant::CpuReference};
  if (ctx.cuda()) v.push_back(crowd::CrowdVariant::GpuStaticGrid);
  return v;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// One tick of every solver on the same wanted targets; GPU solvers timed in device time with the targets
// already on the device. Fills after/verdicts per solver.
Status tick_all(Context& ctx, std::vector<std::unique_ptr<crowd::CrowdSolver>>& solvers, const std::vector<Vec2>& want,
                DeviceBytes& dev_want, std::vector<std::vector<double>>& ms, std::vector<std::vector<Vec2>>& after,
                std::vector<std::vector<crowd::Verdict>>& verdicts) {
  Status st;
  const std::size_t n = want.size();
  if (ctx.cuda() && n > 0) {
    if (dev_want.size() < n * sizeof(Vec2)) WM_RETURN_IF_ERROR(dev_want.allocate(ctx, n * sizeof(Vec2)));
    WM_RETURN_IF_ERROR(dev_want.upload(ctx, want.data(), n * sizeof(Vec2)));
  }
  for (std::size_t v = 0; v < solvers.size(); ++v) {
    crowd::CrowdSolver& s = *solvers[v];
    if (crowd::is_gpu_variant(s.variant()) && n > 0) {
      GpuTimer timer;
      float gpu_ms = 0;
      WM_RETURN_IF_ERROR(timer.start(ctx));
      WM_RETURN_IF_ERROR(s.step_device(static_cast<const Vec2*>(dev_want.get())));
      WM_RETURN_IF_ERROR(timer.stop(ctx, gpu_ms));
      WM_RETURN_IF_ERROR(s.fetch_stats());
      ms[v].push_back(gpu_ms);
    } else {
      const auto t0 = Clock::now();
      WM_RETURN_IF_ERROR(s.step(want));
      ms[v].push_back(ms_since(t0));
    }
    after[v].resize(n);
    verdicts[v].resize(n);
    WM_RETURN_IF_ERROR(s.read_positions(after[v]));
    WM_RETURN_IF_ERROR(s.read_verdicts(verdicts[v]));
  }
  return Status::Ok();
}

// Solvers and their differences from the first (cpu-reference) one, bit for bit.
long long differences(const std::vector<std::vector<Vec2>>& after, const std::vector<std::vector<crowd::Verdict>>& verd,
                      std::size_t v) {
  long long d = 0;
  for (std::size_t i = 0; i < after[0].size(); ++i)
    d += verd[v][i] != verd[0][i] || std::memcmp(&after[v][i], &after[0][i], sizeof(Vec2)) != 0;
  return d;
}

Record record_for(crowd::CrowdVariant v, std::vector<double> ms, const std::string& params, bool checked,
                  const std::string& extra) {
  Record r;
  r.variant = std::string("avoid-") + crowd::variant_name(v);
  r.backend = crowd::is_gpu_variant(v) ? "cuda" : "cpu";
  std::sort(ms.begin(), ms.end());
  r.timing.ms = std::move(ms);
  r.params_json = params;
  r.compared(crowd::is_gpu_variant(v) ? "cpu-reference" : "oracle", checked);
  r.extra_json = extra;
  return r;
}

}  // namespace

int run_avoid_suite(Context& ctx, bool quick, int ticks, double copy_bytes_per_s, Results& results, ResultsFile& file) {
  int failures = 0;
  const std::vector<crowd::CrowdVariant> variants = avoid_variants(ctx);
  const std::size_t nv = variants.size();
  const float radius = 0.5f, spacing = 1.25f, max_step = 0.25f, want_step = 1.0f;
  std::printf("\nAvoid (crowd_solver.h), max step R/2, lowest-id\n%9s %6s | %13s %15s | %9s %9s %9s\n", "agents",
              "ticks", "cpu-reference", "gpu-static-grid", "cpu / gpu", "floor", "moved");
  const std::vector<std::pair<std::size_t, bool>> walks =
      quick ? std::vector<std::pair<std::size_t, bool>>{{10000, false}, {10000, true}}
            : std::vector<std::pair<std::size_t, bool>>{
                  {10000, false}, {100000, false}, {1000000, false}, {1000000, true}};
  for (const auto& [n, mixed] : walks) {
    std::fprintf(stderr, "[avoid] %zu agents%s, %d ticks\n", n, mixed ? " of radii R/4..R" : "", ticks);
    crowd::CrowdConfig cfg;
    cfg.world = crowd::lattice_world(n, radius, spacing);
    cfg.radius = radius;
    cfg.min_radius = mixed ? radius / 4 : 0.0f;
    cfg.rule = crowd::CrowdRule::LowestIdWins;
    cfg.movement = crowd::CrowdMovement::Avoid;
    cfg.max_step = max_step;
    std::vector<Vec2> pos = crowd::lattice_start(n, radius, spacing, cfg, 41), want;
    std::vector<float> radii;  // empty: every agent R
    if (mixed) {
      SplitMix64 rng(45);
      radii.resize(pos.size());
      for (float& r : radii) r = rng.uniform(radius / 4, radius);
    }
    std::vector<std::unique_ptr<crowd::CrowdSolver>> solvers;
    for (crowd::CrowdVariant v : variants) {
      cfg.variant = v;
      std::unique_ptr<crowd::CrowdSolver> s;
      Status st = crowd::CrowdSolver::create(ctx, cfg, s);
      if (st.ok()) st = s->reset(pos, {}, radii);
      if (!st.ok()) {
        std::fprintf(stderr, "  %s: %s\n", crowd::variant_name(v), st.message().c_str());
        return 1;
      }
      solvers.push_back(std::move(s));
    }
    const crowd::MoveSpec moves{crowd::MoveSpec::Kind::Random, want_step, 43, {}, {}};
    std::vector<std::vector<double>> ms(nv);
    std::vector<std::vector<Vec2>> after(nv);
    std::vector<std::vector<crowd::Verdict>> verd(nv);
    std::vector<long long> diff(nv, 0), overlaps(nv, 0);
    long long oracle_bad = 0, oracle_checked = 0;
    std::size_t moved = 0;
    DeviceBytes dev_want;
    SplitMix64 sampler(47);
    for (int t = 0; t < ticks; ++t) {
      crowd::make_proposals(moves, ctx.pool(), pos, static_cast<std::uint64_t>(t), want);
      if (Status st = tick_all(ctx, solvers, want, dev_want, ms, after, verd); !st.ok()) {
        std::fprintf(stderr, "  %s\n", st.message().c_str());
        return 1;
      }
      for (std::size_t v = 0; v < nv; ++v) {
        overlaps[v] += static_cast<long long>(mixed ? oracle::crowd_overlaps(after[v], radii, ctx.pool())
                                                    : oracle::crowd_overlaps(after[v], radius, ctx.pool()));
        if (v > 0) diff[v] += differences(after, verd, v);
      }
      // The oracle's choice for a few agents (O(N) each): a mover stands at it.
      if (n <= 100000 || t % 10 == 0) {
        std::vector<std::size_t> sample(8);
        for (std::size_t& i : sample) i = sampler.next() % n;
        std::vector<long long> bad(sample.size(), 0);
        ctx.pool().parallel_for(sample.size(), [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t k = b; k < e; ++k) {
            const std::size_t i = sample[k];
            const oracle::AvoidChoice c = oracle::crowd_avoid_choice(cfg, pos, want, i, max_step, radii);
            if (verd[0][i] == crowd::Verdict::Moved)
              bad[k] = std::memcmp(&c.target, &after[0][i], sizeof(Vec2)) != 0;
            else if (c.fallback)
              bad[k] = c.verdict != verd[0][i];
          }
        });
        for (long long b : bad) oracle_bad += b;
        oracle_checked += static_cast<long long>(sample.size());
      }
      moved += solvers[0]->last_stats().moved;
      pos = after[0];
    }
    char params[320], extra[256];
    std::snprintf(params, sizeof params,
                  "{\"agents\": %zu, \"ticks\": %d, \"radius\": %g, \"spacing\": %g, \"max_step\": %g, \"want_step\": "
                  "%g, \"rule\": \"lowest-id\", \"movement\": \"avoid\"%s}",
                  n, ticks, radius, spacing, max_step, want_step,
                  mixed ? (", \"min_radius\": " + std::to_string(radius / 4)).c_str() : "");
    std::vector<double> med(nv);
    for (std::size_t v = 0; v < nv; ++v) {
      const long long wrong = v == 0 ? oracle_bad : diff[v];
      std::snprintf(extra, sizeof extra, "\"mismatches\": %lld, \"overlaps\": %lld, \"moved\": %.6f%s", wrong,
                    overlaps[v], static_cast<double>(moved) / (static_cast<double>(n) * ticks),
                    v == 0 ? (", \"oracle_agents\": " + std::to_string(oracle_checked)).c_str() : "");
      Record r = record_for(variants[v], ms[v], params, wrong == 0 && overlaps[v] == 0, extra);
      if (crowd::is_gpu_variant(variants[v])) r.floor_ms = kAvoidBytesPerAgent * n / copy_bytes_per_s * 1e3;
      if (wrong || overlaps[v]) {
        std::fprintf(stderr, "  MISMATCH/OVERLAP: %s: %lld wrong, %lld overlaps\n", r.variant.c_str(), wrong,
                     overlaps[v]);
        ++failures;
      }
      med[v] = r.timing.median();
      results.add(r);
    }
    std::printf("%9zu%s %6d | %13.4f %15s | %8.1fx %9.5f %8.1f%%\n", n, mixed ? " mixed" : "", ticks, med[0],
                nv > 1 ? std::to_string(med[1]).substr(0, 8).c_str() : "-", nv > 1 ? med[0] / med[1] : 0.0,
                nv > 1 ? kAvoidBytesPerAgent * n / copy_bytes_per_s * 1e3 : 0.0,
                100.0 * static_cast<double>(moved) / (static_cast<double>(n) * ticks));
    std::fflush(stdout);
    if (!file.write(results)) return 1;
  }

  // The standard scenarios, every variant in lockstep until all have left.
  // spacing: the lattice pitch in units of 2R (the scenario's own: bottleneck 1.1, corridor 3, crossing 5);
  // the denser crossing gridlocked before the following gap, and the corridor gridlocks at 2.2 still (crowd.md).
  struct Case {
    const char* name;
    std::size_t agents;
    float spacing;
  };
  const std::vector<Case> cases = quick ? std::vector<Case>{{"bottleneck", 1000, 1.1f},
                                                            {"corridor", 400, 3.0f},
                                                            {"crossing", 400, 5.0f},
                                                            {"crossing", 400, 3.0f}}
                                        : std::vector<Case>{{"bottleneck", 10000, 1.1f},
                                                            {"corridor", 2000, 3.0f},
                                                            {"crossing", 4000, 5.0f},
                                                            {"corridor", 2000, 2.5f},
                                                            {"crossing", 4000, 3.0f}};
  std::printf("\nstandard scenarios (scenario.h)\n%11s %4s %7s | %7s %12s %12s | %13s %15s\n", "scenario", "2R x",
              "agents", "ticks", "flow/tick", "ideal", "cpu-reference", "gpu-static-grid");
  for (const Case& k : cases) {
    std::fprintf(stderr, "[standard] %s, %zu agents, spacing %g\n", k.name, k.agents, k.spacing);
    crowd::CrowdScenario sc;
    if (Status st = crowd::standard_crowd_scenario(k.name, k.agents, sc, k.spacing); !st.ok()) return 1;
    std::vector<std::unique_ptr<crowd::CrowdSolver>> solvers;
    for (crowd::CrowdVariant v : variants) {
      crowd::CrowdConfig cfg = sc.config;
      cfg.variant = v;
      std::unique_ptr<crowd::CrowdSolver> s;
      Status st = crowd::CrowdSolver::create(ctx, cfg, s);
      if (st.ok()) st = s->reset(sc.start);
      if (!st.ok()) {
        std::fprintf(stderr, "  %s: %s\n", crowd::variant_name(v), st.message().c_str());
        return 1;
      }
      solvers.push_back(std::move(s));
    }
    std::vector<Vec2> pos = sc.start, want;
    std::vector<std::uint8_t> keep;
    std::vector<std::vector<double>> ms(nv);
    std::vector<std::vector<Vec2>> after(nv);
    std::vector<std::vector<crowd::Verdict>> verd(nv);
    std::vector<long long> diff(nv, 0), overlaps(nv, 0), crossings(nv, 0);
    const std::size_t total = pos.size();
    std::size_t left = 0;
    int t = 0, first_exit = -1, half_at = -1;
    DeviceBytes dev_want;
    for (; t < 40000 && !pos.empty(); ++t) {
      crowd::make_proposals(sc.moves, ctx.pool(), pos, static_cast<std::uint64_t>(t), want);
      if (Status st = tick_all(ctx, solvers, want, dev_want, ms, after, verd); !st.ok()) {
        std::fprintf(stderr, "  %s\n", st.message().c_str());
        return 1;
      }
      for (std::size_t v = 0; v < nv; ++v) {
        overlaps[v] += static_cast<long long>(oracle::crowd_overlaps(after[v], sc.config.radius, ctx.pool()));
        for (std::size_t i = 0; i < pos.size(); ++i)
          crossings[v] += oracle::crowd_segment_blocked(sc.config, pos[i], after[v][i]);
        if (v > 0) diff[v] += differences(after, verd, v);
      }
      std::vector<Vec2> next = after[0];
      const std::size_t gone = crowd::depart(sc, next, keep);
      if (gone) {
        for (auto& s : solvers)
          if (Status st = s->retain(keep); !st.ok()) return 1;
        if (first_exit < 0) first_exit = t;
      }
      left += gone;
      if (half_at < 0 && left * 2 >= total) half_at = t;
      pos = std::move(next);
    }
    const bool drained = pos.empty();
    const double flow =
        half_at > first_exit && first_exit >= 0 ? static_cast<double>(total / 2) / (half_at - first_exit) : 0.0;
    const double ideal = std::string(k.name) == "bottleneck" ? crowd::bottleneck_ideal_flow(sc) : 0.0;
    char params[256], extra[320];
    std::snprintf(params, sizeof params,
                  "{\"scenario\": \"%s\", \"agents\": %zu, \"spacing\": %g, \"max_step\": %g, \"rule\": \"lowest-id\", "
                  "\"movement\": \"avoid\"}",
                  k.name, total, k.spacing, sc.config.max_step);
    std::vector<double> med(nv);
    for (std::size_t v = 0; v < nv; ++v) {
      std::snprintf(extra, sizeof extra,
                    "\"ticks\": %d, \"drained\": %s, \"left_in\": %zu, \"flow_per_tick\": %.4f, \"ideal_flow\": %.4f, "
                    "\"overlaps\": %lld, \"wall_crossings\": %lld, \"mismatches\": %lld",
                    t, drained ? "true" : "false", pos.size(), flow, ideal, overlaps[v], crossings[v], diff[v]);
      const bool ok = diff[v] == 0 && overlaps[v] == 0 && crossings[v] == 0;
      Record r = record_for(variants[v], ms[v], params, ok, extra);
      if (v == 0) r.compared("oracle", overlaps[v] == 0 && crossings[v] == 0);  // overlaps and walls only
      if (!ok || !drained) {
        std::fprintf(stderr, "  %s %s: drained %d, %lld overlaps, %lld wall crossings, %lld mismatches\n", k.name,
                     r.variant.c_str(), drained, overlaps[v], crossings[v], diff[v]);
        ++failures;
      }
      med[v] = r.timing.median();
      results.add(r);
    }
    std::printf("%11s %4g %7zu | %7d %12.3f %12.3f | %13.4f %15s\n", k.name, k.spacing, total, t, flow, ideal, med[0],
                nv > 1 ? std::to_string(med[1]).substr(0, 8).c_str() : "-");
    std::fflush(stdout);
    if (!file.write(results)) return 1;
  }
  return failures;
}

}  // namespace warpmind::bench
