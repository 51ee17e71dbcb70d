// The Connect6 GPU kernels (skipped without a GPU): leaf evaluation, leaf values (won boards scored as
// terminal) and branch calculation identical to the CPU on thousands of positions, and the hybrid
// search on the GPU backend computing exactly the nodes and value of the CPU backend.
#include <gtest/gtest.h>

#include "gpu_helpers.h"
#include "warpmind/core/random.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/hybrid.h"

namespace warpmind::search::connect6 {
namespace {

std::vector<Board> random_positions(int games) {
  SplitMix64 rng(41);
  std::vector<Board> out;
  for (int g = 0; g < games; ++g) {
    Board b;
    for (int turn = 0; turn < 30 && !b.over(); ++turn) {
      out.push_back(b);
      std::vector<Turn> c;
      candidate_turns(b, 16, c);
      if (!b.play(c[rng.next() % c.size()]).ok()) break;
    }
  }
  return out;
}

TEST(Connect6Gpu, BatchKernelsEqualTheCpu) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuBatch> gpu;
  ASSERT_TRUE(GpuBatch::create(*warpmind::test::cuda_context(), gpu).ok());
  std::vector<Board> boards = random_positions(100);
  // With the winning turn of every board that has one: won boards for the leaf values.
  const std::size_t played = boards.size();
  int won = 0;
  for (std::size_t i = 0; i < played; ++i) {
    std::vector<Turn> c;
    candidate_turns(boards[i], 16, c);
    Board next = boards[i];
    if (!c.empty() && next.play(c[0]).ok() && next.winner() != Empty) {
      boards.push_back(next);
      ++won;
    }
  }
  EXPECT_GT(won, 10);
  std::vector<const Board*> in;
  for (const Board& b : boards) in.push_back(&b);
  for (const int ply : {1, 4}) {  // the hybrid search's leaves: won boards scored as terminal
    std::vector<int> values;
    gpu->leaves(in, ply, values);
    ASSERT_EQ(values.size(), boards.size());
    for (std::size_t i = 0; i < boards.size(); ++i)
      ASSERT_EQ(values[i], search::leaf_value<Connect6Game>(boards[i], ply)) << i << " ply " << ply;
  }
  for (int width : {8, 48}) {
    const Connect6Game game{width};
    ASSERT_TRUE(gpu->set_game(game).ok());
    std::vector<int> values;
    std::vector<std::vector<Turn>> turns;
    gpu->leaves(in, values);
    gpu->branches(in, turns);
    for (std::size_t i = 0; i < boards.size(); ++i) {
      ASSERT_EQ(values[i], evaluate(boards[i])) << i;
      std::vector<Turn> want;
      game.children(boards[i], want);
      ASSERT_EQ(turns[i], want) << i;
    }
  }
  EXPECT_FALSE(gpu->set_game({129}).ok());  // more turns than the kernels generate: refused, width kept
  EXPECT_FALSE(gpu->set_game({0}).ok());
  EXPECT_EQ(gpu->game().width, 48);
  EXPECT_TRUE(gpu->error().ok()) << gpu->error().message();
  EXPECT_GT(boards.size(), 2000u);
}

TEST(Connect6Gpu, HybridOnTheGpuComputesWhatTheCpuBackendDoes) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuBatch> gpu;
  ASSERT_TRUE(GpuBatch::create(*warpmind::test::cuda_context(), gpu).ok());
  CpuBatch<Connect6Game> cpu{warpmind::test::cpu_context().pool()};
  HybridSearch<Connect6Game, GpuBatch> on_gpu;
  HybridSearch<Connect6Game, CpuBatch<Connect6Game>> on_cpu;
  const std::vector<Board> boards = random_positions(3);
  for (std::size_t i = 4; i < boards.size(); i += 7) {
    for (bool pruning : {false, true}) {
      HybridOptions o;
      o.depth = 2;
      o.pruning = pruning;
      HybridStats sg, sc;
      const auto a = on_gpu.run(boards[i], o, *gpu, sg);
      const auto b = on_cpu.run(boards[i], o, cpu, sc);
      EXPECT_EQ(a.value, b.value);
      EXPECT_EQ(a.best, b.best);
      EXPECT_EQ(sg.computed(), sc.computed());
    }
  }
  EXPECT_TRUE(gpu->error().ok()) << gpu->error().message();
}

int negamax(const Connect6Game& game, const Board& b, int depth, int ply, std::uint64_t& nodes,
            int* best_index = nullptr) {
  ++nodes;
  std::vector<Turn> turns;
  game.children(b, turns);
  if (turns.empty()) return Connect6Game::terminal(b, ply);
  if (depth == 0) return Connect6Game::evaluate(b);
  int best = 0;
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const int v = -negamax(game, Connect6Game::apply(b, turns[i]), depth - 1, ply + 1, nodes);
    if (i == 0 || v > best) {
      best = v;
      if (best_index) *best_index = static_cast<int>(i);
    }
  }
  return best;
}

// The device-resident search without pruning: the serial negamax's value, best turn and node count, on
// quiet positions, forced ones and ones with wins inside the tree (the device's own moves: six-detection
// and the side to move after each stone).
TEST(Connect6Gpu, DeviceResidentMinimaxEqualsTheSerialNegamax) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuBatch> gpu;
  ASSERT_TRUE(GpuBatch::create(*warpmind::test::cuda_context(), gpu).ok());
  const std::vector<Board> positions = random_positions(6);
  int checked = 0;
  for (std::size_t i = 0; i < positions.size(); i += 7) {
    for (int width : {4, 8}) {
      const Connect6Game game{width};
      ASSERT_TRUE(gpu->set_game(game).ok());
      for (int depth = 0; depth <= 3; ++depth) {
        SCOPED_TRACE("position " + std::to_string(i) + " width " + std::to_string(width) + " depth " +
                     std::to_string(depth));
        std::uint64_t nodes = 0;
        int best = -1;
        const int want = negamax(game, positions[i], depth, 0, nodes, &best);
        MinimaxResult r;
        ASSERT_TRUE(gpu->minimax(positions[i], depth, r).ok());
        EXPECT_EQ(r.value, want);
        EXPECT_EQ(r.nodes, nodes);
        std::vector<Turn> children;
        game.children(positions[i], children);
        if (depth > 0 && !children.empty()) {
          ASSERT_TRUE(r.has_move);
          EXPECT_EQ(r.best, children[static_cast<std::size_t>(best)]);
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 40);
}

// The subtrees below a hybrid search's horizon on the device: the CPU's subtree_value for every root of
// a batch (values and node counts; wins inside the trees), widths 4, 8 and 48 (the warp's pair ranking
// at full width), horizon distances 0 and 3;
// and the hybrid search over them equals the CPU backend's and the full-depth negamax.
TEST(Connect6Gpu, SubtreesBelowTheHorizonEqualTheCpu) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuBatch> gpu;
  ASSERT_TRUE(GpuBatch::create(*warpmind::test::cuda_context(), gpu).ok());
  CpuBatch<Connect6Game> cpu{warpmind::test::cpu_context().pool()};
  const std::vector<Board> positions = random_positions(4);
  std::vector<const Board*> in;
  for (std::size_t i = 0; i < positions.size(); i += 3) in.push_back(&positions[i]);
  for (int width : {4, 8, 48}) {
    cpu.rules.width = width;
    ASSERT_TRUE(gpu->set_game({width}).ok());
    for (int plies = 0; plies <= (width > 8 ? 1 : 2); ++plies) {
      for (int ply : {0, 3}) {
        SCOPED_TRACE("width " + std::to_string(width) + " plies " + std::to_string(plies) + " ply " +
                     std::to_string(ply));
        std::vector<int> want, got;
        std::uint64_t want_nodes = 0, got_nodes = 0;
        double ms = 0, device_ms = 0;
        cpu.subtrees(in, ply, plies, want, want_nodes, ms);
        gpu->subtrees(in, ply, plies, got, got_nodes, device_ms);
        EXPECT_EQ(got, want);
        EXPECT_EQ(got_nodes, want_nodes);
      }
    }
  }
  cpu.rules.width = 8;
  ASSERT_TRUE(gpu->set_game({8}).ok());
  SubtreeLeaves<Connect6Game, GpuBatch> on_gpu{*gpu, 1};
  SubtreeLeaves<Connect6Game, CpuBatch<Connect6Game>> on_cpu{cpu, 1};
  HybridSearch<Connect6Game, decltype(on_gpu)> hg;
  HybridSearch<Connect6Game, decltype(on_cpu)> hc;
  for (std::size_t i = 4; i < positions.size(); i += 11) {
    std::uint64_t oracle_nodes = 0;
    const int want = negamax(cpu.rules, positions[i], 3, 0, oracle_nodes);
    HybridOptions o;
    o.depth = 2;
    o.first_child_first = true;
    o.cut_one_by_one = 1 << 20;
    o.l_min = 1;
    o.l_max = o.b_max = 64;
    HybridStats sg, sc;
    on_gpu.nodes = on_cpu.nodes = 0;
    const auto a = hg.run(positions[i], o, on_gpu, sg);
    const auto b = hc.run(positions[i], o, on_cpu, sc);
    EXPECT_EQ(a.value, want);
    EXPECT_EQ(b.value, want);
    EXPECT_EQ(a.best, b.best);
    EXPECT_EQ(on_gpu.nodes, on_cpu.nodes);
  }
  EXPECT_TRUE(gpu->error().ok()) << gpu->error().message();
}

TEST(Connect6Gpu, NeedsTheCudaBackend) {
  std::unique_ptr<GpuBatch> gpu;
  EXPECT_FALSE(GpuBatch::create(warpmind::test::cpu_context(), gpu).ok());
}

}  // namespace
}  // namespace warpmind::search::connect6
