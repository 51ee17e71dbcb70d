// Suite "ddm": Lo, Chung and Pai's grid — 2,048 .. 32,768 regions on 10000², sides 10 and 100, uniform
// and 3-hotspot, every region moving by half its size in a random compass direction each step, times
// averaged over 30 steps — plus an alpha sweep (0.01, 1, 100) up to 1,000,000 regions. Every variant
// matches the same regions; each step's changes are compared with the first variant's.
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
    "  --no-brute            leave cpu-brute out above 32,768 regions (it is quadratic)\n";

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
  std::printf("%8s %6s %6s %8s | %11s %11s | %11s %11s | %10s %8s   (ms, medians)\n", "regions", "side", "alpha",
              "layout", "sort match", "sort step", "brute match", "brute step", "pairs", "brute x");
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
    if (!(args.has("no-brute") && cs.regions > 32768)) variants.push_back(ddm::DdmVariant::CpuBrute);
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
      auto t0 = Clock::now();
      if (st.ok()) st = m->match(all);
      match_ms[v] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
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
      r.backend = "cpu";
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "{\"regions\": %zu, \"side\": %g, \"alpha\": %g, \"distribution\": \"%s\", \"steps\": %d}",
                    cs.regions, cs.size > 0 ? cs.size : static_cast<double>(start[0].box.hi[0] - start[0].box.lo[0]),
                    cs.alpha, cs.hotspot ? "hotspot" : "uniform", steps);
      r.params_json = buf;
      r.checked = mismatches[v] == 0;
      std::snprintf(buf, sizeof buf, "\"match_ms\": %.6f, \"pairs\": %zu", match_ms[v], pairs);
      r.extra_json = buf;
      if (mismatches[v]) {
        std::fprintf(stderr, "  MISMATCH: %s differs from %s in %lld steps\n", r.variant.c_str(),
                     ddm::variant_name(variants[0]), mismatches[v]);
        ++failures;
      }
      results.add(r);
    }
    const auto cell = [](std::size_t v, const std::vector<double>& x) {
      char b[32];
      std::snprintf(b, sizeof b, "%.3f", x[v]);
      return std::string(b);
    };
    std::printf("%8zu %6.4g %6.4g %8s | %11.3f %11.3f | %11s %11s | %10zu %7.1fx\n", cs.regions,
                static_cast<double>(start[0].box.hi[0] - start[0].box.lo[0]), cs.alpha, cs.hotspot ? "hotspot" : "uniform",
                match_ms[0], step_med[0], variants.size() > 1 ? cell(1, match_ms).c_str() : "-",
                variants.size() > 1 ? cell(1, step_med).c_str() : "-", pairs,
                variants.size() > 1 && match_ms[0] > 0 ? match_ms[1] / match_ms[0] : 0.0);
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
