// warpmind-server's zones (docs/server.md, "Zones"): the tick messages the zones of a cluster exchange
// over NATS each tick (commands, the players near a border that a neighbour mirrors, and the views of
// players about to cross one), the world aligned with the neighbours' before the tick, and States and
// Events relayed to the zone their client is connected to.
#include <cstring>

#include "server.h"

namespace warpmind::server {

// States and Events other zones computed for this zone's clients: passed on as they are.
void Server::drain_relays() {
  if (f.zones == 1) return;
  for (net::ZoneBus::Got got; (got = bus.next(true, 0, wire)) != net::ZoneBus::Got::Nothing;) {
    if (got == net::ZoneBus::Got::BadTag) {
      ++zone_bad_tags;
      continue;
    }
    if (!net::decode_relay(wire.data(), wire.size(), f.zones, total, net::kChannels, std::size_t{1} << 20,
                           relay_records)) {
      ++zone_bad;
      continue;
    }
    const std::uint64_t relay_tick = net::wire::get<std::uint64_t>(wire.data() + 8);
    for (const net::RelayRecord& r : relay_records) {
      // Only this zone's clients, and only what a zone sends a client: a well-formed State on the stream
      // channel, Events or the player's resumed Welcome on the reliable one (read from an aligned copy: a
      // record sits anywhere in the relay message, and FlatBuffers reads its offsets in place).
      relay_check.assign(r.message.begin(), r.message.end());
      const net::Message* m = net::read_message(relay_check.data(), relay_check.size());
      const net::Welcome* w = m ? m->body_as_Welcome() : nullptr;
      const bool fits = m && ((m->body_type() == net::Body_State && r.channel == net::kStreamChannel) ||
                              (m->body_type() == net::Body_Events && r.channel == net::kReliableChannel) ||
                              (w && w->resumed() && w->player() == r.player && r.channel == net::kReliableChannel));
      if (r.player / cap != static_cast<std::uint32_t>(f.zone) || !fits) {
        ++zone_bad;
        continue;
      }
      // Not for a client that left meanwhile, nor (a resumed one) anything of the ticks before its Welcome,
      // nor anything older than, or the same as, what it was sent already (sent_filter.h).
      Slot& s = slots[r.player % cap];
      if (s.state != SlotState::Active || s.peer == nullptr || s.resume_pending || relay_tick < s.first_tick ||
          !s.sent.first(*m))
        continue;
      send_bytes(s.peer, r.channel, r.message.data(), r.message.size());
      ++relayed_in;
    }
  }
  flush_all();
}

void Server::flush_relay(std::uint32_t g) {
  if (relay_out[g].size() <= net::kRelayHeader) return;
  bus.publish(f.nats.prefix + ".relay." + std::to_string(g), relay_out[g]);
  net::begin_relay(relay_out[g], static_cast<std::uint32_t>(f.zone), tick);
}

void Server::deliver(std::uint32_t id, std::uint8_t channel, std::span<const std::uint8_t> message) {
  const std::uint32_t g = id / cap;
  if (g == static_cast<std::uint32_t>(f.zone)) {
    // A cluster: through the same filter as relayed messages (a late relayed State of tick T must not
    // follow this zone's own T + 1). The message was built here: read without verifying.
    Slot& s = slots[id % cap];
    if (s.state == SlotState::Active && s.peer != nullptr && !s.resume_pending &&
        (f.zones == 1 || s.sent.first(*net::GetMessage(message.data()))))
      send_bytes(s.peer, channel, message.data(), message.size());
    return;
  }
  net::add_relay(relay_out[g], id, channel, message);
  ++relayed_out;
  if (relay_out[g].size() > (std::size_t{1} << 19)) flush_relay(g);
}

// Whether a tick message says only what its zone may: commands of its own clients (ids zone * cap
// onwards) and states of players in its own area.
bool Server::sent_by_its_zone(const net::TickMessage& m) const {
  const ZoneRect r = ZoneRect::of(static_cast<int>(m.zone), f.zones, f.zone_rows, f.map);
  for (const net::RawCommand& c : m.commands)
    if (c.player / cap != m.zone) return false;
  for (const net::ZoneState& z : m.states)
    if (!(z.x >= 0 && z.x <= f.map && z.y >= 0 && z.y <= f.map && r.holds(z.x, z.y))) return false;
  return true;
}

// This zone's tick message: its clients' commands, the players of its area that a neighbour mirrors,
// and the views of the players that may walk across a border; published on <prefix>.tick.
void Server::publish_tick(const std::vector<aoi::Player>& before) {
  mine.zone = static_cast<std::uint32_t>(f.zone);
  mine.tick = tick;
  mine.commands = raw;
  mine.states.clear();
  // The players of this area that a neighbour mirrors: those within `reach` of a border (a corner's
  // neighbour, across two borders, takes them from the same list).
  mine.views.clear();
  for (std::uint32_t id = 0; id < total; ++id) {
    const aoi::Player& p = before[id];
    if (!in_zone(p)) continue;
    if (area.near_border(p.x, p.y, reach)) mine.states.push_back({id, p.x, p.y, p.hp});
    // A player that may cross a border this tick: its client's view goes along, so the zone it walks
    // into delta-encodes its State as this one would have (twice the largest move: rounding aside).
    const View& v = views[id];
    const float edge = 2 * max_move;
    if (v.tick + 1 == tick && area.near_border(p.x, p.y, edge)) {
      net::PlayerView& out = mine.views.emplace_back();
      out.player = id;
      out.visible = v.visible;
      const std::uint64_t a = client_ack[id];
      if (a != 0 && tick - a <= kHistory && v.history.size() == kHistory)
        for (std::uint64_t u = a + 1; u < tick; ++u)
          if (v.history[u % kHistory].tick == u) out.past.push_back(v.history[u % kHistory]);
    }
  }
  net::encode_tick(mine, wire);
  bus.publish(f.nats.prefix + ".tick", wire);
  sent_before.swap(sent_now);
  sent_before_tick = sent_now_tick;
  sent_now.assign(wire.begin(), wire.end());
  sent_now_tick = tick;
}

// Publishes this zone's tick message (unless the tick replays the one it sent before a crash) and waits
// for every other zone's for the same tick. False when one did not come within --zone-timeout (the first
// tick waits for the whole cluster to start). While it waits it publishes its messages of this tick and
// of the one before again every kResendEvery: the bus keeps no message for a zone that subscribes after
// it was sent, so a zone that started late, or lost a message, would otherwise wait for good (a zone that
// has run tick T - 1 had every zone's message of T - 1, so the others are at T - 1 or T). A copy of T - 1
// that reaches a zone at T is dropped silently: it had that zone's message of T - 1 already.
bool Server::exchange(const std::vector<aoi::Player>& before, bool publish) {
  mine.zone = static_cast<std::uint32_t>(f.zone);
  if (publish) publish_tick(before);
  // With a store, the message is at the NATS server before the zone goes on (a crash from now on replays it).
  if (publish && f.store.on) bus.flush();
  if (f.store.crash_at_tick == tick &&
      f.store.crash_point == "message") {  // --crash-at-tick: makes the zone replay the tick
    bus.flush();
    std::_Exit(137);
  }
  peers.clear();
  if (auto it = early.find(tick); it != early.end()) {
    peers = std::move(it->second.list);
    early_bytes -= it->second.bytes;
    early.erase(it);
  }
  const Clock::time_point until = first_wait ? Clock::time_point::max()
                                             : Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                                  std::chrono::duration<double>(f.nats.zone_timeout));
  net::TickMessage m;
  Clock::time_point resend_at = Clock::now() + kResendEvery;
  while (peers.size() + 1 < static_cast<std::size_t>(f.zones)) {
    if (g_stop.load()) return false;  // stopping: the tick is not run
    const Clock::time_point now = Clock::now();
    if (now >= until) {
      ++zone_timeouts;
      return false;
    }
    if (now >= resend_at) {
      if (sent_before_tick + 1 == tick) {
        bus.publish(f.nats.prefix + ".tick", sent_before);
        ++zone_resent;
      }
      if (sent_now_tick == tick) {
        bus.publish(f.nats.prefix + ".tick", sent_now);
        ++zone_resent;
      }
      resend_at = now + kResendEvery;
    }
    const net::ZoneBus::Got got = bus.next(false, 0, wire);
    if (got == net::ZoneBus::Got::Nothing) {
      drain_relays();
      pump(1);  // clients' packets are taken while the zone waits
      continue;
    }
    if (got == net::ZoneBus::Got::BadTag) {  // not signed with the cluster key: nothing of it is read
      ++zone_bad_tags;
      continue;
    }
    ++zone_messages;
    const auto from_zone = [&m](const std::vector<net::TickMessage>& list) {
      return std::any_of(list.begin(), list.end(), [&m](const net::TickMessage& p) { return p.zone == m.zone; });
    };
    if (!net::decode_tick(wire.data(), wire.size(), f.zones, total, m) || m.zone == mine.zone || !sent_by_its_zone(m)) {
      ++zone_bad;
    } else if (m.tick + 1 == tick) {
      // a copy of the last tick's, published again by a zone that waits (it had this zone's already)
    } else if (m.tick < tick) {
      ++zone_late;
    } else if (m.tick > tick + kEarlyTicks || early_bytes + wire.size() > kEarlyBytes) {
      ++zone_too_early;  // further ahead than a zone can be, or more than the store holds
    } else if (m.tick > tick) {
      Early& e = early[m.tick];
      if (!from_zone(e.list)) {  // a zone's first for a tick
        e.bytes += wire.size();
        early_bytes += wire.size();
        e.list.push_back(std::move(m));
      }
    } else if (!from_zone(peers)) {
      peers.push_back(std::move(m));
    }
  }
  first_wait = false;
  return true;
}

// A cluster: this zone's clients' commands, then the other zones' (joins and leaves are moves in and
// out of the parking strip), resolved against the zone's world as aligned with its neighbours'. False
// when the tick is not to run (stopping, or the world could not be aligned). t0 moves past the wait.
bool Server::zone_commands(std::vector<aoi::Command>& cmds, Clock::time_point& t0) {
  raw.clear();
  const bool replay = store.replays(tick);
  if (replay) {
    store.replay(raw);
  } else {
    net::RawCommand c;
    for (std::uint32_t i = 0; i < cap; ++i) {
      if (take_pending(i, c)) raw.push_back(c);
      Slot& s = slots[i];
      const std::uint32_t id = id_of(static_cast<int>(i));
      if (s.state == SlotState::Active && s.resume_pending) {  // its client is back: see answer_resume
        raw.push_back({id, net::RawKind::Resume, s.last_received, 0, 0, static_cast<std::uint32_t>(s.join_tick)});
        s.resume_pending = false;
        s.first_tick = tick;
      }
      if (s.state == SlotState::Active && s.acked != s.ack_sent && s.acked < (std::uint64_t{1} << 32)) {
        raw.push_back({id, net::RawKind::Ack, 0, 0, 0, static_cast<std::uint32_t>(s.acked)});
        s.ack_sent = s.acked;
      }
    }
  }
  // With a store, the Welcomes and Goodbyes of this tick's joins and leaves are out before the tick message
  // that commits them: a crash after it replays them, and their clients hold the tokens and ticks.
  if (f.store.on && !replay) flush_all();
  const std::vector<aoi::Player> before(world->players().begin(), world->players().end());
  if (!exchange(before, !replay) && g_stop.load()) return false;
  for (const net::TickMessage& m : peers) {
    raw.insert(raw.end(), m.commands.begin(), m.commands.end());
    adopt_views(m);
  }
  // By player, a Resume first (its Welcome says what was applied before this tick), the rest by kind.
  const auto rank = [](const net::RawCommand& c) {
    return std::pair(c.player, c.kind == net::RawKind::Resume ? 0u : 1u + static_cast<std::uint32_t>(c.kind));
  };
  std::sort(raw.begin(), raw.end(),
            [&rank](const net::RawCommand& a, const net::RawCommand& b) { return rank(a) < rank(b); });
  const Clock::time_point waited = Clock::now();
  wait_ms.add(std::chrono::duration<float, std::milli>(waited - t0).count());
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
void Server::answer_resume(const net::RawCommand& c, const aoi::Player& at) {
  const std::uint32_t id = c.player;
  flatbuffers::FlatBufferBuilder b(256);
  make_welcome(b, id, bus.derive_token(id / cap, id % cap, c.target), tick, at, true, last_applied[id], c.seq);
  resume_out.push_back({id, net::kReliableChannel, {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()}});
  make_resume_events(b, id);
  resume_out.push_back({id, net::kReliableChannel, {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()}});
}

// The views of the players that may walk into this area from m's zone (handoff): the zone that built
// a player's last State sent its client's view along, so the States built here delta-encode alike.
void Server::adopt_views(const net::TickMessage& m) {
  for (const net::PlayerView& pv : m.views) {
    View& v = views[pv.player];
    if (v.tick + 1 == tick) continue;  // this zone built its last State itself
    v.start(tick - 1);
    v.visible = pv.visible;
    if (v.history.size() != kHistory) v.history.assign(kHistory, net::ViewTick{UINT64_MAX, {}, {}});
    for (const net::ViewTick& h : pv.past)
      if (h.tick < tick && tick - h.tick <= kHistory) v.history[h.tick % kHistory] = h;
  }
}

// The zone's world before the tick: its own players as it computed them, the players within reach
// of its area as their zones computed them, everyone else parked. Reset only when it differs.
bool Server::align_world() {
  const std::span<const aoi::Player> now = world->players();
  desired = parking;
  for (std::uint32_t id = 0; id < total; ++id)
    if (in_zone(now[id])) desired[id] = now[id];
  for (const net::TickMessage& m : peers)
    for (const net::ZoneState& z : m.states)
      if (in_reach(z.x, z.y)) desired[z.player] = {z.x, z.y, z.hp};
  if (std::memcmp(desired.data(), now.data(), desired.size() * sizeof(aoi::Player)) == 0) return true;
  ++resets;
  if (Status st = world->reset(desired); !st.ok()) {
    std::fprintf(stderr, "warpmind-server: zone %d, tick %llu: %s\n", f.zone, static_cast<unsigned long long>(tick),
                 st.message().c_str());
    return false;
  }
  return true;
}

}  // namespace warpmind::server
