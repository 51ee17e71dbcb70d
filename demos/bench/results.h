// Benchmark bookkeeping shared by every suite: timing loops, records and the results JSON
// {"device","commit","date","suite","records":[{"params","variant","backend","median_ms","min_ms",
//  "max_ms","repeats","floor_ms","checked"}]} described in docs/conventions.md.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../common/args.h"
#include "warpmind/core/context.h"

namespace warpmind::bench {

struct Timing {
  std::vector<double> ms;  // sorted
  double median() const { return ms.empty() ? 0 : ms[ms.size() / 2]; }
  double min() const { return ms.empty() ? 0 : ms.front(); }
  double max() const { return ms.empty() ? 0 : ms.back(); }
};

// Runs `once` (which returns its own duration in ms, or a negative value on failure) after `warmup`
// untimed runs, at least min_reps and at most max_reps times, stopping early once budget_ms is spent.
// Returns false if a run failed.
bool time_runs(const std::function<double()>& once, int warmup, int min_reps, int max_reps, double budget_ms,
               Timing& out);

struct Record {
  std::string params_json;  // a JSON object
  std::string variant, backend;
  Timing timing;
  double floor_ms = -1;  // < 0: null
  bool checked = false;
  std::string extra_json;  // extra "key": value pairs, comma-separated, may be empty
};

class Results {
 public:
  Results(std::string suite, std::string device) : suite_(std::move(suite)), device_(std::move(device)) {}
  void add(Record r) { records_.push_back(std::move(r)); }
  std::string to_json() const;
  const std::vector<Record>& records() const { return records_; }

 private:
  std::string suite_, device_;
  std::vector<Record> records_;
};

// The context every suite runs on, from --backend and --threads. Returns 0, or the exit status after
// printing why (2: bad options, 1: no context).
int open_context(demos::Args& args, const char* suite, std::unique_ptr<Context>& ctx);

}  // namespace warpmind::bench
