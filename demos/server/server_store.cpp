// warpmind-server's store (--zone-store, docs/server.md "A zone crash"): a zone of a cluster keeps its
// state in NATS JetStream after every tick, before anything of the tick is sent, and a zone started with
// --restore comes back from it: its slots (every client's connection is gone: their players are
// Detached, for the clients to resume with their tokens), its players where the tick left them with
// their views, and every player's last applied command. The tick messages the store keeps give it the
// other zones' messages it missed and — where it crashed after sending it — its own for the tick it
// comes back at, which it then replays instead of gathering anew.
#include <cstdio>

#include "server.h"

namespace warpmind::server {

namespace {

constexpr std::uint8_t kSlotStates = 5;  // SlotState's values

}  // namespace

// --zone-store: the JetStream streams; --restore: the stored state taken back. Empty string or why not.
std::string Server::open_store() {
  if (!f.zone_store) return f.restore ? "--restore: needs --zone-store" : std::string();
  if (f.zones == 1) return "--zone-store: a zone of a cluster only (--zones above 1)";
  if (std::string err = bus.open_store(f.nats_prefix); !err.empty()) return "--zone-store: " + err;
  if (!f.restore) return {};
  const Clock::time_point t0 = Clock::now();
  const std::string subject = f.nats_prefix + ".state." + std::to_string(f.zone);
  const net::ZoneBus::Got got = bus.load(subject, stored_wire);
  if (got == net::ZoneBus::Got::Nothing) return "--restore: no stored state of zone " + std::to_string(f.zone);
  if (got == net::ZoneBus::Got::BadTag ||
      !net::decode_stored(stored_wire.data(), stored_wire.size(), static_cast<std::uint32_t>(f.zone), cap, total,
                          kSlotStates, stored))
    return "--restore: the stored state of zone " + std::to_string(f.zone) + " is not this zone's or not well formed";
  tick = stored.tick;
  rng.seed(f.seed ^ tick);
  std::uint32_t players = 0;
  for (std::uint32_t i = 0; i < cap; ++i) {
    const net::StoredSlot& from = stored.slots[i];
    Slot& s = slots[i];
    s = Slot{};
    const auto state = static_cast<SlotState>(from.state);
    if (state == SlotState::Free || state == SlotState::Joining) continue;  // a join not in a tick: no Welcome went out
    s.token = from.token;
    s.last_received = from.last_received;
    s.join_tick = from.join_tick;
    s.first_tick = from.first_tick;
    s.heard_tick = tick;
    if (state == SlotState::Leaving) {
      s.state = SlotState::Leaving;
    } else {  // Active or Detached: its client's connection is gone, its player stays for a resume
      s.state = SlotState::Detached;
      s.detached_tick = tick;
      ++detached;
      ++players;
    }
  }
  last_applied = stored.last_applied;
  desired = parking;
  for (const net::StoredPlayer& p : stored.own) {
    desired[p.player] = {p.x, p.y, p.hp};
    View& v = views[p.player];
    v.start(tick - 1);
    if (v.history.size() != kHistory) v.history.assign(kHistory, net::ViewTick{UINT64_MAX, {}, {}});
    v.visible = p.visible;
  }
  if (Status st = world->reset(desired); !st.ok()) return "--restore: " + st.message();
  // The tick messages of the last ticks: the others' for this tick and later (also arriving live:
  // the first of a zone for a tick counts), and this zone's own for this tick if it sent one.
  net::TickMessage m;
  std::size_t log_messages = 0;
  bus.tick_log(8 * static_cast<std::size_t>(f.zones) + 8, [&](net::ZoneBus::Got g, std::vector<std::uint8_t>& data) {
    ++log_messages;
    if (g != net::ZoneBus::Got::Message || !net::decode_tick(data.data(), data.size(), f.zones, total, m) ||
        !sent_by_its_zone(m) || m.tick < tick || m.tick > tick + kEarlyTicks)
      return true;
    if (m.zone == static_cast<std::uint32_t>(f.zone)) {
      replay_own.emplace(m.tick, m);  // the newest first: a repeat of a tick is not kept
      return true;
    }
    Early& e = early[m.tick];
    if (std::none_of(e.list.begin(), e.list.end(), [&m](const net::TickMessage& p) { return p.zone == m.zone; })) {
      e.bytes += data.size();
      early_bytes += data.size();
      e.list.push_back(m);
    }
    return true;
  });
  restored_tick = tick;
  restore_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::fprintf(stderr,
               "warpmind-server: zone %d restored at tick %llu: %u players detached for their clients, %zu stored "
               "views, %zu tick messages read, %s in %.1f ms\n",
               f.zone, static_cast<unsigned long long>(tick), players, stored.own.size(), log_messages,
               replay_own.empty()       ? "no message of its own to replay"
               : replay_own.size() == 1 ? "replaying its own message"
                                        : "replaying its own messages",
               restore_ms);
  std::fflush(stderr);
  return {};
}

// This zone's state after the tick (as of the next tick to run), stored before the tick's messages go out.
void Server::store_state() {
  if (!f.zone_store) return;
  stored.zone = static_cast<std::uint32_t>(f.zone);
  stored.tick = tick + 1;
  stored.slots.resize(cap);
  for (std::uint32_t i = 0; i < cap; ++i) {
    const Slot& s = slots[i];
    // A resumed slot whose Resume is not in a tick yet has no Welcome: after a crash it is Detached.
    stored.slots[i] = {static_cast<std::uint8_t>(s.state),
                       s.token,
                       s.last_received,
                       s.join_tick,
                       s.first_tick,
                       s.heard_tick,
                       s.detached_tick};
  }
  stored.last_applied = last_applied;
  stored.own.clear();
  const std::span<const aoi::Player> now = world->players();
  for (std::uint32_t id = 0; id < total; ++id) {
    if (!in_zone(now[id])) continue;
    const View& v = views[id];
    stored.own.push_back(
        {id, now[id].x, now[id].y, now[id].hp, v.tick == tick ? v.visible : std::vector<std::uint32_t>{}});
  }
  net::encode_stored(stored, stored_wire);
  store_bytes = stored_wire.size();
  if (bus.store(f.nats_prefix + ".state." + std::to_string(f.zone), stored_wire))
    ++stores;
  else
    ++store_failures;
}

// The first tick after a restore, when this zone had sent its message for it before the crash: the
// same commands again (the others applied them), and the slots moved on as they say — a join makes a
// Detached player with the token its Welcome carried, a leave frees its slot.
void Server::replay_commands() {
  raw = replay_own.begin()->second.commands;
  replay_own.erase(replay_own.begin());
  for (const net::RawCommand& c : raw) {
    if (c.player / cap != static_cast<std::uint32_t>(f.zone)) continue;
    const std::uint32_t k = c.player % cap;
    Slot& s = slots[k];
    switch (c.kind) {
      case net::RawKind::Join:
        s = Slot{};
        s.state = SlotState::Detached;
        s.spawn = {c.x, c.y, kSpawnHp};
        s.join_tick = s.first_tick = s.detached_tick = s.heard_tick = tick;
        s.token = bus.derive_token(static_cast<std::uint32_t>(f.zone), k, tick);
        ++detached;
        break;
      case net::RawKind::Leave:
        s = Slot{};
        break;
      case net::RawKind::Move:
      case net::RawKind::Attack:
        s.last_received = std::max(s.last_received, c.seq);
        break;
      default:
        break;
    }
  }
}

}  // namespace warpmind::server
