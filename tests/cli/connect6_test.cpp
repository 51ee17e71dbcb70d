// warpmind-connect6 as a user and a referee run it: the text protocol, and refereed matches.
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

// Connect6 matches: pairs of games from the same opening, colours swapped; every turn checked and timed.
// The hybrid (with one-turn subtrees below its horizon) against the engine's alpha-beta: no illegal
// turn, no turn past its time.
TEST(Cli, Connect6MatchesAreRefereed) {
  const std::string c6 = warpmind::test::bin_dir() + "/warpmind-connect6";
  const Outcome r =
      run("warpmind-referee --game connect6 --engine1 '" + c6 + " 2>/dev/null' --engine2 '" + c6 +
          " 2>/dev/null' --options1 search=hybrid,plies=1,depth=8 --options2 depth=8 --games 2 --time 300 "
          "--inc 150");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("game 1: engine 1 black"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("game 2: engine 1 white"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("illegal moves 0, time losses 0"), std::string::npos) << r.out;
  // An engine that answers nonsense loses at once; a bad --game is refused. (A generous clock: the
  // honest engine must not lose on time first on a loaded machine.)
  const Outcome bad =
      run("warpmind-referee --game connect6 --engine1 'while read l; do case $l in name) echo name x;; *) echo move "
          "ZZZZ;; esac; done' --engine2 '" +
          c6 + " 2>/dev/null' --games 1 --time 5000");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("illegal turn 'ZZZZ'"), std::string::npos) << bad.out;
  // The summary's score line: no points of one game is an Elo difference of minus infinity.
  EXPECT_NE(bad.out.find("score: 0.0% of 1 games, Elo -inf (95%: -inf .. -inf)"), std::string::npos) << bad.out;
  EXPECT_EQ(run("warpmind-referee --game go --engine1 x --engine2 y").status, 2);
}

TEST(Cli, Connect6EngineSpeaksTheTextProtocol) {
  const fs::path in = scratch("c6-in.txt");
  std::ofstream(in) << "name\nnew black\ndepth 2\nmove KJKK\nmove LL\nmove ZZZZ\nfoo\nnew white\nmove K10\n"
                       "black A1B1C1D1\nwhite S19\nnext\nquit\n";
  const Outcome r = run("warpmind-connect6 < " + in.string());
  ASSERT_EQ(r.status, 0) << r.out;
  // stdout holds only the name and moves (errors and notes go to stderr).
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> moves;
  while (std::getline(lines, line)) {
    if (line == "name warpmind") continue;
    ASSERT_EQ(line.rfind("move ", 0), 0u) << line;
    moves.push_back(line.substr(5));
  }
  ASSERT_EQ(moves.size(), 4u) << r.out;
  EXPECT_EQ(moves[0], "JJ");                         // Black's opening stone, the centre
  EXPECT_EQ(moves[1].size(), 4u);                    // then two stones a turn
  EXPECT_EQ(moves[2].size(), 4u);                    // White's answer to K10
  EXPECT_NE(moves[3].find("EA"), std::string::npos)  // after the set-up, Black to move completes A1..F1
      << moves[3];
  // The hybrid search through the protocol (on the CPU pool here), under a time limit; bad values are
  // refused with a note and change nothing.
  const fs::path hin = scratch("c6-hybrid.txt");
  std::ofstream(hin) << "search hybrid\nbackend cpu\nsearch minimax\nbackend tpu\nthreats 33\ndepth 3\ntime 2000\n"
                        "new white\n"
                        "move JJ\nmove KKKL\nquit\n";
  const fs::path hout = scratch("c6-hybrid.out"), herr = scratch("c6-hybrid.err");
  const auto h0 = std::chrono::steady_clock::now();
  const int hraw = std::system((warpmind::test::bin_dir() + "/warpmind-connect6 < " + hin.string() + " > " +
                                hout.string() + " 2> " + herr.string())
                                   .c_str());
  const double h_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count();
  ASSERT_TRUE(WIFEXITED(hraw) && WEXITSTATUS(hraw) == 0);
  const auto slurp = [](const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  const std::string hstdout = slurp(hout), hstderr = slurp(herr);
  for (const char* text : {"info hybrid depth 1", "on the CPU", "error: search: alphabeta or hybrid",
                           "error: backend: cpu, cuda or auto", "error: threats: '33' is out of range (0..32)"})
    EXPECT_NE(hstderr.find(text), std::string::npos) << text << " in:\n" << hstderr;
  std::istringstream hl(hstdout);
  std::size_t replies = 0;
  for (std::string l; std::getline(hl, l);) replies += l.rfind("move ", 0) == 0 && l.size() == 9;
  EXPECT_EQ(replies, 2u) << hstdout;
  EXPECT_LT(h_ms, 2 * 2000.0 + 3000.0);  // two turns within their budgets, and the process
  // The bench signature: fixed openings, fixed depth, one thread (changing the search changes it).
  const Outcome b = run("warpmind-connect6 bench 3");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_NE(b.out.find("bench nodes 2234"), std::string::npos) << b.out;
}

}  // namespace
