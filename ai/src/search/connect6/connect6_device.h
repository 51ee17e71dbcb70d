// Host-only interface to the CUDA Connect6 kernels (gpu/src/search/connect6.cu): the hybrid search's batch
// kernels — leaf evaluation and branch calculation (candidate turns in the search's order). The rules
// are connect6_rules.h, shared with the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "search/connect6/connect6_rules.h"
#include "search/minimax_device.h"

#include "warpmind/core/status.h"

namespace warpmind::gpu {

// Not thread-safe.
class Connect6Device {
 public:
  static Status create(void* stream, std::unique_ptr<Connect6Device>& out);
  ~Connect6Device();
  // values[i] = evaluate(in[i]), from the side to move.
  Status evaluate(const search::connect6::rules::C6Pos* in, std::size_t n, int* values);
  // values[i] = leaf_value(in[i], ply): won and full boards scored as terminal, `ply` plies below the
  // root; the others evaluated.
  Status leaf_values(const search::connect6::rules::C6Pos* in, std::size_t n, int ply, int* values);
  // Negamax of `root` to `depth` turns without pruning over the candidate turns at `width`, the whole
  // tree on the device (minimax.cuh). The tree must fit `budget_bytes` (0: half the free memory).
  Status minimax(const search::connect6::rules::C6Pos& root, int depth, int width, MinimaxOutcome& out,
                 std::size_t budget_bytes = 0);
  // The subtrees under a host search's horizon, without pruning, in one pass over all of them:
  // values[i] = the negamax value of roots[i] searched `depth` more turns over the candidates at `width`
  // (terminal scores counted from `ply`, roots[i]'s distance from the search's root). nodes += the trees'
  // nodes, the roots included; ms += device time. A batch whose trees exceed `budget_bytes` (0: a
  // quarter of the free memory at the first call) runs in halves; a single tree that does not fit is an
  // error.
  Status subtrees(const search::connect6::rules::C6Pos* roots, std::size_t n, int depth, int width, int ply,
                  int* values, std::uint64_t& nodes, double& ms, std::size_t budget_bytes = 0);
  // The candidate turns of every position (at most `width`, <= kMaxTurns): counts[i] of them for in[i],
  // packed position after position into `turns` (room for n * kMaxTurns).
  Status branches(const search::connect6::rules::C6Pos* in, std::size_t n, int width,
                  search::connect6::rules::C6Turn* turns, int* counts);

  struct Impl;

 private:
  Connect6Device() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
