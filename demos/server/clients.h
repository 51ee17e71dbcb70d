// What warpmind-server knows of each player's client, by player id (zone * cap + slot: the whole
// cluster's ids): its view (what it holds, kept by the zone that builds its States: View), the newest State
// it acknowledged as its gateway zone passed it on (a cluster; one zone reads the slot's own), and the seq
// of its last command applied, which every State carries. A join starts all three afresh; the tick's
// commands move them on (server_tick.cpp); the outbox reads them; a zone's store keeps and restores them.
//
// Called on the tick thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "zone_wire.h"

namespace warpmind::server {

// How many ticks back a State's catch-up can reach (docs/protocol.md, "Deltas"): a client whose newest
// acknowledged State is older gets a snapshot.
constexpr std::uint64_t kHistory = 32;

// What a player's client holds, as the zone that builds its States keeps track of it: the players in
// its AOI after tick `tick`, and per tick of the last kHistory its notifications' keys and the players
// that came into view — what a catch-up is made of. Handed to the next zone when the player walks
// across a border.
struct View {
  std::uint64_t tick = 0;  // the tick this view is of (0: none)
  std::vector<std::uint32_t> visible;
  std::vector<net::ViewTick> history;  // by tick % kHistory; tick UINT64_MAX: nothing
  // A player joining in the tick after `before`: sees nothing yet. Its vectors' memory is given back, so
  // that what a view holds is what its own session needed, never the most any session of its id did (a
  // server up for days would otherwise creep up to every id's busiest moment).
  void start(std::uint64_t before) {
    tick = before;
    std::vector<std::uint32_t>().swap(visible);
    for (net::ViewTick& h : history) {
      h.tick = UINT64_MAX;
      std::vector<std::uint32_t>().swap(h.keys);
      std::vector<std::uint32_t>().swap(h.entered);
    }
  }
};

class Clients {
 public:
  // Room for `players` ids, none of them known yet.
  void open(std::uint32_t players) {
    views_.resize(players);
    acked_.assign(players, 0);
    last_applied_.assign(players, 0);
  }
  // Player id's new session, joining in the tick after `before`: its client holds nothing yet.
  void start(std::uint32_t id, std::uint64_t before) {
    views_[id].start(before);
    acked_[id] = 0;
    last_applied_[id] = 0;
  }

  View& view(std::uint32_t id) { return views_[id]; }
  const View& view(std::uint32_t id) const { return views_[id]; }

  // A cluster: the newest State tick player id's client acknowledged (0: none); `ack` keeps the newest,
  // `forget_ack` makes its next State a snapshot (a resumed client holds nothing).
  std::uint64_t acked(std::uint32_t id) const { return acked_[id]; }
  void ack(std::uint32_t id, std::uint64_t tick) { acked_[id] = std::max(acked_[id], tick); }
  void forget_ack(std::uint32_t id) { acked_[id] = 0; }

  // The seq of player id's last command applied (0: none in this session).
  std::uint32_t last_applied(std::uint32_t id) const { return last_applied_[id]; }
  void applied(std::uint32_t id, std::uint32_t seq) { last_applied_[id] = seq; }
  // Every player's, as a zone's store keeps them and gives them back.
  const std::vector<std::uint32_t>& all_last_applied() const { return last_applied_; }
  void restore_last_applied(const std::vector<std::uint32_t>& seqs) { last_applied_ = seqs; }

 private:
  std::vector<View> views_;
  std::vector<std::uint64_t> acked_;
  std::vector<std::uint32_t> last_applied_;
};

}  // namespace warpmind::server
