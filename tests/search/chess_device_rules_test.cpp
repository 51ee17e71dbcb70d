// The GPU's chess rules and evaluation (ai/src/search/chess/chess_rules.h, compiled here for the
// host) held against ai/'s: the same legal moves in the same order, the same positions after every
// move, the same evaluation and the same leaf values for the hybrid search (mates and stalemates scored
// as terminal), on thousands of positions from random games and on the standard perft positions, and
// perft counts from the device rules equal to the published ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "warpmind/core/random.h"
#include "search/chess/chess_movegen.h"
#include "search/chess/chess_rules.h"
#include "search/chess/chess_sliders.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/hybrid.h"

namespace warpmind::search::chess {
namespace {

namespace d = rules;

const char* const kPositions[] = {
    kStartFen,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
};

void expect_same_position(const d::DPos& got, const Position& want) {
  const d::DPos w = d::from_position(want);
  for (int t = 0; t < 6; ++t) ASSERT_EQ(got.piece[t], w.piece[t]) << "piece type " << t;
  ASSERT_EQ(got.color[0], w.color[0]);
  ASSERT_EQ(got.color[1], w.color[1]);
  ASSERT_EQ(got.side, w.side);
  ASSERT_EQ(got.castling, w.castling);
  ASSERT_EQ(got.ep, w.ep);
}

// Every legal move in order, every successor, the evaluation and the check flag.
void expect_same_rules(const Position& p) {
  const d::DPos dp = d::from_position(p);
  MoveList want;
  generate_legal(p, want);
  std::uint32_t got[d::kMaxMoves];
  const int n = d::generate_legal(dp, got);
  ASSERT_EQ(n, want.size) << to_fen(p);
  ASSERT_EQ(d::count_legal(dp), want.size);
  // The perft generator (chess_movegen.h): the same moves as a set, the same count without generating.
  ASSERT_EQ(d::count_moves(dp), want.size) << to_fen(p);
  ASSERT_EQ(d::count_moves(dp, d::host_slider_tables()), want.size) << to_fen(p);
  std::vector<std::uint32_t> fast, slow(got, got + n);
  d::for_each_legal(dp, [&](std::uint32_t m) { fast.push_back(m); });
  std::sort(fast.begin(), fast.end());
  std::sort(slow.begin(), slow.end());
  ASSERT_EQ(fast, slow) << to_fen(p);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], want.moves[static_cast<std::size_t>(i)].bits) << to_fen(p) << " move " << i;
    Position q = p;
    Undo u;
    make_move(q, want.moves[static_cast<std::size_t>(i)], u);
    expect_same_position(d::apply(dp, got[i]), q);
  }
  std::vector<Move> ordered;
  ChessGame::children(p, ordered);
  d::order_moves(got, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], ordered[static_cast<std::size_t>(i)].bits);
  ASSERT_EQ(d::evaluate(dp), evaluate(p)) << to_fen(p);
  ASSERT_EQ(d::in_check(dp), p.in_check());
  ASSERT_EQ(ChessGame::over(p), n == 0);
  for (int ply : {0, 3, 7}) ASSERT_EQ(d::leaf_value(dp, ply), search::leaf_value<ChessGame>(p, ply)) << to_fen(p);
}

TEST(ChessDeviceRules, SameMovesPositionsAndEvaluationAsTheCpuRules) {
  SplitMix64 rng(77);
  int positions = 0;
  for (const char* fen : kPositions) {
    Position root;
    ASSERT_TRUE(parse_fen(fen, root).ok());
    for (int game = 0; game < 40; ++game) {  // random games from each position
      Position p = root;
      for (int ply = 0; ply < 120; ++ply) {
        expect_same_rules(p);
        ++positions;
        if (HasFatalFailure()) return;
        MoveList moves;
        generate_legal(p, moves);
        if (moves.size == 0) break;
        Undo u;
        make_move(p, moves.moves[rng.next() % static_cast<std::uint64_t>(moves.size)], u);
      }
    }
  }
  EXPECT_GT(positions, 10000);
  // Positions without a legal move, which random games seldom reach.
  for (const char* fen : {"6k1/5ppp/8/8/8/8/5PPP/r5K1 w - - 0 1", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
                          "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"}) {
    Position p;
    ASSERT_TRUE(parse_fen(fen, p).ok());
    ASSERT_TRUE(ChessGame::over(p)) << fen;
    expect_same_rules(p);
  }
}

std::uint64_t device_perft(const d::DPos& p, int depth) {
  if (depth == 0) return 1;
  if (depth == 1) return static_cast<std::uint64_t>(d::count_legal(p));
  std::uint32_t moves[d::kMaxMoves];
  const int n = d::generate_legal(p, moves);
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += device_perft(d::apply(p, moves[i]), depth - 1);
  return total;
}

TEST(ChessDeviceRules, PerftFromTheDeviceRules) {
  const std::uint64_t want[6][4] = {{20, 400, 8902, 197281}, {48, 2039, 97862, 4085603}, {14, 191, 2812, 43238},
                                    {6, 264, 9467, 422333},  {44, 1486, 62379, 2103487}, {46, 2079, 89890, 3894594}};
  for (int i = 0; i < 6; ++i) {
    Position p;
    ASSERT_TRUE(parse_fen(kPositions[i], p).ok());
    for (int depth = 1; depth <= 4; ++depth)
      EXPECT_EQ(device_perft(d::from_position(p), depth), want[i][depth - 1]) << kPositions[i] << " depth " << depth;
  }
}

// The perft generator on the standard positions one ply deeper, and on positions built to trip masks:
// en passant that uncovers a check along the rank or answers a pawn's check, pinned pawns and sliders,
// double check, promotions with and without check, castling through attacked squares.
TEST(ChessDeviceRules, PerftFromTheCountingGenerator) {
  const std::uint64_t want[6] = {4865609, 193690690, 674624, 15833292, 89941194, 164075551};
  for (int i = 0; i < 6; ++i) {
    Position p;
    ASSERT_TRUE(parse_fen(kPositions[i], p).ok());
    EXPECT_EQ(d::perft_fast(d::from_position(p), 5), want[i]) << kPositions[i];
    EXPECT_EQ(d::perft_tables(d::from_position(p), 5, d::host_slider_tables()), want[i]) << kPositions[i];
  }
  struct Case {
    const char* fen;
    int depth;
    std::uint64_t nodes;
  };
  const Case tricky[] = {
      {"3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1134888},          // en passant that would uncover the rook
      {"8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1015133},         // en passant against a diagonal pin
      {"5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661072},              // castling king side gives check
      {"3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803711},              // castling queen side gives check
      {"8/5bk1/8/2Pp4/8/1K6/8/8 w - d6 0 1", 6, 824064},          // en passant with discovered checks
      {"8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1440467},        // en passant and a pinned pawn
      {"r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4, 1274206},  // castling through attacks
      {"r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4, 1720476},   // castling, queens
      {"2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, 3821001},          // promotion out of check
      {"8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 5, 1004658},        // discovered and double checks
      {"4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, 217342},              // promotions
      {"8/P1k5/K7/8/8/8/8/8 w - - 0 1", 6, 92683},                // promotion with check
      {"K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2217},                 // stalemates
      {"8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 7, 567584},              // underpromotions
      {"8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4, 23527},            // pins and checks by a queen and a knight
  };
  for (const Case& c : tricky) {
    Position p;
    ASSERT_TRUE(parse_fen(c.fen, p).ok()) << c.fen;
    EXPECT_EQ(d::perft_fast(d::from_position(p), c.depth), c.nodes) << c.fen;
    EXPECT_EQ(d::perft_tables(d::from_position(p), c.depth, d::host_slider_tables()), c.nodes) << c.fen;
    EXPECT_EQ(perft(p, c.depth), c.nodes) << c.fen;  // the CPU rules agree on them too
  }
}

// The slider tables against the Kogge-Stone fills: every subset of every square's relevant mask (the
// multipliers map each to its own attack set), random occupancies with squares outside the masks, and
// the squares between every aligned pair.
TEST(ChessDeviceRules, SliderTablesEqualTheFills) {
  const d::SliderTables t = d::host_slider_tables();
  for (int sq = 0; sq < 64; ++sq) {
    for (int kind = 0; kind < 2; ++kind) {
      const d::Bits mask = t.magic[4 * (sq + 64 * kind)];
      ASSERT_EQ(kind == 0 ? t.rook_lines(sq) : t.bishop_lines(sq), kind == 0 ? t.rook(sq, 0) : t.bishop(sq, 0));
      d::Bits sub = 0;
      int subsets = 0;
      do {
        const d::Bits want = kind == 0 ? d::rook_attacks(d::bit(sq), sub) : d::bishop_attacks(d::bit(sq), sub);
        ASSERT_EQ(kind == 0 ? t.rook(sq, sub) : t.bishop(sq, sub), want) << "square " << sq << " kind " << kind;
        ++subsets;
        sub = (sub - mask) & mask;
      } while (sub);
      ASSERT_EQ(subsets, 1 << d::popcnt(mask));
    }
  }
  SplitMix64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    const d::Bits occ = rng.next() & rng.next();
    const int sq = static_cast<int>(rng.next() % 64);
    ASSERT_EQ(t.rook(sq, occ), d::rook_attacks(d::bit(sq), occ));
    ASSERT_EQ(t.bishop(sq, occ), d::bishop_attacks(d::bit(sq), occ));
  }
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b) {
      const d::Bits line = d::rook_attacks(d::bit(a), d::bit(b)) & d::bit(b)
                               ? d::rook_attacks(d::bit(a), d::bit(b)) & d::rook_attacks(d::bit(b), d::bit(a))
                           : d::bishop_attacks(d::bit(a), d::bit(b)) & d::bit(b)
                               ? d::bishop_attacks(d::bit(a), d::bit(b)) & d::bishop_attacks(d::bit(b), d::bit(a))
                               : 0;
      ASSERT_EQ(t.line_between(a, b), line) << a << " " << b;
    }
}

}  // namespace
}  // namespace warpmind::search::chess
