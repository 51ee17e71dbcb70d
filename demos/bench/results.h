// Benchmark bookkeeping shared by every suite: timing loops, records and the results JSON
// {"device","commit","date","suite","records":[{"params","variant","backend","median_ms","min_ms",
//  "max_ms","repeats","floor_ms","checked","checked_against"}]} described in docs/conventions.md.
//
// `checked` is true only when the record's own output was compared in the same run with an independent
// reference (another variant, or one of the brute-force oracles of tests/oracles) and matched;
// `checked_against` names that reference whenever a comparison was made (null otherwise).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flags.h"
#include "output.h"
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
  std::string checked_against;  // empty: not compared (null)
  std::string extra_json;       // extra "key": value pairs, comma-separated, may be empty

  // This record's output was compared with `against` (never its own variant); `matched` says how it went.
  void compared(std::string against, bool matched) {
    checked_against = std::move(against);
    checked = matched;
  }
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

// The --out file of a suite. Opened before the run: a path under a folder bench/results/ is refused
// when the binary was built from a tree that is not exactly a commit, unless --allow-dirty is given
// (committed results name the commit they were measured at). write() rewrites the whole file, so a
// suite may call it after every case and an interrupted run still leaves its finished records.
// The flags every suite takes: --out, --quick, --backend, --threads and --allow-dirty.
struct SuiteFlags {
  std::string out;
  bool quick = false, allow_dirty = false;
  demos::ContextFlags context;
};
// Adds a suite to the program's app (`description`: its summary line, then what it runs; `checks`: what
// it compares its records with, the end of its --help), with the flags every suite takes (`quick`: what
// --quick runs). The suite's own flags go on the app returned.
CLI::App* add_suite(CLI::App& parent, const char* name, const std::string& description, const std::string& checks,
                    const std::string& quick, SuiteFlags& flags);

class ResultsFile {
 public:
  // Returns 0, or 2 after printing why the file may not be written.
  int open(const SuiteFlags& flags, const char* suite);
  // Returns false after printing why the file could not be written.
  bool write(const Results& results) const;
  // Prints how many records were checked (and which were not) and, with --out, where they went.
  void finish(const Results& results) const;

 private:
  std::string path_, suite_;
};

// Test hook: WARPMIND_BENCH_CORRUPT=VARIANT[,VARIANT...] makes a suite alter those variants' outputs
// before they are compared, so a test can see `checked: false` come out. Prints a notice when it applies.
bool corrupt(const std::string& variant);

// The context every suite runs on, from --backend and --threads. Returns 0, or the exit status after
// printing why (2: bad options, 1: no context).
int open_context(const SuiteFlags& flags, const char* suite, std::unique_ptr<Context>& ctx);

}  // namespace warpmind::bench
