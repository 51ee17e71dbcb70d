// Connect6 tactics: the threat-space search (SearchOptions::threat_depth) on positions set up by hand —
// wins by a double threat in one turn, wins through a forced threat first (VCF) and through a quiet turn
// (VCT), blocking a four while winning, and defences against the opponent's double threats. Every claim
// is checked by code independent of the search: the windows of four and the pairs that could block
// them counted here by brute force, or the line played out by the rules. Fixed node budgets, no clock:
// deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <vector>

#include "warpmind/search/connect6.h"

namespace warpmind::search::connect6 {
namespace {

int cell(const char* name) {
  Turn t;
  EXPECT_TRUE(parse_turn(name, t).ok()) << name;
  return t.a;
}

Stone other(Stone s) { return s == BlackStone ? WhiteStone : BlackStone; }

// A position from stone lists; the side to move follows from the count.
Board position(std::initializer_list<const char*> black, std::initializer_list<const char*> white) {
  Board b;
  for (const char* c : black) EXPECT_TRUE(b.setup(BlackStone, cell(c)).ok()) << c;
  for (const char* c : white) EXPECT_TRUE(b.setup(WhiteStone, cell(c)).ok()) << c;
  return b;
}

// Every six-cell window, enumerated here (not the engine's tables).
const std::vector<std::array<int, 6>>& windows() {
  static const std::vector<std::array<int, 6>> all = [] {
    std::vector<std::array<int, 6>> w;
    const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (const auto& d : dirs)
      for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
          const int ex = x + 5 * d[0], ey = y + 5 * d[1];
          if (ex < 0 || ex >= kSize || ey < 0 || ey >= kSize) continue;
          std::array<int, 6> cells{};
          for (int k = 0; k < 6; ++k) cells[static_cast<std::size_t>(k)] = (y + k * d[1]) * kSize + x + k * d[0];
          w.push_back(cells);
        }
    return w;
  }();
  return all;
}

int count(const Board& b, const std::array<int, 6>& w, Stone s) {
  int n = 0;
  for (int c : w) {
    if (b.at(c) == s) ++n;
    if (b.at(c) == other(s)) return -1;
  }
  return n;
}

// The windows where `s` needs at most two more stones for six.
std::vector<std::array<int, 6>> fours(const Board& b, Stone s) {
  std::vector<std::array<int, 6>> out;
  for (const auto& w : windows())
    if (count(b, w, s) >= 4) out.push_back(w);
  return out;
}

// True when no two stones hit every window of `ws` (and there is one).
bool unblockable(const Board& b, const std::vector<std::array<int, 6>>& ws) {
  if (ws.empty()) return false;
  std::vector<int> cells;
  for (const auto& w : ws)
    for (int c : w)
      if (b.at(c) == Empty) cells.push_back(c);
  const auto in = [](const std::array<int, 6>& w, int c) { return std::find(w.begin(), w.end(), c) != w.end(); };
  for (std::size_t i = 0; i < cells.size(); ++i)
    for (std::size_t j = i; j < cells.size(); ++j) {
      bool all = true;
      for (const auto& w : ws) all = all && (in(w, cells[i]) || in(w, cells[j]));
      if (all) return false;
    }
  return true;
}

// After a turn of `s`: the opponent (to move) has no six of its own and cannot block every four of s.
bool won_after(const Board& b, Stone s) {
  return b.winner() == s || (fours(b, other(s)).empty() && unblockable(b, fours(b, s)));
}

// `s`, to move, completes six now or makes fours two stones cannot block. Exhaustive: a stone only
// takes part in a new four through a window that holds two of s already and none of the other colour.
bool wins_in_one(const Board& b, Stone s) {
  if (!fours(b, s).empty()) return true;
  std::vector<int> cells;
  for (const auto& w : windows())
    if (count(b, w, s) >= 2)
      for (int c : w)
        if (b.at(c) == Empty && std::find(cells.begin(), cells.end(), c) == cells.end()) cells.push_back(c);
  Board t = b;
  for (std::size_t i = 0; i < cells.size(); ++i)
    for (std::size_t j = i + 1; j < cells.size(); ++j) {
      t.place(cells[i], s);
      t.place(cells[j], s);
      const bool won = won_after(t, s);
      t.remove(cells[j]);
      t.remove(cells[i]);
      if (won) return true;
    }
  return false;
}

SearchOptions tactics(int threat_depth = 8) {
  SearchOptions o;
  o.depth = 2;
  o.width = 12;
  o.threat_depth = threat_depth;
  o.threat_nodes = 4000;
  return o;
}

// Both sides play the search with `o` for `turns` turns of the side to move now (and the other side's
// answers); the winner, or Empty.
Stone play_out(Board b, const SearchOptions& o, int turns) {
  for (int t = 0; t < 2 * turns && !b.over(); ++t) {
    const SearchOutcome r = search(b, o);
    EXPECT_TRUE(b.play(r.best).ok()) << turn_name(r.best, Notation::Human);
  }
  return b.winner();
}

bool same_turn(const Turn& t, const char* x, const char* y) {
  return (t.a == cell(x) && t.b == cell(y)) || (t.a == cell(y) && t.b == cell(x));
}

// Black's two open threes (a row and a diagonal): one stone on each makes two open fours.
TEST(Connect6Tactics, DoubleFourFromTwoThrees) {
  const Board b = position({"D8", "E8", "F8", "K12", "L13", "M14"}, {"A1", "T1", "A19", "T19", "K1"});
  ASSERT_EQ(b.to_move(), BlackStone);
  ASSERT_TRUE(wins_in_one(b, BlackStone));
  const SearchOutcome r = search(b, tactics());
  EXPECT_TRUE(r.forced);
  EXPECT_GE(r.score, 500000);
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_TRUE(won_after(after, BlackStone)) << turn_name(r.best, Notation::Human);
}

// One stone on K10 extends a row three and a column three into two fours at once.
TEST(Connect6Tactics, OneStoneJoinsTwoLines) {
  const Board b = position({"G10", "H10", "J10", "K11", "K12", "K13"}, {"A1", "T1", "A19", "T19", "A10"});
  ASSERT_EQ(b.to_move(), BlackStone);
  const SearchOutcome r = search(b, tactics());
  EXPECT_TRUE(r.forced);
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_TRUE(won_after(after, BlackStone)) << turn_name(r.best, Notation::Human);
}

// The same for White: two diagonal threes.
TEST(Connect6Tactics, WhiteDoubleFourOnDiagonals) {
  const Board b = position({"K10", "A19", "T19", "A10", "T10", "K19", "S19"}, {"C3", "D4", "E5", "N5", "O4", "P3"});
  ASSERT_EQ(b.to_move(), WhiteStone);
  const SearchOutcome r = search(b, tactics());
  EXPECT_TRUE(r.forced);
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_TRUE(won_after(after, WhiteStone)) << turn_name(r.best, Notation::Human);
}

// White has a four with one open end (G15/H15): Black must block it, and does so while making two
// fours through H5 (row E5-H5, column H5-H8) — the only kind of turn that wins now.
TEST(Connect6Tactics, BlocksTheFourAndWins) {
  const Board b = position({"B15", "E5", "F5", "G5", "H6", "H7", "H8"}, {"C15", "D15", "E15", "F15"});
  ASSERT_EQ(b.to_move(), BlackStone);
  const SearchOutcome r = search(b, tactics());
  EXPECT_TRUE(r.forced);
  EXPECT_TRUE(same_turn(r.best, "H5", "G15") || same_turn(r.best, "H5", "H15")) << turn_name(r.best, Notation::Human);
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_TRUE(won_after(after, BlackStone));
}

// No win in one turn (checked exhaustively), but a VCF in two: make the row a four (White must spend
// both stones on it) with Q12 joining two twos (column Q13-Q14, anti-diagonal P13-O14) into threes,
// then two fours. A threat search of one turn
// does not see it; one of two turns or more does, and the line wins when played out.
TEST(Connect6Tactics, VcfInTwoTurns) {
  const Board b = position({"E5", "F5", "G5", "Q13", "Q14", "P13", "O14"}, {"A19", "T19", "A1", "T1"});
  ASSERT_EQ(b.to_move(), BlackStone);
  ASSERT_FALSE(wins_in_one(b, BlackStone));
  EXPECT_FALSE(search(b, tactics(1)).forced);
  const SearchOutcome r = search(b, tactics(2));
  EXPECT_TRUE(r.forced);
  EXPECT_EQ(r.depth, 2);
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_FALSE(fours(after, BlackStone).empty()) << "a VCF turn makes a four";
  EXPECT_EQ(play_out(b, tactics(), 3), BlackStone);
}

// The same VCF, White to move (two more White stones in the corners): an alpha-beta of two turns at
// width 48 without the root's threat searches sees no threat to block and leaves Black its win; with
// the VCF inside its tree it scores every White turn that leaves Black the VCF as lost and picks one
// after which the threat search finds no Black win. (At width 12 no candidate turn defends: the tree
// search then scores the root as lost.)
TEST(Connect6Tactics, TreeThreatsStopTheVcfInTwo) {
  const Board b = position({"E5", "F5", "G5", "Q13", "Q14", "P13", "O14"}, {"A19", "T19", "A1", "T1", "K1", "A10"});
  ASSERT_EQ(b.to_move(), WhiteStone);
  SearchOptions o = tactics(0);
  o.vcf_depth = 0;
  o.width = 48;
  const auto black_wins_after = [&](const Turn& t) {
    Board after = b;
    EXPECT_TRUE(after.play(t).ok());
    return search(after, tactics(4)).forced;
  };
  const SearchOutcome plain = search(b, o);
  EXPECT_TRUE(black_wins_after(plain.best)) << turn_name(plain.best, Notation::Human);
  o.tree_threat_depth = 4;
  o.tree_threat_nodes = 20000;
  const SearchOutcome r = search(b, o);
  EXPECT_GT(r.score, -500000);
  EXPECT_FALSE(black_wins_after(r.best)) << turn_name(r.best, Notation::Human);
}

// A VCF of three turns: the row three C3-E3 becomes a four (White spends both stones) while D11 makes
// the column D9-D11 a three; that column becomes a four while F11 makes the split row C11-F11 and the
// split column F11-F15 threes; two fours come only on the third turn (no empty cell joins two twos).
TEST(Connect6Tactics, VcfInThreeTurns) {
  const Board b =
      position({"C3", "D3", "E3", "D9", "D10", "C11", "F13", "F15"}, {"A19", "T19", "T1", "K1", "S10", "A10", "T14"});
  ASSERT_EQ(b.to_move(), BlackStone);
  ASSERT_FALSE(wins_in_one(b, BlackStone));
  const SearchOutcome r = search(b, tactics());
  EXPECT_TRUE(r.forced);
  EXPECT_EQ(r.depth, 3) << turn_name(r.best, Notation::Human);
  EXPECT_EQ(play_out(b, tactics(), 4), BlackStone);
}

// The same shape for White (a column and a diagonal joined on M12).
TEST(Connect6Tactics, WhiteVcfInTwoTurns) {
  const Board b = position({"A1", "T1", "A10", "T10", "K1", "S1"}, {"E15", "F15", "G15", "M10", "M11", "N13", "O14"});
  ASSERT_EQ(b.to_move(), WhiteStone);
  ASSERT_FALSE(wins_in_one(b, WhiteStone));
  const SearchOutcome r = search(b, tactics());
  EXPECT_TRUE(r.forced);
  EXPECT_EQ(play_out(b, tactics(), 3), WhiteStone);
}

// Only twos on the board: no four can be made that wins, but a quiet turn (K10 joins a row two and a
// column two, P7 a diagonal) leaves three threes, more than two stones can stop (VCT).
TEST(Connect6Tactics, VctThroughThreeThrees) {
  const Board b = position({"F10", "G10", "K12", "K13", "N5", "O6"}, {"A19", "T19", "A1", "T1", "K19"});
  ASSERT_EQ(b.to_move(), BlackStone);
  ASSERT_FALSE(wins_in_one(b, BlackStone));
  const SearchOutcome r = search(b, tactics());
  EXPECT_TRUE(r.forced);
  EXPECT_EQ(play_out(b, tactics(), 5), BlackStone);
}

// White threatens a double four (a row three and a column three); Black's turn must leave White no
// winning turn (checked over every White pair that could matter).
TEST(Connect6Tactics, BreaksTwoThrees) {
  const Board b = position({"K10", "A1", "T1", "A19", "T19"}, {"D12", "E12", "F12", "P5", "P6", "P7"});
  ASSERT_EQ(b.to_move(), BlackStone);
  ASSERT_TRUE(wins_in_one(b, WhiteStone));  // were it White's turn
  const SearchOutcome r = search(b, tactics());
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_FALSE(wins_in_one(after, WhiteStone)) << turn_name(r.best, Notation::Human);
}

// The same for White against Black's row and diagonal threes.
TEST(Connect6Tactics, WhiteBreaksTwoThrees) {
  const Board b = position({"E5", "F5", "G5", "K12", "L13", "M14"}, {"K10", "A1", "T1"});
  ASSERT_EQ(b.to_move(), WhiteStone);
  const SearchOutcome r = search(b, tactics());
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_FALSE(wins_in_one(after, BlackStone)) << turn_name(r.best, Notation::Human);
}

// White has a four (one block, G15 or H15) and an open three: one stone on the four, one on the three.
TEST(Connect6Tactics, BlocksTheFourAndBreaksTheThree) {
  const Board b = position({"B15", "K10", "A1", "T1"}, {"C15", "D15", "E15", "F15", "P5", "P6", "P7"});
  ASSERT_EQ(b.to_move(), BlackStone);
  const SearchOutcome r = search(b, tactics());
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_TRUE(fours(after, WhiteStone).empty()) << turn_name(r.best, Notation::Human);
  EXPECT_FALSE(wins_in_one(after, WhiteStone)) << turn_name(r.best, Notation::Human);
}

// An open five (D5-H5): C5 and J5 together are the only saving turn.
TEST(Connect6Tactics, TheOnlyBlockOfAnOpenFive) {
  const Board b = position({"D5", "E5", "F5", "G5", "H5"}, {"A19", "T19", "K15", "A10"});
  ASSERT_EQ(b.to_move(), WhiteStone);
  const SearchOutcome r = search(b, tactics());
  EXPECT_TRUE(same_turn(r.best, "C5", "J5")) << turn_name(r.best, Notation::Human);
}

// White has the two-turn VCF of WhiteVcfInTwoTurns but Black moves first: after Black's turn White
// has no win in one, and played out (both sides searching) White does not win within two turns.
TEST(Connect6Tactics, DefendsAgainstAVcfInTwo) {
  const Board b = position({"A1", "T1", "A10", "T10"}, {"E15", "F15", "G15", "M10", "M11", "N13", "O14"});
  ASSERT_EQ(b.to_move(), BlackStone);
  const SearchOutcome r = search(b, tactics());
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_FALSE(wins_in_one(after, WhiteStone)) << turn_name(r.best, Notation::Human);
  SearchOptions quick = tactics();
  quick.threat_nodes = 2000;
  EXPECT_NE(play_out(after, quick, 2), WhiteStone) << turn_name(r.best, Notation::Human);
}

// Positions from refereed games (the 64-game match of docs/search.md, seed 101), set up here stone by
// stone, White to move. The search without the threat space (threat_depth 0, the same depth and width)
// chose turns after which Black had a winning turn; every claim below is checked without the search.
// Game 12, twice: White's threat-space win (the turn also leaves Black no winning turn).
TEST(Connect6Tactics, WinsInAGamePosition) {
  const Board first = position({"G6", "M6", "J7", "K8", "J9", "K9", "L9", "K10", "J11"},
                               {"H6", "J6", "K6", "L6", "H8", "L8", "M10", "K12"});
  const Board later = position({"G4", "G6", "M6", "J7", "K8", "O8", "J9", "K9", "L9", "M9", "K10", "J11", "J13"},
                               {"H5", "H6", "J6", "K6", "L6", "K7", "H8", "L8", "N9", "M10", "L11", "K12"});
  for (const Board& b : {first, later}) {
    ASSERT_EQ(b.to_move(), WhiteStone);
    const SearchOutcome r = search(b, tactics());
    EXPECT_TRUE(r.forced);
    Board after = b;
    ASSERT_TRUE(after.play(r.best).ok());
    EXPECT_FALSE(wins_in_one(after, BlackStone)) << turn_name(r.best, Notation::Human);
  }
}

// Game 29 (White has no win of its own): the defence must leave Black no winning turn (checked over
// every Black pair that could matter); game 11's opening: played on, Black does not win within three
// turns.
TEST(Connect6Tactics, DefendsInAGamePosition) {
  const Board b = position({"M7", "L8", "K9", "L9", "K10", "K11", "H12", "K12", "L12", "M12", "F14"},
                           {"M6", "H8", "K8", "M8", "M9", "L10", "M10", "J11", "J12", "N12"});
  ASSERT_EQ(b.to_move(), WhiteStone);
  const SearchOutcome r = search(b, tactics());
  Board after = b;
  ASSERT_TRUE(after.play(r.best).ok());
  EXPECT_FALSE(wins_in_one(after, BlackStone)) << turn_name(r.best, Notation::Human);
  const Board opening = position({"J7", "K8", "K9", "L9", "K10"}, {"K6", "H8", "L8", "K12"});
  ASSERT_EQ(opening.to_move(), WhiteStone);
  SearchOptions quick = tactics();
  quick.threat_nodes = 2000;
  EXPECT_NE(play_out(opening, quick, 3), BlackStone);
}

// The threat search is off by default (the library's signatures stay); a budget of one node proves
// nothing and still gives a legal turn; the same search twice gives the same turn and node count.
TEST(Connect6Tactics, OffByDefaultBoundedAndDeterministic) {
  const Board b = position({"E5", "F5", "G5", "Q13", "Q14", "P13", "O14"}, {"A19", "T19", "A1", "T1"});
  EXPECT_EQ(SearchOptions{}.threat_depth, 0);
  SearchOptions o = tactics();
  o.threat_nodes = 1;
  const SearchOutcome tiny = search(b, o);
  EXPECT_FALSE(tiny.forced);
  Board after = b;
  EXPECT_TRUE(after.play(tiny.best).ok());
  const SearchOutcome one = search(b, tactics()), two = search(b, tactics());
  EXPECT_EQ(one.best, two.best);
  EXPECT_EQ(one.nodes, two.nodes);
}

}  // namespace
}  // namespace warpmind::search::connect6
