// Game records: chess SAN (every legal move of random games round-trips and is unique; disambiguation,
// checks, mates, promotions, castling, en passant; lenient and strict reading), PGN (tags, comments,
// variations, NAGs, escapes, results; errors with line numbers that leave the output unchanged; write
// then read gives the same game) and the Connect6 record.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "warpmind/search/connect6.h"
#include "warpmind/search/pgn.h"

namespace warpmind::search {
namespace {

using chess::Move;
using chess::Position;

Position at(const char* fen) {
  Position p;
  EXPECT_TRUE(chess::parse_fen(fen, p).ok()) << fen;
  return p;
}

std::string san(const char* fen, const char* uci) {
  const Position p = at(fen);
  Move m;
  EXPECT_TRUE(chess::parse_uci_move(p, uci, m).ok()) << uci;
  return chess::move_to_san(p, m);
}

std::string uci_of_san(const char* fen, const char* text) {
  Move m;
  const Status st = chess::parse_san(at(fen), text, m);
  return st.ok() ? chess::move_to_uci(m) : "error: " + st.message();
}

TEST(San, EveryLegalMoveOfRandomGamesRoundTripsAndIsUnique) {
  std::mt19937 rng(7);
  int checked = 0;
  for (const char* start : {chess::kStartFen, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"}) {
    for (int game = 0; game < 30; ++game) {
      Position p = at(start);
      for (int ply = 0; ply < 120; ++ply) {
        chess::MoveList legal;
        chess::generate_legal(p, legal);
        if (legal.size == 0) break;
        std::set<std::string> names;
        for (const Move& m : legal) {
          const std::string s = chess::move_to_san(p, m);
          EXPECT_TRUE(names.insert(s).second) << s << " twice in " << chess::to_fen(p);
          Move back;
          ASSERT_TRUE(chess::parse_san(p, s, back).ok()) << s << " in " << chess::to_fen(p);
          EXPECT_EQ(back, m) << s << " in " << chess::to_fen(p);
          ++checked;
        }
        chess::Undo u;
        chess::make_move(p, legal.moves[rng() % static_cast<unsigned>(legal.size)], u);
      }
    }
  }
  EXPECT_GT(checked, 100000);
}

TEST(San, NamesMovesAsTheStandardDoes) {
  EXPECT_EQ(san(chess::kStartFen, "g1f3"), "Nf3");
  EXPECT_EQ(san(chess::kStartFen, "e2e4"), "e4");
  // Disambiguation: by file, by rank, by both.
  EXPECT_EQ(san("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "b1d2"), "Nbd2");
  EXPECT_EQ(san("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "f1d2"), "Nfd2");
  EXPECT_EQ(san("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3"), "R1a3");
  EXPECT_EQ(san("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a5a3"), "R5a3");
  EXPECT_EQ(san("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "a1b2"), "Qa1b2");
  EXPECT_EQ(san("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "c1b2"), "Qcb2");
  // A pinned piece does not count: only the free knight can go, no disambiguation.
  EXPECT_EQ(san("k3r3/8/8/8/4N3/8/8/1N2K3 w - - 0 1", "b1d2"), "Nd2");
  // Captures, en passant, promotions, castling, check, mate.
  EXPECT_EQ(san("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), "exd6");
  EXPECT_EQ(san("3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7d8n"), "exd8=N");
  EXPECT_EQ(san("8/4P3/8/8/8/8/8/k6K w - - 0 1", "e7e8q"), "e8=Q");
  EXPECT_EQ(san("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"), "O-O");
  EXPECT_EQ(san("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"), "O-O-O");
  EXPECT_EQ(san("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8"), "Ra8+");
  EXPECT_EQ(san("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "d8h4"), "Qh4#");
}

TEST(San, ReadsLenientlyWhereTheIntentIsClear) {
  const char* castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
  EXPECT_EQ(uci_of_san(castle, "0-0"), "e1g1");
  EXPECT_EQ(uci_of_san(castle, "O-O-O+"), "e1c1");
  EXPECT_EQ(uci_of_san("8/4P3/8/8/8/8/8/k6K w - - 0 1", "e8Q"), "e7e8q");
  EXPECT_EQ(uci_of_san(chess::kStartFen, "Nf3!?"), "g1f3");
  EXPECT_EQ(uci_of_san(chess::kStartFen, "Ngf3"), "g1f3");  // superfluous disambiguation
  EXPECT_EQ(uci_of_san(chess::kStartFen, "e2e4"), "e2e4");  // UCI
  EXPECT_EQ(uci_of_san("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "exd6"), "e5d6");
}

TEST(San, RefusesWhatIsAmbiguousIllegalOrMalformed) {
  const char* knights = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
  EXPECT_NE(uci_of_san(knights, "Nd2").find("ambiguous"), std::string::npos);
  EXPECT_NE(uci_of_san("8/4P3/8/8/8/8/8/k6K w - - 0 1", "e8").find("promotion"), std::string::npos);
  EXPECT_NE(uci_of_san(chess::kStartFen, "Ke2").find("not a legal move"), std::string::npos);
  EXPECT_NE(uci_of_san(chess::kStartFen, "O-O").find("not legal"), std::string::npos);
  for (const char* bad : {"", "zz", "Nf9", "Xe4", "e4e4e4e4e4e4e4e4e4", "+", "Qxx"})
    EXPECT_EQ(uci_of_san(chess::kStartFen, bad).rfind("error", 0), 0u) << "'" << bad << "'";
}

TEST(Pgn, ReadsTagsCommentsVariationsAndNags) {
  const char* text =
      "% a line the reader skips\n"
      "[Event \"Club \\\"night\\\"\"]\n[White \"A\"] [Black \"B\"]\n[Result \"1-0\"]\n\n"
      "1. e4 {the king's pawn} e5 2. Bc4 Nc6 $1 3.Qh5 (3. Nf3 Nf6 (3... Bc5 {a (nested) line}) 4. Ng5) 3... Nf6?? ; "
      "oops\n"
      "4. Qxf7# 1-0\n[Event \"the next game\"]\n1. d4 *\n";
  chess::PgnGame g;
  ASSERT_TRUE(chess::read_pgn(text, g).ok()) << chess::read_pgn(text, g).message();
  ASSERT_EQ(g.moves.size(), 7u);
  EXPECT_EQ(g.result, "1-0");
  ASSERT_GE(g.tags.size(), 4u);
  EXPECT_EQ(g.tags[0], (std::pair<std::string, std::string>{"Event", "Club \"night\""}));
  Position p = at(chess::kStartFen);
  for (const Move& m : g.moves) {
    chess::Undo u;
    chess::make_move(p, m, u);
  }
  EXPECT_EQ(chess::to_fen(p), "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4");
}

TEST(Pgn, StartsFromTheFenTagAndBlackToMove) {
  const char* text = "[FEN \"4k3/8/8/8/8/8/8/R3K3 b - - 0 30\"]\n30... Kd7 31. Ra7+ *";
  chess::PgnGame g;
  ASSERT_TRUE(chess::read_pgn(text, g).ok());
  EXPECT_EQ(g.fen, "4k3/8/8/8/8/8/8/R3K3 b - - 0 30");
  ASSERT_EQ(g.moves.size(), 2u);
  std::string out;
  ASSERT_TRUE(chess::write_pgn(g, out).ok());
  EXPECT_NE(out.find("[SetUp \"1\"]"), std::string::npos);
  EXPECT_NE(out.find("30... Kd7 31. Ra7+ *"), std::string::npos) << out;
}

TEST(Pgn, ErrorsNameTheLineAndLeaveTheGameUnchanged) {
  const std::pair<const char*, const char*> bad[] = {
      {"[Event \"x\"]\n\n1. e4 e5\n2. Ke3 *", "line 4"},
      {"1. e4 {never closed", "never closed"},
      {"1. e4 (1. d4 d5", "never closed"},
      {"1. e4 ) e5", "without"},
      {"[FEN \"8/8/8 w\"]\n1. e4", "FEN"},
      {"[Event x]\n1. e4", "quotes"},
      {"[Event \"x\n1. e4", "quote"},
      {"1. Nd2 *", "move 1"},
      {"1. e4 12 e5", "not a move"},
      {"1. e4 $x", "NAG"},
      {"[FEN \"4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1\"]\n1. Nd2", "ambiguous"},
  };
  for (const auto& [text, why] : bad) {
    chess::PgnGame g;
    g.result = "unchanged";
    const Status st = chess::read_pgn(text, g);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_NE(st.message().find(why), std::string::npos) << text << " -> " << st.message();
    EXPECT_EQ(g.result, "unchanged");
    EXPECT_TRUE(g.moves.empty());
  }
}

TEST(Pgn, WriteThenReadGivesTheSameGame) {
  std::mt19937 rng(11);
  for (int game = 0; game < 40; ++game) {
    chess::PgnGame g;
    g.tags = {{"White", "warpmind \"A\""}, {"Black", "B\\C"}, {"Annotator", "test"}};
    Position p = at(chess::kStartFen);
    for (int ply = 0; ply < 150; ++ply) {
      chess::MoveList legal;
      chess::generate_legal(p, legal);
      if (legal.size == 0) break;
      const Move m = legal.moves[rng() % static_cast<unsigned>(legal.size)];
      g.moves.push_back(m);
      chess::Undo u;
      chess::make_move(p, m, u);
    }
    g.result = game % 2 ? "1/2-1/2" : "*";
    std::string text;
    ASSERT_TRUE(chess::write_pgn(g, text).ok());
    for (std::size_t at = 0, next; at < text.size(); at = next + 1) {
      next = text.find('\n', at);
      EXPECT_LE(next - at, 80u);
    }
    chess::PgnGame back;
    ASSERT_TRUE(chess::read_pgn(text, back).ok()) << text;
    EXPECT_EQ(back.moves, g.moves);
    EXPECT_EQ(back.result, g.result);
    EXPECT_EQ(back.tags[4].second, "warpmind \"A\"");  // roster order: Event Site Date Round White
    EXPECT_EQ(back.tags[5].second, "B\\C");
  }
  chess::PgnGame wrong;
  wrong.moves = {Move::make(12, 36)};  // e2e5
  std::string text = "unchanged";
  EXPECT_FALSE(chess::write_pgn(wrong, text).ok());
  wrong.moves.clear();
  wrong.result = "2-0";
  EXPECT_FALSE(chess::write_pgn(wrong, text).ok());
  EXPECT_EQ(text, "unchanged");
}

TEST(Connect6Record, WriteThenReadGivesTheSameGame) {
  namespace c6 = connect6;
  c6::Record r;
  r.tags = {{"Black", "person"}, {"White", "warpmind"}};
  c6::Board b;
  std::mt19937 rng(3);
  while (!b.over() && r.turns.size() < 60) {
    c6::Turn t;
    do {
      t.a = static_cast<int>(rng() % c6::kCells);
      t.b = b.stones() == 0 ? -1 : static_cast<int>(rng() % c6::kCells);
    } while (!c6::Board(b).play(t).ok());
    ASSERT_TRUE(b.play(t).ok());
    r.turns.push_back(t);
  }
  std::string text;
  ASSERT_TRUE(c6::write_record(r, text).ok());
  EXPECT_NE(text.find("1. "), std::string::npos);
  c6::Record back;
  ASSERT_TRUE(c6::read_record(text, back).ok()) << c6::read_record(text, back).message();
  EXPECT_EQ(back.turns, r.turns);
  EXPECT_EQ(back.result, "*");
  ASSERT_EQ(back.tags.size(), 3u);
  EXPECT_EQ(back.tags[1].second, "warpmind");
}

TEST(Connect6Record, ReadsEitherNotationCommentsAndResults) {
  namespace c6 = connect6;
  c6::Record r;
  ASSERT_TRUE(c6::read_record("[Black \"x\"]\n; a comment\n1. K10\n2.L10L11 3. AAAB ; more\nwhite\n", r).ok());
  ASSERT_EQ(r.turns.size(), 3u);
  EXPECT_EQ(r.turns[0].a, 9 * 19 + 9);
  EXPECT_EQ(r.result, "white");
}

TEST(Connect6Record, ErrorsNameTheLineAndLeaveTheRecordUnchanged) {
  namespace c6 = connect6;
  const std::pair<const char*, const char*> bad[] = {
      {"JJ\nJJKK", "line 2"},     // occupied
      {"JJ KK", "must place 2"},  // one stone where two are due
      {"JJ hello", "turn 2"},     // an unknown word
      {"[Black x]\nJJ", "quotes"}, {"JJ\n[Black \"x\"]", "before the turns"}, {"JJKK", "must place 1"},
  };
  for (const auto& [text, why] : bad) {
    c6::Record r;
    r.result = "unchanged";
    const Status st = c6::read_record(text, r);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_NE(st.message().find(why), std::string::npos) << text << " -> " << st.message();
    EXPECT_EQ(r.result, "unchanged");
  }
  c6::Record r;
  r.turns = {{180, -1}, {180, 181}};
  std::string text = "unchanged";
  EXPECT_FALSE(c6::write_record(r, text).ok());
  r.turns.pop_back();
  r.result = "blue";
  EXPECT_FALSE(c6::write_record(r, text).ok());
  EXPECT_EQ(text, "unchanged");
}

}  // namespace
}  // namespace warpmind::search
