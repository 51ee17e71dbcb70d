// warpmind-chess as a user and a tournament manager run it: UCI, and the hybrid search never losing on
// time in refereed games (warpmind-referee).
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
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_common.h"

#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"

namespace {

using namespace warpmind::test::cli;

// The hybrid search answers within its clock: refereed games at 1 s + 10 ms and 3 s + 50 ms against
// the alpha-beta engine, where a move that comes after the flag falls loses the game (and the referee
// exits 1). The budget also holds when a depth runs longer than predicted: it is stopped at the budget.
TEST(Cli, HybridSearchNeverLosesOnTime) {
  const std::string chess = warpmind::test::bin_dir() + "/warpmind-chess";
  const fs::path games = scratch("referee-games.txt");
  for (const char* clock : {"--time 1000 --inc 10 --games 2", "--time 3000 --inc 50 --games 1"}) {
    const Outcome r = run("warpmind-referee --engine1 " + chess + " --options1 Search=hybrid,Lmax=256 --engine2 " +
                          chess + " " + clock + " --log " + games.string());
    EXPECT_EQ(r.status, 0) << clock << "\n" << r.out;
    EXPECT_NE(r.out.find("illegal moves 0, time losses 0"), std::string::npos) << clock << "\n" << r.out;
    if (std::strstr(clock, "--games 2")) {  // a pair of games: one opening (two plies), colours swapped
      std::ifstream log(games);
      std::string line, opening[2];
      for (int g = 0; g < 2 && std::getline(log, line);) {
        if (line.rfind("  moves: ", 0) != 0) continue;
        std::istringstream plies(line.substr(9));
        std::string a, b;
        plies >> a >> b;
        opening[g++] = a + " " + b;
      }
      EXPECT_EQ(opening[0].size(), 9u) << opening[0];
      EXPECT_EQ(opening[0], opening[1]);
    }
  }
  EXPECT_EQ(run("warpmind-referee --engine1 x --engine2 y --options1 Search").status, 2);
  // The same with whole subtrees below the horizon (SubtreePlies): the batches of subtrees stay within
  // the clock too.
  const Outcome s = run("warpmind-referee --engine1 " + chess + " --options1 Search=hybrid,SubtreePlies=2 --engine2 " +
                        chess + " --time 1000 --inc 10 --games 2");
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_NE(s.out.find("illegal moves 0, time losses 0"), std::string::npos) << s.out;
}

TEST(Cli, ChessEngineSpeaksUci) {
  const fs::path in = scratch("uci-in.txt");
  std::ofstream(in)
      << "uci\nisready\nposition startpos moves e2e4 e7e5 g1f3\ngo depth 4\n"
         "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo nodes 5000\n"
         "position startpos\ngo perft 3\n"
         "position fen not a fen\nposition startpos moves e2e5\ngo bogus\nsetoption name Hash value x\n"
         "setoption name Threads value 2\nposition startpos\ngo wtime 300 btime 300 winc 0 binc 0\nquit\n";
  const Outcome r = run("warpmind-chess < " + in.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* line :
       {"id name warpmind", "option name Hash type spin", "option name Threads", "uciok", "readyok", "info depth 4 ",
        " score cp ", "bestmove a1a8", "score mate 1", "e2e4: 600", "Nodes searched: 8902", "info string error: FEN",
        "info string error: move 'e2e5' is not legal", "info string error: go: unknown parameter 'bogus'",
        "info string error: option Hash"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " in:\n" << r.out;
  // Three searches, three best moves.
  std::size_t best = 0;
  for (std::size_t at = r.out.find("bestmove "); at != std::string::npos; at = r.out.find("bestmove ", at + 1)) ++best;
  EXPECT_EQ(best, 3u);
  // The node-based hybrid search through the same protocol.
  const fs::path hin = scratch("uci-hybrid.txt");
  std::ofstream(hin) << "setoption name Search value hybrid\nsetoption name Lmax value 64\n"
                        "setoption name FirstChildFirst value false\nsetoption name Bmin value x\n"
                        "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo depth 2\n"
                        "ucinewgame\n"  // waits for the search (quit would stop it)
                        "position startpos\ngo infinite\nstop\nquit\n";
  const Outcome h = run("warpmind-chess < " + hin.string());
  ASSERT_EQ(h.status, 0) << h.out;
  for (const char* line : {"info string hybrid:", "score mate 1", "bestmove a1a8", "info string error: option Bmin"})
    EXPECT_NE(h.out.find(line), std::string::npos) << line << " in:\n" << h.out;
  const std::size_t second = h.out.find("bestmove ", h.out.find("bestmove a1a8") + 1);  // stop ends go infinite
  ASSERT_NE(second, std::string::npos) << h.out;
  using namespace warpmind::search::chess;
  Position start;
  ASSERT_TRUE(parse_fen(kStartFen, start).ok());
  Move m;
  EXPECT_TRUE(parse_uci_move(start, h.out.substr(second + 9, h.out.find('\n', second) - second - 9), m).ok()) << h.out;
  // The bench signature: fixed positions, fixed depth, one thread (changing the search changes it).
  const Outcome b = run("warpmind-chess bench 5");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_NE(b.out.find("Nodes searched: 15319"), std::string::npos) << b.out;  // the built-in network
  const fs::path classical_in = scratch("bench-classical.txt");
  std::ofstream(classical_in) << "setoption name Evaluation value classical\nbench 5\nquit\n";
  const Outcome c = run("warpmind-chess < " + classical_in.string());
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("Nodes searched: 13095"), std::string::npos) << c.out;  // the classical evaluation
}

}  // namespace
