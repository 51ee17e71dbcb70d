// warpmind-server's store (zone_store.h).
#include <cstdio>

#include "zone_store.h"

#include "server.h"

namespace warpmind::server {

namespace {

constexpr std::uint8_t kSlotStates = 5;  // SlotState's values

}  // namespace

// --zone-store: the JetStream streams; --restore: the stored state taken back. Empty string or why not.
std::string ZoneStore::open() {
  if (!sv_.f.store.on) return sv_.f.store.restore ? "--restore: needs --zone-store" : std::string();
  if (sv_.f.zones == 1) return "--zone-store: a zone of a cluster only (--zones above 1)";
  if (std::string err = sv_.bus.open_store(sv_.f.nats.prefix); !err.empty()) return "--zone-store: " + err;
  if (!sv_.f.store.restore) return {};
  const Clock::time_point t0 = Clock::now();
  const std::string subject = sv_.f.nats.prefix + ".state." + std::to_string(sv_.f.zone);
  const net::ZoneBus::Got got = sv_.bus.load(subject, wire_);
  if (got == net::ZoneBus::Got::Nothing) return "--restore: no stored state of zone " + std::to_string(sv_.f.zone);
  if (got == net::ZoneBus::Got::BadTag ||
      !net::decode_stored(wire_.data(), wire_.size(), static_cast<std::uint32_t>(sv_.f.zone), sv_.cap, sv_.total,
                          kSlotStates, stored_))
    return "--restore: the stored state of zone " + std::to_string(sv_.f.zone) +
           " is not this zone's or not well formed";
  sv_.tick = stored_.tick;
  sv_.sessions.reseed(sv_.f.seed ^ sv_.tick);
  const std::uint32_t players = sv_.sessions.restore(stored_.slots, sv_.tick);
  sv_.clients.restore_last_applied(stored_.last_applied);
  std::vector<aoi::Player> desired = sv_.parking;
  for (const net::StoredPlayer& p : stored_.own) {
    desired[p.player] = {p.x, p.y, p.hp};
    View& v = sv_.clients.view(p.player);
    v.start(sv_.tick - 1);
    if (v.history.size() != kHistory) v.history.assign(kHistory, net::ViewTick{UINT64_MAX, {}, {}});
    v.visible = p.visible;
  }
  if (Status st = sv_.world->reset(desired); !st.ok()) return "--restore: " + st.message();
  // The tick messages of the last ticks: the others' for this tick and later (also arriving live:
  // the first of a zone for a tick counts), and this zone's own for this tick if it sent one.
  net::TickMessage m;
  std::size_t log_messages = 0;
  sv_.bus.tick_log(
      8 * static_cast<std::size_t>(sv_.f.zones) + 8, [&](net::ZoneBus::Got g, std::vector<std::uint8_t>& data) {
        ++log_messages;
        if (g != net::ZoneBus::Got::Message || !net::decode_tick(data.data(), data.size(), sv_.f.zones, sv_.total, m) ||
            !sv_.zones.sent_by_its_zone(m) || m.tick < sv_.tick || m.tick > sv_.tick + EarlyTicks::kTicks)
          return true;
        if (m.zone == static_cast<std::uint32_t>(sv_.f.zone)) {
          replay_own_.emplace(m.tick, m);  // the newest first: a repeat of a tick is not kept
          return true;
        }
        sv_.zones.keep_early(std::move(m));
        return true;
      });
  counts_.restored_tick = sv_.tick;
  counts_.restore_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::fprintf(stderr,
               "warpmind-server: zone %d restored at tick %llu: %u players detached for their clients, %zu stored_ "
               "views, %zu tick messages read, %s in %.1f ms\n",
               sv_.f.zone, static_cast<unsigned long long>(sv_.tick), players, stored_.own.size(), log_messages,
               replay_own_.empty()       ? "no message of its own to replay"
               : replay_own_.size() == 1 ? "replaying its own message"
                                         : "replaying its own messages",
               counts_.restore_ms);
  std::fflush(stderr);
  return {};
}

// This zone's state after the tick (as of the next tick to run), stored before the tick's messages go out.
void ZoneStore::store() {
  if (!sv_.f.store.on) return;
  stored_.zone = static_cast<std::uint32_t>(sv_.f.zone);
  stored_.tick = sv_.tick + 1;
  stored_.slots.resize(sv_.cap);
  for (std::uint32_t i = 0; i < sv_.cap; ++i) {
    const Slot& s = sv_.sessions.slot(i);
    // A resumed slot whose Resume is not in a tick yet has no Welcome: after a crash it is Detached.
    stored_.slots[i] = {
        static_cast<std::uint8_t>(s.state), s.last_received, s.join_tick, s.first_tick, s.heard_tick, s.detached_tick};
  }
  stored_.last_applied = sv_.clients.all_last_applied();
  stored_.own.clear();
  const std::span<const aoi::Player> now = sv_.world->players();
  for (std::uint32_t id = 0; id < sv_.total; ++id) {
    if (!sv_.in_zone(now[id])) continue;
    const View& v = sv_.clients.view(id);
    stored_.own.push_back(
        {id, now[id].x, now[id].y, now[id].hp, v.tick == sv_.tick ? v.visible : std::vector<std::uint32_t>{}});
  }
  net::encode_stored(stored_, wire_);
  counts_.bytes = wire_.size();
  if (sv_.bus.store(sv_.f.nats.prefix + ".state." + std::to_string(sv_.f.zone), wire_))
    ++counts_.stores;
  else
    ++counts_.failures;
}

bool ZoneStore::replays(std::uint64_t t) {
  if (!replay_own_.empty() && replay_own_.begin()->first != t) replay_own_.clear();  // not the next: none
  return !replay_own_.empty();
}

// The first tick after a restore, when this zone had sent its message for it before the crash: the
// same commands again (the others applied them).
void ZoneStore::replay(std::vector<net::RawCommand>& raw) {
  raw = replay_own_.begin()->second.commands;
  replay_own_.erase(replay_own_.begin());
  for (const net::RawCommand& c : raw) {
    if (c.player / sv_.cap != static_cast<std::uint32_t>(sv_.f.zone)) continue;
    sv_.sessions.replay(c.player % sv_.cap, c);
  }
}

}  // namespace warpmind::server
