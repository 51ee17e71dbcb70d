// The GPU's Connect6 evaluation and move generation (ai/src/search/connect6/connect6_rules.h,
// compiled here for the host) held against ai/'s on thousands of positions from random games — quiet
// ones, threats to answer, wins to take, hopeless ones, won ones — at several widths, with the hybrid
// search's leaf values (won and full boards scored as terminal).
#include <gtest/gtest.h>

#include <vector>

#include "warpmind/core/random.h"
#include "search/connect6/connect6_rules.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/hybrid.h"

namespace warpmind::search::connect6 {
namespace {

namespace d = rules;

TEST(Connect6DeviceRules, SameEvaluationAndCandidatesAsTheCpu) {
  SplitMix64 rng(31);
  int positions = 0, forced = 0, won = 0;
  const auto same_leaves = [](const Board& b) {
    const d::C6Pos p = d::from_board(b);
    EXPECT_EQ(d::over(p), Connect6Game::over(b));
    for (int ply : {0, 2, 5}) EXPECT_EQ(d::leaf_value(p, ply), search::leaf_value<Connect6Game>(b, ply));
  };
  for (int game = 0; game < 120; ++game) {
    Board b;
    for (int turn = 0; turn < 40 && !b.over(); ++turn) {
      const d::C6Pos p = d::from_board(b);
      ASSERT_EQ(d::evaluate(p), evaluate(b)) << "game " << game << " turn " << turn;
      same_leaves(b);
      for (int width : {8, 16, 48}) {
        std::vector<Turn> want;
        candidate_turns(b, width, want);
        d::C6Turn got[d::kMaxTurns];
        const int n = d::candidates(p, width, got);
        ASSERT_EQ(n, static_cast<int>(want.size())) << "game " << game << " turn " << turn << " width " << width;
        for (int i = 0; i < n; ++i) {
          ASSERT_EQ(got[i].a, want[static_cast<std::size_t>(i)].a) << "turn " << turn << " candidate " << i;
          ASSERT_EQ(got[i].b, want[static_cast<std::size_t>(i)].b) << "turn " << turn << " candidate " << i;
        }
      }
      ++positions;
      // Mostly the best candidate (games with threats and wins), sometimes a random one or random cells.
      std::vector<Turn> cands;
      candidate_turns(b, 16, cands);
      forced += cands.size() <= 2;
      Turn t = cands[rng.next() % cands.size() < 2 ? 0 : rng.next() % cands.size()];
      if (rng.uniform() < 0.15f && b.stones() > 0) {
        int a = -1, c = -1;
        while (a < 0 || b.at(a) != Empty) a = static_cast<int>(rng.next() % kCells);
        while (c < 0 || c == a || b.at(c) != Empty) c = static_cast<int>(rng.next() % kCells);
        t = {a, c};
      }
      const d::C6Pos before = d::from_board(b);
      ASSERT_TRUE(b.play(t).ok());
      // The device's move: the same cells, stone count, side to move and winner as the CPU's board.
      const d::C6Pos after = d::apply(before, d::C6Turn{t.a, t.b}), want = d::from_board(b);
      ASSERT_EQ(after.to_move, want.to_move) << "game " << game << " turn " << turn;
      ASSERT_EQ(after.winner, want.winner) << "game " << game << " turn " << turn;
      ASSERT_EQ(after.stones, want.stones);
      for (int c = 0; c < d::kCells; ++c) ASSERT_EQ(after.cell[c], want.cell[c]) << c;
    }
    if (b.over()) {
      SCOPED_TRACE("game " + std::to_string(game) + ", won");
      same_leaves(b);
      ++won;
    }
  }
  EXPECT_GT(won, 10);
  EXPECT_GT(positions, 1500);
  EXPECT_GT(forced, 50);  // threats and wins were among them
}

}  // namespace
}  // namespace warpmind::search::connect6
