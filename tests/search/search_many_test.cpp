// search_many (warpmind/search/search_many.h): the CPU's alpha-beta per position gives the value of a
// plain negamax and its first best move in the game's order, on positions from random playouts, mates,
// stalemates and finished games; bad arguments are refused with nothing written. On a GPU (skipped
// otherwise), GpuBatch::search_many gives the CPU's value and move for every position, at every tail and
// depth, also for batches split for memory and for many positions at once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_helpers.h"
#include "warpmind/core/random.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/gpu_batch.h"
#include "warpmind/search/search_many.h"

namespace warpmind::search {
namespace {

// Plain negamax over the game's own interface: the value and the index of the first best root move.
template <class G>
int reference(const G& game, const typename G::State& s, int depth, int& best) {
  best = -1;
  std::vector<typename G::Move> moves;
  game.children(s, moves);
  if (moves.empty()) return G::terminal(s, 0);
  int value = 0;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    std::uint64_t nodes = 0;
    const int v = -subtree_value(game, G::apply(s, moves[i]), 1, depth - 1, nodes);
    if (best < 0 || v > value) {
      value = v;
      best = static_cast<int>(i);
    }
  }
  return value;
}

// Positions `plies` random moves from `start` (fewer where the game ends first).
template <class G>
std::vector<typename G::State> playouts(const G& game, const typename G::State& start, int count, int max_plies,
                                        std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<typename G::State> out;
  std::vector<typename G::Move> moves;
  for (int i = 0; i < count; ++i) {
    typename G::State s = start;
    const int plies = static_cast<int>(rng.next() % static_cast<std::uint64_t>(max_plies + 1));
    for (int k = 0; k < plies; ++k) {
      game.children(s, moves);
      if (moves.empty()) break;
      s = G::apply(s, moves[rng.next() % moves.size()]);
    }
    out.push_back(s);
  }
  return out;
}

std::vector<chess::Position> chess_positions() {
  using namespace chess;
  Position start;
  EXPECT_TRUE(parse_fen(kStartFen, start).ok());
  std::vector<Position> out = playouts(ChessGame{}, start, 40, 60, 7);
  for (const char* fen : {"6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",  // mate in one
                          "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",        // stalemate at the root
                          "k7/8/1QK5/8/8/8/8/8 w - - 0 1",         // mates and stalemates inside
                          "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"}) {
    Position p;
    EXPECT_TRUE(parse_fen(fen, p).ok());
    out.push_back(p);
  }
  return out;
}

std::vector<connect6::Board> connect6_positions(const connect6::Connect6Game& game) {
  connect6::Board b;
  EXPECT_TRUE(b.play({9 * connect6::kSize + 9, -1}).ok());  // the centre stone
  std::vector<connect6::Board> out = playouts(game, b, 24, 14, 11);
  out.push_back(connect6::Board{});  // the empty board
  return out;
}

template <class G>
void expect_equal_to_reference(const G& game, const std::vector<typename G::State>& positions, int depth,
                               const std::vector<TableMove<typename G::Move>>& got) {
  ASSERT_EQ(got.size(), positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    SCOPED_TRACE("position " + std::to_string(i) + " depth " + std::to_string(depth));
    int best = -1;
    const int want = reference(game, positions[i], depth, best);
    EXPECT_EQ(got[i].value, want);
    EXPECT_EQ(got[i].has_move, best >= 0);
    if (best >= 0 && got[i].has_move) {
      std::vector<typename G::Move> moves;
      game.children(positions[i], moves);
      EXPECT_TRUE(got[i].best == moves[static_cast<std::size_t>(best)]);
    }
  }
}

TEST(SearchMany, ChessCpuEqualsThePlainNegamax) {
  const std::vector<chess::Position> positions = chess_positions();
  for (int depth = 1; depth <= 3; ++depth) {
    std::vector<TableMove<chess::Move>> out(positions.size());
    SearchManyStats stats;
    ASSERT_TRUE(
        search_many(test::cpu_context().pool(), chess::ChessGame{}, std::span(positions), depth, std::span(out), &stats)
            .ok());
    expect_equal_to_reference(chess::ChessGame{}, positions, depth, out);
    EXPECT_GE(stats.nodes, positions.size());
  }
}

TEST(SearchMany, Connect6CpuEqualsThePlainNegamax) {
  const connect6::Connect6Game game{6};
  const std::vector<connect6::Board> positions = connect6_positions(game);
  for (int depth = 1; depth <= 3; ++depth) {
    std::vector<TableMove<connect6::Turn>> out(positions.size());
    ASSERT_TRUE(search_many(test::cpu_context().pool(), game, std::span(positions), depth, std::span(out)).ok());
    expect_equal_to_reference(game, positions, depth, out);
  }
}

TEST(SearchMany, AlphaBetaVisitsFewerNodesThanTheFullWidth) {
  chess::Position start;
  ASSERT_TRUE(chess::parse_fen(chess::kStartFen, start).ok());
  const std::vector<chess::Position> one{start};
  std::vector<TableMove<chess::Move>> out(1);
  SearchManyStats stats;
  ASSERT_TRUE(
      search_many(test::cpu_context().pool(), chess::ChessGame{}, std::span(one), 4, std::span(out), &stats).ok());
  EXPECT_LT(stats.nodes, 206604u / 4);  // the full tree of depth 4 has 206,604 nodes
  EXPECT_GT(stats.nodes, 400u);
}

TEST(SearchMany, BadArgumentsAreRefusedAndNothingIsWritten) {
  const std::vector<chess::Position> positions = chess_positions();
  std::vector<TableMove<chess::Move>> out(positions.size());
  out[0].value = 12345;
  ThreadPool& pool = test::cpu_context().pool();
  const chess::ChessGame g{};
  EXPECT_EQ(search_many(pool, g, std::span(positions), 0, std::span(out)).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(search_many(pool, g, std::span(positions), kSearchManyMaxDepth + 1, std::span(out)).code(),
            StatusCode::InvalidArgument);
  std::vector<TableMove<chess::Move>> short_out(positions.size() - 1);
  const Status err = search_many(pool, g, std::span(positions), 2, std::span(short_out));
  EXPECT_EQ(err.code(), StatusCode::InvalidArgument);
  EXPECT_NE(err.message().find("results for"), std::string::npos) << err.message();
  EXPECT_EQ(out[0].value, 12345);
  const std::vector<connect6::Board> none;
  std::vector<TableMove<connect6::Turn>> none_out;
  EXPECT_TRUE(search_many(pool, connect6::Connect6Game{}, std::span(none), 3, std::span(none_out)).ok());
  EXPECT_EQ(search_many(pool, connect6::Connect6Game{0}, std::span(none), 3, std::span(none_out)).code(),
            StatusCode::InvalidArgument);
}

template <class G>
void expect_gpu_equals_cpu(GpuBatch<G>& gpu, const G& game, const std::vector<typename G::State>& positions, int depth,
                           int tail) {
  SCOPED_TRACE("depth " + std::to_string(depth) + " tail " + std::to_string(tail));
  std::vector<TableMove<typename G::Move>> cpu(positions.size()), dev(positions.size());
  ASSERT_TRUE(search_many(test::cpu_context().pool(), game, std::span(positions), depth, std::span(cpu)).ok());
  SearchManyStats stats;
  const Status err = gpu.search_many(std::span(positions), depth, std::span(dev), &stats, tail);
  ASSERT_TRUE(err.ok()) << err.message();
  EXPECT_GE(stats.nodes, positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    SCOPED_TRACE("position " + std::to_string(i));
    EXPECT_EQ(dev[i].value, cpu[i].value);
    EXPECT_EQ(dev[i].has_move, cpu[i].has_move);
    EXPECT_TRUE(dev[i].best == cpu[i].best);
  }
}

TEST(SearchManyGpu, ChessEqualsTheCpuAtEveryTail) {
  WM_REQUIRE_GPU();
  std::unique_ptr<chess::GpuBatch> gpu;
  ASSERT_TRUE(chess::GpuBatch::create(*test::cuda_context(), gpu).ok());
  EXPECT_EQ(chess::GpuBatch::max_tail(), 4);
  const std::vector<chess::Position> positions = chess_positions();
  for (int depth = 1; depth <= 4; ++depth)
    for (int tail = 0; tail <= std::min(depth - 1, 3); ++tail) expect_gpu_equals_cpu(*gpu, {}, positions, depth, tail);
  std::vector<TableMove<chess::Move>> out(positions.size());
  EXPECT_EQ(gpu->search_many(std::span(positions), 2, std::span(out), nullptr, 2).code(), StatusCode::InvalidArgument);
  // Many positions at once: 3,000 tables.
  chess::Position start;
  ASSERT_TRUE(chess::parse_fen(chess::kStartFen, start).ok());
  expect_gpu_equals_cpu(*gpu, {}, playouts(chess::ChessGame{}, start, 3000, 80, 99), 3, 2);
}

TEST(SearchManyGpu, Connect6EqualsTheCpu) {
  WM_REQUIRE_GPU();
  const connect6::Connect6Game game{6};
  std::unique_ptr<connect6::GpuBatch> gpu;
  ASSERT_TRUE(connect6::GpuBatch::create(*test::cuda_context(), gpu, game).ok());
  EXPECT_EQ(connect6::GpuBatch::max_tail(), 0);
  const std::vector<connect6::Board> positions = connect6_positions(game);
  for (int depth = 1; depth <= 3; ++depth) expect_gpu_equals_cpu(*gpu, game, positions, depth, 0);
}

}  // namespace
}  // namespace warpmind::search
