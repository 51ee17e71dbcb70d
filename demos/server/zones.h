// A zone's part in its cluster (docs/server.md, "Zones"): the tick messages the zones exchange over the
// bus each tick (commands, the players near a border that a neighbour mirrors, the views of players
// about to cross one), the zone's world aligned with its neighbours' before the tick, and the States and
// Events relayed between the zone that builds them and the zone their client is connected to.
//
// Called on the tick thread only. One zone (--zones 1) uses deliver() alone; the rest is a cluster's.
// Per tick: gather() (publish, wait for the others, align, resolve), then begin_relays(), deliver() for
// each message built, flush_relays(); drain_relays() between ticks passes on what other zones relayed.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "protocol.h"
#include "warpmind/aoi/aoi.h"
#include "early_ticks.h"
#include "zone_wire.h"

namespace warpmind::server {

struct Server;

class Zones {
 public:
  using Clock = std::chrono::steady_clock;

  // What the summary reports of the exchange.
  struct Counts {
    std::uint64_t messages = 0, bad = 0, late = 0, timeouts = 0;  // tick messages in: taken, bad, late; waits given up
    std::uint64_t relayed_out = 0, relayed_in = 0, resets = 0;    // relay records; worlds reset to align them
    // Bus messages dropped for a wrong or missing tag (not signed with the cluster key), and tick messages
    // for ticks too far ahead, or beyond what the store of early messages holds.
    std::uint64_t bad_tags = 0, too_early = 0;
    std::uint64_t resent = 0;  // this zone's tick messages published again while it waited (exchange)
    // Resumed Welcomes this zone made for players whose gateway is another zone, sent over the bus
    // without their token (kTokenFilledByGateway: the gateway writes it in).
    std::uint64_t resumes_relayed = 0;
  };

  explicit Zones(Server& sv) : sv_(sv) {}

  // The relay buffers, one per zone; after the bus is connected.
  void open(int zones) { relay_out_.resize(zones); }
  // A cluster: this zone's clients' commands, then the other zones' (joins and leaves are moves in and
  // out of the parking strip), resolved into `cmds` against the zone's world as aligned with its
  // neighbours'. False when the tick is not to run (stopping, or the world could not be aligned). t0
  // moves past the wait.
  bool gather(std::vector<aoi::Command>& cmds, Clock::time_point& t0);
  // A tick's messages: their relay buffers begun, the resumed Welcomes of the tick delivered first;
  // then each message to player `id`'s client (here, or relayed to its gateway zone); then what is
  // buffered published.
  void begin_relays();
  void deliver(std::uint32_t id, std::uint8_t channel, std::span<const std::uint8_t> message);
  void flush_relays();
  // States and Events other zones computed for this zone's clients: passed on as they are.
  void drain_relays();
  // A peer's tick message for a tick not run yet (a restore reads them from the store): kept, unless
  // that zone's message for that tick is kept already or the store of early messages is full
  // (early_ticks.h); counted as too_early when it is too far ahead or the store is full.
  void keep_early(net::TickMessage&& m);
  // Whether a tick message says only what its zone may (its own clients' commands, its own area's players).
  bool sent_by_its_zone(const net::TickMessage& m) const;
  // A Resume of a player in this zone's area: its resumed Welcome and Events, sent once the tick's relays begin.
  void answer_resume(const net::RawCommand& c, const aoi::Player& at);
  const Counts& counts() const { return counts_; }

 private:
  // Resumed Welcomes (and their Events) this zone answers in the tick being resolved, sent once the
  // tick's relays begin.
  struct Outgoing {
    std::uint32_t player;
    std::uint8_t channel;
    std::vector<std::uint8_t> bytes;
  };
  static constexpr auto kResendEvery = std::chrono::milliseconds(200);

  void flush_relay(std::uint32_t g);
  void publish_tick(const std::vector<aoi::Player>& before);
  bool exchange(const std::vector<aoi::Player>& before, bool publish);
  void take(net::TickMessage& m);
  void adopt_views(const net::TickMessage& m);
  bool align_world();
  void resolve(std::vector<aoi::Command>& cmds);

  Server& sv_;
  Counts counts_;
  std::vector<net::RawCommand> raw_;                  // this tick's commands, the whole cluster's, by player
  std::vector<aoi::Player> desired_;                  // the world before a tick: its own players and mirrors
  EarlyTicks early_;                                  // peers' messages for ticks not run yet
  std::vector<net::TickMessage> peers_;               // this tick's, one per other zone
  std::vector<std::vector<std::uint8_t>> relay_out_;  // by gateway zone
  std::vector<std::uint8_t> wire_;
  std::vector<net::RelayRecord> relay_records_;
  std::vector<std::uint8_t> relay_check_;  // a relayed message, aligned for its check
  net::TickMessage mine_;
  // This zone's tick message of the tick being run and of the one before, as published, for publishing
  // again while it waits: a zone that came to the bus late (or lost a message) gets them (exchange).
  std::vector<std::uint8_t> sent_now_, sent_before_;
  std::uint64_t sent_now_tick_ = UINT64_MAX, sent_before_tick_ = UINT64_MAX;
  bool first_wait_ = true;
  std::vector<Outgoing> resume_out_;
};

}  // namespace warpmind::server
