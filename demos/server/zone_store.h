// A zone's store (--zone-store, docs/server.md "A zone crash"): a zone of a cluster keeps its state in
// NATS JetStream after every tick, before anything of the tick is sent, and a zone started with --restore
// comes back from it: its slots (every client's connection is gone: their players are Detached, for the
// clients to resume with their tokens), its players where the tick left them with their views, and every
// player's last applied command. The tick messages the store keeps give it the other zones' messages it
// missed and — where it crashed after sending it — its own for the tick it comes back at, which it then
// replays instead of gathering anew.
//
// Called on the tick thread only: open() once after the network is up, then per tick replays() and
// replay() while gathering commands, and store() once the tick has run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "zone_wire.h"

namespace warpmind::server {

struct Server;

class ZoneStore {
 public:
  // What the summary reports of it.
  struct Counts {
    std::uint64_t stores = 0, failures = 0, bytes = 0;  // states stored, not stored; the last one's size
    std::uint64_t restored_tick = 0;                    // the tick it came back at (0: not restored)
    double restore_ms = -1;                             // how long coming back took (-1: not restored)
  };

  explicit ZoneStore(Server& sv) : sv_(sv) {}

  // --zone-store: the JetStream streams; --restore: the stored state taken back into the server (its
  // slots, world, views and early tick messages). Empty string or why not.
  std::string open();
  // The zone's state after the tick (as of the next tick to run); nothing without --zone-store.
  void store();
  // Whether tick t replays this zone's own message sent before a crash (false from the first tick that does not).
  bool replays(std::uint64_t t);
  // The replayed tick's commands into `raw`, and the slots moved on as they say (a join makes a Detached
  // player with the token its Welcome carried, a leave frees its slot). Only when replays(tick).
  void replay(std::vector<net::RawCommand>& raw);
  const Counts& counts() const { return counts_; }

 private:
  Server& sv_;
  Counts counts_;
  net::StoredZone stored_;
  std::vector<std::uint8_t> wire_;
  // This zone's own messages for the ticks from the restored one on, where it sent them before the crash
  // (one, unless storing failed for a while): those ticks are run again with their commands.
  std::map<std::uint64_t, net::TickMessage> replay_own_;
};

}  // namespace warpmind::server
