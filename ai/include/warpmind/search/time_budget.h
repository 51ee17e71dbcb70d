// warpmind::search::time_budget — how long a game engine thinks about one move on a clock.
#pragma once

#include <algorithm>
#include <cstdint>

namespace warpmind::search {

// The milliseconds to spend on this move with `left_ms` on the clock and `increment_ms` added after
// it: a share of the clock (1/moves_to_go, counting at most 40 moves; 1/30 when moves_to_go <= 0)
// plus three quarters of the increment, never more than half of what is left nor more than what is
// left minus a 50 ms margin for latency; at least 1.
inline std::int64_t time_budget(std::int64_t left_ms, std::int64_t increment_ms, int moves_to_go = 0) {
  const std::int64_t margin = 50;
  const std::int64_t mtg = moves_to_go > 0 ? std::min(moves_to_go, 40) : 30;
  std::int64_t t = left_ms / mtg + increment_ms * 3 / 4;
  t = std::min(t, left_ms / 2);
  t = std::min(t, left_ms - margin);
  return std::max<std::int64_t>(t, 1);
}

}  // namespace warpmind::search
