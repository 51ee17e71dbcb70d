// What every board game of the demo does alike (board_table.h), held for chess and Connect6 by one typed
// test: the computer answers within its time and stops on move_now, undo against the computer takes back
// to the person's turn, clocks take the time used, add the increment and end the game on a flag, the
// computer plays to its clock, the hybrid search plays and reports with evaluations from side 0's view,
// and computer against computer keeps its pace.
#include <gtest/gtest.h>

#include <chrono>

#include "chess_table.h"
#include "connect6_table.h"

namespace warpmind::demos {
namespace {

namespace chess = search::chess;
namespace c6 = search::connect6;

// What the shared tests need of each game: a legal first move for side 0 by clicks, and a hybrid search
// small enough for a test.
template <class Table>
struct Game;

template <>
struct Game<ChessTable> {
  static constexpr const char* kSides[2] = {"White", "Black"};
  static void first_move(ChessTable& t) {
    t.click(12);  // e2
    t.click(28);  // e4
  }
  static void small_hybrid(ChessAi& ai) { ai.depth = 3; }
  static chess::Move reported(const ChessThinking& th) { return th.pv.empty() ? chess::Move{} : th.pv[0]; }
};

template <>
struct Game<Connect6Table> {
  static constexpr const char* kSides[2] = {"Black", "White"};
  static void first_move(Connect6Table& t) { t.click(9 * c6::kSize + 9); }  // JJ, Black's opening stone
  static void small_hybrid(Connect6Ai& ai) {
    ai.depth = 2;
    ai.width = 8;
  }
  static c6::Turn reported(const Connect6Thinking& th) { return th.best; }
};

template <class Table>
class BoardTableTest : public testing::Test {};

using Tables = testing::Types<ChessTable, Connect6Table>;
TYPED_TEST_SUITE(BoardTableTest, Tables);

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

TYPED_TEST(BoardTableTest, TheComputerAnswersWithinItsTimeAndStopsOnMoveNow) {
  using G = Game<TypeParam>;
  TypeParam t;  // the person plays side 0, the computer side 1
  t.ai().time_ms = 200;
  G::first_move(t);
  ASSERT_EQ(t.moves().size(), 1u) << t.status();
  G::first_move(t);  // side 1 to move: refused
  EXPECT_NE(t.status().find(std::string("the computer plays ") + G::kSides[1]), std::string::npos) << t.status();
  const auto t0 = std::chrono::steady_clock::now();
  t.wait_for_computer();
  EXPECT_LT(ms_since(t0), 200.0 + 1000.0);
  EXPECT_EQ(t.moves().size(), 2u);
  EXPECT_EQ(t.player(0), Player::Person);
  EXPECT_NE(t.status().find(std::string(G::kSides[0]) + " to move"), std::string::npos) << t.status();
  // Undo against the computer takes back both moves.
  EXPECT_TRUE(t.undo());
  EXPECT_EQ(t.moves().size(), 0u);
  EXPECT_FALSE(t.undo());
  EXPECT_TRUE(t.redo());
  EXPECT_EQ(t.moves().size(), 1u);
  EXPECT_TRUE(t.undo());
  // The computer on both sides, stopped early by move_now.
  t.set_player(0, Player::Computer);
  t.ai().time_ms = 20000;
  t.update();
  EXPECT_TRUE(t.thinking());
  t.move_now();
  const auto t1 = std::chrono::steady_clock::now();
  t.wait_for_computer();
  EXPECT_LT(ms_since(t1), 2000.0);
  EXPECT_EQ(t.moves().size(), 1u);
}

// A clock that moves only when the test says so.
struct FakeTime {
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  void advance(int ms) { now += std::chrono::milliseconds(ms); }
};

TYPED_TEST(BoardTableTest, ClocksTakeTheTimeUsedAddTheIncrementAndFlag) {
  using G = Game<TypeParam>;
  FakeTime time;
  TypeParam t;
  t.set_player(1, Player::Person);
  t.clock().set_source([&] { return time.now; });
  t.set_time_control({10000, 2000});
  EXPECT_EQ(t.clock().running(), 0);
  time.advance(3000);
  EXPECT_EQ(t.clock().left_ms(0), 7000);
  G::first_move(t);
  EXPECT_EQ(t.clock().left_ms(0), 9000);  // 10 s - 3 s + 2 s
  EXPECT_EQ(t.clock().running(), 1);
  time.advance(500);
  EXPECT_TRUE(t.undo());  // the times of the turn taken back come back
  EXPECT_EQ(t.clock().left_ms(0), 10000);
  EXPECT_TRUE(t.redo());
  time.advance(12001);  // side 1's flag falls: side 0 wins
  t.update();
  EXPECT_TRUE(t.over());
  EXPECT_EQ(t.end_reason(), std::string(G::kSides[1]) + " ran out of time, " + G::kSides[0] + " wins");
  EXPECT_EQ(t.status(), "game over: " + t.end_reason());
  EXPECT_EQ(t.clock().running(), -1);
}

TYPED_TEST(BoardTableTest, TheComputerPlaysToItsClock) {
  TypeParam t;
  t.set_player(0, Player::Computer);
  t.ai().time_ms = 60000;         // ignored with a clock
  t.set_time_control({3000, 0});  // the budget: 3000 / 30 = 100 ms a move
  const auto t0 = std::chrono::steady_clock::now();
  t.wait_for_computer();
  EXPECT_LT(ms_since(t0), 1000.0);
  EXPECT_EQ(t.moves().size(), 1u);
  EXPECT_GT(t.clock().left_ms(0), 3000 - 1000);
  EXPECT_EQ(t.evaluations().size(), 1u);
}

TYPED_TEST(BoardTableTest, TheHybridSearchPlaysAndReports) {
  using G = Game<TypeParam>;
  TypeParam t;
  t.ai().search = AiSearch::Hybrid;
  t.ai().backend = Backend::Cpu;
  t.ai().time_ms = 0;
  G::small_hybrid(t.ai());
  G::first_move(t);
  t.wait_for_computer();
  ASSERT_EQ(t.moves().size(), 2u);
  const auto th = t.thinking_info();
  EXPECT_FALSE(th.active);
  EXPECT_EQ(th.search, AiSearch::Hybrid);
  EXPECT_FALSE(th.on_gpu);
  EXPECT_EQ(th.depth, t.ai().depth);
  EXPECT_GT(th.hybrid.computed(), 8u);
  EXPECT_GT(th.hybrid.batched_leaves + th.hybrid.single_leaves, 0u);
  EXPECT_EQ(G::reported(th), t.moves()[1]);  // the move it reports is the move it played
  // The score is the evaluation after side 1's move, from side 0's view; a person's move keeps the value
  // before (0 at the start).
  ASSERT_EQ(t.evaluations().size(), 2u);
  EXPECT_EQ(t.evaluations()[0], 0);
  EXPECT_EQ(t.evaluations()[1], -th.score);
}

TYPED_TEST(BoardTableTest, ComputerAgainstComputerKeepsItsPace) {
  TypeParam t;
  t.set_player(0, Player::Computer);
  t.set_player(1, Player::Computer);
  t.ai().time_ms = 20;
  t.ai().pace_ms = 400;
  t.wait_for_computer();
  ASSERT_EQ(t.moves().size(), 1u);
  const auto moved = std::chrono::steady_clock::now();
  t.update();
  EXPECT_FALSE(t.thinking());  // waiting for the pace
  while (!t.thinking() && t.moves().size() == 1) t.update();
  EXPECT_GE(std::chrono::steady_clock::now() - moved, std::chrono::milliseconds(390));
}

}  // namespace
}  // namespace warpmind::demos
