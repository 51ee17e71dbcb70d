// Chess evaluation and search: the evaluation is colour-symmetric and integer; the search finds mates,
// wins material, stays legal under node and time limits, and the multi-threaded search agrees on forced
// lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <random>
#include <thread>

#include <time.h>

#include "warpmind/search/chess.h"
#include "warpmind/search/chess_eval_terms.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::search::chess {
namespace {

// The evaluation's linear form (chess_eval_terms.h): the counts times the built-in weights, blended by the
// phase and divisor as its header writes, give chess::evaluate back exactly — over random games from
// several openings (captures, promotions, bare end games and the drawish divisors among them).
TEST(ChessEvalTerms, CountsTimesTheBuiltInWeightsAreTheEvaluation) {
  namespace et = eval_terms;
  std::vector<std::pair<int, int>> w(static_cast<std::size_t>(et::count()));
  for (int k = 0; k < et::count(); ++k)
    et::weight(k, w[static_cast<std::size_t>(k)].first, w[static_cast<std::size_t>(k)].second);
  int next = et::kTerms;  // the groups cover the terms in order, without gaps
  for (const et::Group& g : et::groups()) {
    EXPECT_EQ(et::kTerms + g.first, next) << g.what;
    next += g.count;
  }
  EXPECT_EQ(next, et::count());
  std::mt19937 rng(7);
  et::Linear lin;
  int positions = 0, divisors = 0;
  for (const char* fen : {kStartFen, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                          "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "4k3/8/8/8/8/8/4P3/2B1K3 b - - 0 1",
                          "3bk3/8/8/8/8/8/8/2B1K3 w - - 0 1"}) {
    for (int game = 0; game < 20; ++game) {
      Position p;
      ASSERT_TRUE(parse_fen(fen, p).ok());
      for (int ply = 0; ply < 120; ++ply) {
        et::linearize(p, lin);
        long m = 0, e = 0;
        for (const auto& [k, diff] : lin.counts) {
          ASSERT_TRUE(k >= 0 && k < et::count() && diff != 0);
          m += static_cast<long>(diff) * w[static_cast<std::size_t>(k)].first;
          e += static_cast<long>(diff) * w[static_cast<std::size_t>(k)].second;
        }
        if (p.side == Black) m = -m, e = -e;
        ASSERT_TRUE(lin.divisor == 1 || lin.divisor == 2 || lin.divisor == 4);
        divisors += lin.divisor > 1;
        EXPECT_EQ((m * lin.phase + e / lin.divisor * (24 - lin.phase)) / 24 + et::tempo(), evaluate(p)) << to_fen(p);
        ++positions;
        MoveList moves;
        generate_legal(p, moves);
        if (moves.size == 0) break;
        Undo u;
        make_move(p, moves.moves[static_cast<std::size_t>(std::uniform_int_distribution<int>(0, moves.size - 1)(rng))],
                  u);
      }
    }
  }
  EXPECT_GT(positions, 5000);
  EXPECT_GT(divisors, 100);  // the bare end games exercise the divisors
}

// The same position with colours swapped and the board flipped.
std::string mirror(const std::string& fen) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : fen + " ") {
    if (c == ' ') {
      if (!cur.empty()) f.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  std::vector<std::string> ranks;
  std::string r;
  for (char c : f[0] + "/") {
    if (c == '/')
      ranks.push_back(r), r.clear();
    else
      r += static_cast<char>(std::isalpha(static_cast<unsigned char>(c))
                                 ? (std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c))
                                 : c);
  }
  std::reverse(ranks.begin(), ranks.end());
  std::string placement;
  for (std::size_t i = 0; i < ranks.size(); ++i) placement += (i ? "/" : "") + ranks[i];
  std::string castle;
  for (char c : f[2])
    castle += c == '-'
                  ? '-'
                  : static_cast<char>(std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c));
  std::sort(castle.begin(), castle.end(), [](char a, char b) {
    const auto k = [](char x) { return std::string("KQkq-").find(x); };
    return k(a) < k(b);
  });
  std::string ep = f[3];
  if (ep != "-") ep[1] = static_cast<char>('1' + ('8' - ep[1]));
  return placement + " " + (f[1] == "w" ? "b" : "w") + " " + castle + " " + ep + " " + f[4] + " " + f[5];
}

const char* kPositions[] = {
    kStartFen,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
};

TEST(ChessEval, ColourSymmetric) {
  for (const char* fen : kPositions) {
    Position a, b;
    ASSERT_TRUE(parse_fen(fen, a).ok());
    ASSERT_TRUE(parse_fen(mirror(fen), b).ok()) << mirror(fen);
    EXPECT_EQ(evaluate(a), evaluate(b)) << fen;
  }
  Position start;
  ASSERT_TRUE(parse_fen(kStartFen, start).ok());
  EXPECT_EQ(evaluate(start), 10);  // balanced, plus the tempo
  Position up_a_queen;
  ASSERT_TRUE(parse_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", up_a_queen).ok());
  EXPECT_GT(evaluate(up_a_queen), 700);
}

SearchResult run(const char* fen, const SearchLimits& l, int threads = 1,
                 std::shared_ptr<const Network> network = nullptr) {
  Position p;
  EXPECT_TRUE(parse_fen(fen, p).ok());
  Searcher s(16, threads);
  s.set_network(std::move(network));
  return s.search(p, {}, l);
}

class ChessSearchEval : public ::testing::TestWithParam<bool> {};  // the network, or the classical evaluation

TEST_P(ChessSearchEval, FindsMatesAndMaterial) {
  const auto run = [net = GetParam() ? Network::builtin() : nullptr](const char* fen, const SearchLimits& l) {
    return chess::run(fen, l, 1, net);
  };
  SearchLimits l;
  l.depth = 4;
  // Mate in one: Ra8#.
  SearchResult r = run("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", l);
  ASSERT_TRUE(r.has_move);
  EXPECT_EQ(move_to_uci(r.best), "a1a8");
  EXPECT_EQ(r.score, kMate - 1);
  // Mate in two for white, a back-rank pattern: Rd8+ Rxd8 Rxd8#, scored as a mate in three plies.
  l.depth = 6;
  r = run("2r3k1/5ppp/8/8/8/8/3R1PPP/3R2K1 w - - 0 1", l);
  EXPECT_EQ(r.score, kMate - 3);
  EXPECT_TRUE(move_to_uci(r.best) == "d1d8" || move_to_uci(r.best) == "d2d8") << move_to_uci(r.best);
  // The queen and rook position once called a mate in two here is a mate in one (Rb8#, or Qa8#).
  r = run("6k1/5ppp/8/8/8/8/Q4PPP/1R4K1 w - - 0 1", l);
  EXPECT_EQ(r.score, kMate - 1);
  // A hanging queen is taken.
  l.depth = 3;
  r = run("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", l);
  EXPECT_EQ(move_to_uci(r.best), "d2d5");
  // Mated and stalemated sides have no move.
  EXPECT_FALSE(run("6k1/5ppp/8/8/8/8/5PPP/r5K1 w - - 0 1", l).has_move);  // checkmated
  EXPECT_FALSE(run("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", l).has_move);        // stalemate
}
INSTANTIATE_TEST_SUITE_P(Evaluations, ChessSearchEval, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Network" : "Classical"; });

// How the search honours its limits (chess_search.cpp, Worker::out_of_time): each thread counts its
// nodes and, every kCheckInterval of them, adds them to the shared total and checks the node limit and
// the clock; a limit reached sets the stop flag, which every node tests. So a search stops at the first
// check at or past the limit, plus the nodes counted while the stack unwinds: at most one per ply (a
// frame may start its re-search of an interrupted null-window child, which stops at its first node).
// With T threads the shared total can lag the nodes counted by up to T check intervals.
constexpr std::uint64_t kCheckInterval = 1024;
constexpr std::uint64_t kUnwindNodes = 128;  // kMaxPly: one node per frame on the stack

// CPU time of the calling thread, on which a one-thread search runs: unlike the wall clock, it does not
// grow while a loaded machine keeps the thread waiting.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

TEST(ChessSearch, LimitsAreRespectedAndMovesLegal) {
  using Clock = std::chrono::steady_clock;
  const auto wall_ms = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  for (const char* fen : kPositions) {
    SCOPED_TRACE(fen);
    Position p;
    ASSERT_TRUE(parse_fen(fen, p).ok());
    MoveList legal;
    generate_legal(p, legal);
    for (const int threads : {1, 2}) {
      SearchLimits l;
      l.nodes = 20000;  // not a multiple of the check interval
      Searcher s(8, threads);
      const auto n0 = Clock::now();
      const double n0_cpu = thread_cpu_ms();
      const SearchResult r = s.search(p, {}, l);
      const double node_cpu_ms = thread_cpu_ms() - n0_cpu, node_ms = wall_ms(n0);
      ASSERT_TRUE(r.has_move);
      EXPECT_NE(std::find(legal.begin(), legal.end(), r.best), legal.end());
      // Never before the limit (the shared total only grows by whole check intervals, never past the
      // nodes counted); past it by at most one check interval per thread and the unwinding.
      EXPECT_GE(r.nodes, l.nodes) << threads << " threads";
      EXPECT_LE(r.nodes, l.nodes + static_cast<std::uint64_t>(threads) * (kCheckInterval + kUnwindNodes))
          << threads << " threads";
      if (threads > 1) continue;
      // One thread: the first check at or past 20,000 is at 20 x 1024 = 20,480 nodes.
      EXPECT_GE(r.nodes, 20480u);
      EXPECT_LE(r.nodes, 20480u + kUnwindNodes);
      // Time: the clock is read at the same checks, so the search returns once time_ms has passed (never
      // before: it stops only when it sees the deadline passed), having computed at most one check
      // interval and the unwinding after it. Before the deadline the thread can have had at most 50 ms of
      // CPU time, so its CPU time is at most 50 ms plus one interval's (measured on this machine from
      // the node-limited search just run; twice it, for positions whose nodes are slower, and 2 ms for
      // setting up), whatever the load. The wall clock adds the time a loaded machine keeps the thread
      // waiting for a core, bounded loosely: 100 ms.
      const double per_interval = static_cast<double>(kCheckInterval + kUnwindNodes) / static_cast<double>(r.nodes);
      const double interval_cpu_ms = node_cpu_ms * per_interval, interval_ms = node_ms * per_interval;
      SearchLimits t;
      t.time_ms = 50;
      const auto t0 = Clock::now();
      const double t0_cpu = thread_cpu_ms();
      const SearchResult rt = s.search(p, {}, t);
      const double cpu_ms = thread_cpu_ms() - t0_cpu, ms = wall_ms(t0);
      EXPECT_GE(ms, 50.0);
      EXPECT_LE(cpu_ms, 50.0 + 2.0 * interval_cpu_ms + 2.0)
          << "one check interval: " << interval_cpu_ms << " ms of CPU";
      EXPECT_LE(ms, 50.0 + 2.0 * interval_ms + 100.0) << "one check interval: " << interval_ms << " ms";
      EXPECT_GT(cpu_ms, 0.0);
      ASSERT_TRUE(rt.has_move);
      EXPECT_NE(std::find(legal.begin(), legal.end(), rt.best), legal.end());
      EXPECT_GE(rt.depth, 1);
    }
  }
}

// One thread at a fixed depth: a search after clear() repeats the first search exactly (move, score,
// nodes), while the histories kept from a search before it change the tree without clear().
TEST(ChessSearch, ClearMakesASearchRepeatable) {
  Position p;
  ASSERT_TRUE(parse_fen(kPositions[1], p).ok());
  SearchLimits l;
  l.depth = 8;
  Searcher s(8, 1);
  const SearchResult first = s.search(p, {}, l);
  const SearchResult warm = s.search(p, {}, l);  // the table and histories of the first search
  s.clear();
  const SearchResult again = s.search(p, {}, l);
  EXPECT_EQ(again.best, first.best);
  EXPECT_EQ(again.score, first.score);
  EXPECT_EQ(again.nodes, first.nodes);
  EXPECT_LT(warm.nodes, first.nodes);  // what was kept did carry over
}

TEST(ChessSearch, InfiniteRunsUntilStopAndThreadsAgreeOnForcedLines) {
  Position p;
  ASSERT_TRUE(parse_fen(kStartFen, p).ok());
  Searcher s(16, 2);
  SearchLimits l;
  l.infinite = true;
  SearchResult r;
  std::thread t([&] { r = s.search(p, {}, l); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  s.stop();
  t.join();
  EXPECT_TRUE(r.has_move);
  EXPECT_GE(r.depth, 1);
  SearchLimits d;
  d.depth = 5;
  EXPECT_EQ(move_to_uci(run("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", d, 3).best), "a1a8");
}

TEST(ChessSearch, RepetitionAndFiftyMovesAreDraws) {
  // Down a queen, White is saved by repeating: the position after Kf1 already occurred in the game.
  Position p;
  ASSERT_TRUE(parse_fen("3qk3/8/8/8/8/8/8/4K3 w - - 10 40", p).ok());
  Move kf1;
  ASSERT_TRUE(parse_uci_move(p, "e1f1", kf1).ok());
  Position q = p;
  Undo u;
  make_move(q, kf1, u);
  const std::vector<std::uint64_t> history = {1, q.key, 2, 3};
  Searcher s(8, 1);
  SearchLimits l;
  l.depth = 3;
  SearchResult r = s.search(p, history, l);
  EXPECT_EQ(move_to_uci(r.best), "e1f1");
  EXPECT_EQ(r.score, 0);
  s.clear();
  r = s.search(p, {}, l);  // without the history it is simply lost
  EXPECT_LT(r.score, -500);
  // Up a rook with the halfmove clock at 99: every move ends the game drawn.
  ASSERT_TRUE(parse_fen("7k/8/8/8/8/8/8/KR6 w - - 99 80", p).ok());
  s.clear();
  r = s.search(p, {}, l);
  EXPECT_EQ(r.score, 0);
}

// ---- the learned evaluation (chess_network.h) ----------------------------------------------------

// A network of random weights (seeded): accumulators that land on both sides of the units' clamp, and
// layer weights over the whole int8 range. `buckets` king buckets spread over the 32 king squares.
Network::Weights random_weights(int hidden, int buckets, unsigned seed) {
  std::mt19937 rng(seed);
  const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Network::Weights w;
  w.hidden = hidden;
  w.buckets = buckets;
  for (int k = 0; k < Network::kKingSquares; ++k)
    w.king_bucket[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k % buckets);
  const std::size_t h = static_cast<std::size_t>(hidden);
  for (std::size_t i = 0; i < static_cast<std::size_t>(buckets) * Network::kFeatures * h; ++i)
    w.feature_weights.push_back(static_cast<std::int16_t>(uniform(-12, 12)));
  for (std::size_t i = 0; i < h; ++i) w.feature_bias.push_back(static_cast<std::int16_t>(uniform(-40, 120)));
  for (std::size_t i = 0; i < Network::kStacks * Network::kL2 * 2 * h; ++i)
    w.l2_weights.push_back(static_cast<std::int8_t>(uniform(-128, 127)));
  for (int i = 0; i < Network::kStacks * Network::kL2; ++i) w.l2_bias.push_back(uniform(-20000, 20000));
  for (int i = 0; i < Network::kStacks * Network::kL3 * Network::kL2; ++i)
    w.l3_weights.push_back(static_cast<std::int8_t>(uniform(-128, 127)));
  for (int i = 0; i < Network::kStacks * Network::kL3; ++i) w.l3_bias.push_back(uniform(-5000, 5000));
  for (int i = 0; i < Network::kStacks * Network::kL3; ++i)
    w.out_weights.push_back(static_cast<std::int16_t>(uniform(-2000, 2000)));
  for (int i = 0; i < Network::kStacks; ++i) w.out_bias.push_back(uniform(-500000, 500000));
  return w;
}

std::shared_ptr<const Network> from_weights(const Network::Weights& w) {
  const std::vector<std::uint8_t> bytes = Network::encode(w);
  std::shared_ptr<const Network> n;
  EXPECT_TRUE(Network::parse(bytes.data(), bytes.size(), n).ok());
  return n;
}

// Positions from random games out of kPositions (castling, en passant and promotions among their moves).
std::vector<Position> random_positions(int per_start, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Position> out;
  for (const char* fen : kPositions) {
    Position p;
    EXPECT_TRUE(parse_fen(fen, p).ok());
    for (int i = 0; i < per_start; ++i) {
      out.push_back(p);
      MoveList list;
      generate_legal(p, list);
      if (list.size == 0) break;
      Undo u;
      make_move(p, list.moves[static_cast<std::size_t>(rng() % static_cast<unsigned>(list.size))], u);
    }
  }
  return out;
}

// The header's formula written out square by square, independently of the network's code.
int formula(const Network::Weights& w, const Position& p) {
  const std::size_t h = static_cast<std::size_t>(w.hidden);
  std::vector<std::int64_t> x[2];
  for (int persp = 0; persp < 2; ++persp) {
    std::vector<std::int64_t> acc(w.feature_bias.begin(), w.feature_bias.end());
    int king = p.king_square(static_cast<Color>(persp));
    if (persp == Black) king ^= 56;  // flipped: Black's pieces move up
    const bool mirrored = king % 8 >= 4;
    if (mirrored) king ^= 7;
    const int bucket = w.king_bucket[static_cast<std::size_t>(king / 8 * 4 + king % 8)];
    for (int sq = 0; sq < 64; ++sq) {
      if (p.board[sq] < 0) continue;
      const int s = (persp == Black ? sq ^ 56 : sq) ^ (mirrored ? 7 : 0);
      const std::size_t f =
          static_cast<std::size_t>(bucket * 768 + (p.color_at(sq) == persp ? 0 : 384) + p.type_at(sq) * 64 + s);
      for (std::size_t i = 0; i < h; ++i) acc[i] += w.feature_weights[f * h + i];
    }
    for (std::int64_t& a : acc) x[persp].push_back(std::clamp<std::int64_t>(static_cast<std::int16_t>(a), 0, 127));
  }
  std::vector<std::int64_t> in = x[p.side];
  in.insert(in.end(), x[p.side ^ 1].begin(), x[p.side ^ 1].end());
  const int pieces = __builtin_popcountll(p.occupied[0] | p.occupied[1]);
  const std::size_t s = static_cast<std::size_t>((pieces - 1) / 4);
  std::int64_t h2[16], o = w.out_bias[s];
  for (std::size_t j = 0; j < 16; ++j) {
    std::int64_t v = w.l2_bias[s * 16 + j];
    for (std::size_t i = 0; i < 2 * h; ++i) v += in[i] * w.l2_weights[(s * 16 + j) * 2 * h + i];
    h2[j] = std::clamp<std::int64_t>(v >> 6, 0, 127);
  }
  for (std::size_t k = 0; k < 32; ++k) {
    std::int64_t v = w.l3_bias[s * 32 + k];
    for (std::size_t j = 0; j < 16; ++j) v += h2[j] * w.l3_weights[(s * 32 + k) * 16 + j];
    o += std::clamp<std::int64_t>(v >> 6, 0, 127) * w.out_weights[s * 32 + k];
  }
  const int out = static_cast<int>(std::clamp<std::int64_t>(o * 400 / (127 * 256), -20000, 20000));
  return w.residual ? std::clamp(out + evaluate(p), -20000, 20000) : out;
}

TEST(ChessNetwork, IntegerValueFollowsTheFormula) {
  for (int buckets : {1, 4}) {
    Network::Weights w = random_weights(64, buckets, 5);
    w.residual = buckets == 4;
    const auto net = from_weights(w);
    ASSERT_TRUE(net);
    EXPECT_EQ(net->hidden(), 64);
    EXPECT_EQ(net->residual(), w.residual);
    int distinct = 0, last = 0;
    for (const Position& p : random_positions(40, 11)) {
      const int v = evaluate(p, net.get());
      EXPECT_EQ(v, formula(w, p)) << to_fen(p);
      distinct += v != last;
      last = v;
    }
    EXPECT_GT(distinct, 100);  // the values depend on the position
  }
}

// The scalar, SSE2 and AVX2 paths (where the processor has them) on the same accumulators: the same
// integers, with random weights and with every input unit saturated against extreme weights.
TEST(ChessNetwork, SimdPathsGiveTheSameIntegers) {
  Network::Weights extreme = random_weights(1024, 2, 21);
  extreme.feature_bias.assign(1024, 30000);
  for (std::size_t i = 0; i < extreme.l2_weights.size(); ++i)
    extreme.l2_weights[i] = static_cast<std::int8_t>(i % 3 ? -128 : 127);
  int compared = 0;
  for (const Network::Weights& w : {random_weights(96, 3, 20), extreme}) {
    const auto net = from_weights(w);
    ASSERT_TRUE(net);
    std::vector<std::int16_t> acc[2], next(static_cast<std::size_t>(w.hidden)), ref(static_cast<std::size_t>(w.hidden));
    for (const Position& p : random_positions(30, 13)) {
      for (int c = 0; c < 2; ++c) {
        acc[c].resize(static_cast<std::size_t>(w.hidden));
        net->refresh(p, static_cast<Color>(c), acc[c].data());
      }
      const int pieces = __builtin_popcountll(p.occupied[0] | p.occupied[1]);
      const int scalar = net->output(acc[p.side].data(), acc[p.side ^ 1].data(), pieces, Network::Simd::Scalar);
      EXPECT_EQ(scalar, formula(w, p));  // not residual: the output is the value
      MoveList list;
      generate_legal(p, list);
      for (Network::Simd s : {Network::Simd::Sse2, Network::Simd::Avx2}) {
        if (!Network::supported(s)) continue;
        EXPECT_EQ(net->output(acc[p.side].data(), acc[p.side ^ 1].data(), pieces, s), scalar) << to_fen(p);
        for (Move m : list) {
          const Network::Change c = net->change(p, m);
          if (c.refresh[p.side]) continue;
          net->apply(c, p.side, acc[p.side].data(), ref.data(), Network::Simd::Scalar);
          net->apply(c, p.side, acc[p.side].data(), next.data(), s);
          ASSERT_EQ(next, ref) << to_fen(p) << " " << move_to_uci(m);
        }
        ++compared;
      }
    }
  }
  if (compared == 0) GTEST_SKIP() << "no SIMD path on this processor";
}

TEST(ChessNetwork, MoveChangesMatchAFreshAccumulator) {
  const auto net = from_weights(random_weights(32, 6, 6));
  ASSERT_TRUE(net);
  int castles = 0, en_passant = 0, promotions = 0, refreshes = 0;
  std::int16_t before[2][32], after[32], fresh[32];
  for (const Position& p : random_positions(60, 12)) {
    for (int c = 0; c < 2; ++c) net->refresh(p, static_cast<Color>(c), before[c]);
    MoveList list;
    generate_legal(p, list);
    for (Move m : list) {
      Position q = p;
      Undo u;
      make_move(q, m, u);
      const Network::Change c = net->change(p, m);
      for (int persp = 0; persp < 2; ++persp) {
        net->refresh(q, static_cast<Color>(persp), fresh);
        if (c.refresh[persp]) {  // only the mover's king changing bucket or half asks for it
          EXPECT_EQ(persp, p.side);
          EXPECT_EQ(p.type_at(m.from()), King);
          ++refreshes;
          continue;
        }
        net->apply(c, static_cast<Color>(persp), before[persp], after);
        ASSERT_TRUE(std::equal(after, after + 32, fresh)) << to_fen(p) << " " << move_to_uci(m) << " " << persp;
      }
      castles += (m.flags() & Move::Castle) != 0;
      en_passant += (m.flags() & Move::EnPassant) != 0;
      promotions += m.promo() != NoPiece;
    }
    if (!p.in_check()) {  // a null move changes nothing
      const Network::Change c = net->change(p, Move{});
      EXPECT_FALSE(c.refresh[0] || c.refresh[1]);
      net->apply(c, White, before[White], after);
      EXPECT_TRUE(std::equal(after, after + 32, before[White]));
    }
  }
  EXPECT_GT(castles, 0);
  EXPECT_GT(en_passant, 0);
  EXPECT_GT(promotions, 0);
  EXPECT_GT(refreshes, 0);
}

TEST(ChessNetwork, BadFilesAreRefusedAndChangeNothing) {
  const std::vector<std::uint8_t> good = Network::encode(random_weights(32, 2, 7));
  const auto keep = from_weights(random_weights(32, 1, 8));
  const auto refused = [&](std::vector<std::uint8_t> bytes, const char* what) {
    std::shared_ptr<const Network> out = keep;
    const Status st = Network::parse(bytes.data(), bytes.size(), out);
    EXPECT_FALSE(st.ok()) << what;
    EXPECT_EQ(out, keep) << what;
    return st.message();
  };
  auto bad = good;
  bad[0] = 'X';
  EXPECT_NE(refused(bad, "magic").find("WMNN"), std::string::npos);
  bad = good;
  bad[4] = 1;  // the first version's networks are not read
  EXPECT_NE(refused(bad, "version").find("version"), std::string::npos);
  bad = good;
  bad[8] = 48;  // hidden 48: not a multiple of 32
  EXPECT_NE(refused(bad, "hidden").find("hidden"), std::string::npos);
  bad = good;
  bad[8] = 0;
  bad[9] = 8;  // hidden 2048
  refused(bad, "too large");
  bad = good;
  bad[12] = 33;  // 33 buckets
  EXPECT_NE(refused(bad, "buckets").find("buckets"), std::string::npos);
  bad = good;
  bad[16] = 2;  // an unknown flag
  EXPECT_NE(refused(bad, "flags").find("flags"), std::string::npos);
  bad = good;
  bad[20 + 5] = 2;  // king square 5 in bucket 2 of 2
  EXPECT_NE(refused(bad, "bucket table").find("king square 5"), std::string::npos);
  bad = good;
  bad[12] = 3;  // three buckets: the size no longer fits
  EXPECT_NE(refused(bad, "shape").find("bytes"), std::string::npos);
  bad = good;
  bad.pop_back();
  EXPECT_NE(refused(bad, "short").find("bytes"), std::string::npos);
  bad = good;
  bad.push_back(0);
  refused(bad, "long");
  refused({}, "empty");
  std::shared_ptr<const Network> out;
  EXPECT_FALSE(Network::load("/nonexistent/net.wmn", out).ok());
  EXPECT_FALSE(out);
  EXPECT_TRUE(Network::parse(good.data(), good.size(), out).ok());
  EXPECT_EQ(Network::encode(out->weights()), good);  // the bytes round-trip
}

// The same position with files mirrored a <-> h (castling rights dropped: the network does not read them).
std::string mirror_files(const std::string& fen) {
  std::string placement = fen.substr(0, fen.find(' ')), out, rank;
  for (char c : placement + "/") {
    if (c != '/') {
      rank += c;
      continue;
    }
    std::string expanded;
    for (char r : rank)
      expanded += std::isdigit(static_cast<unsigned char>(r)) ? std::string(static_cast<std::size_t>(r - '0'), '1')
                                                              : std::string(1, r);
    std::reverse(expanded.begin(), expanded.end());
    std::string packed;  // runs of empty squares as digits again
    for (char r : expanded) {
      if (r == '1' && !packed.empty() && std::isdigit(static_cast<unsigned char>(packed.back())))
        ++packed.back();
      else
        packed += r;
    }
    out += (out.empty() ? "" : "/") + packed;
    rank.clear();
  }
  const std::string side = fen.substr(fen.find(' ') + 1, 1);
  return out + " " + side + " - - 0 1";
}

TEST(ChessNetwork, ValuesAreColourAndFileSymmetric) {
  for (const auto& net : {from_weights(random_weights(32, 4, 14)), Network::builtin()}) {
    ASSERT_TRUE(net);
    for (const Position& p : random_positions(30, 15)) {
      const std::string fen = to_fen(p);
      Position a, b;
      ASSERT_TRUE(parse_fen(mirror(fen), a).ok());
      ASSERT_TRUE(parse_fen(mirror_files(fen), b).ok()) << mirror_files(fen);
      EXPECT_EQ(net->evaluate(p), net->evaluate(a)) << fen;
      EXPECT_EQ(net->evaluate(p), net->evaluate(b)) << fen;
    }
  }
}

TEST(ChessNetwork, BuiltinKnowsMaterial) {
  const auto net = Network::builtin();
  ASSERT_TRUE(net);
  Position start, up_a_queen, down_a_rook;
  ASSERT_TRUE(parse_fen(kStartFen, start).ok());
  EXPECT_LT(std::abs(evaluate(start, net.get())), 60);
  ASSERT_TRUE(parse_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", up_a_queen).ok());
  EXPECT_GT(evaluate(up_a_queen, net.get()), 500);
  ASSERT_TRUE(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kkq - 0 1", down_a_rook).ok());
  EXPECT_LT(evaluate(down_a_rook, net.get()), -250);
}

// The searcher's accumulators along its path (incremental, king buckets refreshed) against evaluating
// every position from scratch: the same values, so the same searches to the node.
TEST(ChessSearch, IncrementalNetworkEqualsFromScratch) {
  Network::Weights residual = random_weights(32, 2, 11);
  residual.residual = true;
  for (const auto& n : {from_weights(random_weights(32, 1, 9)), from_weights(random_weights(64, 8, 10)),
                        from_weights(residual), Network::builtin()})
    for (const char* fen : kPositions) {
      Position p;
      ASSERT_TRUE(parse_fen(fen, p).ok());
      SearchLimits l;
      l.depth = 6;
      Searcher a(16, 1), b(16, 1);
      a.set_network(n, true);
      b.set_network(n, false);
      const SearchResult ra = a.search(p, {}, l), rb = b.search(p, {}, l);
      EXPECT_EQ(ra.nodes, rb.nodes) << fen;
      EXPECT_EQ(ra.score, rb.score) << fen;
      EXPECT_EQ(ra.best, rb.best) << fen;
    }
}

}  // namespace
}  // namespace warpmind::search::chess
