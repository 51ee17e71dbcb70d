// warpmind-server's zones (docs/server.md, "Zones"): the tick messages the zones of a cluster exchange
// over NATS each tick (commands, the players near a border that a neighbour mirrors, and the views of
// players about to cross one), the world aligned with the neighbours' before the tick, and States and
// Events relayed to the zone their client is connected to.
#include <cstring>

#include "zones.h"

#include "server.h"

namespace warpmind::server {

// States and Events other zones computed for this zone's clients: passed on as they are.
void Zones::drain_relays() {
  if (sv_.f.zones == 1) return;
  for (net::ZoneBus::Got got; (got = sv_.bus.next(true, 0, wire_)) != net::ZoneBus::Got::Nothing;) {
    if (got == net::ZoneBus::Got::BadTag) {
      ++counts_.bad_tags;
      continue;
    }
    if (!net::decode_relay(wire_.data(), wire_.size(), sv_.f.zones, sv_.total, net::kChannels, std::size_t{1} << 20,
                           relay_records_)) {
      ++counts_.bad;
      continue;
    }
    const std::uint64_t relay_tick = net::wire::get<std::uint64_t>(wire_.data() + 8);
    for (const net::RelayRecord& r : relay_records_) {
      // Only this zone's clients, and only what a zone sends a client: a well-formed State on the stream
      // channel, Events or the player's resumed Welcome on the reliable one (read from an aligned copy: a
      // record sits anywhere in the relay message, and FlatBuffers reads its offsets in place).
      relay_check_.assign(r.message.begin(), r.message.end());
      const net::Message* m = net::read_message(relay_check_.data(), relay_check_.size());
      const net::Welcome* w = m ? m->body_as_Welcome() : nullptr;
      const bool fits = m && ((m->body_type() == net::Body_State && r.channel == net::kStreamChannel) ||
                              (m->body_type() == net::Body_Events && r.channel == net::kReliableChannel) ||
                              (w && w->resumed() && w->player() == r.player && r.channel == net::kReliableChannel));
      if (r.player / sv_.cap != static_cast<std::uint32_t>(sv_.f.zone) || !fits) {
        ++counts_.bad;
        continue;
      }
      if (!sv_.sessions.relay(r.player % sv_.cap, relay_tick, *m, r.channel, r.message)) continue;
      ++counts_.relayed_in;
    }
  }
  sv_.sockets.flush();
}

void Zones::begin_relays() {
  for (std::uint32_t g = 0; g < relay_out_.size(); ++g)
    net::begin_relay(relay_out_[g], static_cast<std::uint32_t>(sv_.f.zone), sv_.tick);
  for (const Outgoing& o : resume_out_) deliver(o.player, o.channel, o.bytes);
  resume_out_.clear();
}

void Zones::flush_relays() {
  for (std::uint32_t g = 0; g < relay_out_.size(); ++g) flush_relay(g);
}

void Zones::flush_relay(std::uint32_t g) {
  if (relay_out_[g].size() <= net::kRelayHeader) return;
  sv_.bus.publish(sv_.f.nats.prefix + ".relay." + std::to_string(g), relay_out_[g]);
  net::begin_relay(relay_out_[g], static_cast<std::uint32_t>(sv_.f.zone), sv_.tick);
}

void Zones::deliver(std::uint32_t id, std::uint8_t channel, std::span<const std::uint8_t> message) {
  const std::uint32_t g = id / sv_.cap;
  if (g == static_cast<std::uint32_t>(sv_.f.zone)) {
    sv_.sessions.deliver(id % sv_.cap, channel, message);
    return;
  }
  net::add_relay(relay_out_[g], id, channel, message);
  ++counts_.relayed_out;
  if (relay_out_[g].size() > (std::size_t{1} << 19)) flush_relay(g);
}

// Whether a tick message says only what its zone may: commands of its own clients (ids zone * cap
// onwards) and states of players in its own area.
bool Zones::sent_by_its_zone(const net::TickMessage& m) const {
  const ZoneRect r = ZoneRect::of(static_cast<int>(m.zone), sv_.f.zones, sv_.f.zone_rows, sv_.f.map);
  for (const net::RawCommand& c : m.commands)
    if (c.player / sv_.cap != m.zone) return false;
  for (const net::ZoneState& z : m.states)
    if (!(z.x >= 0 && z.x <= sv_.f.map && z.y >= 0 && z.y <= sv_.f.map && r.holds(z.x, z.y))) return false;
  return true;
}

// This zone's tick message: its clients' commands, the players of its area that a neighbour mirrors,
// and the views of the players that may walk across a border; published on <prefix>.tick.
void Zones::publish_tick(const std::vector<aoi::Player>& before) {
  mine_.zone = static_cast<std::uint32_t>(sv_.f.zone);
  mine_.tick = sv_.tick;
  mine_.commands = raw_;
  mine_.states.clear();
  // The players of this area that a neighbour mirrors: those within `reach` of a border (a corner's
  // neighbour, across two borders, takes them from the same list).
  mine_.views.clear();
  for (std::uint32_t id = 0; id < sv_.total; ++id) {
    const aoi::Player& p = before[id];
    if (!sv_.in_zone(p)) continue;
    if (sv_.area.near_border(p.x, p.y, sv_.reach)) mine_.states.push_back({id, p.x, p.y, p.hp});
    // A player that may cross a border this tick: its client's view goes along, so the zone it walks
    // into delta-encodes its State as this one would have (twice the largest move: rounding aside).
    const View& v = sv_.clients.view(id);
    const float edge = 2 * sv_.max_move;
    if (v.tick + 1 == sv_.tick && sv_.area.near_border(p.x, p.y, edge)) {
      net::PlayerView& out = mine_.views.emplace_back();
      out.player = id;
      out.visible = v.visible;
      const std::uint64_t a = sv_.clients.acked(id);
      if (a != 0 && sv_.tick - a <= kHistory && v.history.size() == kHistory)
        for (std::uint64_t u = a + 1; u < sv_.tick; ++u)
          if (v.history[u % kHistory].tick == u) out.past.push_back(v.history[u % kHistory]);
    }
  }
  net::encode_tick(mine_, wire_);
  sv_.bus.publish(sv_.f.nats.prefix + ".tick", wire_);
  sent_before_.swap(sent_now_);
  sent_before_tick_ = sent_now_tick_;
  sent_now_.assign(wire_.begin(), wire_.end());
  sent_now_tick_ = sv_.tick;
}

// Publishes this zone's tick message (unless the tick replays the one it sent before a crash) and waits
// for every other zone's for the same tick. False when one did not come within --zone-timeout (the first
// tick waits for the whole cluster to start). While it waits it publishes its messages of this tick and
// of the one before again every kResendEvery: the bus keeps no message for a zone that subscribes after
// it was sent, so a zone that started late, or lost a message, would otherwise wait for good (a zone that
// has run tick T - 1 had every zone's message of T - 1, so the others are at T - 1 or T). A copy of T - 1
// that reaches a zone at T is dropped silently: it had that zone's message of T - 1 already.
bool Zones::exchange(const std::vector<aoi::Player>& before, bool publish) {
  mine_.zone = static_cast<std::uint32_t>(sv_.f.zone);
  if (publish) publish_tick(before);
  // With a store, the message is at the NATS server before the zone goes on (a crash from now on replays it).
  if (publish && sv_.f.store.on) sv_.bus.flush();
  if (sv_.f.store.crash_at_tick == sv_.tick &&
      sv_.f.store.crash_point == "message") {  // --crash-at-tick: makes the zone replay the tick
    sv_.bus.flush();
    std::_Exit(137);
  }
  early_.take(sv_.tick, peers_);
  const Clock::time_point until = first_wait_
                                      ? Clock::time_point::max()
                                      : Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                           std::chrono::duration<double>(sv_.f.nats.zone_timeout));
  net::TickMessage m;
  Clock::time_point resend_at = Clock::now() + kResendEvery;
  while (peers_.size() + 1 < static_cast<std::size_t>(sv_.f.zones)) {
    if (g_stop.load()) return false;  // stopping: the tick is not run
    const Clock::time_point now = Clock::now();
    if (now >= until) {
      ++counts_.timeouts;
      return false;
    }
    if (now >= resend_at) {
      if (sent_before_tick_ + 1 == sv_.tick) {
        sv_.bus.publish(sv_.f.nats.prefix + ".tick", sent_before_);
        ++counts_.resent;
      }
      if (sent_now_tick_ == sv_.tick) {
        sv_.bus.publish(sv_.f.nats.prefix + ".tick", sent_now_);
        ++counts_.resent;
      }
      resend_at = now + kResendEvery;
    }
    const net::ZoneBus::Got got = sv_.bus.next(false, 0, wire_);
    if (got == net::ZoneBus::Got::Nothing) {
      drain_relays();
      sv_.pump(1);  // clients' packets are taken while the zone waits
      continue;
    }
    if (got == net::ZoneBus::Got::BadTag) {  // not signed with the cluster key: nothing of it is read
      ++counts_.bad_tags;
      continue;
    }
    take(m);
  }
  first_wait_ = false;
  return true;
}

// A tick message just read from the bus (in wire_): this tick's from a peer, kept for a later tick, or
// dropped and counted.
void Zones::take(net::TickMessage& m) {
  ++counts_.messages;
  if (!net::decode_tick(wire_.data(), wire_.size(), sv_.f.zones, sv_.total, m) || m.zone == mine_.zone ||
      !sent_by_its_zone(m)) {
    ++counts_.bad;
  } else if (m.tick + 1 == sv_.tick) {
    // a copy of the last tick's, published again by a zone that waits (it had this zone's already)
  } else if (m.tick < sv_.tick) {
    ++counts_.late;
  } else if (m.tick > sv_.tick) {
    keep_early(std::move(m));
  } else if (std::none_of(peers_.begin(), peers_.end(), [&m](const net::TickMessage& p) { return p.zone == m.zone; })) {
    peers_.push_back(std::move(m));
  }
}

void Zones::keep_early(net::TickMessage&& m) {
  const EarlyTicks::Kept k = early_.keep(sv_.tick, std::move(m));
  // further ahead than a zone can be, or more than the store holds
  if (k == EarlyTicks::Kept::TooFar || k == EarlyTicks::Kept::Full) ++counts_.too_early;
}

bool Zones::gather(std::vector<aoi::Command>& cmds, Clock::time_point& t0) {
  raw_.clear();
  const bool replay = sv_.store.replays(sv_.tick);
  if (replay) {
    sv_.store.replay(raw_);
  } else {
    net::RawCommand c;
    for (std::uint32_t i = 0; i < sv_.cap; ++i) {
      if (sv_.sessions.take_pending(i, c)) raw_.push_back(c);
      sv_.sessions.take_notes(i, raw_);
    }
  }
  // With a store, the Welcomes and Goodbyes of this tick's joins and leaves are out before the tick message
  // that commits them: a crash after it replays them, and their clients hold the tokens and ticks.
  if (sv_.f.store.on && !replay) sv_.sockets.flush();
  const std::vector<aoi::Player> before(sv_.world->players().begin(), sv_.world->players().end());
  if (!exchange(before, !replay) && g_stop.load()) return false;
  for (const net::TickMessage& m : peers_) {
    raw_.insert(raw_.end(), m.commands.begin(), m.commands.end());
    adopt_views(m);
  }
  // By player, a Resume first (its Welcome says what was applied before this tick), the rest by kind.
  const auto rank = [](const net::RawCommand& c) {
    return std::pair(c.player, c.kind == net::RawKind::Resume ? 0u : 1u + static_cast<std::uint32_t>(c.kind));
  };
  std::sort(raw_.begin(), raw_.end(),
            [&rank](const net::RawCommand& a, const net::RawCommand& b) { return rank(a) < rank(b); });
  const Clock::time_point waited = Clock::now();
  sv_.times.add_wait(std::chrono::duration<float, std::milli>(waited - t0).count());
  t0 = waited;
  if (!align_world()) {
    g_stop.store(true);
    return false;
  }
  resolve(cmds);
  return true;
}

// A Resume of a player in this zone's area (its client is back at its gateway zone): the resumed Welcome —
// where the player is before this tick, its last applied command, the client's seq counter, the token
// made again from the session's join tick — and an Events of the tick before naming everyone it sees,
// sent to the gateway once this tick's relays begin; its State of this tick is a snapshot.
void Zones::answer_resume(const net::RawCommand& c, const aoi::Player& at) {
  const std::uint32_t id = c.player;
  flatbuffers::FlatBufferBuilder b(256);
  const bool here = id / sv_.cap == static_cast<std::uint32_t>(sv_.f.zone);  // else relayed over the bus
  const std::uint64_t token =
      here ? sv_.bus.derive_token(id / sv_.cap, id % sv_.cap, c.target) : net::kTokenFilledByGateway;
  counts_.resumes_relayed += !here;
  sv_.sessions.make_welcome(b, id, token, sv_.tick, at, true, sv_.clients.last_applied(id), c.seq);
  resume_out_.push_back({id, net::kReliableChannel, {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()}});
  sv_.sessions.make_resume_events(b, id);
  resume_out_.push_back({id, net::kReliableChannel, {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()}});
}

// The views of the players that may walk into this area from m's zone (handoff): the zone that built
// a player's last State sent its client's view along, so the States built here delta-encode alike.
void Zones::adopt_views(const net::TickMessage& m) {
  for (const net::PlayerView& pv : m.views) {
    View& v = sv_.clients.view(pv.player);
    if (v.tick + 1 == sv_.tick) continue;  // this zone built its last State itself
    v.start(sv_.tick - 1);
    v.visible = pv.visible;
    if (v.history.size() != kHistory) v.history.assign(kHistory, net::ViewTick{UINT64_MAX, {}, {}});
    for (const net::ViewTick& h : pv.past)
      if (h.tick < sv_.tick && sv_.tick - h.tick <= kHistory) v.history[h.tick % kHistory] = h;
  }
}

// The tick's commands for the AOI module: every raw command whose player (an attack: whose target) is in
// this zone's world, resolved against the positions before the tick.
void Zones::resolve(std::vector<aoi::Command>& cmds) {
  cmds.clear();
  const std::span<const aoi::Player> pos = sv_.world->players();
  aoi::Command k[2];
  for (const net::RawCommand& c : raw_) cmds.insert(cmds.end(), k, k + sv_.resolve_one(c, pos, k));
}

// The zone's world before the tick: its own players as it computed them, the players within reach
// of its area as their zones computed them, everyone else parked. Reset only when it differs.
bool Zones::align_world() {
  const std::span<const aoi::Player> now = sv_.world->players();
  desired_ = sv_.parking;
  for (std::uint32_t id = 0; id < sv_.total; ++id)
    if (sv_.in_zone(now[id])) desired_[id] = now[id];
  for (const net::TickMessage& m : peers_)
    for (const net::ZoneState& z : m.states)
      if (sv_.in_reach(z.x, z.y)) desired_[z.player] = {z.x, z.y, z.hp};
  if (std::memcmp(desired_.data(), now.data(), desired_.size() * sizeof(aoi::Player)) == 0) return true;
  ++counts_.resets;
  if (Status st = sv_.world->reset(desired_); !st.ok()) {
    std::fprintf(stderr, "warpmind-server: zone %d, tick %llu: %s\n", sv_.f.zone,
                 static_cast<unsigned long long>(sv_.tick), st.message().c_str());
    return false;
  }
  return true;
}

}  // namespace warpmind::server
