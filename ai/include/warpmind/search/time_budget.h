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

// Two limits for an engine that deepens iteratively: `soft_ms`, after which it starts no new iteration
// (the next one would most likely not finish), and `hard_ms`, when it stops whatever it is doing. The
// base is a share of the clock (1/moves_to_go, at most 40 moves; 1/25 when moves_to_go <= 0) plus
// four fifths of the increment; soft = three fifths of the base, hard = three times the base, never more than a
// third of what is left nor more than what is left minus a 50 ms margin; both at least 1.
struct TimeLimits {
  std::int64_t soft_ms = 1, hard_ms = 1;
};
inline TimeLimits time_limits(std::int64_t left_ms, std::int64_t increment_ms, int moves_to_go = 0) {
  const std::int64_t margin = 50;
  const std::int64_t mtg = moves_to_go > 0 ? std::min(moves_to_go, 40) : 25;
  const std::int64_t base = left_ms / mtg + increment_ms * 4 / 5;
  TimeLimits t;
  t.hard_ms = std::max<std::int64_t>(std::min({base * 3, left_ms / 3, left_ms - margin}), 1);
  t.soft_ms = std::max<std::int64_t>(std::min(base * 3 / 5, t.hard_ms), 1);
  return t;
}

}  // namespace warpmind::search
