#include "results.h"

#include <algorithm>
#include <cstdio>

#include "../common/args.h"

namespace warpmind::bench {

bool time_runs(const std::function<double()>& once, int warmup, int min_reps, int max_reps, double budget_ms,
               Timing& out) {
  out.ms.clear();
  for (int i = 0; i < warmup; ++i)
    if (once() < 0) return false;
  double spent = 0;
  while (static_cast<int>(out.ms.size()) < max_reps) {
    const double t = once();
    if (t < 0) return false;
    out.ms.push_back(t);
    spent += t;
    if (static_cast<int>(out.ms.size()) >= min_reps && spent >= budget_ms) break;
  }
  std::sort(out.ms.begin(), out.ms.end());
  return true;
}

std::string Results::to_json() const {
  std::string s = "{\"device\": \"" + demos::json_escape(device_) + "\", \"commit\": \"" +
                  demos::json_escape(demos::build_commit()) + "\", \"date\": \"" + demos::utc_now() +
                  "\", \"suite\": \"" + demos::json_escape(suite_) + "\", \"records\": [\n";
  char buf[512];
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const Record& r = records_[i];
    char floor[32];
    if (r.floor_ms < 0) std::snprintf(floor, sizeof floor, "null");
    else std::snprintf(floor, sizeof floor, "%.6g", r.floor_ms);
    std::snprintf(buf, sizeof buf,
                  "\"variant\": \"%s\", \"backend\": \"%s\", \"median_ms\": %.6g, \"min_ms\": %.6g, \"max_ms\": %.6g, "
                  "\"repeats\": %zu, \"floor_ms\": %s, \"checked\": %s",
                  r.variant.c_str(), r.backend.c_str(), r.timing.median(), r.timing.min(), r.timing.max(),
                  r.timing.ms.size(), floor, r.checked ? "true" : "false");
    s += "  {\"params\": " + r.params_json + ", " + buf;
    if (!r.extra_json.empty()) s += ", " + r.extra_json;
    s += i + 1 < records_.size() ? "},\n" : "}\n";
  }
  s += "]}\n";
  return s;
}

int open_context(demos::Args& args, const char* suite, std::unique_ptr<Context>& ctx) {
  const std::string err = demos::open_context(args, false, ctx);
  if (err.empty()) return 0;
  std::fprintf(stderr, "warpmind-bench %s: %s\n", suite, err.c_str());
  return 2;
}

}  // namespace warpmind::bench
