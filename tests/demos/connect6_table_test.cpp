// The demo's Connect6 game through its input layer: one stone for Black's opening, two clicks a turn
// after that (the first pending, taken back by a second click on it), occupied cells and clicks off the
// board refused with a reason, undo of the pending stone and of whole turns, six in a row ending the
// game, a flag in the record, the alpha-beta's report, records and drawing. What every board game does
// alike (the computer, clocks, undo against the computer) is board_table_test.cpp's.
#include <gtest/gtest.h>

#include <chrono>

#include "connect6_table.h"

namespace warpmind::demos {
namespace {

namespace c6 = search::connect6;

int cell(const char* letters) { return (letters[1] - 'A') * c6::kSize + (letters[0] - 'A'); }

TEST(Connect6Table, TurnsByClicks) {
  Connect6Table t;
  t.set_player(c6::WhiteStone, Player::Person);
  t.click(cell("JJ"));  // Black's opening: one stone
  EXPECT_EQ(t.turns_text(), "JJ");
  t.click(cell("KJ"));
  EXPECT_EQ(t.pending(), cell("KJ"));
  t.click(cell("KJ"));  // a second click on the pending stone takes it back
  EXPECT_EQ(t.pending(), -1);
  t.click(cell("JJ"));  // occupied
  EXPECT_NE(t.status().find("JJ is occupied"), std::string::npos) << t.status();
  t.click(-1);
  EXPECT_NE(t.status().find("off the board"), std::string::npos);
  t.click(cell("KJ"));
  t.click(cell("KK"));
  EXPECT_EQ(t.turns_text(), "JJ KJKK");
  EXPECT_EQ(t.board().to_move(), c6::BlackStone);
  // Undo: the pending stone first, then whole turns; redo.
  t.click(cell("AA"));
  EXPECT_TRUE(t.undo());
  EXPECT_EQ(t.pending(), -1);
  EXPECT_EQ(t.turns_text(), "JJ KJKK");
  EXPECT_TRUE(t.undo());
  EXPECT_EQ(t.turns_text(), "JJ");
  EXPECT_TRUE(t.redo());
  EXPECT_EQ(t.turns_text(), "JJ KJKK");
}

TEST(Connect6Table, SixInARowEndsTheGame) {
  Connect6Table t;
  t.set_player(c6::WhiteStone, Player::Person);
  ASSERT_TRUE(t.start("AA SSQR BACA OSMR DAEA KSIR").ok());  // Black: A1..E1 along the bottom row
  t.click(cell("FA"));
  t.click(cell("KK"));
  EXPECT_TRUE(t.over());
  EXPECT_NE(t.status().find("six in a row, Black wins"), std::string::npos) << t.status();
  t.click(cell("GA"));
  EXPECT_NE(t.status().find("no more turns"), std::string::npos) << t.status();
  const std::string before = t.turns_text();
  EXPECT_FALSE(t.start("JJ JJKK").ok());  // occupied: refused, nothing changes
  EXPECT_NE(t.status().find("turn 2 'JJKK'"), std::string::npos) << t.status();
  EXPECT_EQ(t.turns_text(), before);
  EXPECT_FALSE(t.start("JJ ZZ").ok());
}

TEST(Connect6Table, AFlagEndsTheRecord) {
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  Connect6Table t;
  t.set_player(c6::WhiteStone, Player::Person);
  t.clock().set_source([&] { return now; });
  t.set_time_control({5000, 1000});
  t.click(cell("JJ"));
  now += std::chrono::milliseconds(6001);
  t.update();
  EXPECT_EQ(t.end_reason(), "White ran out of time, Black wins");
  EXPECT_NE(t.record().find("\nblack\n"), std::string::npos) << t.record();
}

TEST(Connect6Table, TheAlphaBetaReportsItsDepthsAndTurn) {
  Connect6Table t;
  t.ai().time_ms = 0;
  t.ai().depth = 2;
  t.ai().width = 8;
  t.ai().vcf_depth = 0;
  t.click(cell("JJ"));
  t.wait_for_computer();
  ASSERT_EQ(t.turns().size(), 2u);
  EXPECT_GE(t.thinking_info().depth, 1);
  EXPECT_EQ(t.thinking_info().best, t.turns()[1]);
  EXPECT_EQ(t.evaluations()[1], -t.thinking_info().score);  // from Black's view; White moved
}

TEST(Connect6Table, RecordsSaveAndLoad) {
  Connect6Table t;
  t.set_player(c6::WhiteStone, Player::Person);
  t.click(cell("JJ"));
  t.click(cell("KK"));
  t.click(cell("KJ"));
  const std::string rec = t.record();
  EXPECT_NE(rec.find("[White \"person\"]"), std::string::npos) << rec;
  EXPECT_NE(rec.find("2. KKKJ"), std::string::npos) << rec;
  Connect6Table u;
  ASSERT_TRUE(u.load_record(rec).ok());
  EXPECT_EQ(u.turns_text(), t.turns_text());
  EXPECT_FALSE(u.load_record("JJ JJKK").ok());
  EXPECT_NE(u.status().find("record: line 1: turn 2"), std::string::npos) << u.status();
  EXPECT_EQ(u.turns_text(), "JJ KKKJ");
}

TEST(Connect6Table, DrawsTheBoard) {
  Connect6Table t;
  t.set_player(c6::WhiteStone, Player::Person);
  ASSERT_TRUE(t.start("JJ KJKK").ok());
  BoardPicture pic;
  t.draw(pic);
  EXPECT_EQ(pic.discs.size(), 3u + 2 + 1);  // the stones, the last turn's marks, the side to move
  EXPECT_GT(pic.lines.size(), 4u * 19);
  EXPECT_EQ(Connect6Table::cell_at({9.5f, 9.5f}), cell("JJ"));
  EXPECT_EQ(Connect6Table::cell_at({19.5f, 9.5f}), -1);
  t.click(cell("AA"));
  t.draw(pic);
  EXPECT_EQ(pic.discs.size(), 3u + 2 + 1 + 1);  // and the pending stone
}

}  // namespace
}  // namespace warpmind::demos
