// Chess evaluation and search: the evaluation is colour-symmetric and integer; the search finds mates,
// wins material, stays legal under node and time limits, and the multi-threaded search agrees on forced
// lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

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
    if (c == '/') ranks.push_back(r), r.clear();
    else r += static_cast<char>(std::isalpha(static_cast<unsigned char>(c)) ? (std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c)) : c);
  }
  std::reverse(ranks.begin(), ranks.end());
  std::string placement;
  for (std::size_t i = 0; i < ranks.size(); ++i) placement += (i ? "/" : "") + ranks[i];
  std::string castle;
  for (char c : f[2]) castle += c == '-' ? '-' : static_cast<char>(std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c));
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
  // Mate in two for white (Qxh7+... as a classic back-rank pattern): the score says mate.
  l.depth = 6;
  r = run("6k1/5ppp/8/8/8/8/Q4PPP/1R4K1 w - - 0 1", l);
  EXPECT_GT(r.score, kMateBound);
  // A hanging queen is taken.
  l.depth = 3;
  r = run("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", l);
  EXPECT_EQ(move_to_uci(r.best), "d2d5");
  // Mated and stalemated sides have no move.
  EXPECT_FALSE(run("6k1/5ppp/8/8/8/8/5PPP/r5K1 w - - 0 1", l).has_move);  // checkmated
  EXPECT_FALSE(run("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", l).has_move);  // stalemate
}

TEST(ChessSearch, LimitsAreRespectedAndMovesLegal) {
  for (const char* fen : kPositions) {
    Position p;
    ASSERT_TRUE(parse_fen(fen, p).ok());
    MoveList legal;
    generate_legal(p, legal);
    SearchLimits l;
    l.nodes = 20000;
    Searcher s(8, 1);
    const SearchResult r = s.search(p, {}, l);
    ASSERT_TRUE(r.has_move);
    EXPECT_NE(std::find(legal.begin(), legal.end(), r.best), legal.end()) << fen;
    EXPECT_LT(r.nodes, 60000u);  // stopped near the limit
    SearchLimits t;
    t.time_ms = 50;
    const auto t0 = std::chrono::steady_clock::now();
    const SearchResult rt = s.search(p, {}, t);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(ms, 1000);
    EXPECT_NE(std::find(legal.begin(), legal.end(), rt.best), legal.end());
  }
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
