// The chess GPU kernels (skipped without a GPU): perft by breadth-first levels exact on the standard
// positions (also with a memory budget small enough to force slicing), leaf evaluation, leaf values
// (mates and stalemates scored as terminal) and branch calculation identical to the CPU on thousands of
// positions, and the hybrid search on the GPU backend computing exactly the nodes and value of the CPU
// backend.
#include <gtest/gtest.h>

#include "gpu_helpers.h"
#include "warpmind/core/random.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/hybrid.h"

#if WARPMIND_HAVE_CUDA
#include "search/chess/chess_device.h"
#include "search/chess/chess_sliders.h"
#endif

namespace warpmind::search::chess {
namespace {

struct PerftCase {
  const char* fen;
  int depth;
  std::uint64_t nodes;
};

const PerftCase kPerft[] = {
    {kStartFen, 6, 119060324},
    {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 193690690},
    {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6, 11030083},
    {"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5, 15833292},
    {"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5, 89941194},
    {"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 5, 164075551},
};

TEST(ChessGpu, PerftOnTheStandardPositions) {
  WM_REQUIRE_GPU();
  for (const PerftCase& c : kPerft) {
    Position p;
    ASSERT_TRUE(parse_fen(c.fen, p).ok());
    std::uint64_t nodes = 0;
    ASSERT_TRUE(perft_gpu(*warpmind::test::cuda_context(), p, c.depth, nodes).ok());
    EXPECT_EQ(nodes, c.nodes) << c.fen;
  }
  Position p;
  ASSERT_TRUE(parse_fen(kStartFen, p).ok());
  std::uint64_t nodes = 0;
  ASSERT_TRUE(perft_gpu(*warpmind::test::cuda_context(), p, 0, nodes).ok());
  EXPECT_EQ(nodes, 1u);
}

#if WARPMIND_HAVE_CUDA
TEST(ChessGpu, PerftInSlicesUnderASmallMemoryBudget) {
  WM_REQUIRE_GPU();
  std::unique_ptr<gpu::ChessPerftDevice> device;
  ASSERT_TRUE(
      gpu::ChessPerftDevice::create(warpmind::test::cuda_context()->stream(), rules::host_slider_words(), device).ok());
  Position p;
  ASSERT_TRUE(parse_fen(kPerft[1].fen, p).ok());
  std::uint64_t nodes = 0;
  double ms = 0;
  ASSERT_TRUE(device->perft(rules::from_position(p), 4, nodes, ms, 64 * 1024).ok());  // ~700 children a slice
  EXPECT_EQ(nodes, 4085603u);
  // A budget smaller than one position's children: a level of one position is expanded all the same.
  ASSERT_TRUE(device->perft(rules::from_position(p), 3, nodes, ms, 64).ok());
  EXPECT_EQ(nodes, 97862u);
}
#endif

// Held out from the standard positions: positions from random games (promotions, en passant, checks and
// pins arise as they come), each one's GPU perft against the CPU's make/unmake perft, with and without
// the transposition table.
TEST(ChessGpu, PerftOfRandomPositionsEqualsTheCpuPerft) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuPerft> gpu;
  ASSERT_TRUE(GpuPerft::create(*warpmind::test::cuda_context(), gpu).ok());
  SplitMix64 rng(2026);
  int checked = 0;
  for (const PerftCase& c : kPerft) {
    Position root;
    ASSERT_TRUE(parse_fen(c.fen, root).ok());
    for (int game = 0; game < 12; ++game) {
      Position p = root;
      for (int ply = 0; ply < 90; ++ply) {
        if (ply % 15 == 7) {
          const int depth = 2 + static_cast<int>(rng.next() % 3);
          const std::uint64_t want = perft(p, depth);
          for (bool table : {false, true}) {
            std::uint64_t nodes = 0;
            ASSERT_TRUE(gpu->run(p, depth, nodes, nullptr, table).ok());
            ASSERT_EQ(nodes, want) << to_fen(p) << " depth " << depth << (table ? " table" : "");
          }
          ++checked;
        }
        MoveList moves;
        generate_legal(p, moves);
        if (moves.size == 0) break;
        Undo u;
        make_move(p, moves.moves[rng.next() % static_cast<std::uint64_t>(moves.size)], u);
      }
    }
  }
  EXPECT_GT(checked, 200);
}

// Perft with the transposition table (each position's count taken from the table or an equal position
// of its level where it can): the published counts on the six standard positions, with positions reused;
// under a budget small enough to force many slices, whose transpositions only the table finds; and with a
// table far too small (many evictions, torn entries impossible to tell from the key test).
TEST(ChessGpu, PerftWithTheTranspositionTableIsExact) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuPerft> gpu;
  ASSERT_TRUE(GpuPerft::create(*warpmind::test::cuda_context(), gpu).ok());
  for (const PerftCase& c : kPerft) {
    Position p;
    ASSERT_TRUE(parse_fen(c.fen, p).ok());
    std::uint64_t nodes = 0, reused = 0;
    ASSERT_TRUE(gpu->run(p, c.depth, nodes, nullptr, true, &reused).ok()) << c.fen;
    EXPECT_EQ(nodes, c.nodes) << c.fen;
    EXPECT_GT(reused, 0u) << c.fen;  // every one of them transposes by its depth
  }
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::ChessPerftDevice> device;
  ASSERT_TRUE(
      gpu::ChessPerftDevice::create(warpmind::test::cuda_context()->stream(), rules::host_slider_words(), device).ok());
  Position start;
  ASSERT_TRUE(parse_fen(kStartFen, start).ok());
  std::uint64_t nodes = 0, reused = 0, reused_sliced = 0;
  double ms = 0;
  ASSERT_TRUE(device->perft(rules::from_position(start), 6, nodes, ms, 0, true, &reused).ok());
  EXPECT_EQ(nodes, 119060324u);
  ASSERT_TRUE(device->perft(rules::from_position(start), 6, nodes, ms, 64 * 1024, true, &reused_sliced).ok());
  EXPECT_EQ(nodes, 119060324u);
  EXPECT_GT(reused_sliced, 0u);
  // A budget of a few hundred children a slice: the levels are merged slice by slice, the table finds the
  // rest, so as many positions are reused as with whole levels, give or take what the table evicted.
  EXPECT_GT(reused_sliced * 10, reused * 9) << reused << " whole, " << reused_sliced << " sliced";
  // Kiwipete 5 (a depth the table is sized small for, 2^14 buckets) with slices of ~300 children: the
  // table is overwritten again and again.
  Position kiwi;
  ASSERT_TRUE(parse_fen(kPerft[1].fen, kiwi).ok());
  ASSERT_TRUE(device->perft(rules::from_position(kiwi), 5, nodes, ms, 64 * 1024, true, &reused).ok());
  EXPECT_EQ(nodes, 193690690u);
#endif
}

TEST(ChessGpu, BatchKernelsEqualTheCpu) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuBatch> gpu;
  ASSERT_TRUE(GpuBatch::create(*warpmind::test::cuda_context(), gpu).ok());
  SplitMix64 rng(5);
  std::vector<Position> positions;
  for (const PerftCase& c : kPerft) {
    Position root;
    ASSERT_TRUE(parse_fen(c.fen, root).ok());
    for (int game = 0; game < 30; ++game) {
      Position p = root;
      for (int ply = 0; ply < 100; ++ply) {
        positions.push_back(p);
        MoveList moves;
        generate_legal(p, moves);
        if (moves.size == 0) break;
        Undo u;
        make_move(p, moves.moves[rng.next() % static_cast<std::uint64_t>(moves.size)], u);
      }
    }
  }
  for (const char* fen : {"6k1/5ppp/8/8/8/8/5PPP/r5K1 w - - 0 1", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"}) {
    Position p;  // mated, stalemated
    ASSERT_TRUE(parse_fen(fen, p).ok());
    positions.push_back(p);
  }
  std::vector<const Position*> in;
  for (const Position& p : positions) in.push_back(&p);
  std::vector<int> values;
  std::vector<std::vector<Move>> moves;
  gpu->leaves(in, values);
  gpu->branches(in, moves);
  EXPECT_TRUE(gpu->error().ok()) << gpu->error().message();
  ASSERT_EQ(values.size(), positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    ASSERT_EQ(values[i], evaluate(positions[i])) << to_fen(positions[i]);
    std::vector<Move> want;
    ChessGame::children(positions[i], want);
    ASSERT_EQ(moves[i], want) << to_fen(positions[i]);
  }
  // The hybrid search's leaves: mates and stalemates scored as terminal at the given ply.
  for (const int ply : {1, 4}) {
    gpu->leaves(in, ply, values);
    ASSERT_EQ(values.size(), positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i)
      ASSERT_EQ(values[i], search::leaf_value<ChessGame>(positions[i], ply)) << to_fen(positions[i]) << " ply " << ply;
    EXPECT_EQ(values[values.size() - 2], -(kMate - ply));
    EXPECT_EQ(values.back(), 0);
  }
  EXPECT_TRUE(gpu->error().ok()) << gpu->error().message();
  EXPECT_GT(positions.size(), 5000u);
}

TEST(ChessGpu, HybridOnTheGpuComputesWhatTheCpuBackendDoes) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuBatch> gpu;
  ASSERT_TRUE(GpuBatch::create(*warpmind::test::cuda_context(), gpu).ok());
  CpuBatch<ChessGame> cpu{warpmind::test::cpu_context().pool()};
  HybridSearch<ChessGame, GpuBatch> on_gpu;
  HybridSearch<ChessGame, CpuBatch<ChessGame>> on_cpu;
  for (const PerftCase& c : kPerft) {
    Position p;
    ASSERT_TRUE(parse_fen(c.fen, p).ok());
    for (bool pruning : {false, true}) {
      HybridOptions o;
      o.depth = 3;
      o.pruning = pruning;
      HybridStats sg, sc;
      const auto a = on_gpu.run(p, o, *gpu, sg);
      const auto b = on_cpu.run(p, o, cpu, sc);
      EXPECT_EQ(a.value, b.value) << c.fen;
      EXPECT_EQ(a.best, b.best) << c.fen;
      EXPECT_EQ(sg.computed(), sc.computed()) << c.fen;
      EXPECT_GT(sg.batched_leaves, 0u);
    }
  }
  EXPECT_TRUE(gpu->error().ok()) << gpu->error().message();
}

// Negamax over ChessGame's children (the serial reference): the value, the first best root move's index
// and every node visited.
int negamax(const Position& p, int depth, int ply, std::uint64_t& nodes, int* best_index = nullptr) {
  ++nodes;
  std::vector<Move> moves;
  ChessGame::children(p, moves);
  if (moves.empty()) return ChessGame::terminal(p, ply);
  if (depth == 0) return ChessGame::evaluate(p);
  int best = 0;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const int v = -negamax(ChessGame::apply(p, moves[i]), depth - 1, ply + 1, nodes);
    if (i == 0 || v > best) {
      best = v;
      if (best_index) *best_index = static_cast<int>(i);
    }
  }
  return best;
}

// The device-resident search without pruning: the serial negamax's value, best move and node count.
TEST(ChessGpu, DeviceResidentMinimaxEqualsTheSerialNegamax) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuBatch> gpu;
  ASSERT_TRUE(GpuBatch::create(*warpmind::test::cuda_context(), gpu).ok());
  const char* fens[] = {kStartFen,
                        kPerft[1].fen,
                        kPerft[2].fen,
                        kPerft[3].fen,
                        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",  // mate in one
                        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",        // stalemate at the root
                        "k7/8/1QK5/8/8/8/8/8 w - - 0 1"};        // stalemates and mates inside the tree
  for (const char* fen : fens) {
    Position p;
    ASSERT_TRUE(parse_fen(fen, p).ok());
    for (int depth = 0; depth <= 3; ++depth) {
      SCOPED_TRACE(std::string(fen) + " depth " + std::to_string(depth));
      std::uint64_t nodes = 0;
      int best = -1;
      const int want = negamax(p, depth, 0, nodes, &best);
      MinimaxResult r;
      ASSERT_TRUE(gpu->minimax(p, depth, r).ok());
      EXPECT_EQ(r.value, want);
      EXPECT_EQ(r.nodes, nodes);
      std::vector<Move> children;
      ChessGame::children(p, children);
      EXPECT_EQ(r.has_move, depth > 0 && !children.empty());
      if (r.has_move) {
        EXPECT_EQ(r.best, children[static_cast<std::size_t>(best)]);
      }
    }
  }
  Position start;
  ASSERT_TRUE(parse_fen(kStartFen, start).ok());
  std::uint64_t nodes = 0;
  const int want = negamax(start, 4, 0, nodes);
  MinimaxResult r;
  ASSERT_TRUE(gpu->minimax(start, 4, r).ok());
  EXPECT_EQ(r.value, want);
  EXPECT_EQ(r.nodes, nodes);
#if WARPMIND_HAVE_CUDA
  // A tree larger than the memory budget is refused with a reason, not cut short.
  std::unique_ptr<gpu::GameDevice<rules::Device>> device;
  ASSERT_TRUE(gpu::GameDevice<rules::Device>::create(warpmind::test::cuda_context()->stream(), device).ok());
  gpu::MinimaxOutcome o;
  const Status err = device->minimax(rules::from_position(start), 4, {}, o, 1 << 20);  // 206,604 nodes > 1 MB
  EXPECT_NE(err.message().find("does not fit the memory budget"), std::string::npos) << err.message();
  EXPECT_TRUE(device->minimax(rules::from_position(start), 2, {}, o, 1 << 20).ok());
  EXPECT_EQ(o.nodes, 421u);
  // The leaf kernel keeps the evaluation's tables out of its stack (they once took 1,632 bytes of it).
  gpu::GameDevice<rules::Device>::KernelResources res;
  ASSERT_TRUE(device->leaf_kernel_resources({}, res).ok());
  EXPECT_LE(res.local_bytes, 256u) << res.registers << " registers";
#endif
}

// The subtrees below a hybrid search's horizon on the device: the CPU's subtree_value for every root of
// a batch (values and node counts), at plies 0..3 and horizon distances 0, 1 and 5, mates and
// stalemates inside; a memory budget that forces the batch into halves changes nothing; and the hybrid search over
// them equals the CPU backend's (value, move, nodes) and the full-depth negamax.
TEST(ChessGpu, SubtreesBelowTheHorizonEqualTheCpu) {
  WM_REQUIRE_GPU();
  std::unique_ptr<GpuBatch> gpu;
  ASSERT_TRUE(GpuBatch::create(*warpmind::test::cuda_context(), gpu).ok());
  CpuBatch<ChessGame> cpu{warpmind::test::cpu_context().pool()};
  std::vector<Position> positions;
  for (const char* fen :
       {kPerft[0].fen, kPerft[1].fen, kPerft[2].fen, kPerft[3].fen, kPerft[4].fen, kPerft[5].fen,
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "k7/8/1QK5/8/8/8/8/8 w - - 0 1"}) {
    Position p;
    ASSERT_TRUE(parse_fen(fen, p).ok());
    positions.push_back(p);
  }
  SplitMix64 rng(77);
  for (int g = 0; g < 12; ++g) {  // positions from random games
    Position p = positions[static_cast<std::size_t>(g) % 6];
    for (int ply = 0; ply < 40; ++ply) {
      std::vector<Move> moves;
      ChessGame::children(p, moves);
      if (moves.empty()) break;
      p = ChessGame::apply(p, moves[rng.next() % moves.size()]);
      if (ply % 9 == 4) positions.push_back(p);
    }
  }
  std::vector<const Position*> in;
  for (const Position& p : positions) in.push_back(&p);
  for (int plies = 0; plies <= 3; ++plies) {
    if (plies == 3) in.resize(3);  // three plies on the first three positions only (the CPU reference's time)
    for (int ply : {0, 1, 5}) {
      SCOPED_TRACE("plies " + std::to_string(plies) + " ply " + std::to_string(ply));
      std::vector<int> want, got;
      std::uint64_t want_nodes = 0, got_nodes = 0;
      double ms = 0, device_ms = 0;
      cpu.subtrees(in, ply, plies, want, want_nodes, ms);
      gpu->subtrees(in, ply, plies, got, got_nodes, device_ms);
      EXPECT_EQ(got, want);
      EXPECT_EQ(got_nodes, want_nodes);
      EXPECT_GT(device_ms, 0.0);
      // The plies below a subtree's first (or all of them) by alpha-beta: the same values, fewer nodes.
      for (int tail = 1; tail <= plies; ++tail) {
        SCOPED_TRACE("tail " + std::to_string(tail));
        std::uint64_t ab_nodes = 0;
        gpu->set_subtree_tail(tail);
        gpu->subtrees(in, ply, plies, got, ab_nodes, device_ms);
        gpu->set_subtree_tail(0);
        EXPECT_EQ(got, want);
        if (plies >= 2) {
          EXPECT_LT(ab_nodes, want_nodes);
        } else {  // one ply: every child either way
          EXPECT_EQ(ab_nodes, want_nodes);
        }
      }
    }
  }
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::GameDevice<rules::Device>> device;
  ASSERT_TRUE(gpu::GameDevice<rules::Device>::create(warpmind::test::cuda_context()->stream(), device).ok());
  std::vector<rules::DPos> roots;
  for (const Position& p : positions) roots.push_back(rules::from_position(p));
  std::vector<int> sliced(roots.size()), whole(roots.size());
  std::uint64_t n_sliced = 0, n_whole = 0;
  double ms = 0;
  ASSERT_TRUE(device->subtrees(roots.data(), roots.size(), 2, 3, {}, whole.data(), n_whole, ms).ok());
  ASSERT_TRUE(
      device->subtrees(roots.data(), roots.size(), 2, 3, {}, sliced.data(), n_sliced, ms, 1 << 20).ok());  // ~10 trees
  EXPECT_EQ(sliced, whole);
  EXPECT_EQ(n_sliced, n_whole);
  EXPECT_NE(
      device->subtrees(roots.data(), 1, 3, 0, {}, sliced.data(), n_sliced, ms, 4096).message().find("does not fit"),
      std::string::npos);
#endif
  SubtreeLeaves<ChessGame, GpuBatch> on_gpu{*gpu, 2};
  SubtreeLeaves<ChessGame, CpuBatch<ChessGame>> on_cpu{cpu, 2};
  HybridSearch<ChessGame, decltype(on_gpu)> hg;
  HybridSearch<ChessGame, decltype(on_cpu)> hc;
  for (std::size_t i = 0; i < 9; ++i) {
    SCOPED_TRACE(i);
    std::uint64_t oracle_nodes = 0;
    const int want = negamax(positions[i], 3, 0, oracle_nodes);
    HybridOptions o;
    o.depth = 1;
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
    EXPECT_EQ(sg.computed(), sc.computed());
  }
  EXPECT_TRUE(gpu->error().ok()) << gpu->error().message();
}

TEST(ChessGpu, NeedsTheCudaBackend) {
  std::unique_ptr<GpuBatch> gpu;
  EXPECT_FALSE(GpuBatch::create(warpmind::test::cpu_context(), gpu).ok());
  Position p;
  std::uint64_t nodes = 0;
  const Status st = perft_gpu(warpmind::test::cpu_context(), p, 3, nodes);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("CUDA"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace warpmind::search::chess
