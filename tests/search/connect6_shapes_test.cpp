// Connect6's named shapes (connect6_eval.h, line_shapes): the shapes players name, each on a line of its
// own, and the classifier against a brute force on random and adversarial lines — the brute force adds
// every set of 4 - m stones to a group of two or three and looks for a single empty cell that stops
// every window of four or more.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "warpmind/core/random.h"
#include "search/connect6/connect6_eval.h"
#include "warpmind/search/connect6.h"

namespace warpmind::search::connect6 {
namespace {

namespace ce = eval;
using Counts = int[3][ce::kShapeKinds];

// A line from text: '.' empty, 'x' black, 'o' white.
std::vector<std::uint8_t> line(const std::string& text) {
  std::vector<std::uint8_t> v;
  for (char c : text) v.push_back(c == 'x' ? 1 : c == 'o' ? 2 : 0);
  return v;
}

void shapes(const std::vector<std::uint8_t>& v, Counts& out) {
  for (auto& row : out)
    for (int& c : row) c = 0;
  ce::line_shapes(v.data(), static_cast<int>(v.size()), out);
}

// The shape black's stones form on `text` (exactly one group expected), or -1 for none.
int black_shape(const std::string& text) {
  Counts n;
  shapes(line(text), n);
  int found = -1, total = 0;
  for (int k = 0; k < ce::kShapeKinds; ++k)
    if (n[1][k]) found = k, total += n[1][k];
  EXPECT_LE(total, 1) << text;
  return found;
}

TEST(Connect6Shapes, TheNamedShapes) {
  const std::string open(6, '.');
  EXPECT_EQ(black_shape(open + "xx" + open), ce::kLiveTwo);
  EXPECT_EQ(black_shape(open + "x.x" + open), ce::kLiveTwo);
  EXPECT_EQ(black_shape("oxx....o"), ce::kSleepingTwo);  // room for one window of four only
  EXPECT_EQ(black_shape(open + "xxx" + open), ce::kLiveThree);
  EXPECT_EQ(black_shape(open + "xx.x" + open), ce::kLiveThree);
  EXPECT_EQ(black_shape("oxxx...o"), ce::kSleepingThree);
  EXPECT_EQ(black_shape("ox.x.x...o"), ce::kSleepingThree);
  EXPECT_EQ(black_shape(open + "xxxx" + open), ce::kLiveFour);  // .xxxx. needs two blocks
  EXPECT_EQ(black_shape("oxxxx.." + open), ce::kSleepingFour);
  EXPECT_EQ(black_shape(open + "xx.xx" + open), ce::kSleepingFour);  // the middle cell stops it
  EXPECT_EQ(black_shape(open + "xxxxx" + open), ce::kLiveFive);
  EXPECT_EQ(black_shape("oxxxxx.o"), ce::kSleepingFive);
  EXPECT_EQ(black_shape(open + "xxx.xx" + open), ce::kSleepingFive);
  EXPECT_EQ(black_shape("xxxx....xxxx"), ce::kLiveFour);     // two fours no stone can both stop
  EXPECT_EQ(black_shape("xxxx...xxxx"), ce::kSleepingFour);  // the middle cell stops both
  EXPECT_EQ(black_shape(open + "x" + open), -1);             // one stone is no shape
  EXPECT_EQ(black_shape("oxx...o"), -1);                     // no room for six
  EXPECT_EQ(black_shape("xxxxxx"), -1);                      // a six is a win, counted by the windows
  // Two groups on one line: stones seven cells apart share no window.
  Counts n;
  shapes(line("xx.......xxx......."), n);
  EXPECT_EQ(n[1][ce::kLiveTwo] + n[1][ce::kSleepingTwo], 1);
  EXPECT_EQ(n[1][ce::kLiveThree], 1);
  // Both colours, and white's shapes unaffected by black's beyond its blocks.
  shapes(line("...xxxo.....ooo...."), n);
  EXPECT_EQ(n[1][ce::kSleepingThree], 1);
  EXPECT_EQ(n[2][ce::kLiveThree], 1);
}

// The brute force: one group [g0, g1] (window starts) of colour p with size m.
bool brute_live(std::vector<std::uint8_t> v, int p, int g0, int g1, int m) {
  const int n = static_cast<int>(v.size()), o = 3 - p;
  const auto stopped_by_one = [&](const std::vector<std::uint8_t>& w) {
    std::vector<int> fours;
    for (int s = g0; s <= g1; ++s) {
      int mine = 0, theirs = 0;
      for (int i = s; i < s + 6; ++i)
        mine += w[static_cast<std::size_t>(i)] == p, theirs += w[static_cast<std::size_t>(i)] == o;
      if (!theirs && mine >= 4) fours.push_back(s);
    }
    if (fours.empty()) return true;  // nothing to stop
    for (int c = 0; c < n; ++c) {
      if (w[static_cast<std::size_t>(c)]) continue;
      bool all = true;
      for (int s : fours) all = all && c >= s && c < s + 6;
      if (all) return true;
    }
    return false;
  };
  if (m >= 4) return !stopped_by_one(v);
  std::vector<int> cells;
  for (int c = g0; c <= g1 + 5; ++c)
    if (!v[static_cast<std::size_t>(c)]) cells.push_back(c);
  const int add = 4 - m, k = static_cast<int>(cells.size());
  for (int i = 0; i < k; ++i) {
    v[static_cast<std::size_t>(cells[static_cast<std::size_t>(i)])] = static_cast<std::uint8_t>(p);
    if (add == 1 && !stopped_by_one(v)) return true;
    if (add == 2)
      for (int j = i + 1; j < k; ++j) {
        v[static_cast<std::size_t>(cells[static_cast<std::size_t>(j)])] = static_cast<std::uint8_t>(p);
        const bool live = !stopped_by_one(v);
        v[static_cast<std::size_t>(cells[static_cast<std::size_t>(j)])] = 0;
        if (live) return true;
      }
    v[static_cast<std::size_t>(cells[static_cast<std::size_t>(i)])] = 0;
  }
  return false;
}

void brute_shapes(const std::vector<std::uint8_t>& v, Counts& out) {
  for (auto& row : out)
    for (int& c : row) c = 0;
  const int n = static_cast<int>(v.size());
  for (int p = 1; p <= 2; ++p) {
    const auto stones = [&](int s) {
      int mine = 0, theirs = 0;
      for (int i = s; i < s + 6; ++i)
        mine += v[static_cast<std::size_t>(i)] == p, theirs += v[static_cast<std::size_t>(i)] == 3 - p;
      return theirs ? 0 : mine;
    };
    for (int s = 0; s <= n - 6;) {
      if (!stones(s)) {
        ++s;
        continue;
      }
      const int g0 = s;
      int m = 0;
      for (; s <= n - 6 && stones(s); ++s) m = std::max(m, stones(s));
      if (m >= 2 && m <= 5) ++out[p][(m - 2) * 2 + (brute_live(v, p, g0, s - 1, m) ? 0 : 1)];
    }
  }
}

TEST(Connect6Shapes, ClassifierEqualsTheBruteForce) {
  SplitMix64 rng(11);
  int compared = 0, live = 0, sleeping = 0;
  for (int trial = 0; trial < 60000; ++trial) {
    const int n = 6 + static_cast<int>(rng.next() % 14);
    // Densities from sparse to crowded; every fifth line one colour only (long groups, fives, overlines).
    const int empty_pct = 35 + static_cast<int>(rng.next() % 60), one_colour = trial % 5 == 0;
    std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
    for (auto& c : v) {
      const int r = static_cast<int>(rng.next() % 100);
      c = r < empty_pct ? 0 : (one_colour || r % 2) ? 1 : 2;
    }
    Counts got, want;
    shapes(v, got);
    brute_shapes(v, want);
    for (int p = 1; p <= 2; ++p)
      for (int k = 0; k < ce::kShapeKinds; ++k) {
        std::string text;
        for (auto c : v) text += c == 1 ? 'x' : c == 2 ? 'o' : '.';
        ASSERT_EQ(got[p][k], want[p][k]) << text << " colour " << p << " shape " << k;
        (k % 2 ? sleeping : live) += got[p][k];
      }
    ++compared;
  }
  EXPECT_EQ(compared, 60000);
  EXPECT_GT(live, 1000);  // both kinds occur often, so the comparison covers them
  EXPECT_GT(sleeping, 1000);
}

TEST(Connect6Shapes, EmptyAndFullLines) {
  Counts n;
  for (int len = 6; len <= 19; ++len) {
    shapes(std::vector<std::uint8_t>(static_cast<std::size_t>(len), 0), n);
    for (int p = 1; p <= 2; ++p)
      for (int k = 0; k < ce::kShapeKinds; ++k) EXPECT_EQ(n[p][k], 0);
    shapes(std::vector<std::uint8_t>(static_cast<std::size_t>(len), 1), n);  // a six or longer: a win, no shape
    for (int k = 0; k < ce::kShapeKinds; ++k) EXPECT_EQ(n[1][k], 0);
  }
}

// The board's lines cover every window exactly once: each window lies on one line.
TEST(Connect6Shapes, LinesCoverTheBoard) {
  int windows = 0;
  std::vector<int> seen(kCells * 4, 0);
  for (int l = 0; l < ce::kLines; ++l) {
    int x, y, dx, dy, len;
    ce::line_geometry(l, x, y, dx, dy, len);
    ASSERT_GE(len, 6);
    ASSERT_LE(len, 19);
    const int d = dx == 1 && dy == 0 ? 0 : dx == 0 ? 1 : dy == 1 ? 2 : 3;
    for (int i = 0; i < len; ++i) {
      const int cx = x + i * dx, cy = y + i * dy;
      ASSERT_TRUE(cx >= 0 && cx < kSize && cy >= 0 && cy < kSize) << l;
      ++seen[static_cast<std::size_t>((cy * kSize + cx) * 4 + d)];
    }
    windows += len - 5;
  }
  EXPECT_EQ(windows, 924);
  for (int c = 0; c < kCells; ++c) {
    EXPECT_EQ(seen[static_cast<std::size_t>(c * 4)], 1);      // every cell on one row
    EXPECT_EQ(seen[static_cast<std::size_t>(c * 4 + 1)], 1);  // and one column
  }
}

}  // namespace
}  // namespace warpmind::search::connect6
