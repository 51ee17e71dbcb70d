// The interface a game's kernels implement for the hybrid search's GPU backend (search/gpu_batch.h),
// host-only: GameDevice<R> for the device rules R of a game (chess::rules::Device, connect6::rules::Device:
// its compact position Pos, its packed Move, the Params a batch generates with and kMaxMoves), defined
// once for every game in gpu/src/search/game_device.cuh from the game's kernels; and DeviceGame<G>, which
// each game specialises beside its rules (<game>/<game>_device.h) to map its host types onto R's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "warpmind/core/status.h"

namespace warpmind::gpu {

// The outcome of a device-resident negamax without pruning (gpu/src/search/minimax.cuh).
struct MinimaxOutcome {
  int value = 0;            // the root's negamax value, from the side to move
  int best = -1;            // index of the best root child in the search's order (the first of equals); -1: none
  std::uint64_t nodes = 0;  // every node of the tree, the root included
  double ms = 0;            // device time from the root's upload to the root's value
};

// A game's batch kernels on one stream. Synchronous: every call returns with its results in host memory.
// Not thread-safe.
template <class R>
class GameDevice {
 public:
  using Pos = typename R::Pos;
  using Move = typename R::Move;
  using Params = typename R::Params;

  static Status create(void* stream, std::unique_ptr<GameDevice>& out);
  ~GameDevice();
  // values[i] = the leaf value of in[i] `ply` plies below the root (positions without a move scored as
  // terminal, the others evaluated); ply < 0: the evaluation alone.
  Status leaf_values(const Pos* in, std::size_t n, int ply, int* values);
  // The moves of every position in the search's order: counts[i] of them for in[i], packed position after
  // position into `moves` (room for n * R::kMaxMoves).
  Status branches(const Pos* in, std::size_t n, const Params& params, Move* moves, int* counts);
  // Negamax of `root` to `depth` plies without pruning, the whole tree on the device (minimax.cuh). The
  // tree must fit `budget_bytes` of device memory (0: half the free memory).
  Status minimax(const Pos& root, int depth, const Params& params, MinimaxOutcome& out, std::size_t budget_bytes = 0);
  // The subtrees under a host search's horizon, without pruning, in one pass over all of them:
  // values[i] = the negamax value of roots[i] searched `depth` more plies (as minimax(), terminal scores
  // counted from `ply`, roots[i]'s distance from the search's root). nodes += the trees' nodes, the roots
  // included; ms += device time. A batch whose trees exceed `budget_bytes` (0: a quarter of the free
  // memory at the first call) runs in halves; a single tree that does not fit is an error.
  // tail: the last plies of every subtree searched by alpha-beta one thread a node (as search_many; 0..depth,
  // at most tail_plies()); the values stay exact, the node count is the alpha-beta's.
  Status subtrees(const Pos* roots, std::size_t n, int depth, int ply, const Params& params, int* values,
                  std::uint64_t& nodes, double& ms, std::size_t budget_bytes = 0, int tail = 0);
  // Many independent searches at once (search_many): for every root, values[i] = its negamax value to
  // `depth` plies (1..32) and best[i] = the index of its first best move in the search's order (-1: none).
  // Rules with a one-thread alpha-beta (tail_plies() > 0, chess): alpha-beta by levels with windows, the
  // last `tail` plies a thread a node (gpu/src/search/pvs.cuh); nodes += the positions generated. Others
  // (Connect6): the whole trees breadth-first (tail 0), in halves when they exceed `budget_bytes` (0: a
  // quarter of the free memory at the first call); nodes += every node. ms += device time.
  Status search_many(const Pos* roots, std::size_t n, int depth, int tail, const Params& params, int* values, int* best,
                     std::uint64_t& nodes, double& ms, std::size_t budget_bytes = 0);
  // The most plies search_many's `tail` may be for this game (0: none).
  static int tail_plies();
  // Registers and local memory (stack) per thread of the tree's leaf kernel as compiled: the evaluation's
  // cost on the device. Its tables belong in global memory: one copy built on the stack per call made
  // the leaf kernel several times slower (1,632 bytes of stack for chess; tests hold the bound).
  struct KernelResources {
    int registers = 0;
    std::size_t local_bytes = 0;
  };
  Status leaf_kernel_resources(const Params& params, KernelResources& out) const;

  struct Impl;

 private:
  GameDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu

namespace warpmind::search {

// Per game G (specialised in ai/src/search/<game>/<game>_device.h):
//   using Rules = ...;                                   // the R of GameDevice<R>
//   static constexpr const char* kName;                  // for error messages
//   static Status check(const G&);                       // settings the device can take
//   static Rules::Params params(const G&);
//   static Rules::Pos pack(const G::State&);
//   static G::Move unpack(const Rules::Move&);
template <class G>
struct DeviceGame;

}  // namespace warpmind::search
