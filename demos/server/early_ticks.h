// Peers' tick messages for ticks a zone has not run yet (zones.h): read from the bus while the zone is
// behind, or from the store when it restores, and held until their tick runs. At most one message per
// zone per tick, at most kTicks ahead of the zone's tick, and at most `cap` bytes of memory as the
// decoded messages hold it (their vectors' capacities and the messages themselves), not as their wire
// size: a message of many views decodes to several times its wire bytes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "zone_wire.h"

namespace warpmind::server {

class EarlyTicks {
 public:
  static constexpr std::uint64_t kTicks = 64;
  static constexpr std::size_t kBytes = std::size_t{64} << 20;
  // What keep() did with a message.
  enum class Kept { Yes, Repeat, NotAhead, TooFar, Full };

  explicit EarlyTicks(std::size_t cap = kBytes) : cap_(cap) {}

  // The memory a decoded message holds, in bytes: the message, its vectors' capacities and 16 bytes of
  // the allocator's for each vector that holds memory.
  static std::size_t held_bytes(const net::TickMessage& m) {
    std::size_t n = sizeof m + block(m.states) + block(m.commands) + block(m.views);
    for (const net::PlayerView& v : m.views) {
      n += block(v.visible) + block(v.past);
      for (const net::ViewTick& t : v.past) n += block(t.keys) + block(t.entered);
    }
    return n;
  }

  // Keeps `m` (for tick `now`, the zone's next to run, or a later one) unless that zone's message for its
  // tick is kept already, it is more than kTicks ahead, or it would take the held memory past the cap.
  // `m` is moved from only when kept.
  Kept keep(std::uint64_t now, net::TickMessage&& m) {
    if (m.tick < now) return Kept::NotAhead;
    if (m.tick > now + kTicks) return Kept::TooFar;
    auto it = ticks_.find(m.tick);
    if (it != ticks_.end() && std::any_of(it->second.list.begin(), it->second.list.end(),
                                          [&m](const net::TickMessage& p) { return p.zone == m.zone; }))
      return Kept::Repeat;
    const std::size_t n = held_bytes(m) + (it == ticks_.end() ? kTickBytes : 0);
    if (bytes_ + n > cap_) return Kept::Full;
    if (it == ticks_.end()) it = ticks_.emplace(m.tick, Tick{}).first;
    it->second.bytes += n;
    bytes_ += n;
    it->second.list.push_back(std::move(m));
    return Kept::Yes;
  }
  // Tick `tick`'s messages into `out` (replacing what it held; empty when none), and every older tick's dropped.
  void take(std::uint64_t tick, std::vector<net::TickMessage>& out) {
    out.clear();
    while (!ticks_.empty() && ticks_.begin()->first <= tick) {
      auto first = ticks_.begin();
      if (first->first == tick) out = std::move(first->second.list);
      bytes_ -= first->second.bytes;
      ticks_.erase(first);
    }
  }
  // The memory held now, in bytes (at most the cap).
  std::size_t bytes() const { return bytes_; }

 private:
  static constexpr std::size_t kTickBytes = 64;  // a tick's map node and list
  template <class T>
  static std::size_t block(const std::vector<T>& v) {
    return v.capacity() == 0 ? 0 : v.capacity() * sizeof(T) + 16;
  }
  struct Tick {
    std::vector<net::TickMessage> list;
    std::size_t bytes = 0;
  };
  std::size_t cap_;
  std::size_t bytes_ = 0;
  std::map<std::uint64_t, Tick> ticks_;
};

}  // namespace warpmind::server
