// The game clock of the board scenes (contract in board_ai.h).
#include "board_ai.h"

#include <cstdio>
#include <cstdlib>

namespace warpmind::demos {

void GameClock::reset(TimeControl tc) {
  tc_ = tc;
  left_[0] = left_[1] = tc.on() ? tc.base_ms : 0;
  running_ = -1;
}

void GameClock::start(int side) {
  if (!tc_.on() || running_ == side) return;
  stop();
  running_ = side;
  since_ = now_();
}

void GameClock::stop() {
  if (running_ < 0) return;
  left_[running_] = left_ms(running_);
  running_ = -1;
}

void GameClock::moved(int side) {
  if (!tc_.on()) return;
  if (running_ == side) stop();
  left_[side] += tc_.increment_ms;
}

std::int64_t GameClock::left_ms(int side) const {
  if (running_ != side) return left_[side];
  return left_[side] - std::chrono::duration_cast<std::chrono::milliseconds>(now_() - since_).count();
}

GameClock::Snapshot GameClock::snapshot() const { return {{left_[0], left_[1]}}; }

void GameClock::restore(const Snapshot& s) {
  running_ = -1;
  left_[0] = s.left[0];
  left_[1] = s.left[1];
}

std::string clock_text(std::int64_t ms) {
  const std::int64_t a = std::llabs(ms);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%lld:%02lld.%lld", ms < 0 ? "-" : "", static_cast<long long>(a / 60000),
                static_cast<long long>(a / 1000 % 60), static_cast<long long>(a / 100 % 10));
  return buf;
}

}  // namespace warpmind::demos
