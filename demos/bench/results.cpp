#include "results.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string_view>

#include "output.h"

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
    if (r.floor_ms < 0)
      std::snprintf(floor, sizeof floor, "null");
    else
      std::snprintf(floor, sizeof floor, "%.6g", r.floor_ms);
    std::snprintf(buf, sizeof buf,
                  "\"variant\": \"%s\", \"backend\": \"%s\", \"median_ms\": %.6g, \"min_ms\": %.6g, \"max_ms\": %.6g, "
                  "\"repeats\": %zu, \"floor_ms\": %s, \"checked\": %s",
                  r.variant.c_str(), r.backend.c_str(), r.timing.median(), r.timing.min(), r.timing.max(),
                  r.timing.ms.size(), floor, r.checked ? "true" : "false");
    s += "  {\"params\": ";
    s += r.params_json;
    s += ", ";
    s += buf;
    s += ", \"checked_against\": ";
    if (r.checked_against.empty()) {
      s += "null";
    } else {
      s += '"';
      s += demos::json_escape(r.checked_against);
      s += '"';
    }
    if (!r.extra_json.empty()) s += ", " + r.extra_json;
    s += i + 1 < records_.size() ? "},\n" : "}\n";
  }
  s += "]}\n";
  return s;
}

CLI::App* add_suite(CLI::App& parent, const char* name, const std::string& description, const std::string& checks,
                    const std::string& quick, SuiteFlags& flags) {
  CLI::App* app = demos::add_subcommand(parent, name, description);
  app->footer(checks);
  demos::add_text(*app, "--out", flags.out, "FILE.json", "write the results");
  demos::add_flag(*app, "--quick", flags.quick, quick);
  demos::add_context_flags(*app, flags.context);
  demos::add_flag(*app, "--allow-dirty", flags.allow_dirty,
                  "write under bench/results/ even from a build that is not a commit");
  return app;
}

int ResultsFile::open(const SuiteFlags& flags, const char* suite) {
  suite_ = suite;
  if (flags.out.empty()) return 0;
  path_ = flags.out;
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string where = fs::weakly_canonical(fs::absolute(path_, ec), ec).generic_string();
  if (where.find("/bench/results/") != std::string::npos && demos::build_is_dirty() && !flags.allow_dirty) {
    std::fprintf(stderr,
                 "warpmind-bench %s: refusing to write %s: this binary was built from %s, not a commit "
                 "(commit first, or pass --allow-dirty)\n",
                 suite, path_.c_str(), demos::build_commit().c_str());
    return 2;
  }
  return 0;
}

bool ResultsFile::write(const Results& results) const {
  if (path_.empty()) return true;
  const std::string err = demos::write_file(path_, results.to_json());
  if (err.empty()) return true;
  std::fprintf(stderr, "warpmind-bench %s: %s\n", suite_.c_str(), err.c_str());
  return false;
}

void ResultsFile::finish(const Results& results) const {
  std::size_t checked = 0;
  std::set<std::string> unchecked;
  for (const Record& r : results.records()) {
    if (r.checked)
      ++checked;
    else
      unchecked.insert(r.variant);
  }
  std::printf("checked %zu of %zu records against an independent reference", checked, results.records().size());
  if (!unchecked.empty()) {
    std::printf("; not checked:");
    for (const std::string& v : unchecked) std::printf(" %s", v.c_str());
  }
  std::printf("\n");
  if (!path_.empty()) std::printf("wrote %s (%zu records)\n", path_.c_str(), results.records().size());
}

bool corrupt(const std::string& variant) {
  static const std::set<std::string> wanted = [] {
    std::set<std::string> w;
    const char* env = std::getenv("WARPMIND_BENCH_CORRUPT");
    std::string_view list = env ? env : "";
    while (!list.empty()) {
      const std::size_t comma = list.find(',');
      w.insert(std::string(list.substr(0, comma)));
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    return w;
  }();
  static std::set<std::string> told;
  if (!wanted.count(variant)) return false;
  if (told.insert(variant).second)
    std::fprintf(stderr, "warpmind-bench: WARPMIND_BENCH_CORRUPT: altering %s's output before it is compared\n",
                 variant.c_str());
  return true;
}

int open_context(const SuiteFlags& flags, const char* suite, std::unique_ptr<Context>& ctx) {
  const std::string err = demos::open_context(flags.context, false, ctx);
  if (err.empty()) return 0;
  std::fprintf(stderr, "warpmind-bench %s: %s\n", suite, err.c_str());
  return 2;
}

}  // namespace warpmind::bench
