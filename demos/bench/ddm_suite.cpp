// Suite "ddm": Lo, Chung and Pai's grid — 2,048 .. 32,768 regions on 10000², sides 10 and 100, uniform
// and 3-hotspot, every region moving by half its size in a random compass direction each step, times
// averaged over 30 steps — plus an alpha sweep (0.01, 1, 100) up to 1,000,000 regions. Every variant
// matches the same regions; each step's changes are compared with the first variant's (cpu-sort). A
// GPU variant's match is the time on its device timeline from the boxes on the device to the sorted
// pairs in device memory (host round trips for sizes included), after one untimed warm-up match;
// the upload of the boxes and the download of the pairs are reported apart. The floor is the pairs
// written plus the boxes read once, at the measured device copy bandwidth.
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
#include "warpmind/ddm/ddm.h"
#include "warpmind/ddm/scenario.h"

namespace warpmind::bench {

namespace {

constexpr const char* kHelp =
    "usage: warpmind-bench ddm [options]\n"
    "  --out FILE.json       write the results\n"
    "  --quick               two small cases (a smoke test)\n"
    "  --backend B           cpu | cuda | auto (default auto)\n"
    "  --threads N           CPU threads (default: all)\n"
    "  --steps N             moves per case (default 30)\n"
    "  --max-regions N       skip larger cases (default 1000000)\n"
    "  --no-brute            leave the quadratic variants out of the large cases: cpu-brute above 32,768\n"
    "                        regions, gpu-region above 131,072\n";

struct Case {
  std::size_t regions;
  float size, alpha;  // size > 0: fixed side; else alpha
  bool hotspot;
};

using Clock = std::chrono::steady_clock;

}  // namespace

int ddm_suite(int argc, char** argv) {
  demos::Args args(argc, argv, 1, {"out", "backend", "threads", "steps", "max-regions"}, {"quick", "no-brute", "help"});
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const int steps = static_cast<int>(args.integer("steps", 30, 0, 100000));
  const auto max_regions = static_cast<std::size_t>(args.integer("max-regions", 1000000, 1, 1ll << 28));
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(args, "ddm", ctx)) return rc;
  std::vector<Case> cases;
  if (args.has("quick")) {
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
  std::printf("%8s %6s %6s %8s %-10s | %10s %10s | %8s %8s | %8s %8s | %10s   (ms, medians)\n", "regions", "side",
              "alpha", "layout", "variant", "match", "step", "upload", "download", "x sort", "floor", "pairs");
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
    const bool skip_quadratic = args.has("no-brute");
    if (!(skip_quadratic && cs.regions > 32768)) variants.push_back(ddm::DdmVariant::CpuBrute);
    if (ctx->cuda()) {
      if (!(skip_quadratic && cs.regions > 131072)) variants.push_back(ddm::DdmVariant::GpuRegion);
      variants.push_back(ddm::DdmVariant::GpuGrid);
    }
    std::vector<double> match_ms(variants.size()), step_med(variants.size());
    std::vector<long long> mismatches(variants.size(), 0);
    std::vector<std::vector<ddm::Pair>> first_in(steps), first_out(steps);
    std::size_t pairs = 0;
    for (std::size_t v = 0; v < variants.size(); ++v) {
      std::unique_ptr<ddm::RegionMatcher<2>> m;
      Status st = ddm::RegionMatcher<2>::create(*ctx, variants[v], m);
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
      if (v == 0) pairs = all.size();
      std::vector<double> step_ms;
      for (int s = 0; st.ok() && s < steps; ++s) {
        ddm::move_regions<2>(regions, g.seed, s);
        t0 = Clock::now();
        for (std::size_t i = 0; st.ok() && i < regions.size(); ++i) st = m->update(static_cast<ddm::RegionId>(i), regions[i].box);
        if (st.ok()) st = m->match_changes(in, out);
        step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (v == 0) {
          first_in[s] = in;
          first_out[s] = out;
        } else {
          mismatches[v] += !(in == first_in[s] && out == first_out[s]);
        }
      }
      if (!st.ok()) {
        std::fprintf(stderr, "  %s: %s\n", ddm::variant_name(variants[v]), st.message().c_str());
        return 1;
      }
      Record r;
      r.timing.ms = step_ms;
      std::sort(r.timing.ms.begin(), r.timing.ms.end());
      step_med[v] = r.timing.median();
      r.variant = ddm::variant_name(variants[v]);
      r.backend = gpu ? "cuda" : "cpu";
      if (gpu)
        r.floor_ms = (static_cast<double>(pairs) * sizeof(ddm::Pair) +
                      static_cast<double>(start.size()) * (sizeof(ddm::Box<2>) + sizeof(ddm::RegionId))) /
                     ceil.copy_bytes_per_s * 1e3;
      char buf[384];
      std::snprintf(buf, sizeof buf,
                    "{\"regions\": %zu, \"side\": %g, \"alpha\": %g, \"distribution\": \"%s\", \"steps\": %d}",
                    cs.regions, cs.size > 0 ? cs.size : static_cast<double>(start[0].box.hi[0] - start[0].box.lo[0]),
                    cs.alpha, cs.hotspot ? "hotspot" : "uniform", steps);
      r.params_json = buf;
      r.checked = mismatches[v] == 0;
      std::snprintf(buf, sizeof buf,
                    "\"match_ms\": %.6f, \"match_wall_ms\": %.6f, \"upload_ms\": %.6f, \"download_ms\": %.6f, \"pairs\": %zu",
                    match_ms[v], match_wall, full.upload, full.download, pairs);
      r.extra_json = buf;
      if (mismatches[v]) {
        std::fprintf(stderr, "  MISMATCH: %s differs from %s in %lld steps\n", r.variant.c_str(),
                     ddm::variant_name(variants[0]), mismatches[v]);
        ++failures;
      }
      std::printf("%8zu %6.4g %6.4g %8s %-10s | %10.3f %10.3f | %8.3f %8.3f | %7.1fx %8.4f | %10zu\n", cs.regions,
                  static_cast<double>(start[0].box.hi[0] - start[0].box.lo[0]), cs.alpha,
                  cs.hotspot ? "hotspot" : "uniform", r.variant.c_str(), match_ms[v], step_med[v], full.upload,
                  full.download, match_ms[v] > 0 ? match_ms[0] / match_ms[v] : 0.0, gpu ? r.floor_ms : 0.0, pairs);
      results.add(r);
    }
    std::fflush(stdout);
    if (args.has("out")) {
      const std::string err = demos::write_file(args.str("out"), results.to_json());
      if (!err.empty()) {
        std::fprintf(stderr, "warpmind-bench ddm: %s\n", err.c_str());
        return 1;
      }
    }
  }
  if (args.has("out")) std::printf("wrote %s (%zu records)\n", args.str("out").c_str(), results.records().size());
  return failures ? 1 : 0;
}

}  // namespace warpmind::bench
