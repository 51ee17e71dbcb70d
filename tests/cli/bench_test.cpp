// warpmind-bench as a user runs it: results files in the documented shape, `checked` only where compared,
// suites in parts, and committed results that name a clean commit.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_common.h"

namespace {

using namespace warpmind::test::cli;

// What every results file must say of its records: `checked` only with a named reference that is not
// the record's own variant; returns the variants whose records are all checked and those with any not.
struct CheckedSummary {
  std::set<std::string> all_checked, some_unchecked;
};
CheckedSummary checked_summary(const nlohmann::json& j, const std::string& what) {
  CheckedSummary s;
  EXPECT_TRUE(j.is_object() && j.contains("records")) << what;
  if (!j.is_object() || !j.contains("records")) return s;
  for (const auto& r : j["records"]) {
    const std::string v = r.at("variant");
    EXPECT_TRUE(r.contains("checked_against")) << what << " " << v;
    const bool checked = r.at("checked");
    if (checked) {
      EXPECT_TRUE(r["checked_against"].is_string()) << what << " " << v;
      if (r["checked_against"].is_string()) {
        EXPECT_NE(r["checked_against"].get<std::string>(), v) << what;
      }
    }
    (checked ? s.all_checked : s.some_unchecked).insert(v);
  }
  for (const std::string& v : s.some_unchecked) s.all_checked.erase(v);
  return s;
}

// The quick mode of every suite on the CPU: results JSON in the documented shape, every record checked
// against an independent reference but the one-thread batch rows, which have none without a GPU, and
// the engines' own searches (a different search, timed beside the others).
TEST(Cli, BenchQuickWritesCheckedResults) {
  static const std::string nav_args = "--goals 4 --maps " + warpmind::test::source_dir() + "/assets/maps/movingai";
  struct Suite {
    const char* name;
    const char* args;
    std::set<std::string> variants;
  };
  const Suite suites[] = {
      {"field", "--repeats 2", {"cpu-stamp", "cpu-naive"}},
      {"crowd", "--ticks 3", {"cpu-reference", "avoid-cpu-reference"}},
      {"aoi", "--ticks 2", {"cpu-fast", "cpu-grid"}},
      {"ddm", "--steps 3", {"cpu-sort", "cpu-brute"}},
      {"hybrid", "", {"hybrid-cpu"}},
      {"chess", "", {"perft-cpu", "cpu-pool", "hybrid-cpu-pool", "subtrees-cpu-pool"}},
      {"connect6", "", {"cpu-pool", "hybrid-cpu-pool", "subtrees-cpu-pool"}},
      {"nav", nav_args.c_str(), {"cpu-threads", "cpu-update", "cpu-goal-set"}},
  };
  for (const Suite& su : suites) {
    SCOPED_TRACE(su.name);
    const fs::path out = scratch(std::string("bench-") + su.name + ".json");
    const Outcome r =
        run(std::string("warpmind-bench ") + su.name + " --quick --backend cpu " + su.args + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.out;
    const nlohmann::json j = read_json(out);
    for (const char* key : {"device", "commit", "date", "suite", "records"}) EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j.value("suite", ""), su.name);
    EXPECT_EQ(j.value("device", ""), std::string(su.name) == "hybrid" ? "node counts (machine-independent)" : "cpu");
    for (const auto& rec : j["records"])
      for (const char* key : {"params", "variant", "backend", "median_ms", "min_ms", "max_ms", "repeats", "floor_ms",
                              "checked", "checked_against"})
        EXPECT_TRUE(rec.contains(key)) << key;
    const CheckedSummary c = checked_summary(j, su.name);
    EXPECT_EQ(c.all_checked, su.variants);
    const std::string name = su.name;
    const std::set<std::string> unchecked = name == "chess" || name == "connect6"
                                                ? std::set<std::string>{"cpu-1-thread", "engine-threads"}
                                            : name == "nav" ? std::set<std::string>{"cpu-1-thread"}
                                                            : std::set<std::string>{};
    EXPECT_EQ(c.some_unchecked, unchecked);
  }
  EXPECT_EQ(run("warpmind-bench nosuite").status, 2);
  EXPECT_EQ(run("warpmind-bench field --repeats x").status, 2);
}

// The board suites run in parts (--part), so each fits a time-limited call: only the named parts'
// records are written, and an unknown part is an error.
TEST(Cli, BenchBoardSuitesRunInParts) {
  const fs::path out = scratch("bench-connect6-plain.json");
  const Outcome r = run("warpmind-bench connect6 --quick --backend cpu --part plain --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = read_json(out);
  ASSERT_FALSE(j["records"].empty());
  for (const auto& rec : j["records"]) {
    EXPECT_EQ(rec["params"].value("experiment", ""), "search");
    EXPECT_FALSE(rec["params"].value("pruning", true));
  }
  EXPECT_EQ(run("warpmind-bench chess --quick --backend cpu --part perft,bogus").status, 2);
}

// `checked: true` must mean compared: with one variant's output altered behind the test-only switch,
// that variant's records say `checked: false` (and everything compared with it), and the suite fails.
TEST(Cli, BenchCheckedFailsForACorruptedVariant) {
  static const std::string nav_args = "--goals 4 --maps " + warpmind::test::source_dir() + "/assets/maps/movingai";
  struct Case {
    const char* suite;
    const char* args;
    const char* corrupt;
    std::set<std::string> still_checked;  // variants whose records must stay checked
  };
  const Case cases[] = {
      {"field", "--repeats 1", "cpu-stamp", {}},
      {"field", "--repeats 1", "cpu-naive", {"cpu-stamp"}},
      {"crowd", "--ticks 2", "cpu-reference", {}},
      {"aoi", "--ticks 1", "cpu-fast", {}},
      {"aoi", "--ticks 1", "cpu-grid", {"cpu-fast"}},
      {"ddm", "--steps 2", "cpu-sort", {}},
      {"ddm", "--steps 0", "cpu-brute", {"cpu-sort"}},
      {"hybrid", "", "hybrid-cpu", {}},
      {"chess", "", "cpu-pool", {"perft-cpu", "hybrid-cpu-pool"}},
      {"connect6", "", "hybrid-cpu-pool", {"cpu-pool"}},
      {"nav", nav_args.c_str(), "cpu-threads", {"cpu-update"}},
      {"nav", nav_args.c_str(), "cpu-update", {"cpu-threads"}},
      {"nav", nav_args.c_str(), "cpu-goal-set", {"cpu-threads", "cpu-update"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.suite) + " with " + c.corrupt + " corrupted");
    const fs::path out = scratch(std::string("corrupt-") + c.suite + ".json");
    ::setenv("WARPMIND_BENCH_CORRUPT", c.corrupt, 1);
    const Outcome r =
        run(std::string("warpmind-bench ") + c.suite + " --quick --backend cpu " + c.args + " --out " + out.string());
    ::unsetenv("WARPMIND_BENCH_CORRUPT");
    EXPECT_EQ(r.status, 1) << r.out;
    const CheckedSummary s = checked_summary(read_json(out), c.suite);
    EXPECT_EQ(s.all_checked.count(c.corrupt), 0u);
    EXPECT_EQ(s.some_unchecked.count(c.corrupt), 1u);
    for (const std::string& v : c.still_checked) EXPECT_EQ(s.all_checked.count(v), 1u) << v;
  }
}

// Results under a folder bench/results/ are written only from a build that is exactly a commit (or with
// --allow-dirty), and the committed ones say so.
TEST(Cli, CommittedResultsNameACleanCommit) {
  const fs::path results = fs::path(warpmind::test::source_dir()) / "bench" / "results";
  if (!fs::exists(results)) GTEST_SKIP() << "no bench/results in this tree";
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(results)) {
    if (e.path().extension() != ".json") continue;
    const nlohmann::json j = read_json(e.path());
    if (!j.is_object() || !j.contains("commit")) continue;  // match records and other files
    ++files;
    const std::string commit = j["commit"];
    EXPECT_EQ(commit.find("dirty"), std::string::npos) << e.path();
    EXPECT_NE(commit, "unknown") << e.path();
  }
  EXPECT_GT(files, 0);
  // The stamp the binary carries decides: a build from a modified tree refuses, a clean one writes.
  const fs::path dir = scratch("bench") / "results";
  fs::create_directories(dir);
  const std::string quick = "warpmind-bench field --quick --backend cpu --repeats 1 ";
  ASSERT_EQ(run(quick + "--out " + scratch("stamp.json").string()).status, 0);
  const std::string built_from = read_json(scratch("stamp.json")).value("commit", "");
  const Outcome r = run(quick + "--out " + (dir / "f.json").string());
  if (built_from.find("-dirty") != std::string::npos || built_from == "unknown") {
    EXPECT_EQ(r.status, 2);
    EXPECT_FALSE(fs::exists(dir / "f.json"));
    EXPECT_EQ(run(quick + "--allow-dirty --out " + (dir / "f.json").string()).status, 0);
  } else {
    EXPECT_EQ(r.status, 0);
  }
  EXPECT_TRUE(fs::exists(dir / "f.json"));
}

}  // namespace
