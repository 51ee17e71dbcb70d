// Chess rules: perft counts of the standard positions (reference.md) at depths that run in seconds,
// single- and multi-threaded; FEN round trips and errors; make/unmake restores everything, keys included;
// UCI move parsing; the search's pseudo-legal generators and sliding attacks against the legal moves and
// a square-by-square walk.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu_helpers.h"
#include "search/chess/chess_internal.h"
#include "warpmind/core/random.h"
#include "warpmind/search/chess.h"

namespace warpmind::search::chess {
namespace {

struct PerftCase {
  const char* name;
  const char* fen;
  std::vector<std::uint64_t> counts;  // depth 1, 2, ...
};

const std::vector<PerftCase>& cases() {
  static const std::vector<PerftCase> c = {
      {"start", kStartFen, {20, 400, 8902, 197281, 4865609}},
      {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", {48, 2039, 97862, 4085603}},
      {"pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", {14, 191, 2812, 43238, 674624}},
      {"pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", {6, 264, 9467, 422333}},
      {"pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", {44, 1486, 62379, 2103487}},
      {"pos6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", {46, 2079, 89890, 3894594}},
  };
  return c;
}

TEST(Chess, PerftMatchesTheStandardCounts) {
  ThreadPool& pool = warpmind::test::cpu_context().pool();
  for (const PerftCase& c : cases()) {
    SCOPED_TRACE(c.name);
    Position p;
    ASSERT_TRUE(parse_fen(c.fen, p).ok());
    for (std::size_t d = 1; d <= c.counts.size(); ++d) {
      if (d <= 3) {
        Position q = p;
        EXPECT_EQ(perft(q, static_cast<int>(d)), c.counts[d - 1]) << "depth " << d;
        EXPECT_EQ(to_fen(q), to_fen(p));  // make/unmake restored it
        EXPECT_EQ(q.key, p.key);
      } else {
        EXPECT_EQ(perft_parallel(p, static_cast<int>(d), pool), c.counts[d - 1]) << "depth " << d;
      }
    }
  }
}

// The search generates pseudo-legal moves (all, or captures and promotions only) and tests each for check
// after making it; on random playouts from the standard positions both must give exactly the legal moves
// (all of them, or those that capture or promote). The ray-lookup sliding attacks equal a walk along each
// direction to the first occupied square.
TEST(Chess, PseudoLegalGeneratorsAndSlidersAgreeWithTheRules) {
  SplitMix64 rng(20261124);
  const auto walk = [](int sq, std::uint64_t occ, bool rook) {
    std::uint64_t a = 0;
    constexpr int kSteps[8][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    for (const auto& step : kSteps) {
      const int df = step[0], dr = step[1];
      if ((df == 0 || dr == 0) != rook) continue;
      for (int f = (sq & 7) + df, r = (sq >> 3) + dr; f >= 0 && f < 8 && r >= 0 && r < 8; f += df, r += dr) {
        a |= std::uint64_t{1} << (r * 8 + f);
        if (occ >> (r * 8 + f) & 1) break;
      }
    }
    return a;
  };
  const auto legal_subset = [](Position& p, const MoveList& pseudo) {
    std::vector<std::uint32_t> out;
    for (Move m : pseudo) {
      const Color us = p.side;
      Undo u;
      make_move(p, m, u);
      const int k = p.king_square(us);
      if (k < 0 || !attacked(p, k, p.side)) out.push_back(m.bits);
      unmake_move(p, m, u);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  int positions = 0, captures = 0;
  for (const PerftCase& c : cases()) {
    for (int game = 0; game < 20; ++game) {
      Position p;
      ASSERT_TRUE(parse_fen(c.fen, p).ok());
      for (int ply = 0; ply < 80; ++ply) {
        MoveList legal, all, tactical;
        generate_legal(p, legal);
        if (legal.size == 0) break;
        detail::generate_pseudo(p, all, false);
        detail::generate_pseudo(p, tactical, true);
        std::vector<std::uint32_t> want_all, want_tactical;
        for (Move m : legal) {
          want_all.push_back(m.bits);
          if ((m.flags() & Move::Capture) || m.promo() != NoPiece) want_tactical.push_back(m.bits);
        }
        std::sort(want_all.begin(), want_all.end());
        std::sort(want_tactical.begin(), want_tactical.end());
        ASSERT_EQ(legal_subset(p, all), want_all) << to_fen(p);
        ASSERT_EQ(legal_subset(p, tactical), want_tactical) << to_fen(p);
        captures += static_cast<int>(want_tactical.size());
        const std::uint64_t occ = p.occupied[White] | p.occupied[Black];
        const int sq = static_cast<int>(rng.next() % 64);
        ASSERT_EQ(detail::rook_attacks(sq, occ), walk(sq, occ, true)) << to_fen(p) << " square " << sq;
        ASSERT_EQ(detail::bishop_attacks(sq, occ), walk(sq, occ, false)) << to_fen(p) << " square " << sq;
        ++positions;
        Undo u;
        make_move(p, legal.moves[static_cast<std::size_t>(rng.next() % static_cast<std::uint64_t>(legal.size))], u);
      }
    }
  }
  EXPECT_GT(positions, 5000);
  EXPECT_GT(captures, 5000);  // the tactical generator was exercised, not only empty lists
}

TEST(Chess, DivideSumsToPerftAndNamesMovesInUci) {
  Position p;
  ASSERT_TRUE(parse_fen(cases()[1].fen, p).ok());
  const auto div = perft_divide(p, 3, warpmind::test::cpu_context().pool());
  ASSERT_EQ(div.size(), 48u);
  std::uint64_t sum = 0;
  bool castles = false;
  for (const auto& [m, n] : div) {
    sum += n;
    castles = castles || move_to_uci(m) == "e1g1" || move_to_uci(m) == "e1c1";
  }
  EXPECT_EQ(sum, 97862u);
  EXPECT_TRUE(castles);
}

TEST(Chess, KeysStayIncrementalThroughMakeAndUnmake) {
  Position p;
  ASSERT_TRUE(parse_fen(cases()[3].fen, p).ok());  // promotions, castling, en passant material
  MoveList moves;
  generate_legal(p, moves);
  for (Move m : moves) {
    Position q = p;
    Undo u;
    make_move(q, m, u);
    EXPECT_EQ(q.key, compute_key(q)) << move_to_uci(m);
    Position r;
    ASSERT_TRUE(parse_fen(to_fen(q), r).ok()) << to_fen(q);
    EXPECT_EQ(r.key, q.key) << move_to_uci(m);
    unmake_move(q, m, u);
    EXPECT_EQ(to_fen(q), to_fen(p));
  }
}

TEST(Chess, FenRoundTripsAndErrorsSayWhatIsWrong) {
  for (const PerftCase& c : cases()) {
    Position p;
    ASSERT_TRUE(parse_fen(c.fen, p).ok()) << c.fen;
    EXPECT_EQ(to_fen(p), c.fen);
  }
  Position p;
  ASSERT_TRUE(parse_fen("8/8/8/8/8/8/8/K6k w - -", p).ok());  // counters may be left out
  EXPECT_EQ(to_fen(p), "8/8/8/8/8/8/8/K6k w - - 0 1");
  const auto fails = [](const char* fen, const char* what) {
    Position q;
    ASSERT_TRUE(parse_fen(kStartFen, q).ok());
    const std::string before = to_fen(q);
    const Status st = parse_fen(fen, q);
    EXPECT_FALSE(st.ok()) << fen;
    EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
    EXPECT_EQ(to_fen(q), before);  // unchanged
  };
  fails("", "expected 6 fields");
  fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "8 ranks");
  fails("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 squares");
  fails("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unknown piece '9'");
  fails("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unknown piece 'x'");
  fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move");
  fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1", "castling rights");
  fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "without the king and rook");
  fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1", "en passant square");
  fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "without the pawn");
  fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove");
  fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove");
  fails("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "exactly one king");
  fails("Pnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w KQk - 0 1", "first or last rank");
  fails("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "not to move is in check");
}

TEST(Chess, UciMovesAreParsedAgainstTheLegalOnes) {
  Position p;
  ASSERT_TRUE(parse_fen(cases()[3].fen, p).ok());  // pos4: b2xa1 promotions for black, white to move
  Move m;
  ASSERT_TRUE(parse_uci_move(p, "g1h1", m).ok());
  EXPECT_EQ(move_to_uci(m), "g1h1");
  EXPECT_FALSE(parse_uci_move(p, "e2e4", m).ok());  // no piece there
  EXPECT_FALSE(parse_uci_move(p, "e9e4", m).ok());
  EXPECT_FALSE(parse_uci_move(p, "c4c5x", m).ok());
  Position w;
  ASSERT_TRUE(parse_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", w).ok());
  ASSERT_TRUE(parse_uci_move(w, "b7b8q", m).ok());
  EXPECT_EQ(m.promo(), Queen);
  ASSERT_TRUE(parse_uci_move(w, "b7b8n", m).ok());
  EXPECT_EQ(m.promo(), Knight);
  EXPECT_FALSE(parse_uci_move(w, "b7b8", m).ok());  // a promotion needs its piece
  Position b;
  ASSERT_TRUE(parse_fen("r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1", b).ok());
  ASSERT_TRUE(parse_uci_move(b, "e8g8", m).ok());  // castling
  EXPECT_TRUE(m.flags() & Move::Castle);
  ASSERT_TRUE(parse_uci_move(b, "e8c8", m).ok());
  Position checked;
  ASSERT_TRUE(parse_fen("r3k2r/8/8/8/8/8/8/4K1R1 b kq - 0 1", checked).ok());
  EXPECT_FALSE(parse_uci_move(checked, "e8g8", m).ok());  // through an attacked square
  EXPECT_TRUE(parse_uci_move(checked, "e8c8", m).ok());
  Position ep;
  ASSERT_TRUE(parse_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", ep).ok());
  ASSERT_TRUE(parse_uci_move(ep, "e5f6", m).ok());
  EXPECT_TRUE(m.flags() & Move::EnPassant);
}

}  // namespace
}  // namespace warpmind::search::chess
