// warpmind-server: the AOI module's tick loop for real clients over UDP (ENet), speaking the protocol
// of protocol.fbs (docs/protocol.md, docs/server.md).
//
// Each tick: the commands received since the previous tick are applied (per player the latest valid
// one), joins and leaves enter the tick as moves in and out of a parking strip beyond the map, the AOI
// module runs the tick (mailboxes, enter/leave events), and each client gets its State (unreliable,
// sequenced) and, when its visibility changed, its Events (reliable). A client can never stop the
// server: every packet is verified before use, and bad ones are dropped and counted by reason.
#include <enet/enet.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "flags.h"
#include "protocol.h"
#include "zone_bus.h"
#include "zone_wire.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/core/context.h"

namespace {

using namespace warpmind;
using Clock = std::chrono::steady_clock;

std::atomic<bool> g_stop{false};
struct Server;
Server* g_server = nullptr;  // for ENet's intercept callback, which has no user data
extern "C" void on_signal(int) { g_stop.store(true); }

int bad(const std::string& why) {
  std::fprintf(stderr, "warpmind-server: %s\n", why.c_str());
  return 2;
}

// Why a packet (or a datagram) was dropped.
enum Drop : int {
  BadPacket,       // not a Message (verifier failed), or a message a client never sends
  Oversized,       // more than kMaxClientPacket bytes
  UnknownVersion,  // Hello with another protocol version
  NotJoined,       // a command before the Hello was answered
  WrongToken,      // a token that is not this connection's
  StaleSeq,        // seq not above the last received (replayed or reordered)
  SeqWindow,       // seq more than kSeqWindow above the last received
  BadValue,        // a non-finite target position, or an attack on no player
  RateLimit,       // more messages from one connection than --peer-rate allows
  Flood,           // more datagrams from one address than --address-rate allows (before ENet sees them)
  kDrops
};
const char* drop_name(int d) {
  static const char* names[] = {"bad_packet", "oversized",  "unknown_version", "not_joined", "wrong_token",
                                "stale_seq",  "seq_window", "bad_value",       "rate_limit", "flood"};
  return names[d];
}

struct Flags {
  std::string host = "127.0.0.1", shape = "square", variant = "auto";
  int port = 7777, tick_hz = 20, max_clients = 1024;
  float map = 1000, aoi = 20, max_move = 0, attack_range = 0;
  double seconds = 0;
  int peer_rate = 100, address_rate = 2000, damage = 1, max_observers = 4, socket_buffer = 8 << 20;
  int metrics_port = -1;  // -1: no metrics endpoint
  std::uint64_t seed = 1;
  demos::ContextFlags context;
  bool json = false;
  // Zones (docs/server.md): this process serves the strip [map * zone / zones, map * (zone + 1) / zones)
  // of the map; the zones of one cluster meet on NATS subjects under nats_prefix.
  int zone = 0, zones = 1;
  std::string nats = "nats://127.0.0.1:4222", nats_prefix = "warpmind";
  double zone_timeout = 5;
  // --virtual-clients: in-process clients, no sockets, for --ticks ticks.
  std::uint32_t virtual_clients = 0;
  int ticks = 50;
  double attack_share = 0.1;
};

// A token bucket: `rate` a second, bursts of `rate` (at least 1).
struct Bucket {
  double tokens = 0;
  Clock::time_point last{};
  bool take(double rate, Clock::time_point now) {
    if (last == Clock::time_point{})
      tokens = rate;
    else
      tokens = std::min(rate, tokens + rate * std::chrono::duration<double>(now - last).count());
    last = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }
};

enum class SlotState { Free, Joining, Active, Leaving };

// How many ticks back a State's catch-up can reach (docs/protocol.md, "Deltas"): a client whose newest
// acknowledged State is older gets a snapshot.
constexpr std::uint64_t kHistory = 32;

struct Slot {
  SlotState state = SlotState::Free;
  ENetPeer* peer = nullptr;
  std::uint64_t token = 0;
  std::uint32_t last_received = 0;  // highest seq received
  bool has_command = false;         // the pending command (the latest received since the last tick)
  net::RawCommand command;
  aoi::Player spawn;
  std::uint64_t acked = 0;       // the newest State tick the client acknowledged (0: none)
  std::uint64_t first_tick = 0;  // the tick of its join
  std::uint64_t ack_sent = 0;    // a cluster's gateway: the acknowledgement last passed on to the zones
};

// What a player's client holds, as the zone that builds its States keeps track of it: the players in
// its AOI after tick `tick`, and per tick of the last kHistory its notifications' keys and the players
// that came into view — what a catch-up is made of. Handed to the next zone when the player walks
// across a border.
struct View {
  std::uint64_t tick = 0;  // the tick this view is of (0: none)
  std::vector<std::uint32_t> visible;
  std::vector<net::ViewTick> history;  // by tick % kHistory; tick UINT64_MAX: nothing
  void start(std::uint64_t before) {   // a player joining in the tick after `before`: sees nothing yet
    tick = before;
    visible.clear();
    for (net::ViewTick& h : history) h.tick = UINT64_MAX;
  }
};

// Per connection (ENetPeer::data).
struct Conn {
  int slot = -1;
  bool observer = false;  // an Observe connection: gets a Snapshot a tick, commands nothing
  Bucket bucket;
  Clock::time_point connected;
};

struct Server {
  Flags f;
  ENetHost* host = nullptr;
  std::unique_ptr<Context> ctx;
  std::unique_ptr<aoi::AoiWorld> world;
  aoi::AoiConfig cfg;
  std::vector<Slot> slots;
  std::vector<aoi::Player> parking;
  std::mt19937_64 rng;         // spawn positions (--seed)
  std::random_device entropy;  // session tokens
  // The next tick to run. Ticks count from 1, so that 0 can mean "none" (an acknowledgement of
  // nothing) and "a snapshot" (State.since) without colliding with a real tick.
  std::uint64_t tick = 1;
  float max_move = 0;
  // Player ids: zone * cap + slot, so every zone of a cluster names a player the same way.
  std::uint32_t cap = 0, total = 0;
  float strip_lo = 0, strip_hi = 0;  // this zone's strip of the map (x), the last zone's closed at map
  float reach = 0;                   // how far beyond its strip a zone mirrors players (5 AOI: see docs/server.md)
  std::vector<std::uint32_t> last_applied;  // by player: the seq of its last command applied
  std::vector<View> views;                  // by player: what its client holds (players whose States are built here)
  std::vector<std::uint64_t> client_ack;    // by player, a cluster: the newest State its client acknowledged
  std::vector<net::RawCommand> raw;         // this tick's commands, the whole cluster's, by player
  std::vector<aoi::Player> desired;         // a zone's world before a tick: its own players and mirrors

  // Counters for the summary.
  std::uint64_t drops[kDrops] = {};
  std::uint64_t joined = 0, left = 0, disconnected = 0, refused = 0, peak = 0, slow_peers = 0;
  std::uint64_t datagrams_in = 0, datagram_bytes_in = 0, bytes_in = 0, packets_out = 0, bytes_out = 0, commands = 0;
  std::uint64_t receive_errors = 0, late_ticks = 0, module_rejected = 0, notifications = 0, send_failures = 0;
  int socket_buffer = 0;  // the UDP socket's receive buffer as the system set it
  std::vector<float> tick_ms, wait_ms, commands_ms, module_ms, encode_ms;
  std::uint64_t zone_messages = 0, zone_bad = 0, zone_late = 0, zone_timeouts = 0, relayed_out = 0, relayed_in = 0,
                resets = 0;
  std::unordered_map<std::uint64_t, Bucket> address_buckets;
  Clock::time_point address_sweep{};

  std::uint32_t id_of(int slot) const {
    return static_cast<std::uint32_t>(f.zone) * cap + static_cast<std::uint32_t>(slot);
  }
  // Whether a position is on the map (players not in the game wait in the parking strip beyond it).
  bool in_game(const aoi::Player& p) const { return p.x <= f.map; }
  // Whether a player there is this zone's: it computes the player's tick and sends its State.
  bool in_strip(const aoi::Player& p) const {
    return in_game(p) && p.x >= strip_lo && (p.x < strip_hi || f.zone == f.zones - 1);
  }
  // Whether this zone mirrors a player there (its own strip and `reach` either side).
  bool in_reach(float x) const { return x <= f.map && x >= strip_lo - reach && x < strip_hi + reach; }

  std::uint32_t active_count() const {
    std::uint32_t n = 0;
    for (const Slot& s : slots) n += s.state != SlotState::Free;
    return n;
  }

  void send(ENetPeer* p, std::uint8_t channel, flatbuffers::FlatBufferBuilder& b) {
    const std::uint32_t flags = channel == net::kReliableChannel ? ENET_PACKET_FLAG_RELIABLE : 0;
    ENetPacket* packet = enet_packet_create(b.GetBufferPointer(), b.GetSize(), flags);
    if (packet == nullptr) return void(++send_failures);
    if (enet_peer_send(p, channel, packet) != 0) {
      enet_packet_destroy(packet);
      return void(++send_failures);
    }
    ++packets_out;
    bytes_out += b.GetSize();
  }

  void refuse(ENetPeer* p, net::RefuseReason why) {
    flatbuffers::FlatBufferBuilder b(64);
    net::FinishMessageBuffer(
        b, net::CreateMessage(b, net::Body_Refused, net::CreateRefused(b, why, net::kProtocolVersion).Union()));
    send(p, net::kReliableChannel, b);
    enet_peer_disconnect_later(p, 0);
    ++refused;
  }

  void on_hello(ENetPeer* p, Conn& c, const net::Hello& h) {
    if (h.version() != net::kProtocolVersion) {
      ++drops[UnknownVersion];
      refuse(p, net::RefuseReason_UnknownVersion);
      return;
    }
    if (c.slot >= 0) {
      refuse(p, net::RefuseReason_AlreadyJoined);
      return;
    }
    int free = -1;
    for (std::size_t i = 0; i < slots.size() && free < 0; ++i)
      if (slots[i].state == SlotState::Free) free = static_cast<int>(i);
    if (free < 0) {
      refuse(p, net::RefuseReason_ServerFull);
      return;
    }
    Slot& s = slots[free];
    s = Slot{};
    s.state = SlotState::Joining;
    s.peer = p;
    do s.token = (std::uint64_t{entropy()} << 32) ^ entropy();
    while (s.token == 0);
    std::uniform_real_distribution<float> where(0.0f, f.map);
    s.spawn = {where(rng), where(rng), 100};
    s.first_tick = tick;
    c.slot = free;
    ++joined;
    flatbuffers::FlatBufferBuilder b(256);
    const auto w =
        net::CreateWelcome(b, net::kProtocolVersion, id_of(free), s.token, static_cast<std::uint32_t>(f.tick_hz), tick,
                           f.map, cfg.world.x0, cfg.world.y0, cfg.world.width, cfg.world.height, cfg.aoi,
                           cfg.shape == aoi::AoiShape::Circle ? net::Shape_Circle : net::Shape_Square, max_move,
                           cfg.attack_range, f.damage, s.spawn.x, s.spawn.y, s.spawn.hp);
    net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Welcome, w.Union()));
    send(p, net::kReliableChannel, b);
    peak = std::max<std::uint64_t>(peak, active_count());
  }

  // An observer (warpmind-demo --connect): a Welcome without a player, then a Snapshot every tick.
  std::vector<ENetPeer*> observers;
  void on_observe(ENetPeer* p, Conn& c, const net::Observe& o) {
    if (o.version() != net::kProtocolVersion) {
      ++drops[UnknownVersion];
      refuse(p, net::RefuseReason_UnknownVersion);
      return;
    }
    if (c.slot >= 0 || c.observer) return refuse(p, net::RefuseReason_AlreadyJoined);
    if (observers.size() >= static_cast<std::size_t>(f.max_observers)) return refuse(p, net::RefuseReason_ServerFull);
    c.observer = true;
    observers.push_back(p);
    flatbuffers::FlatBufferBuilder b(256);
    const auto w =
        net::CreateWelcome(b, net::kProtocolVersion, 0xffffffffu, 0, static_cast<std::uint32_t>(f.tick_hz), tick, f.map,
                           cfg.world.x0, cfg.world.y0, cfg.world.width, cfg.world.height, cfg.aoi,
                           cfg.shape == aoi::AoiShape::Circle ? net::Shape_Circle : net::Shape_Square, max_move,
                           cfg.attack_range, f.damage, 0, 0, 0);
    net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Welcome, w.Union()));
    send(p, net::kReliableChannel, b);
  }

  // The Snapshot of this tick for the observers: the players in the game (a cluster: on this strip).
  std::vector<net::PlayerState> snapshot;
  void send_snapshots(std::uint64_t time_us) {
    if (observers.empty()) return;
    const std::span<const aoi::Player> now = world->players();
    snapshot.clear();
    for (std::uint32_t i = 0; i < total; ++i)
      if (f.zones == 1 ? slots[i].state == SlotState::Active : in_strip(now[i]))
        snapshot.emplace_back(i, now[i].x, now[i].y, now[i].hp);
    flatbuffers::FlatBufferBuilder& b = out_builder;
    b.Clear();
    const auto list = b.CreateVectorOfStructs(snapshot);
    net::FinishMessageBuffer(
        b, net::CreateMessage(b, net::Body_Snapshot, net::CreateSnapshot(b, tick, time_us, list).Union()));
    for (ENetPeer* p : observers) send(p, net::kStreamChannel, b);
  }

  // Frees the connection's slot (its player leaves the map in the next tick).
  void release(ENetPeer* p) {
    Conn* c = static_cast<Conn*>(p->data);
    if (c == nullptr) return;
    if (c->slot >= 0) {
      Slot& s = slots[c->slot];
      s.peer = nullptr;
      s.has_command = false;
      s.state = s.state == SlotState::Joining ? SlotState::Free : SlotState::Leaving;
      ++left;
    }
    if (c->observer) std::erase(observers, p);
    delete c;
    p->data = nullptr;
  }

  void on_receive(ENetPeer* p, const ENetPacket* packet) {
    Conn* c = static_cast<Conn*>(p->data);
    if (c == nullptr) return;
    bytes_in += packet->dataLength;
    if (!c->bucket.take(f.peer_rate, Clock::now())) return void(++drops[RateLimit]);
    if (packet->dataLength > net::kMaxClientPacket) return void(++drops[Oversized]);
    const net::Message* m = net::read_message(packet->data, packet->dataLength);
    if (m == nullptr) return void(++drops[BadPacket]);
    switch (m->body_type()) {
      case net::Body_Hello:
        if (c->observer) return void(++drops[BadPacket]);
        on_hello(p, *c, *m->body_as_Hello());
        return;
      case net::Body_Observe:
        on_observe(p, *c, *m->body_as_Observe());
        return;
      case net::Body_Leave:
      case net::Body_Move:
      case net::Body_Attack:
      case net::Body_Ack:
        break;
      default:
        return void(++drops[BadPacket]);
    }
    if (c->slot < 0) return void(++drops[NotJoined]);
    Slot& s = slots[c->slot];
    if (const net::Leave* l = m->body_as_Leave()) {
      if (l->token() != s.token) return void(++drops[WrongToken]);
      release(p);
      enet_peer_disconnect_later(p, 0);
      return;
    }
    const int d = take_command(s, c->slot, *m);
    if (d >= 0)
      ++drops[d];
    else if (d == kCommand)
      ++commands;
  }
  static constexpr int kCommand = -1, kAckOnly = -2;

  // A joined client's Move or Attack, verified: kept as its slot's pending command (-1), or the reason
  // it is dropped. Touches only that slot, so clients can be taken in parallel.
  int take_command(Slot& s, int slot, const net::Message& m) const {
    const std::uint32_t me = id_of(slot);
    std::uint64_t token, ack;
    std::uint32_t seq;
    if (const net::Move* mv = m.body_as_Move()) {
      token = mv->token(), seq = mv->seq(), ack = mv->ack();
    } else if (const net::Attack* a = m.body_as_Attack()) {
      token = a->token(), seq = a->seq(), ack = a->ack();
    } else if (const net::Ack* k = m.body_as_Ack()) {
      token = k->token(), seq = k->seq(), ack = k->ack();
    } else {
      return BadPacket;
    }
    if (token != s.token) return WrongToken;
    if (seq <= s.last_received) return StaleSeq;
    if (seq - s.last_received > net::kSeqWindow) return SeqWindow;
    // An acknowledgement counts when it names a State this client can have received and is newer than
    // the last; any other is ignored (the command stands).
    if (ack > s.acked && ack >= s.first_tick && ack < tick) s.acked = ack;
    if (m.body_as_Ack()) {
      s.last_received = seq;
      return kAckOnly;
    }
    if (const net::Move* mv = m.body_as_Move()) {
      if (!std::isfinite(mv->x()) || !std::isfinite(mv->y())) return BadValue;
      s.command = {me, net::RawKind::Move, seq, mv->x(), mv->y(), 0};
    } else {
      const std::uint32_t target = m.body_as_Attack()->target();
      // A target that is no player, the attacker itself, or (one zone) a player not in the game. In a
      // cluster the gateway cannot know where the target is: an attack on a player not in the game is
      // sent on and applied nowhere.
      if (target >= total || target == me || (f.zones == 1 && slots[target].state != SlotState::Active))
        return BadValue;
      s.command = {me, net::RawKind::Attack, seq, 0, 0, target};
    }
    s.last_received = seq;
    s.has_command = true;
    return kCommand;
  }

  // Every raw datagram, before ENet parses it: counted, and dropped when its address sends more than
  // --address-rate a second (a flood never reaches the protocol).
  static int intercept(ENetHost* h, ENetEvent*) {
    Server& self = *g_server;
    ++self.datagrams_in;
    self.datagram_bytes_in += h->receivedDataLength;
    const Clock::time_point now = Clock::now();
    if (now - self.address_sweep > std::chrono::seconds(10) || self.address_buckets.size() > 65536) {
      std::erase_if(self.address_buckets,
                    [now](const auto& kv) { return now - kv.second.last > std::chrono::seconds(5); });
      if (self.address_buckets.size() > 65536) self.address_buckets.clear();
      self.address_sweep = now;
    }
    const std::uint64_t key = (std::uint64_t{h->receivedAddress.host} << 16) | h->receivedAddress.port;
    if (!self.address_buckets[key].take(self.f.address_rate, now)) {
      ++self.drops[Flood];
      return 1;  // consumed: ENet never sees it
    }
    return 0;
  }

  // Services the network until `until` (or a stop signal).
  // ---- Metrics: the summary's counters in the Prometheus text format, over HTTP at --metrics-port.
  int metrics_fd = -1;

  std::string metrics_text() {
    std::string t;
    const auto metric = [&t](const char* name, const char* type, const char* help, const std::string& samples) {
      t += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + samples;
    };
    const auto one = [](const char* name, double v) {
      char b[160];
      std::snprintf(b, sizeof b, "%s %.17g\n", name, v);
      return std::string(b);
    };
    metric("warpmind_server_ticks_total", "counter", "Ticks run.", one("warpmind_server_ticks_total", tick - 1));
    metric("warpmind_server_late_ticks_total", "counter", "Times the schedule skipped ahead.",
           one("warpmind_server_late_ticks_total", late_ticks));
    metric("warpmind_server_clients", "gauge", "Players joined now.", one("warpmind_server_clients", active_count()));
    metric("warpmind_server_joins_total", "counter", "Joins accepted.", one("warpmind_server_joins_total", joined));
    metric("warpmind_server_leaves_total", "counter", "Players that left.", one("warpmind_server_leaves_total", left));
    metric("warpmind_server_refused_total", "counter", "Joins refused.", one("warpmind_server_refused_total", refused));
    std::string d;
    for (int k = 0; k < kDrops; ++k)
      d += "warpmind_server_drops_total{reason=\"" + std::string(drop_name(k)) + "\"} " + std::to_string(drops[k]) +
           "\n";
    metric("warpmind_server_drops_total", "counter", "Packets and datagrams dropped, by reason.", d);
    metric("warpmind_server_commands_total", "counter", "Commands accepted into a tick.",
           one("warpmind_server_commands_total", commands));
    metric("warpmind_server_notifications_total", "counter", "Notifications sent.",
           one("warpmind_server_notifications_total", notifications));
    metric("warpmind_server_datagrams_in_total", "counter", "UDP datagrams received.",
           one("warpmind_server_datagrams_in_total", datagrams_in));
    metric("warpmind_server_bytes_in_total", "counter", "Message bytes received.",
           one("warpmind_server_bytes_in_total", bytes_in));
    metric("warpmind_server_bytes_out_total", "counter", "Message bytes sent.",
           one("warpmind_server_bytes_out_total", bytes_out));
    // The last 1,000 ticks' times.
    std::vector<float> recent(tick_ms.end() - std::min<std::ptrdiff_t>(1000, tick_ms.size()), tick_ms.end());
    std::sort(recent.begin(), recent.end());
    std::string q;
    for (double p : {0.5, 0.9, 0.99}) {
      const double v =
          recent.empty() ? 0.0 : recent[std::min(recent.size() - 1, static_cast<std::size_t>(p * recent.size()))];
      char b[160];
      std::snprintf(b, sizeof b, "warpmind_server_tick_seconds{quantile=\"%g\"} %.9g\n", p, v / 1000.0);
      q += b;
    }
    metric("warpmind_server_tick_seconds", "summary", "Time of a tick over the last 1000 ticks.", q);
    return t;
  }

  // Answers at most one scrape per call: the request read for at most 20 ms, then the page, then close.
  void serve_metrics() {
    if (metrics_fd < 0) return;
    const int c = accept4(metrics_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) return;
    char req[2048];
    std::size_t got = 0;
    for (const Clock::time_point until = Clock::now() + std::chrono::milliseconds(20); Clock::now() < until;) {
      pollfd p{c, POLLIN, 0};
      if (poll(&p, 1, 5) <= 0) continue;
      const ssize_t n = read(c, req + got, sizeof req - 1 - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
      req[got] = 0;
      if (std::strstr(req, "\r\n\r\n") || got + 1 >= sizeof req) break;
    }
    const std::string body = metrics_text();
    const std::string page =
        "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\n\r\n" + body;
    std::size_t off = 0;
    for (const Clock::time_point until = Clock::now() + std::chrono::milliseconds(20);
         off < page.size() && Clock::now() < until;) {
      const ssize_t n = ::send(c, page.data() + off, page.size() - off, MSG_NOSIGNAL);
      if (n > 0)
        off += static_cast<std::size_t>(n);
      else {
        pollfd p{c, POLLOUT, 0};
        poll(&p, 1, 5);
      }
    }
    shutdown(c, SHUT_WR);
    close(c);
  }

  // One pass of ENet (waiting at most wait_ms for something to happen) and every event it had; false
  // when nothing happened.
  bool pump(int wait_ms) {
    ENetEvent ev;
    const int r = enet_host_service(host, &ev, static_cast<enet_uint32>(wait_ms));
    if (r < 0) {  // a socket error (a datagram larger than ENet's buffer, say): nothing to handle
      ++receive_errors;
      return true;
    }
    if (r == 0) return false;
    do {
      switch (ev.type) {
        case ENET_EVENT_TYPE_CONNECT: {
          Conn* c = new Conn;
          c->connected = Clock::now();
          ev.peer->data = c;
          enet_peer_timeout(ev.peer, 0, 2000, 5000);
          // No throttling of unreliable packets: a State is dropped only by the network (or by a
          // client that stops acknowledging, which the sweep disconnects).
          enet_peer_throttle_configure(ev.peer, ENET_PEER_PACKET_THROTTLE_INTERVAL, ENET_PEER_PACKET_THROTTLE_SCALE, 0);
          break;
        }
        case ENET_EVENT_TYPE_RECEIVE:
          on_receive(ev.peer, ev.packet);
          enet_packet_destroy(ev.packet);
          break;
        case ENET_EVENT_TYPE_DISCONNECT:
          if (ev.peer->data && static_cast<Conn*>(ev.peer->data)->slot >= 0) ++disconnected;
          release(ev.peer);
          break;
        default:
          break;
      }
    } while (enet_host_check_events(host, &ev) > 0);
    return true;
  }

  // Services the network until `until`, and past it until what has arrived is handled (at most 20 ms
  // more): a server running late — a slow tick, or a zone waiting for the others — still takes its
  // clients' packets every tick.
  void service(Clock::time_point until) {
    const Clock::time_point hard = std::max(until, Clock::now()) + std::chrono::milliseconds(20);
    for (;;) {
      serve_metrics();
      drain_relays();
      const Clock::time_point now = Clock::now();
      if (g_stop.load()) return;
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
      const bool busy = pump(static_cast<int>(std::clamp<long long>(wait, 0, 5)));
      if (Clock::now() >= until && (!busy || Clock::now() >= hard)) return;
    }
  }

  // Connections that never said Hello, or whose reliable data piles up unacknowledged, are dropped.
  void sweep_peers() {
    const Clock::time_point now = Clock::now();
    for (std::size_t i = 0; i < host->peerCount; ++i) {
      ENetPeer* p = &host->peers[i];
      if (p->state != ENET_PEER_STATE_CONNECTED || p->data == nullptr) continue;
      Conn* c = static_cast<Conn*>(p->data);
      const bool silent = c->slot < 0 && !c->observer && now - c->connected > std::chrono::seconds(5);
      const bool slow = p->reliableDataInTransit > 256 * 1024 || enet_list_size(&p->outgoingCommands) > 4096;
      if (silent || slow) {
        slow_peers += slow;
        release(p);
        enet_peer_disconnect_now(p, 0);
      }
    }
  }

  // ---- Zones (docs/server.md, "Zones").
  net::ZoneBus bus;
  std::map<std::uint64_t, std::vector<net::TickMessage>> early;  // peers' messages for ticks not run yet
  std::vector<net::TickMessage> peers;                           // this tick's, one per other zone
  std::vector<std::vector<std::uint8_t>> relay_out;              // by gateway zone
  std::vector<std::uint8_t> wire;
  std::vector<net::RelayRecord> relay_records;
  net::TickMessage mine;
  bool first_wait = true;

  void send_bytes(ENetPeer* p, std::uint8_t channel, const std::uint8_t* data, std::size_t size) {
    const std::uint32_t flags = channel == net::kReliableChannel ? ENET_PACKET_FLAG_RELIABLE : 0;
    ENetPacket* packet = enet_packet_create(data, size, flags);
    if (packet == nullptr) return void(++send_failures);
    if (enet_peer_send(p, channel, packet) != 0) {
      enet_packet_destroy(packet);
      return void(++send_failures);
    }
    ++packets_out;
    bytes_out += size;
  }

  // States and Events other zones computed for this zone's clients: passed on as they are.
  void drain_relays() {
    if (f.zones == 1) return;
    while (bus.next(true, 0, wire)) {
      if (!net::decode_relay(wire.data(), wire.size(), f.zones, total, net::kChannels, std::size_t{1} << 20,
                             relay_records)) {
        ++zone_bad;
        continue;
      }
      for (const net::RelayRecord& r : relay_records) {
        if (r.player / cap != static_cast<std::uint32_t>(f.zone)) {
          ++zone_bad;
          continue;
        }
        const Slot& s = slots[r.player % cap];
        if (s.state != SlotState::Active || s.peer == nullptr) continue;  // it left meanwhile
        send_bytes(s.peer, r.channel, r.message.data(), r.message.size());
        ++relayed_in;
      }
    }
    enet_host_flush(host);
  }

  void flush_relay(std::uint32_t g) {
    if (relay_out[g].size() <= net::kRelayHeader) return;
    bus.publish(f.nats_prefix + ".relay." + std::to_string(g), relay_out[g]);
    net::begin_relay(relay_out[g], static_cast<std::uint32_t>(f.zone), tick);
  }

  void deliver(std::uint32_t id, std::uint8_t channel, flatbuffers::FlatBufferBuilder& b) {
    const std::uint32_t g = id / cap;
    if (g == static_cast<std::uint32_t>(f.zone)) {
      const Slot& s = slots[id % cap];
      if (s.state == SlotState::Active && s.peer != nullptr) send(s.peer, channel, b);
      return;
    }
    net::add_relay(relay_out[g], id, channel, {b.GetBufferPointer(), b.GetSize()});
    ++relayed_out;
    if (relay_out[g].size() > (std::size_t{1} << 19)) flush_relay(g);
  }

  // Whether a tick message says only what its zone may: commands of its own clients (ids zone * cap
  // onwards) and states of players on its own strip.
  bool sent_by_its_zone(const net::TickMessage& m) const {
    const float lo = f.map * static_cast<float>(m.zone) / static_cast<float>(f.zones);
    const float hi = m.zone + 1 == static_cast<std::uint32_t>(f.zones)
                         ? f.map
                         : f.map * static_cast<float>(m.zone + 1) / static_cast<float>(f.zones);
    for (const net::RawCommand& c : m.commands)
      if (c.player / cap != m.zone) return false;
    for (const net::ZoneState& z : m.states)
      if (z.x < lo || z.x > hi || z.y < 0 || z.y > f.map) return false;
    return true;
  }

  // Publishes this zone's tick message and waits for every other zone's for the same tick. False when
  // one did not come within --zone-timeout (the first tick waits for the whole cluster to start).
  bool exchange(const std::vector<aoi::Player>& before) {
    mine.zone = static_cast<std::uint32_t>(f.zone);
    mine.tick = tick;
    mine.commands = raw;
    mine.states.clear();
    // The players of this strip that a neighbour mirrors: those within `reach` of its border.
    mine.views.clear();
    for (std::uint32_t id = 0; id < total; ++id) {
      const aoi::Player& p = before[id];
      if (!in_strip(p)) continue;
      if ((f.zone > 0 && p.x < strip_lo + reach) || (f.zone + 1 < f.zones && p.x >= strip_hi - reach))
        mine.states.push_back({id, p.x, p.y, p.hp});
      // A player that may cross a border this tick: its client's view goes along, so the zone it walks
      // into delta-encodes its State as this one would have (twice the largest move: rounding aside).
      const View& v = views[id];
      const float edge = 2 * max_move;
      if (v.tick + 1 == tick &&
          ((f.zone > 0 && p.x < strip_lo + edge) || (f.zone + 1 < f.zones && p.x >= strip_hi - edge))) {
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
    bus.publish(f.nats_prefix + ".tick", wire);
    peers.clear();
    if (auto it = early.find(tick); it != early.end()) {
      peers = std::move(it->second);
      early.erase(it);
    }
    const Clock::time_point until =
        first_wait
            ? Clock::time_point::max()
            : Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(f.zone_timeout));
    net::TickMessage m;
    while (peers.size() + 1 < static_cast<std::size_t>(f.zones)) {
      if (g_stop.load()) return false;  // stopping: the tick is not run
      if (Clock::now() >= until) {
        ++zone_timeouts;
        return false;
      }
      if (!bus.next(false, 0, wire)) {
        drain_relays();
        pump(1);  // clients' packets are taken while the zone waits
        continue;
      }
      ++zone_messages;
      const auto from_zone = [&m](const std::vector<net::TickMessage>& list) {
        return std::any_of(list.begin(), list.end(), [&m](const net::TickMessage& p) { return p.zone == m.zone; });
      };
      if (!net::decode_tick(wire.data(), wire.size(), f.zones, total, m) || m.zone == mine.zone ||
          !sent_by_its_zone(m)) {
        ++zone_bad;
      } else if (m.tick < tick) {
        ++zone_late;
      } else if (m.tick > tick + 1000 || early.size() > 1000) {
        ++zone_bad;
      } else if (m.tick > tick) {
        if (!from_zone(early[m.tick])) early[m.tick].push_back(std::move(m));  // a zone's first for a tick
      } else if (!from_zone(peers)) {
        peers.push_back(std::move(m));
      }
    }
    first_wait = false;
    return true;
  }

  // The zone's world before the tick: its own players as it computed them, the players within reach
  // of its strip as their zones computed them, everyone else parked. Reset only when it differs.
  bool align_world() {
    const std::span<const aoi::Player> now = world->players();
    desired = parking;
    for (std::uint32_t id = 0; id < total; ++id)
      if (in_strip(now[id])) desired[id] = now[id];
    for (const net::TickMessage& m : peers)
      for (const net::ZoneState& z : m.states)
        if (in_reach(z.x)) desired[z.player] = {z.x, z.y, z.hp};
    if (std::memcmp(desired.data(), now.data(), desired.size() * sizeof(aoi::Player)) == 0) return true;
    ++resets;
    if (Status st = world->reset(desired); !st.ok()) {
      std::fprintf(stderr, "warpmind-server: zone %d, tick %llu: %s\n", f.zone, static_cast<unsigned long long>(tick),
                   st.message().c_str());
      return false;
    }
    return true;
  }

  // The tick's commands for the AOI module: every raw command whose player (an attack: whose target)
  // is in this zone's world, resolved against the positions before the tick.
  bool resolve_one(const net::RawCommand& c, std::span<const aoi::Player> pos, aoi::Command& k) {
    k = {};
    k.player = c.player;
    const aoi::Player& p = pos[c.player];
    switch (c.kind) {
      case net::RawKind::Join:
        views[c.player].start(tick - 1);
        client_ack[c.player] = 0;
        if (!in_reach(c.x)) return false;
        k.dx = c.x - p.x;
        k.dy = c.y - p.y;
        return true;
      case net::RawKind::Leave:
        if (!in_game(p)) return false;
        k.dx = parking[c.player].x - p.x;
        k.dy = parking[c.player].y - p.y;
        return true;
      case net::RawKind::Move: {
        last_applied[c.player] = c.seq;
        if (!in_game(p)) return false;
        const float tx = std::clamp(c.x, 0.0f, f.map), ty = std::clamp(c.y, 0.0f, f.map);
        k.dx = std::clamp(tx - p.x, -max_move, max_move);
        k.dy = std::clamp(ty - p.y, -max_move, max_move);
        return true;
      }
      case net::RawKind::Attack:
        last_applied[c.player] = c.seq;
        if (!in_game(pos[c.target])) return false;
        k.type = aoi::CommandType::Attack;
        k.target = c.target;
        k.damage = f.damage;
        return true;
      case net::RawKind::Ack:
        client_ack[c.player] = std::max<std::uint64_t>(client_ack[c.player], c.target);
        return false;
    }
    return false;
  }
  void resolve(std::vector<aoi::Command>& cmds) {
    cmds.clear();
    const std::span<const aoi::Player> pos = world->players();
    aoi::Command k;
    for (const net::RawCommand& c : raw)
      if (resolve_one(c, pos, k)) cmds.push_back(k);
  }

  // A slot's part in the next tick: its join, its leave, or its latest command.
  static bool has_pending(const Slot& s) {
    return s.state == SlotState::Joining || s.state == SlotState::Leaving ||
           (s.state == SlotState::Active && s.has_command);
  }
  bool take_pending(std::uint32_t i, net::RawCommand& c) {
    Slot& s = slots[i];
    if (s.state == SlotState::Joining) {
      c = {id_of(static_cast<int>(i)), net::RawKind::Join, 0, s.spawn.x, s.spawn.y, 0};
      s.state = SlotState::Active;
    } else if (s.state == SlotState::Leaving) {
      c = {id_of(static_cast<int>(i)), net::RawKind::Leave, 0, 0, 0, 0};
      s.state = SlotState::Free;
    } else if (s.state == SlotState::Active && s.has_command) {
      s.has_command = false;
      c = s.command;
    } else {
      return false;
    }
    return true;
  }

  // One zone: the slots' commands resolved straight into the module's, in player order, on the pool
  // (parts counted, then written at their offsets; a command that no longer applies — an attack on a
  // player who left — leaves a gap, closed afterwards).
  std::vector<std::size_t> part_start, part_written;
  void local_commands(std::vector<aoi::Command>& cmds) {
    const std::span<const aoi::Player> pos = world->players();
    ThreadPool& pool = ctx->pool();
    const std::size_t parts = std::clamp<std::size_t>(cap / 4096, 1, pool.size() * 4);
    const auto lo = [&](std::size_t p) { return static_cast<std::uint32_t>(std::size_t{cap} * p / parts); };
    part_start.assign(parts + 1, 0);
    part_written.assign(parts, 0);
    pool.parallel_for(parts, [&](std::size_t b, std::size_t e, unsigned) {
      for (std::size_t p = b; p < e; ++p) {
        std::size_t k = 0;
        for (std::uint32_t i = lo(p); i < lo(p + 1); ++i) k += has_pending(slots[i]);
        part_start[p + 1] = k;
      }
    });
    for (std::size_t p = 0; p < parts; ++p) part_start[p + 1] += part_start[p];
    cmds.resize(part_start[parts]);
    pool.parallel_for(parts, [&](std::size_t b, std::size_t e, unsigned) {
      for (std::size_t p = b; p < e; ++p) {
        std::size_t at = part_start[p];
        net::RawCommand c;
        for (std::uint32_t i = lo(p); i < lo(p + 1); ++i)
          if (take_pending(i, c) && resolve_one(c, pos, cmds[at])) ++at;
        part_written[p] = at - part_start[p];
      }
    });
    std::size_t to = 0;
    for (std::size_t p = 0; p < parts; ++p) {
      if (to != part_start[p])
        std::memmove(cmds.data() + to, cmds.data() + part_start[p], part_written[p] * sizeof(aoi::Command));
      to += part_written[p];
    }
    cmds.resize(to);
  }

  // Receiver i's events of a sorted list, from the cursor `at` on (which it moves past them).
  static std::span<const aoi::VisibilityEvent> events_of(const std::vector<aoi::VisibilityEvent>& list, std::uint32_t i,
                                                         std::size_t& at) {
    while (at < list.size() && list[at].receiver < i) ++at;
    const std::size_t from = at;
    while (at < list.size() && list[at].receiver == i) ++at;
    return {list.data() + from, at - from};
  }

  // Receiver i's State after this tick: its mailbox, its own player, its last applied command.
  void build_state(flatbuffers::FlatBufferBuilder& b, std::uint32_t i, std::span<const aoi::MailboxEntry> box,
                   std::span<const aoi::MailboxEntry> catch_up, std::uint64_t since, std::uint64_t time_us,
                   const aoi::Player& me) const {
    b.Clear();
    const auto entries = b.CreateVectorOfStructs(reinterpret_cast<const net::Entry*>(box.data()), box.size());
    const auto extra = b.CreateVectorOfStructs(reinterpret_cast<const net::Entry*>(catch_up.data()), catch_up.size());
    const auto state = net::CreateState(b, tick, time_us, last_applied[i], me.x, me.y, me.hp, entries, since, extra);
    net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_State, state.Union()));
  }

  // ---- Deltas (docs/protocol.md, "Deltas"): a State's catch-up.
  static bool key_less(std::uint32_t a, std::uint32_t b) {
    return std::pair(a & 0x3fffffffu, a >> 30) < std::pair(b & 0x3fffffffu, b >> 30);
  }
  static void all_fields(std::vector<std::uint32_t>& keys, std::uint32_t s) {
    keys.insert(keys.end(), {s, s | 1u << 30, s | 2u << 30});
  }
  // keys (subject | field << 30; any order and repeats allowed unless `ordered`: already in (subject,
  // field) order without repeats) into `out`: (subject, field) order, without receiver i's own and
  // without those in `box`, each with its value after this tick.
  static void finish_catch_up(std::uint32_t i, std::vector<std::uint32_t>& keys, std::span<const aoi::MailboxEntry> box,
                              std::span<const aoi::Player> now, std::vector<aoi::MailboxEntry>& out,
                              bool ordered = false) {
    if (!ordered) {
      std::sort(keys.begin(), keys.end(), key_less);
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    }
    out.clear();
    std::size_t b = 0;
    for (const std::uint32_t k : keys) {
      const std::uint32_t subject = k & 0x3fffffffu;
      if (subject == i) continue;
      while (b < box.size() && key_less(box[b].subject_field, k)) ++b;
      if (b < box.size() && box[b].subject_field == k) continue;
      const aoi::Player& p = now[subject];
      std::uint32_t v;
      if ((k >> 30) == 0)
        std::memcpy(&v, &p.x, 4);
      else if ((k >> 30) == 1)
        std::memcpy(&v, &p.y, 4);
      else
        std::memcpy(&v, &p.hp, 4);
      out.push_back({k, v});
    }
  }

  // One zone, over the network: brings slot i's visible set and history up to this tick and makes its
  // catch-up; returns `since`. Caught up (acknowledged the previous tick): the players that came into
  // view, whole. Behind by at most kHistory ticks: what changed in the ticks it missed and who came into
  // view since, of the players in view now. Otherwise (no acknowledgement yet, or too old): a snapshot
  // of every player in view.
  std::vector<std::uint32_t> keys;
  std::uint64_t views_missing = 0;  // States built without the client's view (none by design: counted)
  std::uint64_t catch_up_of(std::uint32_t i, View& v, std::uint64_t a, std::span<const aoi::VisibilityEvent> entered,
                            std::span<const aoi::VisibilityEvent> gone, std::span<const aoi::MailboxEntry> box,
                            std::span<const aoi::Player> now, std::vector<aoi::MailboxEntry>& out) {
    const std::uint64_t t = tick;
    if (v.history.size() != kHistory) {
      v.history.resize(kHistory);
      for (net::ViewTick& h : v.history) h.tick = UINT64_MAX;
    }
    if (v.tick + 1 != t) {  // no view of the previous tick here: this tick's events are all there is
      ++views_missing;
      v.start(t - 1);
      a = t - 1;
    }
    std::vector<std::uint32_t>& vis = v.visible;
    for (const aoi::VisibilityEvent& e : gone)
      if (auto it = std::lower_bound(vis.begin(), vis.end(), e.other); it != vis.end() && *it == e.other) vis.erase(it);
    for (const aoi::VisibilityEvent& e : entered)
      if (auto it = std::lower_bound(vis.begin(), vis.end(), e.other); it == vis.end() || *it != e.other)
        vis.insert(it, e.other);
    std::uint64_t since = 0;
    keys.clear();
    bool behind = a != 0 && a + 1 < t && t - a <= kHistory;
    for (std::uint64_t u = a + 1; behind && u < t; ++u) behind = v.history[u % kHistory].tick == u;
    bool ordered = false;
    if (a != 0 && a + 1 == t) {
      since = a;
      for (const aoi::VisibilityEvent& e : entered) all_fields(keys, e.other);
      ordered = true;  // events come in ascending `other`
    } else if (behind) {
      since = a;
      for (std::uint64_t u = a + 1; u < t; ++u) {
        const net::ViewTick& p = v.history[u % kHistory];
        keys.insert(keys.end(), p.keys.begin(), p.keys.end());
        for (std::uint32_t o : p.entered) all_fields(keys, o);
      }
      for (const aoi::VisibilityEvent& e : entered) all_fields(keys, e.other);
      std::erase_if(keys,
                    [&vis](std::uint32_t k) { return !std::binary_search(vis.begin(), vis.end(), k & 0x3fffffffu); });
    } else {
      for (std::uint32_t o : vis) all_fields(keys, o);
      ordered = true;
    }
    finish_catch_up(i, keys, box, now, out, ordered);
    net::ViewTick& p = v.history[t % kHistory];
    p.tick = t;
    p.keys.clear();
    for (const aoi::MailboxEntry& e : box) p.keys.push_back(e.subject_field);
    p.entered.clear();
    for (const aoi::VisibilityEvent& e : entered) p.entered.push_back(e.other);
    v.tick = t;
    return since;
  }

  // Its Events, when its visibility changed (false otherwise).
  bool build_events(flatbuffers::FlatBufferBuilder& b, std::span<const aoi::VisibilityEvent> in,
                    std::span<const aoi::VisibilityEvent> out) const {
    if (in.empty() && out.empty()) return false;
    b.Clear();
    const auto ids = [&b](std::span<const aoi::VisibilityEvent> e) {
      std::uint32_t* p = nullptr;
      const auto v = b.CreateUninitializedVector(e.size(), &p);
      for (std::size_t k = 0; k < e.size(); ++k) p[k] = e[k].other;
      return v;
    };
    const auto entered = ids(in);
    const auto gone = ids(out);
    const auto ev = net::CreateEvents(b, tick, entered, gone);
    net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Events, ev.Union()));
    return true;
  }

  // ---- Virtual clients (--virtual-clients): the same command and notification path without sockets.
  // Each client's message is built and verified like a packet; its State and Events are built like a
  // connected client's and counted instead of sent. Commands are taken and messages built on the
  // context's thread pool, each worker with its own builder.
  std::uint32_t virtual_clients = 0;
  struct Worker {
    flatbuffers::FlatBufferBuilder b{1024};
    std::vector<std::uint32_t> keys;
    std::vector<aoi::MailboxEntry> catch_up;
    std::uint64_t packets = 0, bytes = 0, notifications = 0, commands = 0, drops[kDrops] = {};
    char pad[64];
  };
  std::vector<Worker> workers;
  std::vector<std::uint32_t> seen;  // by client: a player its last State named (whom it attacks), or none

  // Receiver i's mailbox in a chunk.
  static std::span<const aoi::MailboxEntry> box_of(const aoi::NotificationChunk& c, std::uint32_t i) {
    const std::size_t k = i - c.first_receiver;
    return c.mailbox.subspan(c.mailbox_start[k], c.mailbox_start[k + 1] - c.mailbox_start[k]);
  }

  void deliver_virtual(const aoi::NotificationChunk& c, const aoi::TickResult& r, std::uint64_t time_us) {
    const std::span<const aoi::Player> after = world->players();
    const auto first_of = [](const std::vector<aoi::VisibilityEvent>& list, std::size_t i) {
      return static_cast<std::size_t>(
          std::lower_bound(list.begin(), list.end(), i,
                           [](const aoi::VisibilityEvent& e, std::size_t x) { return e.receiver < x; }) -
          list.begin());
    };
    ctx->pool().parallel_for(
        c.end_receiver - c.first_receiver,
        [&](std::size_t begin, std::size_t end, unsigned w) {
          Worker& k = workers[w];
          std::size_t e_in = first_of(r.entered, c.first_receiver + begin);
          std::size_t e_out = first_of(r.left, c.first_receiver + begin);
          for (std::size_t n = begin; n < end; ++n) {
            const std::uint32_t i = static_cast<std::uint32_t>(c.first_receiver + n);
            const auto entered = events_of(r.entered, i, e_in), gone = events_of(r.left, i, e_out);
            if (slots[i].state != SlotState::Active) continue;
            const std::span<const aoi::MailboxEntry> box = box_of(c, i);
            k.notifications += box.size();
            seen[i] = UINT32_MAX;
            for (const aoi::MailboxEntry& e : box)
              if (e.subject() != i) {
                seen[i] = e.subject();
                break;
              }
            // Virtual clients acknowledge every State: the catch-up is the players that came into view.
            k.keys.clear();
            for (const aoi::VisibilityEvent& e : entered) all_fields(k.keys, e.other);
            finish_catch_up(i, k.keys, box, after, k.catch_up, true);
            k.notifications += k.catch_up.size();
            build_state(k.b, i, box, k.catch_up, tick - 1, time_us, after[i]);
            ++k.packets;
            k.bytes += k.b.GetSize();
            if (build_events(k.b, entered, gone)) {
              ++k.packets;
              k.bytes += k.b.GetSize();
            }
          }
        },
        256);
  }

  // One chunk of the tick's mailboxes: every receiver's State and Events, to its client (one zone: the
  // slot's client; a cluster: the players on this strip after the tick, wherever their clients are).
  flatbuffers::FlatBufferBuilder out_builder{1024};
  std::size_t out_in = 0, out_left = 0;
  std::vector<aoi::MailboxEntry> catch_up;
  void deliver_chunk(const aoi::NotificationChunk& c, const aoi::TickResult& r, std::uint64_t time_us) {
    const std::span<const aoi::Player> after = world->players();
    for (std::uint32_t i = c.first_receiver; i < c.end_receiver; ++i) {
      const auto entered = events_of(r.entered, i, out_in), gone = events_of(r.left, i, out_left);
      const bool mine_now =
          f.zones == 1 ? slots[i].state == SlotState::Active && slots[i].peer != nullptr : in_strip(after[i]);
      if (!mine_now) continue;
      const std::span<const aoi::MailboxEntry> box = box_of(c, i);
      const std::uint64_t since =
          catch_up_of(i, views[i], f.zones == 1 ? slots[i].acked : client_ack[i], entered, gone, box, after, catch_up);
      notifications += box.size() + catch_up.size();
      build_state(out_builder, i, box, catch_up, since, time_us, after[i]);
      deliver(i, net::kStreamChannel, out_builder);
      if (build_events(out_builder, entered, gone)) deliver(i, net::kReliableChannel, out_builder);
    }
  }

  void run_tick(std::vector<aoi::Command>& cmds, aoi::TickResult& r) {
    Clock::time_point t0 = Clock::now();
    if (f.zones == 1) {
      local_commands(cmds);
    } else {
      // This zone's clients' commands, then the other zones' (joins and leaves are moves in and out of
      // the parking strip).
      raw.clear();
      net::RawCommand c;
      for (std::uint32_t i = 0; i < cap; ++i) {
        if (take_pending(i, c)) raw.push_back(c);
        Slot& s = slots[i];
        if (s.state == SlotState::Active && s.acked != s.ack_sent && s.acked < (std::uint64_t{1} << 32)) {
          raw.push_back({id_of(static_cast<int>(i)), net::RawKind::Ack, 0, 0, 0, static_cast<std::uint32_t>(s.acked)});
          s.ack_sent = s.acked;
        }
      }
      const std::vector<aoi::Player> before(world->players().begin(), world->players().end());
      if (!exchange(before) && g_stop.load()) return;
      for (const net::TickMessage& m : peers) {
        raw.insert(raw.end(), m.commands.begin(), m.commands.end());
        for (const net::PlayerView& pv : m.views) {  // players that may walk onto this strip
          View& v = views[pv.player];
          if (v.tick + 1 == tick) continue;  // this zone built its last State itself
          v.start(tick - 1);
          v.visible = pv.visible;
          if (v.history.size() != kHistory) v.history.assign(kHistory, net::ViewTick{UINT64_MAX, {}, {}});
          for (const net::ViewTick& h : pv.past)
            if (h.tick < tick && tick - h.tick <= kHistory) v.history[h.tick % kHistory] = h;
        }
      }
      std::sort(raw.begin(), raw.end(),
                [](const net::RawCommand& a, const net::RawCommand& b) { return a.player < b.player; });
      const Clock::time_point waited = Clock::now();
      if (wait_ms.size() < (1u << 22)) wait_ms.push_back(std::chrono::duration<float, std::milli>(waited - t0).count());
      t0 = waited;
      if (!align_world()) {
        g_stop.store(true);
        return;
      }
      resolve(cmds);
    }
    // The module's tick; its mailboxes come chunk by chunk (gpu-fast writes the next while this one's
    // messages are built), the State's time being when the first chunk is ready.
    const Clock::time_point t_module = Clock::now();
    Clock::time_point t_encode{};
    std::uint64_t time_us = 0;
    out_in = out_left = 0;
    for (std::uint32_t g = 0; g < relay_out.size(); ++g)
      net::begin_relay(relay_out[g], static_cast<std::uint32_t>(f.zone), tick);
    const aoi::NotificationSink sink = [&](const aoi::NotificationChunk& c) {
      if (t_encode == Clock::time_point{}) {
        t_encode = Clock::now();
        time_us = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count());
      }
      if (virtual_clients)
        deliver_virtual(c, r, time_us);
      else
        deliver_chunk(c, r, time_us);
    };
    const Status st = world->tick(cmds, r, sink);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-server: tick %llu: %s\n", static_cast<unsigned long long>(tick),
                   st.message().c_str());
      g_stop.store(true);
      return;
    }
    if (t_encode == Clock::time_point{}) t_encode = Clock::now();
    for (std::size_t k : r.rejected) module_rejected += k;
    send_snapshots(time_us);
    for (std::uint32_t g = 0; g < relay_out.size(); ++g) flush_relay(g);
    if (host) enet_host_flush(host);
    ++tick;
    const Clock::time_point t1 = Clock::now();
    if (tick_ms.size() < (1u << 22)) {
      tick_ms.push_back(std::chrono::duration<float, std::milli>(t1 - t0).count());
      commands_ms.push_back(std::chrono::duration<float, std::milli>(t_module - t0).count());
      module_ms.push_back(std::chrono::duration<float, std::milli>(t_encode - t_module).count());
      encode_ms.push_back(std::chrono::duration<float, std::milli>(t1 - t_encode).count());
    }
  }
};

static_assert(sizeof(net::Entry) == sizeof(aoi::MailboxEntry));

double percentile(std::vector<float> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// --virtual-clients N: N clients in this process join at tick 0, then each tick every client builds
// one Move or Attack message (by the bots' script: an attack on a player its last State named, with
// probability --attack-share, else a step towards its waypoint), the server verifies and takes them
// (intake, on the thread pool), runs the tick and builds every client's State and Events. Prints the
// times of intake and tick (commands, AOI module, messages) over --ticks ticks, the join tick left out.
int run_virtual(Server& sv) {
  const Flags& f = sv.f;
  const std::uint32_t n = sv.total;
  ThreadPool& pool = sv.ctx->pool();
  sv.workers.resize(pool.size());
  sv.seen.assign(n, UINT32_MAX);
  struct Client {
    float wx = 0, wy = 0;
    std::uint32_t seq = 0;
    std::uint64_t rng = 0;
  };
  std::vector<Client> clients(n);
  std::uint64_t seed = f.seed;
  const auto uniform = [&f](std::uint64_t& r) { return static_cast<float>(splitmix(r) >> 40) * 0x1p-24f * f.map; };
  for (std::uint32_t i = 0; i < n; ++i) {
    Slot& s = sv.slots[i];
    s = Slot{};
    s.state = SlotState::Joining;
    s.token = splitmix(seed) | 1;
    s.spawn = {uniform(seed), uniform(seed), 100};
    clients[i].rng = splitmix(seed);
    clients[i].wx = uniform(clients[i].rng);
    clients[i].wy = uniform(clients[i].rng);
  }
  constexpr std::size_t kSlot = 128;  // a Move or an Attack is about 60 bytes
  std::vector<std::uint8_t> arena(static_cast<std::size_t>(n) * kSlot);
  std::vector<std::uint16_t> length(n);
  std::vector<aoi::Command> cmds;
  aoi::TickResult result;
  std::vector<float> intake_ms, upload, query, visibility, download;
  sv.run_tick(cmds, result);  // the joins
  if (g_stop.load()) return 1;
  sv.tick_ms.clear(), sv.commands_ms.clear(), sv.module_ms.clear(), sv.encode_ms.clear();
  for (Server::Worker& w : sv.workers) w = {};
  std::uint64_t rejected = 0;
  for (int t = 0; t < f.ticks && !g_stop.load(); ++t) {
    // The clients' side (not timed).
    const std::span<const aoi::Player> pos = sv.world->players();
    pool.parallel_for(
        n,
        [&](std::size_t begin, std::size_t end, unsigned w) {
          flatbuffers::FlatBufferBuilder& b = sv.workers[w].b;
          for (std::size_t i = begin; i < end; ++i) {
            Client& c = clients[i];
            const std::uint32_t seq = ++c.seq;
            b.Clear();
            if (sv.seen[i] != UINT32_MAX && static_cast<double>(splitmix(c.rng) >> 11) * 0x1p-53 < f.attack_share) {
              net::FinishMessageBuffer(
                  b, net::CreateMessage(b, net::Body_Attack,
                                        net::CreateAttack(b, sv.slots[i].token, seq, sv.seen[i], sv.tick - 1).Union()));
            } else {
              if (std::fabs(pos[i].x - c.wx) < 0.5f && std::fabs(pos[i].y - c.wy) < 0.5f) {
                c.wx = uniform(c.rng);
                c.wy = uniform(c.rng);
              }
              net::FinishMessageBuffer(
                  b, net::CreateMessage(b, net::Body_Move,
                                        net::CreateMove(b, sv.slots[i].token, seq, c.wx, c.wy, sv.tick - 1).Union()));
            }
            length[i] = static_cast<std::uint16_t>(std::min<std::size_t>(b.GetSize(), kSlot));
            std::memcpy(arena.data() + i * kSlot, b.GetBufferPointer(), length[i]);
          }
        },
        1024);
    // Intake: every message verified and taken, as the server takes a packet.
    const Clock::time_point t0 = Clock::now();
    pool.parallel_for(
        n,
        [&](std::size_t begin, std::size_t end, unsigned w) {
          Server::Worker& k = sv.workers[w];
          for (std::size_t i = begin; i < end; ++i) {
            const net::Message* m = net::read_message(arena.data() + i * kSlot, length[i]);
            const int d = m ? sv.take_command(sv.slots[i], static_cast<int>(i), *m) : BadPacket;
            if (d >= 0)
              ++k.drops[d];
            else
              ++k.commands;
          }
        },
        1024);
    intake_ms.push_back(std::chrono::duration<float, std::milli>(Clock::now() - t0).count());
    sv.run_tick(cmds, result);
    if (g_stop.load()) return 1;
    for (std::size_t k : result.rejected) rejected += k;
    upload.push_back(static_cast<float>(result.ms_upload));
    query.push_back(static_cast<float>(result.ms_query + result.ms_sort + result.ms_logic));
    visibility.push_back(static_cast<float>(result.ms_visibility));
    download.push_back(static_cast<float>(result.ms_download));
  }
  std::uint64_t packets = 0, bytes = 0, notes = 0, commands = 0, dropped = 0;
  for (const Server::Worker& w : sv.workers) {
    packets += w.packets, bytes += w.bytes, notes += w.notifications, commands += w.commands;
    for (std::uint64_t d : w.drops) dropped += d;
  }
  const double ticks = std::max<std::size_t>(1, sv.tick_ms.size());
  const auto p = [](const std::vector<float>& v, double q) { return percentile(v, q); };
  std::printf(
      "{\"program\":\"warpmind-server\",\"mode\":\"virtual\",\"clients\":%u,\"ticks\":%zu,\"map\":%g,\"aoi\":%g,"
      "\"shape\":\"%s\",\"attack_share\":%g,\"threads\":%u,\"backend\":\"%s\",\"variant\":\"%s\","
      "\"notifications_per_tick\":%.0f,\"messages_per_tick\":%.0f,\"bytes_per_tick\":%.0f,\"commands\":%llu,"
      "\"dropped\":%llu,\"rejected_by_aoi\":%llu,"
      "\"tick_ms\":{\"p50\":%.4f,\"p90\":%.4f,\"p99\":%.4f,\"max\":%.4f},\"intake_ms\":{\"p50\":%.4f,\"p99\":%.4f},"
      "\"stages_ms\":{\"commands\":%.4f,\"aoi\":%.4f,\"messages\":%.4f,\"aoi_upload\":%.4f,\"aoi_query\":%.4f,"
      "\"aoi_visibility\":%.4f,\"aoi_download\":%.4f}}\n",
      n, sv.tick_ms.size(), f.map, f.aoi, aoi::shape_name(sv.cfg.shape), f.attack_share, pool.size(),
      backend_name(sv.ctx->backend()), aoi::variant_name(sv.world->variant()), static_cast<double>(notes) / ticks,
      static_cast<double>(packets) / ticks, static_cast<double>(bytes) / ticks,
      static_cast<unsigned long long>(commands), static_cast<unsigned long long>(dropped),
      static_cast<unsigned long long>(rejected), p(sv.tick_ms, 0.5), p(sv.tick_ms, 0.9), p(sv.tick_ms, 0.99),
      p(sv.tick_ms, 1.0), p(intake_ms, 0.5), p(intake_ms, 0.99), p(sv.commands_ms, 0.5), p(sv.module_ms, 0.5),
      p(sv.encode_ms, 0.5), p(upload, 0.5), p(query, 0.5), p(visibility, 0.5), p(download, 0.5));
  return dropped == 0 ? 0 : 1;
}

int run(Server& sv) {
  Flags& f = sv.f;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sv.max_move = f.max_move > 0 ? f.max_move : f.aoi;
  sv.rng.seed(f.seed);
  sv.virtual_clients = f.virtual_clients;
  if (f.virtual_clients > 0 && f.zones > 1) return bad("--virtual-clients: one zone only");
  sv.cap = f.virtual_clients > 0 ? f.virtual_clients : static_cast<std::uint32_t>(f.max_clients);
  sv.total = sv.cap * static_cast<std::uint32_t>(f.zones);
  if (f.zone >= f.zones) return bad("--zone: must be below --zones");
  if (f.zones > 1) {
    // A zone mirrors the players within 5 AOI of its strip: what its clients can see after a tick
    // (2 AOI, a square AOI's reach), from where a player can come in one tick (max move <= AOI) and
    // attacked from where (attack range <= AOI) — see docs/server.md.
    if (sv.max_move > f.aoi) return bad("--max-move: a zone of a cluster needs it at most --aoi");
    if (f.attack_range > f.aoi) return bad("--attack-range: a zone of a cluster needs it at most --aoi");
    sv.reach = 5 * f.aoi;
    if (f.map / static_cast<float>(f.zones) < sv.reach)
      return bad("--zones: each zone's strip (--map / --zones) must be at least 5 AOI wide");
  }
  sv.strip_lo = f.map * static_cast<float>(f.zone) / static_cast<float>(f.zones);
  sv.strip_hi = f.zone + 1 == f.zones ? f.map : f.map * static_cast<float>(f.zone + 1) / static_cast<float>(f.zones);
  sv.last_applied.assign(sv.total, 0);
  sv.views.resize(sv.total);
  sv.client_ack.assign(sv.total, 0);
  // The AOI world: the map, and beyond it a parking strip where the players not in the game wait, each
  // two buckets away from anything else (so parked players see only themselves and cost nothing).
  const int per_column = std::max(1, static_cast<int>(f.map / (2 * f.aoi)));
  const int columns = (static_cast<int>(sv.total) + per_column - 1) / per_column;
  const float first_column = std::ceil(f.map / f.aoi) + 2;
  aoi::AoiConfig& cfg = sv.cfg;
  cfg.world = {0, 0, (first_column + 2.0f * columns) * f.aoi, std::max(f.map, 2.0f * per_column * f.aoi)};
  cfg.aoi = f.aoi;
  (void)aoi::parse_shape(f.shape, cfg.shape);
  (void)aoi::parse_variant(f.variant, cfg.variant);
  cfg.max_move = cfg.world.width + cfg.world.height;  // joins and leaves move in one tick; clients' moves are clamped
  cfg.attack_range = f.attack_range > 0 ? f.attack_range : f.aoi;
  cfg.track_visibility = true;
  cfg.format = aoi::NotificationFormat::Mailboxes;
  cfg.chunk_notifications = std::uint64_t{1} << 22;  // messages are built from a chunk while the next is written
  if (static_cast<double>(cfg.world.width) / f.aoi * (cfg.world.height / f.aoi) > 1e8)
    return bad("--map / --aoi: too many AOI buckets (at most 10^8 with the parking strip)");
  sv.slots.resize(sv.cap);
  for (int i = 0; i < static_cast<int>(sv.total); ++i)
    sv.parking.push_back(
        {(first_column + 2.0f * (i / per_column) + 0.5f) * f.aoi, (2.0f * (i % per_column) + 0.5f) * f.aoi, 100});
  if (const std::string err = demos::open_context(f.context, true, sv.ctx); !err.empty()) return bad(err);
  if (Status st = aoi::AoiWorld::create(*sv.ctx, cfg, sv.world); !st.ok()) return bad(st.message());
  if (Status st = sv.world->reset(sv.parking); !st.ok()) return bad(st.message());

  if (f.virtual_clients > 0) return run_virtual(sv);
  if (f.zones > 1) {
    if (const std::string err = sv.bus.connect(f.nats, f.nats_prefix, f.zone); !err.empty())
      return bad("--nats " + f.nats + ": " + err);
    sv.relay_out.resize(f.zones);
  }
  if (enet_initialize() != 0) return bad("cannot initialise ENet");
  ENetAddress address;
  if (enet_address_set_host_ip(&address, f.host.c_str()) != 0) return bad("--host: not an IPv4 address: " + f.host);
  address.port = static_cast<enet_uint16>(f.port);
  sv.host = enet_host_create(&address, static_cast<std::size_t>(f.max_clients) + 64, net::kChannels, 0, 0);
  if (sv.host == nullptr) return bad("cannot listen on " + f.host + ":" + std::to_string(f.port));
  g_server = &sv;
  // The largest packet sent or received (ENet applies it both ways): a State of up to ~32,000
  // notifications, a Snapshot of 4,000 players. A client's messages are far smaller (kMaxClientPacket).
  sv.host->maximumPacketSize = 256 * 1024;
  // A tick's commands arrive in a burst (clients send on their own tick): a socket buffer that holds
  // them all, past the system's default cap where allowed (SO_RCVBUFFORCE needs CAP_NET_ADMIN).
  for (const int opt : {SO_RCVBUF, SO_SNDBUF}) {
    const int want = f.socket_buffer, force = opt == SO_RCVBUF ? SO_RCVBUFFORCE : SO_SNDBUFFORCE;
    if (setsockopt(sv.host->socket, SOL_SOCKET, force, &want, sizeof want) != 0)
      setsockopt(sv.host->socket, SOL_SOCKET, opt, &want, sizeof want);
  }
  int rcvbuf = 0;
  socklen_t rcvlen = sizeof rcvbuf;
  getsockopt(sv.host->socket, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &rcvlen);
  sv.socket_buffer = rcvbuf;
  sv.host->maximumWaitingData = 64 * 1024;  // per peer, packets received and not yet handed out
  sv.host->intercept = &Server::intercept;
  ENetAddress bound{};
  enet_socket_get_address(sv.host->socket, &bound);
  if (f.metrics_port >= 0) {
    sv.metrics_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(f.metrics_port));
    inet_pton(AF_INET, f.host.c_str(), &a.sin_addr);
    const int yes = 1;
    setsockopt(sv.metrics_fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    socklen_t len = sizeof a;
    if (sv.metrics_fd < 0 || bind(sv.metrics_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        listen(sv.metrics_fd, 16) != 0 || getsockname(sv.metrics_fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return bad("--metrics-port: cannot listen on " + f.host + ":" + std::to_string(f.metrics_port));
    std::fprintf(stderr, "warpmind-server: metrics on http://%s:%u/metrics\n", f.host.c_str(), ntohs(a.sin_port));
  }
  std::fprintf(stderr, "warpmind-server: listening on %s:%u, %d Hz, map %g, AOI %g (%s), variant %s, zone %d of %d\n",
               f.host.c_str(), bound.port, f.tick_hz, f.map, f.aoi, aoi::shape_name(cfg.shape),
               aoi::variant_name(sv.world->variant()), f.zone, f.zones);
  std::fflush(stderr);

  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / f.tick_hz));
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop_at =
      f.seconds > 0 ? start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(f.seconds))
                    : Clock::time_point::max();
  Clock::time_point next = start + period;
  std::vector<aoi::Command> cmds;
  aoi::TickResult result;
  Clock::time_point last_sweep = start;
  while (!g_stop.load()) {
    sv.service(std::min(next, stop_at));
    if (g_stop.load() || Clock::now() >= stop_at) break;
    sv.run_tick(cmds, result);
    next += period;
    if (Clock::now() > next + period) {  // more than a tick behind: skip ahead rather than burst
      ++sv.late_ticks;
      next = Clock::now() + period;
    }
    if (Clock::now() - last_sweep > std::chrono::milliseconds(250)) {
      sv.sweep_peers();
      last_sweep = Clock::now();
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const std::uint32_t connected = sv.active_count();
  for (std::size_t i = 0; i < sv.host->peerCount; ++i) {
    ENetPeer* p = &sv.host->peers[i];
    if (p->data) {
      delete static_cast<Conn*>(p->data);
      p->data = nullptr;
    }
    if (p->state == ENET_PEER_STATE_CONNECTED) enet_peer_disconnect_now(p, 0);
  }
  enet_host_flush(sv.host);
  enet_host_destroy(sv.host);
  enet_deinitialize();
  sv.bus.close();
  if (sv.metrics_fd >= 0) close(sv.metrics_fd);

  std::uint64_t dropped = 0;
  for (std::uint64_t d : sv.drops) dropped += d;
  if (f.json) {
    std::string drops;
    for (int d = 0; d < kDrops; ++d)
      drops += std::string(d ? "," : "") + "\"" + drop_name(d) + "\":" + std::to_string(sv.drops[d]);
    std::printf(
        "{\"program\":\"warpmind-server\",\"ticks\":%llu,\"seconds\":%.3f,\"tick_hz\":%d,\"late_ticks\":%llu,"
        "\"clients\":{\"joined\":%llu,\"left\":%llu,\"disconnected\":%llu,\"refused\":%llu,\"slow\":%llu,\"peak\":%llu,"
        "\"connected_at_stop\":%u},\"drops\":{%s},\"dropped\":%llu,\"receive_errors\":%llu,\"commands\":%llu,"
        "\"rejected_by_aoi\":%llu,"
        "\"notifications\":%llu,\"datagrams_in\":%llu,\"datagram_bytes_in\":%llu,\"bytes_in\":%llu,\"packets_out\":%"
        "llu,\"bytes_out\":%llu,"
        "\"tick_ms\":{\"p50\":%.4f,\"p90\":%.4f,\"p99\":%.4f,\"max\":%.4f},\"variant\":\"%s\",\"backend\":\"%s\","
        "\"send_failures\":%llu,\"observers\":%zu,\"socket_buffer\":%d,\"zone\":%d,\"zones\":%d,\"cluster\":{"
        "\"messages_in\":%llu,\"bad_"
        "messages\":%llu,\"late_messages\":%llu,"
        "\"timeouts\":%llu,\"relayed_out\":%llu,\"relayed_in\":%llu,\"resets\":%llu,\"views_missing\":%llu,"
        "\"wait_ms\":{\"p50\":%.4f,\"p99\":%.4f}}}\n",
        static_cast<unsigned long long>(sv.tick - 1), seconds, f.tick_hz,
        static_cast<unsigned long long>(sv.late_ticks), static_cast<unsigned long long>(sv.joined),
        static_cast<unsigned long long>(sv.left), static_cast<unsigned long long>(sv.disconnected),
        static_cast<unsigned long long>(sv.refused), static_cast<unsigned long long>(sv.slow_peers),
        static_cast<unsigned long long>(sv.peak), connected, drops.c_str(), static_cast<unsigned long long>(dropped),
        static_cast<unsigned long long>(sv.receive_errors), static_cast<unsigned long long>(sv.commands),
        static_cast<unsigned long long>(sv.module_rejected), static_cast<unsigned long long>(sv.notifications),
        static_cast<unsigned long long>(sv.datagrams_in), static_cast<unsigned long long>(sv.datagram_bytes_in),
        static_cast<unsigned long long>(sv.bytes_in), static_cast<unsigned long long>(sv.packets_out),
        static_cast<unsigned long long>(sv.bytes_out), percentile(sv.tick_ms, 0.5), percentile(sv.tick_ms, 0.9),
        percentile(sv.tick_ms, 0.99), percentile(sv.tick_ms, 1.0), aoi::variant_name(sv.world->variant()),
        backend_name(sv.ctx->backend()), static_cast<unsigned long long>(sv.send_failures), sv.observers.size(),
        sv.socket_buffer, f.zone, f.zones, static_cast<unsigned long long>(sv.zone_messages),
        static_cast<unsigned long long>(sv.zone_bad), static_cast<unsigned long long>(sv.zone_late),
        static_cast<unsigned long long>(sv.zone_timeouts), static_cast<unsigned long long>(sv.relayed_out),
        static_cast<unsigned long long>(sv.relayed_in), static_cast<unsigned long long>(sv.resets),
        static_cast<unsigned long long>(sv.views_missing), percentile(sv.wait_ms, 0.5), percentile(sv.wait_ms, 0.99));
  } else {
    std::printf("warpmind-server: %llu ticks in %.1f s (%llu late), %llu joined, %llu left, peak %llu clients\n",
                static_cast<unsigned long long>(sv.tick - 1), seconds, static_cast<unsigned long long>(sv.late_ticks),
                static_cast<unsigned long long>(sv.joined), static_cast<unsigned long long>(sv.left),
                static_cast<unsigned long long>(sv.peak));
    std::printf("dropped %llu:", static_cast<unsigned long long>(dropped));
    for (int d = 0; d < kDrops; ++d)
      std::printf(" %s %llu", drop_name(d), static_cast<unsigned long long>(sv.drops[d]));
    std::printf("\nbytes in %llu, out %llu; tick ms p50 %.3f p99 %.3f\n", static_cast<unsigned long long>(sv.bytes_in),
                static_cast<unsigned long long>(sv.bytes_out), percentile(sv.tick_ms, 0.5),
                percentile(sv.tick_ms, 0.99));
  }
  return 0;
}

}  // namespace

// --config FILE: a JSON object whose keys are the flags' names without "--" ("tick_hz" or "tick-hz"),
// numbers, strings or true (for --json). Its settings go before the command line's, so a flag given on
// the command line wins (the last value of a flag is the one kept). Empty string or the reason.
std::string expand_config(int argc, char** argv, std::vector<std::string>& args) {
  args.assign(argv, argv + argc);
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) path = argv[i + 1];
    if (a.rfind("--config=", 0) == 0) path = a.substr(9);
  }
  if (path.empty()) return {};
  std::ifstream in(path);
  if (!in) return "--config: cannot read " + path;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "--config: " + path + " is not a JSON object";
  std::vector<std::string> from_file;
  for (const auto& [key, value] : j.items()) {
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (flag == "--config") return "--config: a config cannot name another";
    if (value.is_boolean()) {
      if (value.get<bool>()) from_file.push_back(flag);
    } else if (value.is_string()) {
      from_file.insert(from_file.end(), {flag, value.get<std::string>()});
    } else if (value.is_number_integer()) {
      from_file.insert(from_file.end(), {flag, std::to_string(value.get<long long>())});
    } else if (value.is_number()) {
      from_file.insert(from_file.end(), {flag, demos::number_text(value.get<double>())});
    } else {
      return "--config: " + key + ": expected a number, a string or true";
    }
  }
  args.insert(args.begin() + 1, from_file.begin(), from_file.end());
  return {};
}

int main(int argc, char** argv) {
  CLI::App app(
      "Runs the AOI module's tick loop for clients over UDP (ENet): joins, moves and attacks in, per-tick "
      "notifications and enter/leave events out (docs/server.md, docs/protocol.md). Stops after --seconds or on "
      "SIGINT/SIGTERM, printing a summary (--json: one JSON object).",
      "warpmind-server");
  demos::configure(app);
  auto sv = std::make_unique<Server>();
  Flags& f = sv->f;
  demos::add_text(app, "--host", f.host, "IP", "IPv4 address to listen on");
  demos::add_integer(app, "--port", f.port, 0, 65535, "N", "UDP port; 0: any free one (printed on stderr)");
  demos::add_integer(app, "--tick-hz", f.tick_hz, 1, 1000, "HZ", "ticks per second");
  demos::add_number(app, "--map", f.map, 1.0, 1e6, "S", "map side: players move in [0, S] x [0, S]");
  demos::add_number(app, "--aoi", f.aoi, 1e-2, 1e6, "A", "bucket side (square) or radius (circle)");
  demos::add_choice(app, "--shape", f.shape, {"square", "circle"}, "the area of interest's shape");
  demos::add_number(app, "--max-move", f.max_move, 0.0, 1e6, "D",
                    "the most a player moves per tick and axis; 0: the AOI", "0");
  demos::add_number(app, "--attack-range", f.attack_range, 0.0, 1e6, "D", "attack range; 0: the AOI", "0");
  demos::add_integer(app, "--damage", f.damage, 0, 1000000, "HP", "HP an attack takes");
  demos::add_integer(app, "--max-clients", f.max_clients, 1, 4000, "N", "players at once");
  demos::add_integer(app, "--socket-buffer", f.socket_buffer, 65536, 1 << 30, "BYTES",
                     "the UDP socket's receive and send buffers (beyond the system's cap when running with "
                     "CAP_NET_ADMIN; the summary's socket_buffer says what was set)");
  demos::add_integer(app, "--max-observers", f.max_observers, 0, 64, "N",
                     "observer connections at once (warpmind-demo --connect): a Snapshot of every player a tick each");
  demos::add_number(app, "--seconds", f.seconds, 0.0, 1e7, "S", "stop after S seconds; 0: when signalled");
  demos::add_integer(app, "--peer-rate", f.peer_rate, 1, 1000000, "N", "messages a second one connection may send");
  demos::add_integer(app, "--address-rate", f.address_rate, 1, 10000000, "N",
                     "datagrams a second one address (IP and port) may send");
  demos::add_integer(app, "--metrics-port", f.metrics_port, -1, 65535, "N",
                     "serve metrics (Prometheus text format) over HTTP on this TCP port; 0: any free one (printed on "
                     "stderr); -1: none");
  demos::add_integer(app, "--seed", f.seed, 0, INT64_MAX, "N", "spawn positions (session tokens are random)");
  demos::add_integer(app, "--virtual-clients", f.virtual_clients, 0, 1 << 24, "N",
                     "no network: N clients in this process, every one sending a command a tick, for --ticks ticks "
                     "as fast as they run; prints the times (JSON) and exits (docs/server.md)");
  demos::add_integer(app, "--ticks", f.ticks, 1, 100000, "T", "ticks of a --virtual-clients run");
  demos::add_number(app, "--attack-share", f.attack_share, 0.0, 1.0, "F",
                    "--virtual-clients: share of commands that attack a player the client's last State named");
  demos::add_integer(app, "--zones", f.zones, 1, 64, "N",
                     "zones of a cluster: the map cut into N strips along x, one server each, meeting over NATS");
  demos::add_integer(app, "--zone", f.zone, 0, 63, "K", "this server's zone: the strip [map*K/N, map*(K+1)/N)");
  demos::add_text(app, "--nats", f.nats, "URL", "the cluster's NATS server");
  demos::add_text(app, "--nats-prefix", f.nats_prefix, "S", "the cluster's NATS subjects: S.tick and S.relay.K");
  demos::add_number(app, "--zone-timeout", f.zone_timeout, 0.01, 3600, "S",
                    "how long a zone waits for the others' tick messages before it ticks without them");
  demos::add_context_flags(app, f.context);
  demos::add_text(app, "--variant", f.variant, "V", "auto, cpu-grid, cpu-fast, gpu-seed, gpu-fast",
                  [](const std::string& s) {
                    aoi::AoiVariant v;
                    return aoi::parse_variant(s, v) ? std::string() : "unknown variant '" + s + "'";
                  });
  demos::add_flag(app, "--json", f.json, "on stop, one JSON summary object on stdout");
  std::string config;
  demos::add_text(app, "--config", config, "FILE",
                  "settings from a JSON object (keys: the flags' names, e.g. {\"tick_hz\": 30, \"map\": 500}); "
                  "flags on the command line win");
  std::vector<std::string> args;
  if (const std::string err = expand_config(argc, argv, args); !err.empty()) return bad(err);
  std::vector<char*> argv2;
  for (std::string& a : args) argv2.push_back(a.data());
  if (const int rc = demos::parse(app, static_cast<int>(argv2.size()), argv2.data()); rc >= 0) return rc;
  return run(*sv);
}
