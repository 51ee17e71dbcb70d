// What a cluster's gateway has passed on to one client connection, whichever zone built it: so that the
// client never gets a State older than one it already has, nor anything twice (docs/server.md, "Zones").
// Two paths feed a connection: the States and Events the gateway builds itself while the player is in its
// own area, and those relayed from the zone whose area the player is in. When the zones run late, tick T
// relayed from the zone a player just left can arrive after the gateway's own T + 1; and a zone replaying
// a tick after a crash sends that tick's messages again. Both paths ask `first` before sending.
//
// The rule, per message kind:
// - State: passed on when its tick is above the newest State tick passed on (an older one is of no use to
//   the client, whose catch-up counts from the newest it acknowledged).
// - Events: passed on when its tick was not passed on yet, the newest tick and the 64 before it being
//   remembered (Events of two zones may come out of order); older than that: refused.
// - Welcome (a resumed one): passed on when its tick is above the newest Welcome tick passed on.
// - Any other body: refused (a zone sends a client nothing else).
// A new connection of the player (a resume) starts from `SentFilter{}`.
#pragma once

#include <cstdint>

#include "protocol.h"

namespace warpmind::server {

struct SentFilter {
  std::uint64_t state = 0, events = 0, events_mask = 0, welcome = 0;  // newest ticks passed on (0: none)

  // Whether m is new to the connection; if so, marks it passed on.
  bool first(const net::Message& m) {
    if (const net::State* st = m.body_as_State()) return newer(st->tick(), state);
    if (const net::Welcome* w = m.body_as_Welcome()) return newer(w->tick(), welcome);
    const net::Events* e = m.body_as_Events();
    if (e == nullptr) return false;
    const std::uint64_t t = e->tick();
    if (t > events) {
      const std::uint64_t shift = t - events;
      events_mask = shift >= 64 ? 0 : events_mask << shift;  // bit k - 1: tick events - k passed on
      if (events != 0 && shift <= 64) events_mask |= std::uint64_t{1} << (shift - 1);
      events = t;
      return true;
    }
    const std::uint64_t back = events - t;  // 0: the newest itself
    if (back == 0 || back > 64 || (events_mask >> (back - 1) & 1)) return false;
    events_mask |= std::uint64_t{1} << (back - 1);
    return true;
  }

 private:
  static bool newer(std::uint64_t t, std::uint64_t& newest) {
    if (t <= newest) return false;
    newest = t;
    return true;
  }
};

}  // namespace warpmind::server
