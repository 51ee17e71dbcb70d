// The learned Connect6 evaluation (connect6_network.h): the board's window codes kept against a recount,
// the value equal to the header's formula written out independently and the same on every SIMD path, the
// accumulators kept stone by stone equal to a fresh count, bad files refused, and the search reading it
// (deterministic, legal, the same wins found).
#include <gtest/gtest.h>

#include <random>

#include "warpmind/core/random.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/connect6_network.h"

namespace warpmind::search::connect6 {
namespace {

Network::Weights random_weights(int features, unsigned seed) {
  std::mt19937 rng(seed);
  const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Network::Weights w;
  w.features = features;
  const std::size_t f = static_cast<std::size_t>(features);
  for (std::size_t i = 0; i < Network::kCodes * f; ++i)
    w.pattern_weights.push_back(static_cast<std::int16_t>(uniform(-6, 6)));
  for (std::size_t i = 0; i < f; ++i) w.pattern_bias.push_back(static_cast<std::int16_t>(uniform(-30, 100)));
  for (std::size_t i = 0; i < Network::kL2 * 2 * f; ++i)
    w.l2_weights.push_back(static_cast<std::int8_t>(uniform(-128, 127)));
  for (int i = 0; i < Network::kL2; ++i) w.l2_bias.push_back(uniform(-20000, 20000));
  for (int i = 0; i < Network::kL3 * Network::kL2; ++i)
    w.l3_weights.push_back(static_cast<std::int8_t>(uniform(-128, 127)));
  for (int i = 0; i < Network::kL3; ++i) w.l3_bias.push_back(uniform(-5000, 5000));
  for (int i = 0; i < Network::kL3; ++i) w.out_weights.push_back(static_cast<std::int16_t>(uniform(-2000, 2000)));
  w.out_bias = uniform(-100000, 100000);
  for (int i = 0; i < Network::kCodes * Network::kWindowCells; ++i)
    w.cell_weights.push_back(static_cast<std::int16_t>(uniform(-500, 500)));
  return w;
}

std::shared_ptr<const Network> from_weights(const Network::Weights& w) {
  const std::vector<std::uint8_t> bytes = Network::encode(w);
  std::shared_ptr<const Network> n;
  EXPECT_TRUE(Network::parse(bytes.data(), bytes.size(), n).ok());
  return n;
}

// Boards from random games (random turns near the stones, the game over or not).
std::vector<Board> random_boards(int games, unsigned seed) {
  SplitMix64 rng(seed);
  std::vector<Board> out;
  for (int g = 0; g < games; ++g) {
    Board b;
    std::vector<Turn> c;
    for (int k = 0; k < 40 && !b.over(); ++k) {
      candidate_turns(b, 24, c);
      (void)b.play(c[rng.below(static_cast<std::uint32_t>(c.size()))]);
      out.push_back(b);
    }
  }
  return out;
}

// A window's code from Black's view, recounted from its cells.
int code_of(const Board& b, int w) {
  int code = 0;
  for (int k = 5; k >= 0; --k) code = code * 3 + b.at(window_cells(w)[static_cast<std::size_t>(k)]);
  return code;
}

TEST(Connect6Network, WindowCodesAreKeptOnPlaceAndUndo) {
  SplitMix64 rng(3);
  Board b;
  std::vector<Turn> played, c;
  int checked = 0;
  for (int k = 0; k < 60 && !b.over(); ++k) {
    candidate_turns(b, 24, c);
    const Turn t = c[rng.below(static_cast<std::uint32_t>(c.size()))];
    ASSERT_TRUE(b.play(t).ok());
    played.push_back(t);
    for (int w = 0; w < kWindows; ++w) ASSERT_EQ(b.window_code(w), code_of(b, w)) << w;
    ++checked;
  }
  while (!played.empty()) {
    b.undo(played.back());
    played.pop_back();
  }
  for (int w = 0; w < kWindows; ++w) EXPECT_EQ(b.window_code(w), 0);
  EXPECT_GT(checked, 10);
  // Every cell lies in at least one window, the windows are distinct and six cells in a line.
  std::vector<int> through(kCells, 0);
  for (int w = 0; w < kWindows; ++w) {
    const auto& cells = window_cells(w);
    const int step = cells[1] - cells[0];
    for (int k = 0; k < 6; ++k) ++through[static_cast<std::size_t>(cells[static_cast<std::size_t>(k)])];
    for (int k = 1; k < 6; ++k)
      EXPECT_EQ(cells[static_cast<std::size_t>(k)] - cells[static_cast<std::size_t>(k - 1)], step);
  }
  for (int n : through) EXPECT_GE(n, 3);
}

// The header's formula written out from the cells, independently of the network's code.
int formula(const Network::Weights& w, const Board& b) {
  const std::size_t f = static_cast<std::size_t>(w.features);
  std::vector<std::int64_t> x[2];  // [Black's view, White's]
  for (int view = 0; view < 2; ++view) {
    std::vector<std::int64_t> acc(w.pattern_bias.begin(), w.pattern_bias.end());
    for (int win = 0; win < kWindows; ++win) {
      int code = 0;
      for (int k = 5; k >= 0; --k) {
        const int s = b.at(window_cells(win)[static_cast<std::size_t>(k)]);
        code = code * 3 + (s == 0 ? 0 : (view == 0 ? s : 3 - s));
      }
      if (code == 0) continue;
      for (std::size_t i = 0; i < f; ++i) acc[i] += w.pattern_weights[static_cast<std::size_t>(code) * f + i];
    }
    for (std::int64_t a : acc) x[view].push_back(std::clamp<std::int64_t>(static_cast<std::int16_t>(a), 0, 127));
  }
  const int us = b.to_move() == BlackStone ? 0 : 1;
  std::vector<std::int64_t> in = x[us];
  in.insert(in.end(), x[us ^ 1].begin(), x[us ^ 1].end());
  std::int64_t h2[16], o = w.out_bias;
  for (std::size_t j = 0; j < 16; ++j) {
    std::int64_t v = w.l2_bias[j];
    for (std::size_t i = 0; i < 2 * f; ++i) v += in[i] * w.l2_weights[j * 2 * f + i];
    h2[j] = std::clamp<std::int64_t>(v >> 6, 0, 127);
  }
  for (std::size_t k = 0; k < 32; ++k) {
    std::int64_t v = w.l3_bias[k];
    for (std::size_t j = 0; j < 16; ++j) v += h2[j] * w.l3_weights[k * 16 + j];
    o += std::clamp<std::int64_t>(v >> 6, 0, 127) * w.out_weights[k];
  }
  return static_cast<int>(std::clamp<std::int64_t>(o * 400 / (127 * 256), -20000, 20000));
}

TEST(Connect6Network, ValueFollowsTheFormulaOnEverySimdPath) {
  const Network::Weights w = random_weights(64, 5);
  const auto net = from_weights(w);
  ASSERT_TRUE(net);
  int distinct = 0, last = 0;
  for (const Board& b : random_boards(12, 7)) {
    const int v = net->evaluate(b);
    ASSERT_EQ(v, formula(w, b));
    Network::Accumulator acc;
    net->refresh(b, acc);
    for (Simd s : {Simd::Scalar, Simd::Sse2, Simd::Avx2}) {
      if (!supported(s)) continue;
      EXPECT_EQ(net->value(b, acc, s), v);
    }
    distinct += v != last;
    last = v;
  }
  EXPECT_GT(distinct, 50);
}

TEST(Connect6Network, AccumulatorsKeptStoneByStoneEqualAFreshCount) {
  const auto net = from_weights(random_weights(32, 6));
  SplitMix64 rng(8);
  for (int g = 0; g < 6; ++g) {
    Board b;
    Network::Accumulator kept, fresh;
    net->refresh(b, kept);
    std::vector<Turn> c;
    for (int k = 0; k < 50 && !b.over(); ++k) {
      candidate_turns(b, 24, c);
      const Turn t = c[rng.below(static_cast<std::uint32_t>(c.size()))];
      const Stone s = b.to_move();
      for (int cell : {t.a, t.b}) {
        if (cell < 0) continue;
        b.place(cell, s);
        net->place(b, cell, kept);
      }
      net->refresh(b, fresh);
      for (int view = 0; view < 2; ++view)
        ASSERT_TRUE(std::equal(kept.units[view].begin(), kept.units[view].begin() + 32, fresh.units[view].begin()));
    }
  }
}

TEST(Connect6Network, CellScoresSumTheWindowsThroughTheCell) {
  const Network::Weights w = random_weights(32, 9);
  const auto net = from_weights(w);
  for (const Board& b : random_boards(4, 10))
    for (int cell = 0; cell < kCells; cell += 7) {
      if (b.at(cell) != Empty) continue;
      for (Stone mover : {BlackStone, WhiteStone}) {
        int want = 0;
        for (int win = 0; win < kWindows; ++win)
          for (int k = 0; k < 6; ++k)
            if (window_cells(win)[static_cast<std::size_t>(k)] == cell) {
              int code = 0;
              for (int i = 5; i >= 0; --i) {
                const int s = b.at(window_cells(win)[static_cast<std::size_t>(i)]);
                code = code * 3 + (s == 0 ? 0 : (s == mover ? 1 : 2));
              }
              want += w.cell_weights[static_cast<std::size_t>(code) * 6 + static_cast<std::size_t>(k)];
            }
        EXPECT_EQ(net->cell_score(b, cell, mover), want);
      }
    }
}

TEST(Connect6Network, BadFilesAreRefusedAndChangeNothing) {
  const std::vector<std::uint8_t> good = Network::encode(random_weights(32, 11));
  const auto keep = from_weights(random_weights(32, 12));
  const auto refused = [&](std::vector<std::uint8_t> bytes, const char* what) {
    std::shared_ptr<const Network> out = keep;
    const Status st = Network::parse(bytes.data(), bytes.size(), out);
    EXPECT_FALSE(st.ok()) << what;
    EXPECT_EQ(out, keep) << what;
    return st.message();
  };
  auto bad = good;
  bad[3] = 'X';
  EXPECT_NE(refused(bad, "magic").find("WMC6"), std::string::npos);
  bad = good;
  bad[4] = 2;
  EXPECT_NE(refused(bad, "version").find("version"), std::string::npos);
  bad = good;
  bad[8] = 48;
  EXPECT_NE(refused(bad, "features").find("features"), std::string::npos);
  bad = good;
  bad[8] = 64;  // the size no longer fits
  EXPECT_NE(refused(bad, "shape").find("bytes"), std::string::npos);
  bad = good;
  bad.pop_back();
  refused(bad, "short");
  refused({}, "empty");
  std::shared_ptr<const Network> out;
  EXPECT_FALSE(Network::load("/nonexistent/c6.wmn", out).ok());
  EXPECT_TRUE(Network::parse(good.data(), good.size(), out).ok());
  EXPECT_EQ(Network::encode(out->weights()), good);
  EXPECT_TRUE(Network::builtin());
}

// The search with a network: the same result twice (deterministic), a legal turn, and a win on the board
// (a five of ours to complete) taken as the window-count evaluation takes it.
TEST(Connect6Network, SearchReadsItDeterministically) {
  const auto net = from_weights(random_weights(32, 13));
  for (const Board& start : random_boards(3, 14)) {
    if (start.over()) continue;
    SearchOptions o;
    o.depth = 3;
    o.network = net;
    const SearchOutcome a = search(start, o), b = search(start, o);
    EXPECT_EQ(a.best, b.best);
    EXPECT_EQ(a.score, b.score);
    EXPECT_EQ(a.nodes, b.nodes);
    Board copy = start;
    EXPECT_TRUE(copy.play(a.best).ok());
  }
  Board b;
  for (const char* t : {"K10", "A1A2", "K11K12", "A4A5", "K13K14"}) {
    Turn turn;
    ASSERT_TRUE(parse_turn(t, turn).ok());
    ASSERT_TRUE(b.play(turn).ok());
  }
  // White to move: Black has five in a column (K10..K14). White must block; with its move Black would win.
  SearchOptions o;
  o.depth = 2;
  o.network = net;
  const SearchOutcome r = search(b, o);
  SearchOptions classical = o;
  classical.network = nullptr;
  EXPECT_EQ(r.best, search(b, classical).best);
}

}  // namespace
}  // namespace warpmind::search::connect6
