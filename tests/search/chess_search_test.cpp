// Chess evaluation and search: the evaluation is colour-symmetric and integer; the search finds mates,
// wins material, stays legal under node and time limits, and the multi-threaded search agrees on forced
// lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include <time.h>

#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::search::chess {
namespace {

// The same position with colours swapped and the board flipped.
std::string mirror(const std::string& fen) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : fen + " ") {
    if (c == ' ') {
      if (!cur.empty()) f.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  std::vector<std::string> ranks;
  std::string r;
  for (char c : f[0] + "/") {
    if (c == '/')
      ranks.push_back(r), r.clear();
    else
      r += static_cast<char>(std::isalpha(static_cast<unsigned char>(c))
                                 ? (std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c))
                                 : c);
  }
  std::reverse(ranks.begin(), ranks.end());
  std::string placement;
  for (std::size_t i = 0; i < ranks.size(); ++i) placement += (i ? "/" : "") + ranks[i];
  std::string castle;
  for (char c : f[2])
    castle += c == '-'
                  ? '-'
                  : static_cast<char>(std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c));
  std::sort(castle.begin(), castle.end(), [](char a, char b) {
    const auto k = [](char x) { return std::string("KQkq-").find(x); };
    return k(a) < k(b);
  });
  std::string ep = f[3];
  if (ep != "-") ep[1] = static_cast<char>('1' + ('8' - ep[1]));
  return placement + " " + (f[1] == "w" ? "b" : "w") + " " + castle + " " + ep + " " + f[4] + " " + f[5];
}

const char* kPositions[] = {
    kStartFen,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
};

TEST(ChessEval, ColourSymmetric) {
  for (const char* fen : kPositions) {
    Position a, b;
    ASSERT_TRUE(parse_fen(fen, a).ok());
    ASSERT_TRUE(parse_fen(mirror(fen), b).ok()) << mirror(fen);
    EXPECT_EQ(evaluate(a), evaluate(b)) << fen;
  }
  Position start;
  ASSERT_TRUE(parse_fen(kStartFen, start).ok());
  EXPECT_EQ(evaluate(start), 10);  // balanced, plus the tempo
  Position up_a_queen;
  ASSERT_TRUE(parse_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", up_a_queen).ok());
  EXPECT_GT(evaluate(up_a_queen), 700);
}

SearchResult run(const char* fen, const SearchLimits& l, int threads = 1) {
  Position p;
  EXPECT_TRUE(parse_fen(fen, p).ok());
  Searcher s(16, threads);
  return s.search(p, {}, l);
}

TEST(ChessSearch, FindsMatesAndMaterial) {
  SearchLimits l;
  l.depth = 4;
  // Mate in one: Ra8#.
  SearchResult r = run("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", l);
  ASSERT_TRUE(r.has_move);
  EXPECT_EQ(move_to_uci(r.best), "a1a8");
  EXPECT_EQ(r.score, kMate - 1);
  // Mate in two for white, a back-rank pattern: Rd8+ Rxd8 Rxd8#, scored as a mate in three plies.
  l.depth = 6;
  r = run("2r3k1/5ppp/8/8/8/8/3R1PPP/3R2K1 w - - 0 1", l);
  EXPECT_EQ(r.score, kMate - 3);
  EXPECT_TRUE(move_to_uci(r.best) == "d1d8" || move_to_uci(r.best) == "d2d8") << move_to_uci(r.best);
  // The queen and rook position once called a mate in two here is a mate in one (Rb8#, or Qa8#).
  r = run("6k1/5ppp/8/8/8/8/Q4PPP/1R4K1 w - - 0 1", l);
  EXPECT_EQ(r.score, kMate - 1);
  // A hanging queen is taken.
  l.depth = 3;
  r = run("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", l);
  EXPECT_EQ(move_to_uci(r.best), "d2d5");
  // Mated and stalemated sides have no move.
  EXPECT_FALSE(run("6k1/5ppp/8/8/8/8/5PPP/r5K1 w - - 0 1", l).has_move);  // checkmated
  EXPECT_FALSE(run("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", l).has_move);        // stalemate
}

// How the search honours its limits (chess_search.cpp, Worker::out_of_time): each thread counts its
// nodes and, every kCheckInterval of them, adds them to the shared total and checks the node limit and
// the clock; a limit reached sets the stop flag, which every node tests. So a search stops at the first
// check at or past the limit, plus the nodes counted while the stack unwinds: at most one per ply (a
// frame may start its re-search of an interrupted null-window child, which stops at its first node).
// With T threads the shared total can lag the nodes counted by up to T check intervals.
constexpr std::uint64_t kCheckInterval = 1024;
constexpr std::uint64_t kUnwindNodes = 128;  // kMaxPly: one node per frame on the stack

// CPU time of the calling thread, on which a one-thread search runs: unlike the wall clock, it does not
// grow while a loaded machine keeps the thread waiting.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

TEST(ChessSearch, LimitsAreRespectedAndMovesLegal) {
  using Clock = std::chrono::steady_clock;
  const auto wall_ms = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  for (const char* fen : kPositions) {
    SCOPED_TRACE(fen);
    Position p;
    ASSERT_TRUE(parse_fen(fen, p).ok());
    MoveList legal;
    generate_legal(p, legal);
    for (const int threads : {1, 2}) {
      SearchLimits l;
      l.nodes = 20000;  // not a multiple of the check interval
      Searcher s(8, threads);
      const auto n0 = Clock::now();
      const double n0_cpu = thread_cpu_ms();
      const SearchResult r = s.search(p, {}, l);
      const double node_cpu_ms = thread_cpu_ms() - n0_cpu, node_ms = wall_ms(n0);
      ASSERT_TRUE(r.has_move);
      EXPECT_NE(std::find(legal.begin(), legal.end(), r.best), legal.end());
      // Never before the limit (the shared total only grows by whole check intervals, never past the
      // nodes counted); past it by at most one check interval per thread and the unwinding.
      EXPECT_GE(r.nodes, l.nodes) << threads << " threads";
      EXPECT_LE(r.nodes, l.nodes + static_cast<std::uint64_t>(threads) * (kCheckInterval + kUnwindNodes))
          << threads << " threads";
      if (threads > 1) continue;
      // One thread: the first check at or past 20,000 is at 20 x 1024 = 20,480 nodes.
      EXPECT_GE(r.nodes, 20480u);
      EXPECT_LE(r.nodes, 20480u + kUnwindNodes);
      // Time: the clock is read at the same checks, so the search returns once time_ms has passed (never
      // before: it stops only when it sees the deadline passed), having computed at most one check
      // interval and the unwinding after it. Before the deadline the thread can have had at most 50 ms of
      // CPU time, so its CPU time is at most 50 ms plus one interval's (measured on this machine from
      // the node-limited search just run; twice it, for positions whose nodes are slower, and 2 ms for
      // setting up), whatever the load. The wall clock adds the time a loaded machine keeps the thread
      // waiting for a core, bounded loosely: 100 ms.
      const double per_interval = static_cast<double>(kCheckInterval + kUnwindNodes) / static_cast<double>(r.nodes);
      const double interval_cpu_ms = node_cpu_ms * per_interval, interval_ms = node_ms * per_interval;
      SearchLimits t;
      t.time_ms = 50;
      const auto t0 = Clock::now();
      const double t0_cpu = thread_cpu_ms();
      const SearchResult rt = s.search(p, {}, t);
      const double cpu_ms = thread_cpu_ms() - t0_cpu, ms = wall_ms(t0);
      EXPECT_GE(ms, 50.0);
      EXPECT_LE(cpu_ms, 50.0 + 2.0 * interval_cpu_ms + 2.0)
          << "one check interval: " << interval_cpu_ms << " ms of CPU";
      EXPECT_LE(ms, 50.0 + 2.0 * interval_ms + 100.0) << "one check interval: " << interval_ms << " ms";
      EXPECT_GT(cpu_ms, 0.0);
      ASSERT_TRUE(rt.has_move);
      EXPECT_NE(std::find(legal.begin(), legal.end(), rt.best), legal.end());
      EXPECT_GE(rt.depth, 1);
    }
  }
}

// One thread at a fixed depth: a search after clear() repeats the first search exactly (move, score,
// nodes), while the histories kept from a search before it change the tree without clear().
TEST(ChessSearch, ClearMakesASearchRepeatable) {
  Position p;
  ASSERT_TRUE(parse_fen(kPositions[1], p).ok());
  SearchLimits l;
  l.depth = 8;
  Searcher s(8, 1);
  const SearchResult first = s.search(p, {}, l);
  const SearchResult warm = s.search(p, {}, l);  // the table and histories of the first search
  s.clear();
  const SearchResult again = s.search(p, {}, l);
  EXPECT_EQ(again.best, first.best);
  EXPECT_EQ(again.score, first.score);
  EXPECT_EQ(again.nodes, first.nodes);
  EXPECT_LT(warm.nodes, first.nodes);  // what was kept did carry over
}

TEST(ChessSearch, InfiniteRunsUntilStopAndThreadsAgreeOnForcedLines) {
  Position p;
  ASSERT_TRUE(parse_fen(kStartFen, p).ok());
  Searcher s(16, 2);
  SearchLimits l;
  l.infinite = true;
  SearchResult r;
  std::thread t([&] { r = s.search(p, {}, l); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  s.stop();
  t.join();
  EXPECT_TRUE(r.has_move);
  EXPECT_GE(r.depth, 1);
  SearchLimits d;
  d.depth = 5;
  EXPECT_EQ(move_to_uci(run("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", d, 3).best), "a1a8");
}

TEST(ChessSearch, RepetitionAndFiftyMovesAreDraws) {
  // Down a queen, White is saved by repeating: the position after Kf1 already occurred in the game.
  Position p;
  ASSERT_TRUE(parse_fen("3qk3/8/8/8/8/8/8/4K3 w - - 10 40", p).ok());
  Move kf1;
  ASSERT_TRUE(parse_uci_move(p, "e1f1", kf1).ok());
  Position q = p;
  Undo u;
  make_move(q, kf1, u);
  const std::vector<std::uint64_t> history = {1, q.key, 2, 3};
  Searcher s(8, 1);
  SearchLimits l;
  l.depth = 3;
  SearchResult r = s.search(p, history, l);
  EXPECT_EQ(move_to_uci(r.best), "e1f1");
  EXPECT_EQ(r.score, 0);
  s.clear();
  r = s.search(p, {}, l);  // without the history it is simply lost
  EXPECT_LT(r.score, -500);
  // Up a rook with the halfmove clock at 99: every move ends the game drawn.
  ASSERT_TRUE(parse_fen("7k/8/8/8/8/8/8/KR6 w - - 99 80", p).ok());
  s.clear();
  r = s.search(p, {}, l);
  EXPECT_EQ(r.score, 0);
}

}  // namespace
}  // namespace warpmind::search::chess
