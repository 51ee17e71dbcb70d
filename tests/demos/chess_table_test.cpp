// The demo's chess game played through its input layer — clicks on squares, promotion choices, undo —
// as a player plays it: scripted games reach the expected positions, illegal clicks change nothing but
// the status, promotions, castling and en passant by clicks, the end of the game with its reason, a flag
// in the PGN and against a bare king, records and drawing. What every board game does alike (the
// computer, clocks, undo against the computer) is board_table_test.cpp's.
#include <gtest/gtest.h>

#include <chrono>

#include "warpmind/core/context.h"

#include "chess_table.h"

namespace warpmind::demos {
namespace {

namespace chess = search::chess;

int sq(const char* name) { return (name[1] - '1') * 8 + (name[0] - 'a'); }

void click_move(ChessTable& t, const char* from, const char* to) {
  t.click(sq(from));
  t.click(sq(to));
}

TEST(ChessTable, ScriptedGameByClicks) {
  ChessTable t;
  t.set_player(chess::Black, Player::Person);
  ASSERT_EQ(t.status(), "White to move");
  click_move(t, "e2", "e4");
  click_move(t, "e7", "e5");
  click_move(t, "g1", "f3");
  click_move(t, "b8", "c6");
  EXPECT_EQ(t.moves_text(), "e2e4 e7e5 g1f3 b8c6");
  EXPECT_EQ(t.fen(), "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
  // The selected piece's targets are shown; a click on another of our pieces selects it instead.
  t.click(sq("f1"));
  EXPECT_EQ(t.selected(), sq("f1"));
  EXPECT_EQ(t.targets().size(), 5u);  // e2 d3 c4 b5 a6
  t.click(sq("f3"));
  EXPECT_EQ(t.selected(), sq("f3"));
  // Undo and redo.
  EXPECT_TRUE(t.undo());
  EXPECT_EQ(t.moves_text(), "e2e4 e7e5 g1f3");
  EXPECT_TRUE(t.redo());
  EXPECT_EQ(t.moves_text(), "e2e4 e7e5 g1f3 b8c6");
  EXPECT_FALSE(t.redo());
}

TEST(ChessTable, IllegalClicksChangeNothingButTheStatus) {
  ChessTable t;
  t.set_player(chess::Black, Player::Person);
  const std::string fen = t.fen();
  t.click(sq("e7"));  // Black's pawn, White to move
  EXPECT_EQ(t.fen(), fen);
  EXPECT_EQ(t.selected(), -1);
  EXPECT_NE(t.status().find("no piece of White's on e7"), std::string::npos) << t.status();
  t.click(sq("a1"));  // the rook cannot move
  EXPECT_NE(t.status().find("has no legal move"), std::string::npos) << t.status();
  t.click(sq("e2"));
  t.click(sq("e5"));  // three squares
  EXPECT_EQ(t.fen(), fen);
  EXPECT_NE(t.status().find("cannot move to e5"), std::string::npos) << t.status();
  t.click(-1);
  EXPECT_EQ(t.selected(), -1);
  EXPECT_EQ(t.fen(), fen);
}

TEST(ChessTable, PromotionCastlingAndEnPassantByClicks) {
  ChessTable t;
  t.set_player(chess::Black, Player::Person);
  // Promotion: the move waits for the piece.
  ASSERT_TRUE(t.start("k7/4P3/8/8/8/8/8/4K3 w - - 0 1", "").ok());
  click_move(t, "e7", "e8");
  EXPECT_TRUE(t.promotion_pending());
  t.click(sq("a8"));  // a click before the choice does nothing
  EXPECT_TRUE(t.promotion_pending());
  t.promote(chess::Knight);
  EXPECT_EQ(t.moves_text(), "e7e8n");
  // Castling by the king's two-square move, both sides.
  ASSERT_TRUE(t.start("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "").ok());
  click_move(t, "e1", "g1");
  click_move(t, "e8", "c8");
  EXPECT_EQ(t.fen(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
  // En passant by the pawn's diagonal step.
  ASSERT_TRUE(t.start("", "e2e4 a7a6 e4e5 d7d5").ok());
  click_move(t, "e5", "d6");
  EXPECT_EQ(t.moves_text(), "e2e4 a7a6 e4e5 d7d5 e5d6");
  EXPECT_EQ(t.position().type_at(sq("d5")), chess::NoPiece);
}

TEST(ChessTable, TheEndAndItsReason) {
  ChessTable t;
  t.set_player(chess::Black, Player::Person);
  ASSERT_TRUE(t.start("", "f2f3 e7e5 g2g4").ok());
  click_move(t, "d8", "h4");
  EXPECT_TRUE(t.over());
  EXPECT_EQ(t.end_reason(), "checkmate, Black wins");
  t.click(sq("a2"));
  EXPECT_NE(t.status().find("the game is over"), std::string::npos);
  ASSERT_TRUE(t.start("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "").ok());
  EXPECT_EQ(t.end_reason(), "stalemate, a draw");
  ASSERT_TRUE(t.start("", "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8").ok());
  EXPECT_EQ(t.end_reason(), "threefold repetition, a draw");
  ASSERT_TRUE(t.start("8/8/4k3/8/8/3BK3/8/8 w - - 0 1", "").ok());
  EXPECT_EQ(t.end_reason(), "insufficient material, a draw");
  ASSERT_TRUE(t.start("8/8/4k3/8/8/3RK3/8/8 w - - 100 80", "").ok());
  EXPECT_EQ(t.end_reason(), "the fifty-move rule, a draw");
  // Bad input is refused and changes nothing.
  const std::string fen = t.fen();
  EXPECT_FALSE(t.start("not a fen", "").ok());
  EXPECT_FALSE(t.start("", "e2e4 e2e4").ok());
  EXPECT_NE(t.status().find("move 2 'e2e4'"), std::string::npos) << t.status();
  EXPECT_EQ(t.fen(), fen);
}

// A clock that moves only when the test says so.
struct FakeTime {
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  void advance(int ms) { now += std::chrono::milliseconds(ms); }
};

TEST(ChessTable, AFlagEndsThePgnAndAgainstABareKingDraws) {
  FakeTime time;
  ChessTable t;
  t.set_player(chess::Black, Player::Person);
  t.clock().set_source([&] { return time.now; });
  t.set_time_control({10000, 2000});
  click_move(t, "e2", "e4");
  time.advance(10001);  // Black's flag falls: White wins
  t.update();
  EXPECT_EQ(t.end_reason(), "Black ran out of time, White wins");
  EXPECT_NE(t.pgn().find("1-0"), std::string::npos);
  click_move(t, "e7", "e5");
  EXPECT_EQ(t.moves().size(), 1u);  // no moves after the flag
  // Against a bare king the flag is a draw.
  ASSERT_TRUE(t.start("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "").ok());
  time.advance(10001);
  t.update();
  EXPECT_EQ(t.end_reason(), "White ran out of time, Black cannot mate, a draw");
  EXPECT_NE(t.pgn().find("1/2-1/2"), std::string::npos);
}

TEST(ChessTable, PgnSavesAndLoadsTheGame) {
  ChessTable t;
  t.set_player(chess::Black, Player::Person);
  click_move(t, "e2", "e4");
  click_move(t, "e7", "e5");
  click_move(t, "g1", "f3");
  const std::string pgn = t.pgn();
  EXPECT_NE(pgn.find("1. e4 e5 2. Nf3 *"), std::string::npos) << pgn;
  ChessTable u;
  ASSERT_TRUE(u.load_pgn(pgn).ok());
  EXPECT_EQ(u.moves_text(), "e2e4 e7e5 g1f3");
  EXPECT_EQ(u.fen(), t.fen());
  // A bad record changes nothing and says why.
  EXPECT_FALSE(u.load_pgn("1. e4 e5 2. Ke3").ok());
  EXPECT_NE(u.status().find("PGN: line 1: move 3"), std::string::npos) << u.status();
  EXPECT_EQ(u.moves_text(), "e2e4 e7e5 g1f3");
  // From a position.
  ASSERT_TRUE(t.start("4k3/8/8/8/8/8/8/R3K3 b - - 0 30", "e8d7").ok());
  ASSERT_TRUE(u.load_pgn(t.pgn()).ok());
  EXPECT_EQ(u.fen(), t.fen());
}

TEST(ChessTable, DrawsTheBoard) {
  ChessTable t;
  t.set_player(chess::Black, Player::Person);
  BoardPicture pic;
  t.draw(pic, false);
  EXPECT_EQ(pic.fills.size(), 64u * 6);  // the squares
  EXPECT_EQ(pic.discs.size(), 32u + 1);  // the pieces and the side to move
  EXPECT_GT(pic.lines.size(), 0u);       // letters and coordinates
  EXPECT_EQ(ChessTable::square_at({4.5f, 1.5f}, false), sq("e2"));
  EXPECT_EQ(ChessTable::square_at({4.5f, 1.5f}, true), sq("d7"));
  EXPECT_EQ(ChessTable::square_at({-0.5f, 1.5f}, false), -1);
  t.click(sq("e2"));
  t.draw(pic, false);
  EXPECT_EQ(pic.fills.size(), 64u * 6 + 6 + 2 * 6);  // the selection and its two targets
}

}  // namespace
}  // namespace warpmind::demos
