// The outcome of a device-resident negamax without pruning (gpu/src/search/minimax.cuh), host-only.
#pragma once

#include <cstdint>

namespace warpmind::gpu {

struct MinimaxOutcome {
  int value = 0;            // the root's negamax value, from the side to move
  int best = -1;            // index of the best root child in the search's order (the first of equals); -1: none
  std::uint64_t nodes = 0;  // every node of the tree, the root included
  double ms = 0;            // device time from the root's upload to the root's value
};

}  // namespace warpmind::gpu
