// The messages zone servers of one cluster exchange over NATS (docs/server.md, "Zones"). Internal to
// the cluster — clients never see them — but read as untrusted all the same: every size, id, kind and
// value is checked before anything is used, and a message that fails is dropped whole.
//
// Layout (little-endian, packed, no padding between records):
//   Tick message, subject "<prefix>.tick", one per zone per tick:
//     u32 magic 'WMZ2', u32 zone, u64 tick, u32 states, u32 commands, u32 views,
//     states   x { u32 player, f32 x, f32 y, i32 hp }                         16 bytes each
//     commands x { u32 player, u32 kind, u32 seq, f32 x, f32 y, u32 target }  24 bytes each
//     views    x { u32 player, u32 visible, u32 past, visible x u32,
//                  past x { u64 tick, u32 keys, u32 entered, keys x u32, entered x u32 } }
//   Relay message, subject "<prefix>.relay.<gateway zone>":
//     u32 magic 'WMR1', u32 zone, u64 tick, u32 count,
//     count x { u32 player, u8 channel, u32 size, size bytes (one protocol Message) }
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace warpmind::net {

// A client's command as the gateway zone (the one the client is connected to) accepted it, before any
// zone resolves it against positions. At most one per player per tick.
// Ack is not a command: the newest State tick the client acknowledged (in `target`; ticks below 2^32),
// sent when it changed, so the zone that builds the player's State can delta-encode it. Resume: the
// player's client came back (a Hello with its token); the zone whose area the player is in answers
// with the resumed Welcome (seq: the client's seq counter; target: the tick its session joined in, from
// which that zone makes the session's token again, see ZoneBus::derive_token).
enum class RawKind : std::uint32_t { Join = 0, Leave = 1, Move = 2, Attack = 3, Ack = 4, Resume = 5 };
struct RawCommand {
  std::uint32_t player = 0;
  RawKind kind = RawKind::Move;
  std::uint32_t seq = 0;     // Move, Attack: the client's seq
  float x = 0, y = 0;        // Join: the spawn point; Move: the target
  std::uint32_t target = 0;  // Attack: the target; Ack: the tick
};
static_assert(sizeof(RawCommand) == 24);

// A player's state after a tick, as its owning zone computed it.
struct ZoneState {
  std::uint32_t player = 0;
  float x = 0, y = 0;
  std::int32_t hp = 0;
};
static_assert(sizeof(ZoneState) == 16);

// What the zone that built a player's States knows of its client's view, handed to the zone the player
// may walk into: the players in its AOI after the previous tick, and per tick since its acknowledged
// one the keys (subject | field << 30) of its notifications and the players that came into view.
struct ViewTick {
  std::uint64_t tick = 0;
  std::vector<std::uint32_t> keys, entered;
};
struct PlayerView {
  std::uint32_t player = 0;
  std::vector<std::uint32_t> visible;
  std::vector<ViewTick> past;
};
constexpr std::size_t kMaxViewTicks = 64;

constexpr std::uint32_t kTickMagic = 0x325a4d57;   // "WMZ2"
constexpr std::uint32_t kRelayMagic = 0x31524d57;  // "WMR1"
constexpr std::size_t kTickHeader = 28, kRelayHeader = 20, kRelayRecordHeader = 9;

struct TickMessage {
  std::uint32_t zone = 0;
  std::uint64_t tick = 0;
  std::vector<ZoneState> states;
  std::vector<RawCommand> commands;
  std::vector<PlayerView> views;
};

// A resumed Welcome relayed from the player's area zone to its gateway zone carries this in place of the
// session's token (the bus is no place for a token: anyone with a NATS password reads it); the gateway,
// whose slot holds the token, writes it in before the Welcome goes to the client, sealed.
constexpr std::uint64_t kTokenFilledByGateway = ~std::uint64_t{0};

struct RelayRecord {
  std::uint32_t player = 0;
  std::uint8_t channel = 0;
  std::span<const std::uint8_t> message;  // into the relay message's buffer
};

namespace wire {
inline void put(std::vector<std::uint8_t>& out, const void* p, std::size_t n) {
  if (n == 0) return;
  const std::size_t at = out.size();
  out.resize(at + n);
  std::memcpy(out.data() + at, p, n);
}
template <class T>
inline void put(std::vector<std::uint8_t>& out, T v) {
  put(out, &v, sizeof v);
}
template <class T>
inline T get(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
}  // namespace wire

inline void encode_tick(const TickMessage& m, std::vector<std::uint8_t>& out) {
  const std::size_t ns = m.states.size() * sizeof(ZoneState), nc = m.commands.size() * sizeof(RawCommand);
  out.resize(kTickHeader + ns + nc);
  std::uint8_t* p = out.data();
  const std::uint32_t head[] = {kTickMagic, m.zone};
  const std::uint32_t counts[] = {static_cast<std::uint32_t>(m.states.size()),
                                  static_cast<std::uint32_t>(m.commands.size()),
                                  static_cast<std::uint32_t>(m.views.size())};
  std::memcpy(p, head, 8);
  std::memcpy(p + 8, &m.tick, 8);
  std::memcpy(p + 16, counts, 12);
  if (ns) std::memcpy(p + kTickHeader, m.states.data(), ns);
  if (nc) std::memcpy(p + kTickHeader + ns, m.commands.data(), nc);
  const auto ids = [&out](const std::vector<std::uint32_t>& v) { wire::put(out, v.data(), v.size() * 4); };
  for (const PlayerView& v : m.views) {
    wire::put(out, v.player);
    wire::put(out, static_cast<std::uint32_t>(v.visible.size()));
    wire::put(out, static_cast<std::uint32_t>(v.past.size()));
    ids(v.visible);
    for (const ViewTick& t : v.past) {
      wire::put(out, t.tick);
      wire::put(out, static_cast<std::uint32_t>(t.keys.size()));
      wire::put(out, static_cast<std::uint32_t>(t.entered.size()));
      ids(t.keys);
      ids(t.entered);
    }
  }
}

// Reads a tick message of a cluster of `zones` zones and `players` player ids; false (and `out` in an
// unspecified state) unless every record is well formed: the zone below `zones`, sizes that add up
// exactly, player and target ids below `players`, a known kind, finite coordinates, HP >= 0; views of
// players below `players`, at most kMaxViewTicks ticks each, keys of a known field. Nothing is
// allocated for a count the bytes left cannot hold.
inline bool decode_tick(const std::uint8_t* data, std::size_t size, std::uint32_t zones, std::uint32_t players,
                        TickMessage& out) {
  if (data == nullptr || size < kTickHeader || wire::get<std::uint32_t>(data) != kTickMagic) return false;
  out.zone = wire::get<std::uint32_t>(data + 4);
  out.tick = wire::get<std::uint64_t>(data + 8);
  const std::uint64_t ns = wire::get<std::uint32_t>(data + 16), nc = wire::get<std::uint32_t>(data + 20),
                      nv = wire::get<std::uint32_t>(data + 24);
  if (out.zone >= zones || kTickHeader + ns * sizeof(ZoneState) + nc * sizeof(RawCommand) > size) return false;
  out.states.resize(ns);
  out.commands.resize(nc);
  if (ns) std::memcpy(out.states.data(), data + kTickHeader, ns * sizeof(ZoneState));
  if (nc) std::memcpy(out.commands.data(), data + kTickHeader + ns * sizeof(ZoneState), nc * sizeof(RawCommand));
  for (const ZoneState& s : out.states)
    if (s.player >= players || !std::isfinite(s.x) || !std::isfinite(s.y) || s.hp < 0) return false;
  for (const RawCommand& c : out.commands) {
    if (c.player >= players || static_cast<std::uint32_t>(c.kind) > 5 || !std::isfinite(c.x) || !std::isfinite(c.y))
      return false;
    if (c.kind == RawKind::Attack && (c.target >= players || c.target == c.player)) return false;
  }
  std::size_t at = kTickHeader + ns * sizeof(ZoneState) + nc * sizeof(RawCommand);
  const auto u32 = [&](std::uint32_t& v) {
    if (size - at < 4) return false;
    v = wire::get<std::uint32_t>(data + at);
    at += 4;
    return true;
  };
  const auto ids = [&](std::uint32_t n, std::vector<std::uint32_t>& v, bool keys) {
    if ((size - at) / 4 < n) return false;
    v.resize(n);
    if (n) std::memcpy(v.data(), data + at, std::size_t{n} * 4);
    at += std::size_t{n} * 4;
    for (std::uint32_t x : v)
      if ((keys ? x & 0x3fffffffu : x) >= players || (keys && (x >> 30) > 2)) return false;
    return true;
  };
  if ((size - at) / 12 < nv) return false;
  out.views.resize(nv);
  for (PlayerView& v : out.views) {
    std::uint32_t nvis, npast;
    if (!u32(v.player) || !u32(nvis) || !u32(npast) || v.player >= players || npast > kMaxViewTicks ||
        !ids(nvis, v.visible, false))
      return false;
    v.past.resize(npast);
    for (ViewTick& t : v.past) {
      std::uint32_t nk, ne;
      if (size - at < 8) return false;
      t.tick = wire::get<std::uint64_t>(data + at);
      at += 8;
      if (!u32(nk) || !u32(ne) || !ids(nk, t.keys, true) || !ids(ne, t.entered, false)) return false;
    }
  }
  return at == size;
}

// A zone's stored state (--zone-store), what it comes back from after a crash: the next tick to run,
// its slots, its own players and their views, and the last applied command of every player.
//   u32 magic 'WMS2', u32 zone, u64 tick, u32 slots, u32 players (the cluster's ids),
//   slots   x { u8 state, u32 last_received, u64 join_tick, u64 first_tick, u64 heard_tick,
//               u64 detached_tick }                                          37 bytes each
//   players x u32 last_applied,
//   u32 own, own x { u32 player, f32 x, f32 y, i32 hp, u32 visible, visible x u32 }
// No session token is stored: a zone makes its sessions' tokens again from the cluster key, the slot and
// the join tick (ZoneBus::derive_token), so a reader of the store learns none.
struct StoredSlot {
  std::uint8_t state = 0;  // SlotState
  std::uint32_t last_received = 0;
  std::uint64_t join_tick = 0, first_tick = 0, heard_tick = 0, detached_tick = 0;
};
struct StoredPlayer {
  std::uint32_t player = 0;
  float x = 0, y = 0;
  std::int32_t hp = 0;
  std::vector<std::uint32_t> visible;
};
struct StoredZone {
  std::uint32_t zone = 0;
  std::uint64_t tick = 0;
  std::vector<StoredSlot> slots;
  std::vector<std::uint32_t> last_applied;
  std::vector<StoredPlayer> own;
};
constexpr std::uint32_t kStateMagic = 0x32534d57;  // "WMS2"
constexpr std::size_t kStoredSlotBytes = 37;

inline void encode_stored(const StoredZone& z, std::vector<std::uint8_t>& out) {
  out.clear();
  wire::put(out, kStateMagic);
  wire::put(out, z.zone);
  wire::put(out, z.tick);
  wire::put(out, static_cast<std::uint32_t>(z.slots.size()));
  wire::put(out, static_cast<std::uint32_t>(z.last_applied.size()));
  for (const StoredSlot& s : z.slots) {
    wire::put(out, s.state);
    wire::put(out, s.last_received);
    wire::put(out, s.join_tick);
    wire::put(out, s.first_tick);
    wire::put(out, s.heard_tick);
    wire::put(out, s.detached_tick);
  }
  wire::put(out, z.last_applied.data(), z.last_applied.size() * 4);
  wire::put(out, static_cast<std::uint32_t>(z.own.size()));
  for (const StoredPlayer& p : z.own) {
    wire::put(out, p.player);
    wire::put(out, p.x);
    wire::put(out, p.y);
    wire::put(out, p.hp);
    wire::put(out, static_cast<std::uint32_t>(p.visible.size()));
    wire::put(out, p.visible.data(), p.visible.size() * 4);
  }
}

// Reads a stored state of zone `zone` with `slots` slots in a cluster of `players` ids; false unless it is
// exactly that: every size adding up, slot states below `states`, player ids below `players`, finite
// positions, HP >= 0.
inline bool decode_stored(const std::uint8_t* data, std::size_t size, std::uint32_t zone, std::uint32_t slots,
                          std::uint32_t players, std::uint8_t states, StoredZone& z) {
  if (data == nullptr || size < 24 || wire::get<std::uint32_t>(data) != kStateMagic ||
      wire::get<std::uint32_t>(data + 4) != zone || wire::get<std::uint32_t>(data + 16) != slots ||
      wire::get<std::uint32_t>(data + 20) != players)
    return false;
  z.zone = zone;
  z.tick = wire::get<std::uint64_t>(data + 8);
  std::size_t at = 24;
  if ((size - at) / kStoredSlotBytes < slots) return false;
  z.slots.resize(slots);
  for (StoredSlot& s : z.slots) {
    s.state = data[at];
    s.last_received = wire::get<std::uint32_t>(data + at + 1);
    s.join_tick = wire::get<std::uint64_t>(data + at + 5);
    s.first_tick = wire::get<std::uint64_t>(data + at + 13);
    s.heard_tick = wire::get<std::uint64_t>(data + at + 21);
    s.detached_tick = wire::get<std::uint64_t>(data + at + 29);
    at += kStoredSlotBytes;
    if (s.state >= states) return false;
  }
  if ((size - at) / 4 < std::size_t{players} + 1) return false;
  z.last_applied.resize(players);
  std::memcpy(z.last_applied.data(), data + at, std::size_t{players} * 4);
  at += std::size_t{players} * 4;
  const std::uint32_t own = wire::get<std::uint32_t>(data + at);
  at += 4;
  if ((size - at) / 20 < own) return false;
  z.own.resize(own);
  for (StoredPlayer& p : z.own) {
    if (size - at < 20) return false;
    p.player = wire::get<std::uint32_t>(data + at);
    p.x = wire::get<float>(data + at + 4);
    p.y = wire::get<float>(data + at + 8);
    p.hp = wire::get<std::int32_t>(data + at + 12);
    const std::uint32_t n = wire::get<std::uint32_t>(data + at + 16);
    at += 20;
    if (p.player >= players || !std::isfinite(p.x) || !std::isfinite(p.y) || p.hp < 0 || (size - at) / 4 < n)
      return false;
    p.visible.resize(n);
    if (n) std::memcpy(p.visible.data(), data + at, std::size_t{n} * 4);
    at += std::size_t{n} * 4;
    for (std::uint32_t o : p.visible)
      if (o >= players) return false;
  }
  return at == size;
}

inline void begin_relay(std::vector<std::uint8_t>& out, std::uint32_t zone, std::uint64_t tick) {
  out.clear();
  wire::put(out, kRelayMagic);
  wire::put(out, zone);
  wire::put(out, tick);
  wire::put(out, std::uint32_t{0});
}
inline void add_relay(std::vector<std::uint8_t>& out, std::uint32_t player, std::uint8_t channel,
                      std::span<const std::uint8_t> message) {
  wire::put(out, player);
  wire::put(out, channel);
  wire::put(out, static_cast<std::uint32_t>(message.size()));
  wire::put(out, message.data(), message.size());
  std::uint32_t count = wire::get<std::uint32_t>(out.data() + 16) + 1;
  std::memcpy(out.data() + 16, &count, sizeof count);
}

// Reads a relay message; false unless its records exactly fill it, each with a player below `players`,
// a channel below `channels` and a message of at most `max_message` bytes.
inline bool decode_relay(const std::uint8_t* data, std::size_t size, std::uint32_t zones, std::uint32_t players,
                         std::uint8_t channels, std::size_t max_message, std::vector<RelayRecord>& out) {
  out.clear();
  if (data == nullptr || size < kRelayHeader || wire::get<std::uint32_t>(data) != kRelayMagic ||
      wire::get<std::uint32_t>(data + 4) >= zones)
    return false;
  const std::uint32_t count = wire::get<std::uint32_t>(data + 16);
  std::size_t at = kRelayHeader;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (size - at < kRelayRecordHeader) return false;
    RelayRecord r;
    r.player = wire::get<std::uint32_t>(data + at);
    r.channel = data[at + 4];
    const std::size_t n = wire::get<std::uint32_t>(data + at + 5);
    at += kRelayRecordHeader;
    if (r.player >= players || r.channel >= channels || n > max_message || size - at < n) return false;
    r.message = {data + at, n};
    at += n;
    out.push_back(r);
  }
  return at == size;
}

}  // namespace warpmind::net
