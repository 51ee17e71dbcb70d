// Suite "ddm": Lo, Chung and Pai's grid — 2,048 .. 32,768 regions on 10000², sides 10 and 100, uniform
// and 3-hotspot, every region moving by half its size in a random compass direction each step, times
// averaged over 30 steps — plus an alpha sweep (0.01, 1, 100) up to 1,000,000 regions. Every variant
// matches the same regions; each step's changes are compared with the first variant's (cpu-sort). A
// GPU variant's match is the time on its device timeline from the boxes on the device to the sorted
// pairs in device memory (host round trips for sizes included), after one untimed warm-up match;
// the upload of the boxes and the download of the pairs are reported apart. The floor is the pairs
// written plus the boxes read once, at the measured device copy bandwidth.
// A step starts from the moved boxes in one array (copied there untimed, as a game would hold them):
// one batch update() of every region, then match_changes(). Its host part (everything but the upload,
// the device time and the download, on every variant; the whole step on the CPU ones) and, within it,
// the batch update are reported apart from the device part.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "results.h"
#include "suites.h"
#include "warpmind/core/context.h"
#include "warpmind/core/device_ceilings.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/ddm/scenario.h"
#include "warpmind/core/random.h"
#include "ddm_oracle.h"
#include "stats.h"

namespace warpmind::bench {

namespace {

using demos::median;

struct Case {
  std::size_t regions;
  float size, alpha;  // size > 0: fixed side; else alpha
  bool hotspot;
};

using Clock = std::chrono::steady_clock;

// Compares `pairs` (a full match, sorted) with the brute-force oracle on up to 256 sampled regions: each
// sampled region's pairs, as publication or subscription. Returns the number of regions that differ.
long long oracle_sample(const std::vector<ddm::Region<2>>& regions, const std::vector<ddm::Pair>& pairs,
                        std::uint64_t seed, ThreadPool& pool, std::size_t& sampled) {
  const std::size_t n = regions.size();
  std::vector<ddm::RegionKind> kind(n);
  std::vector<ddm::Box<2>> box(n);
  for (std::size_t i = 0; i < n; ++i) kind[i] = regions[i].kind, box[i] = regions[i].box;
  std::vector<ddm::RegionId> sample;
  std::vector<int> slot(n, -1);
  SplitMix64 rng(seed);
  for (std::size_t i = 0; i < std::min<std::size_t>(256, n); ++i) {
    const auto id = static_cast<ddm::RegionId>(n <= 256 ? i : rng.next() % n);
    if (slot[id] < 0) slot[id] = static_cast<int>(sample.size()), sample.push_back(id);
  }
  std::vector<std::vector<ddm::Pair>> got(sample.size()), want(sample.size());
  for (const ddm::Pair& q : pairs) {
    if (q.publication < n && slot[q.publication] >= 0) got[static_cast<std::size_t>(slot[q.publication])].push_back(q);
    if (q.subscription < n && slot[q.subscription] >= 0)
      got[static_cast<std::size_t>(slot[q.subscription])].push_back(q);
  }
  pool.parallel_for(sample.size(), [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; ++i) want[i] = oracle::ddm_pairs_of<2>(kind, box, {}, sample[i]);
  });
  long long bad = 0;
  for (std::size_t i = 0; i < sample.size(); ++i) bad += got[i] != want[i];
  sampled += sample.size();
  return bad;
}

// The flags of the ddm suite.
struct Flags {
  SuiteFlags suite;
  int steps = 30;
  std::size_t max_regions = 1000000;
  bool no_brute = false;
};

int run(const Flags& f) {
  const int steps = f.steps;
  const std::size_t max_regions = f.max_regions;
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "ddm", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "ddm")) return rc;
  std::vector<Case> cases;
  if (f.suite.quick) {
    cases = {{2048, 100, 0, false}, {8192, 10, 0, true}};
  } else {
    for (bool hot : {false, true})
      for (float size : {10.0f, 100.0f})
        for (std::size_t n = 2048; n <= 32768; n *= 2) cases.push_back({n, size, 0, hot});
    for (float alpha : {0.01f, 1.0f, 100.0f})
      for (std::size_t n : {10000u, 100000u, 1000000u}) cases.push_back({n, 0, alpha, false});
  }
  cases.erase(std::remove_if(cases.begin(), cases.end(), [&](const Case& c) { return c.regions > max_regions; }),
              cases.end());
  Results results("ddm", ctx->cuda() ? ctx->device().name : "cpu");
  int failures = 0;
  DeviceCeilings ceil;
  if (ctx->cuda()) {
    const Status st = measure_ceilings(*ctx, ceil);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench ddm: %s\n", st.message().c_str());
      return 1;
    }
    std::printf("device %s: copy bandwidth %.0f GB/s; CPU threads %u\n", ctx->device().name.c_str(),
                ceil.copy_bytes_per_s / 1e9, ctx->pool().size());
  } else {
    std::printf("CPU only; CPU threads %u\n", ctx->pool().size());
  }
  std::printf("%8s %6s %6s %8s %-10s | %10s %10s %9s %9s | %8s %8s | %8s %8s | %10s   (ms, medians)\n", "regions",
              "side", "alpha", "layout", "variant", "match", "step", "step host", "update", "upload", "download",
              "x sort", "floor", "pairs");
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& cs = cases[ci];
    std::fprintf(stderr, "[%zu/%zu] %zu regions\n", ci + 1, cases.size(), cs.regions);
    ddm::GenerateSpec g;
    g.regions = cs.regions;
    g.size = cs.size;
    g.alpha = cs.alpha;
    g.hotspot = cs.hotspot;
    g.seed = 3 + ci;
    const std::vector<ddm::Region<2>> start = ddm::generate_regions<2>(g);
    std::vector<ddm::DdmVariant> variants = {ddm::DdmVariant::CpuSort};
    const bool skip_quadratic = f.no_brute;
    if (!(skip_quadratic && cs.regions > 32768)) variants.push_back(ddm::DdmVariant::CpuBrute);
    if (ctx->cuda()) {
      if (!(skip_quadratic && cs.regions > 131072)) variants.push_back(ddm::DdmVariant::GpuRegion);
      variants.push_back(ddm::DdmVariant::GpuGrid);
    }
    const std::size_t nv = variants.size();
    std::vector<double> match_ms(nv), step_med(nv);
    std::vector<long long> mismatches(nv, 0);
    std::vector<std::vector<ddm::Pair>> first_in(steps), first_out(steps);
    std::vector<ddm::Pair> first_all, first_final;
    std::size_t pairs = 0, sampled = 0;
    for (std::size_t v = 0; v < nv; ++v) {
      std::unique_ptr<ddm::RegionMatcher<2>> m;
      Status st = ddm::RegionMatcher<2>::create(*ctx, {variants[v]}, m);
      std::vector<ddm::Region<2>> regions = start;
      for (std::size_t i = 0; st.ok() && i < regions.size(); ++i) {
        ddm::RegionId id;
        st = m->add(regions[i].kind, regions[i].box, id);
      }
      std::vector<ddm::Pair> all, in, out;
      if (st.ok()) st = m->match(all);  // warm-up: first allocations and module loading are not timed
      auto t0 = Clock::now();
      if (st.ok()) st = m->match(all);
      const double match_wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      const bool gpu = variants[v] == ddm::DdmVariant::GpuRegion || variants[v] == ddm::DdmVariant::GpuGrid;
      const ddm::MatchTimes full = st.ok() ? m->last_times() : ddm::MatchTimes{};
      match_ms[v] = gpu ? full.match : match_wall;
      const bool corrupted = corrupt(ddm::variant_name(variants[v]));
      if (corrupted)
        for (ddm::Pair& q : all) ++q.subscription;
      // The full match: the reference against the oracle on sampled regions, the others against it.
      if (v == 0) {
        pairs = all.size();
        first_all = all;
        mismatches[v] += oracle_sample(start, all, g.seed, ctx->pool(), sampled);
      } else {
        mismatches[v] += all != first_all;
      }
      // Per step: wall time (batch update + match_changes); its device part (upload + device time +
      // download; 0 on the CPU variants); its host part (the rest); the batch update alone.
      std::vector<double> step_ms, step_dev, step_host, step_update;
      std::vector<ddm::RegionId> ids(regions.size());
      std::vector<ddm::Box<2>> boxes(regions.size());
      for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<ddm::RegionId>(i);
      for (int s = 0; st.ok() && s < steps; ++s) {
        ddm::move_regions<2>(regions, g.seed, s);
        for (std::size_t i = 0; i < regions.size(); ++i) boxes[i] = regions[i].box;
        t0 = Clock::now();
        st = m->update(ids, boxes);
        const double update_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (st.ok()) st = m->match_changes(in, out);
        const double wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        step_ms.push_back(wall);
        if (st.ok()) {
          const ddm::MatchTimes& t = m->last_times();
          const double dev = gpu ? t.upload + t.match + t.download : 0.0;
          step_dev.push_back(dev);
          step_host.push_back(wall - dev);
          step_update.push_back(update_ms);
        }
        if (v == 0) {
          first_in[s] = in;
          first_out[s] = out;
        } else {
          mismatches[v] += !(in == first_in[s] && out == first_out[s]);
        }
      }
      // After the moves, the full match again (untimed): the changes must have led to the same place.
      if (st.ok() && steps > 0) {
        st = m->match(all);
        if (corrupted)
          for (ddm::Pair& q : all) ++q.subscription;
        if (v == 0) {
          first_final = all;
          mismatches[v] += oracle_sample(regions, all, g.seed + 1, ctx->pool(), sampled);
        } else {
          mismatches[v] += all != first_final;
        }
      }
      if (!st.ok()) {
        std::fprintf(stderr, "  %s: %s\n", ddm::variant_name(variants[v]), st.message().c_str());
        return 1;
      }
      const double host_med = median(step_host), update_med = median(step_update);
      Record r;
      r.timing.ms = step_ms.empty() ? std::vector<double>{match_ms[v]} : step_ms;
      std::sort(r.timing.ms.begin(), r.timing.ms.end());
      step_med[v] = steps > 0 ? r.timing.median() : 0.0;
      r.variant = ddm::variant_name(variants[v]);
      r.backend = gpu ? "cuda" : "cpu";
      if (gpu)
        r.floor_ms = (static_cast<double>(pairs) * sizeof(ddm::Pair) +
                      static_cast<double>(start.size()) * (sizeof(ddm::Box<2>) + sizeof(ddm::RegionId))) /
                     ceil.copy_bytes_per_s * 1e3;
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "{\"regions\": %zu, \"side\": %g, \"alpha\": %g, \"distribution\": \"%s\", \"steps\": %d}",
                    cs.regions, cs.size > 0 ? cs.size : static_cast<double>(start[0].box.hi[0] - start[0].box.lo[0]),
                    cs.alpha, cs.hotspot ? "hotspot" : "uniform", steps);
      r.params_json = buf;
      r.compared(v == 0 ? "oracle" : ddm::variant_name(variants[0]), mismatches[v] == 0);
      std::snprintf(buf, sizeof buf,
                    "\"match_ms\": %.6f, \"match_wall_ms\": %.6f, \"upload_ms\": %.6f, \"download_ms\": %.6f, "
                    "\"pairs\": %zu, \"mismatches\": %lld, \"step_transfer_and_device_ms\": %.6f, "
                    "\"step_host_ms\": %.6f, \"step_update_ms\": %.6f",
                    match_ms[v], match_wall, full.upload, full.download, pairs, mismatches[v],
                    gpu ? median(step_dev) : 0.0, host_med, update_med);
      r.extra_json = buf;
      if (v == 0) r.extra_json += ", \"oracle_regions\": " + std::to_string(sampled);
      if (mismatches[v]) {
        std::fprintf(stderr, "  MISMATCH: %s differs from %s (%lld)\n", r.variant.c_str(), r.checked_against.c_str(),
                     mismatches[v]);
        ++failures;
      }
      std::printf("%8zu %6.4g %6.4g %8s %-10s | %10.3f %10.3f %9.3f %9.3f | %8.3f %8.3f | %7.1fx %8.4f | %10zu\n",
                  cs.regions, static_cast<double>(start[0].box.hi[0] - start[0].box.lo[0]), cs.alpha,
                  cs.hotspot ? "hotspot" : "uniform", r.variant.c_str(), match_ms[v], step_med[v], host_med, update_med,
                  full.upload, full.download, match_ms[v] > 0 ? match_ms[0] / match_ms[v] : 0.0, gpu ? r.floor_ms : 0.0,
                  pairs);
      results.add(r);
    }
    std::fflush(stdout);
    if (!file.write(results)) return 1;
  }
  file.finish(results);
  return failures ? 1 : 0;
}

}  // namespace

demos::Subcommand ddm_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_suite(
      parent, "ddm",
      "region matching, 2,048 to 1,000,000 regions (Lo, Chung, Pai)\n"
      "Region matching: 2,048 to 32,768 regions of side 10 and 100, uniform and hot-spot, and 10,000 to 1,000,000 "
      "regions at overlap degrees 0.01, 1 and 100; every variant in one run, a full match and --steps steps of "
      "moves each.",
      "Checks: cpu-sort's full match (before the moves and after them) against the brute-force oracle on up to "
      "256 sampled regions each; every other variant's full matches and every step's changes against cpu-sort's.",
      "two small cases (a smoke test)", f->suite);
  demos::add_integer(*app, "--steps", f->steps, 0, 100000, "N", "moves per case");
  demos::add_integer(*app, "--max-regions", f->max_regions, 1, 1ll << 28, "N", "skip larger cases");
  demos::add_flag(*app, "--no-brute", f->no_brute,
                  "leave the quadratic variants out of the large cases: cpu-brute above 32,768 regions, gpu-region "
                  "above 131,072");
  return {app, [f] { return run(*f); }};
}

}  // namespace warpmind::bench
