// Every program's flags: --help lists exactly the flags accepted, unknown flags and bad values exit 2 with
// one line naming them, both forms of a value are the same.
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

// ---- --help and the flags accepted -------------------------------------------------------------------

// The flags a --help lists, each with whether it takes a value: option rows are "  --name TYPE  what" or
// "  --name  what" (a name and its type are followed by two spaces or the end of the line).
std::map<std::string, bool> help_flags(const std::string& help) {
  std::map<std::string, bool> flags;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  -", 0) != 0) continue;
    const std::string names = line.substr(2, line.find(' ', 2) - 2);
    const std::size_t after = 2 + names.size();
    const bool value = after + 1 < line.size() && line[after] == ' ' && line[after + 1] != ' ';
    std::istringstream each(names);
    for (std::string name; std::getline(each, name, ',');)
      if (name.rfind("--", 0) == 0) flags[name] = value;
  }
  return flags;
}

// Every program and subcommand: --help exits 0 and lists exactly the flags the program takes (pinned
// here: the names other tools use); each flag it lists is accepted (given it, the one complaint is about
// an unknown flag beside it, which nothing was run for); an unknown flag is exit 2 with one line on
// stderr that names it, prefixed with the program and subcommand.
TEST(Cli, HelpListsExactlyTheFlagsAccepted) {
  const std::string common = "--help --backend --threads";
  const std::string suite = common + " --out --quick --allow-dirty";
  const std::vector<std::pair<std::string, std::string>> programs = {
    {"warpmind", "--help"},
    {"warpmind field", common + " --scenario --resolution --count --radius --world --distribution --seed --variant "
                                "--repeat --png --raw --layer --range --json"},
    {"warpmind crowd", common + " --scenario --agents --radius --spacing --step-size --seed --moves --steps --rule "
                                "--movement --max-step --variant --verify --positions --ticks --json"},
    {"warpmind aoi", common + " --scenario --clients --hot-spots --map --aoi --shape --attack-share --ticks "
                              "--no-visibility --notifications --variant --seed --json"},
    {"warpmind ddm", common + " --scenario --regions --alpha --size --space --distribution --dimensions --steps "
                              "--variant --seed --pairs --json"},
    {"warpmind nav", common + " --map --generate --size --seed --goal --out --directions --write-map --json"},
    {"warpmind-bench", "--help"},
    {"warpmind-bench field", suite + " --repeats --naive-limit --no-scale --only-scale"},
    {"warpmind-bench crowd", suite + " --ticks --no-scale --no-avoid --only-avoid --rule"},
    {"warpmind-bench aoi",
     suite + " --ticks --max-clients --no-scale --scale-ticks --chunk --grid-max-clients --mailboxes"},
    {"warpmind-bench ddm", suite + " --steps --max-regions --no-brute"},
    {"warpmind-bench hybrid", suite + " --width --depth --max-tree-mb"},
    {"warpmind-bench chess", suite + " --part --perft-only --resident-only"},
    {"warpmind-bench connect6", suite + " --part --resident-only"},
    {"warpmind-bench nav", suite + " --goals --maps"},
    {"warpmind-referee", "--help --game --engine1 --engine2 --options1 --options2 --games --time --inc --seed --log"},
    {"warpmind-chess", "--help"},
    {"warpmind-chess bench", "--help"},
    {"warpmind-connect6", "--help"},
    {"warpmind-connect6 bench", "--help"},
#if WARPMIND_ENGINE_TESTS
    {"warpmind-demo",
     "--help --headless --window --scene --crowd-layout --connect --observer-key-file --server-key --fen --moves "
     "--ai-plays "
     "--ai-time --ai-search --frames --ticks-per-frame --out --units --map-file --map --resolution --sight --gap "
     "--heat-range "
     "--no-interop --no-nav --nav-8-directions --nav-map --save-every --size --backend --seed"},
#endif
  };
  const std::string unknown = "--zz-no-such-flag";
  for (const auto& [cmd, expected] : programs) {
    SCOPED_TRACE(cmd);
    const FullOutcome help = run_full(cmd + " --help");
    ASSERT_EQ(help.status, 0) << help.err;
    EXPECT_TRUE(help.err.empty()) << help.err;
    const std::map<std::string, bool> listed = help_flags(help.out);
    std::set<std::string> names, want;
    for (const auto& [name, value] : listed) names.insert(name);
    std::istringstream in(expected);
    for (std::string name; in >> name;) want.insert(name);
    EXPECT_EQ(names, want) << help.out;
    const std::string one_line = cmd + ": unknown option " + unknown + " (see --help)\n";
    for (const auto& [name, value] : listed) {
      if (name == "--help") continue;
      SCOPED_TRACE(name);
      const FullOutcome o = run_full(cmd + " " + name + (value ? "=1" : "") + " " + unknown);
      EXPECT_EQ(o.status, 2);
      EXPECT_EQ(o.err, one_line);
      EXPECT_TRUE(o.out.empty()) << o.out;
    }
    const FullOutcome bad = run_full(cmd + " " + unknown);
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.err, one_line);
    EXPECT_TRUE(bad.out.empty()) << bad.out;
  }
  // Without a subcommand, or with one that is not there: one line naming what is wrong.
  for (const std::string cmd : {"warpmind", "warpmind nosuchcommand", "warpmind-bench", "warpmind-bench nosuite"}) {
    SCOPED_TRACE(cmd);
    const FullOutcome o = run_full(cmd);
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.err.rfind(cmd.substr(0, cmd.find(' ')) + ": ", 0), 0u) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
}

// "--name value" and "--name=value" are the same; a range is checked with a message naming the flag and
// the range; a flag's last value wins; a flag without a value takes none.
TEST(Cli, FlagValuesInBothFormsAndChecked) {
  const Outcome spaced = run("warpmind field --backend cpu --resolution 32x16 --count 9 --seed 4 --json");
  const Outcome joined = run("warpmind field --backend=cpu --resolution=32x16 --count=9 --seed=4 --json");
  ASSERT_EQ(spaced.status, 0);
  ASSERT_EQ(joined.status, 0);
  EXPECT_EQ(json_int(spaced.out, "entities"), 9) << spaced.out;
  const auto hashes = [](const std::string& j) { return j.substr(j.find("\"layers\"")); };
  EXPECT_EQ(hashes(spaced.out), hashes(joined.out));
  const Outcome last = run("warpmind field --backend cpu --resolution 32x16 --count 3 --count 9 --seed 4 --json");
  EXPECT_EQ(hashes(last.out), hashes(spaced.out));
  const std::pair<const char*, const char*> bad[] = {
      {"warpmind field --count 100000001",
       "warpmind field: --count: expected an integer in 0..100000000, got "
       "'100000001'\n"},
      {"warpmind crowd --spacing=0.5",
       "warpmind crowd: --spacing: expected a number in [1.000000, 100.000000], got "
       "'0.5'\n"},
      {"warpmind ddm --dimensions 4", "warpmind ddm: --dimensions: expected an integer in 2..3, got '4'\n"},
      {"warpmind aoi --shape hexagon", "warpmind aoi: --shape: expected square or circle, got 'hexagon'\n"},
      {"warpmind field --json=1", "warpmind field: --json takes no value\n"},
      {"warpmind field --count", "warpmind field: --count needs a value\n"},
      {"warpmind field stray", "warpmind field: unexpected argument 'stray'\n"},
      {"warpmind-bench crowd --ticks 0", "warpmind-bench crowd: --ticks: expected an integer in 1..100000, got '0'\n"},
      {"warpmind-bench hybrid --width 129",
       "warpmind-bench hybrid: --width: expected an integer in 1..128, got "
       "'129'\n"},
      {"warpmind-bench chess --part perft,bogus",
       "warpmind-bench chess: --part: unknown part 'bogus' (perft, batches, plain, pruned, subtrees)\n"},
      {"warpmind-referee --engine1 x", "warpmind-referee: --engine2 is required\n"},
      {"warpmind-referee --engine1 x --engine2 y --options1 Search",
       "warpmind-referee: --options1: expected NAME=VALUE, got 'Search'\n"},
      {"warpmind-referee --engine1 x --engine2 y --time 99",
       "warpmind-referee: --time: expected an integer in 100..3600000, got '99'\n"},
  };
  for (const auto& [cmd, err] : bad) {
    SCOPED_TRACE(cmd);
    const FullOutcome o = run_full(cmd);
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.err, err);
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
  // --help wins over anything else on the command line.
  EXPECT_EQ(run("warpmind field --count x --frobnicate --help").status, 0);
}

}  // namespace
