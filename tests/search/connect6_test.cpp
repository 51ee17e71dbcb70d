// Connect6: rules (the one-stone opening, two stones a turn, overlines win, a full board draws),
// both notations and their errors, window and shape counts kept incrementally against a brute-force recount, and
// the search (wins when it can, blocks threats, always legal).
#include <gtest/gtest.h>

#include "warpmind/core/random.h"
#include "warpmind/search/connect6.h"

namespace warpmind::search::connect6 {
namespace {

int cell(const char* name) {
  Turn t;
  EXPECT_TRUE(parse_turn(name, t).ok()) << name;
  return t.a;
}

TEST(Connect6, OpeningOneStoneThenTwo) {
  Board b;
  EXPECT_EQ(b.to_move(), BlackStone);
  EXPECT_FALSE(b.play({cell("K10"), cell("K11")}).ok());  // Black opens with one stone
  ASSERT_TRUE(b.play({cell("K10"), -1}).ok());
  EXPECT_EQ(b.to_move(), WhiteStone);
  EXPECT_FALSE(b.play({cell("L10"), -1}).ok());  // then two
  const Status occ = b.play({cell("K10"), cell("L10")});
  EXPECT_FALSE(occ.ok());
  EXPECT_NE(occ.message().find("occupied"), std::string::npos);
  EXPECT_FALSE(b.play({cell("L10"), cell("L10")}).ok());
  EXPECT_EQ(b.stones(), 1);  // nothing changed
  ASSERT_TRUE(b.play({cell("L10"), cell("L11")}).ok());
  EXPECT_EQ(b.to_move(), BlackStone);
  ASSERT_TRUE(b.play({cell("A1"), cell("T19")}).ok());
  EXPECT_EQ(b.to_move(), WhiteStone);
}

TEST(Connect6, SixAndOverlinesWinFullBoardDraws) {
  Board b;
  ASSERT_TRUE(b.play({cell("A1"), -1}).ok());
  ASSERT_TRUE(b.play({cell("A10"), cell("B10")}).ok());
  ASSERT_TRUE(b.play({cell("B1"), cell("C1")}).ok());
  ASSERT_TRUE(b.play({cell("C10"), cell("D10")}).ok());
  ASSERT_TRUE(b.play({cell("E1"), cell("F1")}).ok());  // A1 B1 C1 _ E1 F1: no six yet
  EXPECT_EQ(b.winner(), Empty);
  ASSERT_TRUE(b.play({cell("E10"), cell("S19")}).ok());  // white A10..E10: five
  ASSERT_TRUE(b.play({cell("D1"), cell("G1")}).ok());    // black A1..G1: seven, an overline
  EXPECT_EQ(b.winner(), BlackStone);
  EXPECT_TRUE(b.over());
  EXPECT_FALSE(b.play({cell("F10"), cell("G10")}).ok());  // the game is over
  // A full board without six in a row is a draw.
  Board full;
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x)
      ASSERT_TRUE(full.setup(((x / 2) + (y / 3)) % 2 ? WhiteStone : BlackStone, y * kSize + x).ok());
  EXPECT_TRUE(full.full());
  EXPECT_TRUE(full.over());
  EXPECT_EQ(full.winner(), Empty);
}

TEST(Connect6, NotationsRoundTripAndErrors) {
  Turn t;
  ASSERT_TRUE(parse_turn("K10", t).ok());
  EXPECT_EQ(t.a, 9 * kSize + 9);  // the centre
  EXPECT_EQ(cell_name(t.a, Notation::Letters), "JJ");
  ASSERT_TRUE(parse_turn("jj", t).ok());
  EXPECT_EQ(t.a, 9 * kSize + 9);
  EXPECT_EQ(t.b, -1);
  ASSERT_TRUE(parse_turn("T19A1", t).ok());
  EXPECT_EQ(t.a, kCells - 1);
  EXPECT_EQ(t.b, 0);
  EXPECT_EQ(turn_name(t, Notation::Human), "T19A1");
  EXPECT_EQ(turn_name(t, Notation::Letters), "SSAA");
  ASSERT_TRUE(parse_turn("SSAA", t).ok());
  EXPECT_EQ(turn_name(t, Notation::Human), "T19A1");
  for (int c = 0; c < kCells; ++c) {
    ASSERT_TRUE(parse_turn(cell_name(c, Notation::Human), t).ok());
    EXPECT_EQ(t.a, c);
    ASSERT_TRUE(parse_turn(cell_name(c, Notation::Letters), t).ok());
    EXPECT_EQ(t.a, c);
  }
  for (const char* bad : {"", "I5", "K20", "K0", "U3", "K", "TT", "ABC", "K10L11M12", "10K"})
    EXPECT_FALSE(parse_turn(bad, t).ok()) << bad;
}

TEST(Connect6, WindowCountsMatchABruteForceRecount) {
  Board b;
  SplitMix64 rng(4);
  std::vector<Turn> played;
  for (int turn = 0; turn < 80 && !b.over(); ++turn) {
    Turn t;
    do {
      t.a = static_cast<int>(rng.next() % kCells);
    } while (b.at(t.a) != Empty);
    if (b.stones() > 0) do {
        t.b = static_cast<int>(rng.next() % kCells);
      } while (b.at(t.b) != Empty || t.b == t.a);
    ASSERT_TRUE(b.play(t).ok());
    played.push_back(t);
    ASSERT_EQ(b.windows(), count_windows(b)) << "after turn " << turn;
    ASSERT_EQ(b.shapes(), count_shapes(b)) << "after turn " << turn;
  }
  const std::uint64_t key = b.key();
  while (!played.empty()) {
    b.undo(played.back());
    played.pop_back();
    ASSERT_EQ(b.windows(), count_windows(b));
    ASSERT_EQ(b.shapes(), count_shapes(b));
  }
  EXPECT_EQ(b.stones(), 0);
  EXPECT_NE(key, b.key());
  EXPECT_EQ(b.to_move(), BlackStone);
}

TEST(Connect6, SearchWinsBlocksAndStaysLegal) {
  // Black to move with four in a row: it completes six.
  Board win;
  for (const char* c : {"C5", "D5", "E5", "F5"}) ASSERT_TRUE(win.setup(BlackStone, cell(c)).ok());
  for (const char* c : {"C9", "D9", "E9"}) ASSERT_TRUE(win.setup(WhiteStone, cell(c)).ok());
  ASSERT_EQ(win.to_move(), BlackStone);  // 7 stones: turns end at 1, 3, 5, 7, ... stones; Black's
  SearchOutcome r = search(win, {});
  EXPECT_TRUE(r.forced);
  Board after = win;
  ASSERT_TRUE(after.play(r.best).ok()) << turn_name(r.best, Notation::Human);
  EXPECT_EQ(after.winner(), BlackStone);
  // White to move against Black's open four: every threat window gets a white stone.
  Board block;
  for (const char* c : {"C5", "D5", "E5", "F5", "K10"}) ASSERT_TRUE(block.setup(BlackStone, cell(c)).ok());
  for (const char* c : {"C9", "D9", "P15", "Q16"}) ASSERT_TRUE(block.setup(WhiteStone, cell(c)).ok());
  ASSERT_EQ(block.to_move(), WhiteStone);  // 9 stones
  r = search(block, {});
  Board blocked = block;
  ASSERT_TRUE(blocked.play(r.best).ok());
  // Black cannot win on its turn now.
  const SearchOutcome reply = search(blocked, {});
  Board final = blocked;
  ASSERT_TRUE(final.play(reply.best).ok());
  EXPECT_NE(final.winner(), BlackStone) << turn_name(r.best, Notation::Human);
  // Self-play: every turn the search returns is legal, to the end or 40 turns.
  Board game;
  SearchOptions fast;
  fast.depth = 2;
  fast.width = 12;
  for (int turn = 0; turn < 40 && !game.over(); ++turn) {
    const SearchOutcome s = search(game, fast);
    ASSERT_TRUE(game.play(s.best).ok()) << "turn " << turn << ": " << turn_name(s.best, Notation::Human);
  }
}

// A player that takes, among the turns the search would consider, one of the three its evaluation likes
// best (seeded, so games differ).
Turn greedy(const Board& b, SplitMix64& rng) {
  std::vector<Turn> turns;
  candidate_turns(b, 64, turns);
  std::vector<std::pair<int, Turn>> scored;
  for (const Turn& t : turns) {
    Board c = b;
    EXPECT_TRUE(c.play(t).ok());
    scored.push_back({-evaluate(c), t});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  return scored[rng.next() % std::min<std::size_t>(scored.size(), 3)].second;
}

TEST(Connect6, BeatsAGreedyPlayerEveryGame) {
  for (int game = 0; game < 12; ++game) {
    SplitMix64 rng(static_cast<std::uint64_t>(game) + 1);
    Board b;
    const Stone engine = game % 2 ? WhiteStone : BlackStone;
    int turns = 0;
    while (!b.over() && turns++ < 200) {
      const Turn t = b.to_move() == engine ? search(b, {}).best : greedy(b, rng);
      ASSERT_TRUE(b.play(t).ok()) << "game " << game << ": " << turn_name(t, Notation::Human);
    }
    EXPECT_EQ(b.winner(), engine) << "game " << game << " (engine " << (engine == BlackStone ? "black" : "white")
                                  << ")";
  }
}

TEST(Connect6, ThreadsChooseWhatTheSerialSearchChooses) {
  Board b;
  for (const char* t : {"K10", "L10L11", "J9J11", "M12N13", "K12H9"}) {
    Turn turn;
    ASSERT_TRUE(parse_turn(t, turn).ok());
    ASSERT_TRUE(b.play(turn).ok());
  }
  SearchOptions o;
  o.depth = 2;
  o.width = 12;
  o.vcf_depth = 0;
  const SearchOutcome serial = search(b, o);
  o.threads = 3;
  const SearchOutcome threaded = search(b, o);
  EXPECT_EQ(threaded.best, serial.best);
  EXPECT_EQ(threaded.score, serial.score);
  EXPECT_GE(threaded.nodes, serial.nodes);  // no shared alpha: more nodes, searched in parallel
}

TEST(Connect6, ThreatSpaceSearchFindsTheDoubleFour) {
  // Black to move with two open threes: two stones make two open fours, which White cannot block with
  // its two stones. The threat-space search proves it before any alpha-beta (forced); without it, a
  // one-turn search still scores the turn as winning through the evaluation's unblockable-threat test.
  Board b;
  for (const char* c : {"E5", "F5", "G5", "M8", "M9", "M10"}) ASSERT_TRUE(b.setup(BlackStone, cell(c)).ok());
  for (const char* c : {"B15", "C16", "D17", "R2", "S3"}) ASSERT_TRUE(b.setup(WhiteStone, cell(c)).ok());
  ASSERT_EQ(b.to_move(), BlackStone);  // 11 stones
  SearchOptions shallow;
  shallow.depth = 1;
  shallow.vcf_depth = 0;
  const SearchOutcome plain = search(b, shallow);
  EXPECT_FALSE(plain.forced);
  EXPECT_GE(plain.score, 500000);
  shallow.vcf_depth = 2;
  const SearchOutcome r = search(b, shallow);
  EXPECT_TRUE(r.forced);
  Board game = b;
  ASSERT_TRUE(game.play(r.best).ok());
  for (int turn = 0; turn < 4 && !game.over(); ++turn) ASSERT_TRUE(game.play(search(game, {}).best).ok());
  EXPECT_EQ(game.winner(), BlackStone) << turn_name(r.best, Notation::Human);
}

}  // namespace
}  // namespace warpmind::search::connect6
