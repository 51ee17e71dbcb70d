// warpmind-server's Server: its flags, the zone's area, and the Server itself: the world and the tick it
// shares with its parts (sockets, sessions, clients, limits, outbox, zones, store, metrics), each of
// which owns its own state (its header says what), and whose member functions are defined by concern in
// server_*.cpp (docs/server.md, docs/protocol.md).
//
// Each tick: the commands received since the previous tick are applied (per player the latest valid
// one), joins and leaves enter the tick as moves in and out of a parking strip beyond the map, the AOI
// module runs the tick (mailboxes, enter/leave events), and each client gets its State (unreliable,
// sequenced) and, when its visibility changed, its Events (reliable). A client can never stop the
// server: every packet is verified before use, and bad ones are dropped and counted by reason.
#pragma once

#include <enet/enet.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "flags.h"
#include "clients.h"
#include "connection_limits.h"
#include "drops.h"
#include "metrics_endpoint.h"
#include "outbox.h"
#include "protocol.h"
#include "sent_filter.h"
#include "session_keys.h"
#include "sessions.h"
#include "sockets.h"
#include "tick_times.h"
#include "virtual_clients.h"
#include "zone_bus.h"
#include "zone_store.h"
#include "zones.h"
#include "zone_wire.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/core/context.h"
#include "stats.h"

namespace warpmind::server {

using Clock = std::chrono::steady_clock;

// Set by SIGINT and SIGTERM, and by a tick that cannot go on: the server stops.
extern std::atomic<bool> g_stop;

// The flags (server_main.cpp declares them), grouped by the part of the server that reads them.
struct Flags {
  // Where it listens: --sockets UDP sockets on one port, each with a --socket-buffer; the metrics endpoint.
  struct Listen {
    std::string host = "127.0.0.1";
    int port = 7777, sockets = 1, socket_buffer = 8 << 20;
    int metrics_port = -1;  // -1: no metrics endpoint
  };
  // What a client may do and how long it may hold a slot (server_limits.cpp).
  struct Limits {
    int peer_rate = 100, address_rate = 2000, max_observers = 4;
    // A joined player whose client sent nothing with its token for idle_seconds (0: never) leaves; a
    // connection whose handshake is not done within half_open_ms is reset, and while peers are short one
    // address (IP) keeps at most max_half_open handshakes older than the grace (half of half_open_ms, at
    // most 1 s); likewise it keeps at most max_unjoined connections older than the grace that agreed
    // keys but neither joined nor observe (their oldest beyond are dropped).
    double idle_seconds = 10;
    int half_open_ms = 5000, max_half_open = 64, max_unjoined = 64;
    // What one IPv4 address may hold (0: no cap; 127.0.0.1, the server's own host, is held to none):
    // players (joined, Detached included, until their slot is free) and observers.
    int max_sessions_per_address = 64, max_observers_per_address = 2;
    // A player whose connection is lost without a Leave stays in the game, its slot Detached, for
    // resume_seconds (0: it leaves at once): a Hello with its token in that time takes it back.
    double resume_seconds = 10;
  };
  struct Keys {
    // The server's key pair (docs/protocol.md, "Sealed packets"): from the 32-byte seed of this file (64
    // hexadecimal digits on its first line), so that its public key is known in advance and clients can
    // check it; without one, a fresh pair at every start.
    std::string file;
    // The ciphers it agrees (docs/protocol.md, "Sealed packets"): "auto", AES-256-GCM with a client that
    // offers it where this processor has AES-NI, else ChaCha20-Poly1305; "chacha20-poly1305": always that.
    std::string cipher = "auto";
    // Observers (docs/protocol.md): with a key file, an Observe must carry its key (first line, 16 to 256
    // bytes); without one, observers are admitted from loopback addresses (127.0.0.0/8) only.
    std::string observer_file;
  };
  // The NATS server the zones of one cluster meet on, on subjects under `prefix` (zone_bus.h).
  struct Nats {
    std::string url = "nats://127.0.0.1:4222", prefix = "warpmind";
    std::string cluster_key_file, credentials_file;      // the bus's key and NATS credentials
    std::string ca_file, cert_file, key_file, tls_name;  // TLS to the NATS server
    double zone_timeout = 5;
  };
  // A zone's state kept in NATS JetStream every tick (`on`), and taken back at start (`restore`): a zone
  // that crashed comes back where it was (docs/server.md, "A zone crash"). For tests: exit as if killed
  // in tick crash_at_tick (0: never), once its message is out ("message") or once its relays are out,
  // before its state is stored ("relays").
  struct Store {
    bool on = false, restore = false;
    std::uint64_t crash_at_tick = 0;
    std::string crash_point = "message";
  };
  // --virtual-clients: `count` in-process clients, no sockets, for `ticks` ticks.
  struct VirtualClients {
    std::uint32_t count = 0;
    int ticks = 50;
    double attack_share = 0.1;
  };

  std::string shape = "square", variant = "auto";
  int tick_hz = 20, max_clients = 1024;
  float map = 1000, aoi = 20, max_move = 0, attack_range = 0;
  double seconds = 0;
  int damage = 1;
  std::uint64_t seed = 1;
  demos::ContextFlags context;
  bool json = false;
  // Zones (docs/server.md): the map cut into zone_rows rows of zones / zone_rows columns (one row: strips
  // along x); zone K is row K / columns, column K % columns (ZoneRect).
  int zone = 0, zones = 1, zone_rows = 1;
  Listen listen;
  Limits limits;
  Keys keys;
  Nats nats;
  Store store;
  VirtualClients virtual_clients;
};

// A zone's area of the map: [x0, x1) x [y0, y1), bounds map * k / n in float (the same in every zone);
// the outer sides are open-ended, so that every position on the map, rounding past its edge included, is
// exactly one zone's (the parking strip beyond x = map is no zone's: Server::in_game).
struct ZoneRect {
  float x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  bool last_column = true, last_row = true;
  bool first_column = true, first_row = true;
  static ZoneRect of(int zone, int zones, int rows, float map) {
    const int columns = zones / rows, col = zone % columns, row = zone / columns;
    const auto cut = [map](int k, int n) { return k == n ? map : map * static_cast<float>(k) / static_cast<float>(n); };
    ZoneRect r;
    r.x0 = cut(col, columns), r.x1 = cut(col + 1, columns);
    r.y0 = cut(row, rows), r.y1 = cut(row + 1, rows);
    r.first_column = col == 0, r.last_column = col + 1 == columns;
    r.first_row = row == 0, r.last_row = row + 1 == rows;
    return r;
  }
  // Whether (x, y) is in the area (a player there is this zone's).
  bool holds(float x, float y) const {
    return (first_column || x >= x0) && (last_column || x < x1) && (first_row || y >= y0) && (last_row || y < y1);
  }
  // Whether (x, y), in the area, is within d of a border with another zone.
  bool near_border(float x, float y, float d) const {
    return (!first_column && x < x0 + d) || (!last_column && x >= x1 - d) || (!first_row && y < y0 + d) ||
           (!last_row && y >= y1 - d);
  }
};

struct Server {
  Flags f;
  // The UDP sockets clients connect to, sending to a connection, servicing ENet (sockets.h).
  Sockets sockets;
  std::unique_ptr<Context> ctx;
  std::unique_ptr<aoi::AoiWorld> world;
  aoi::AoiConfig cfg;
  std::vector<aoi::Player> parking;
  // The next tick to run. Ticks count from 1, so that 0 can mean "none" (an acknowledgement of
  // nothing) and "a snapshot" (State.since) without colliding with a real tick.
  std::uint64_t tick = 1;
  float max_move = 0;
  // Player ids: zone * cap + slot, so every zone of a cluster names a player the same way.
  std::uint32_t cap = 0, total = 0;
  ZoneRect area;    // this zone's area of the map (one server: all of it)
  float reach = 0;  // how far beyond its area a zone mirrors players (5 AOI: see docs/server.md)
  Clients clients;  // by player: what its client holds, its acknowledgement, its last command applied (clients.h)
  TickTimes times;  // the tick's stage times and counts (tick_times.h)

  std::uint32_t id_of(int slot) const {
    return static_cast<std::uint32_t>(f.zone) * cap + static_cast<std::uint32_t>(slot);
  }
  // Whether a position is on the map (players not in the game wait in the parking strip beyond it).
  bool in_game(const aoi::Player& p) const { return p.x <= f.map; }
  // Whether a player there is this zone's: it computes the player's tick and sends its State.
  bool in_zone(const aoi::Player& p) const { return in_game(p) && area.holds(p.x, p.y); }
  // Whether this zone mirrors a player there (its own area and `reach` around it, on the map).
  bool in_reach(float x, float y) const {
    return x <= f.map && x >= area.x0 - reach && x < area.x1 + reach && y >= area.y0 - reach && y < area.y1 + reach;
  }

  // Setting up and closing down (server_setup.cpp): empty string or the reason it cannot run.
  std::string open_world();
  std::string open_network();
  void close_network();

  // Sessions (sessions.h): the slots, the observers, the server's keys, and what clients say.
  Sessions sessions{*this};
  // The network serviced until `until`, and past it until what has arrived is handled (server_tick.cpp);
  // one pass of it, waiting at most wait_ms (false when nothing happened).
  void service(Clock::time_point until);
  bool pump(int wait_ms);

  // Limits (connection_limits.h): datagrams by address, and connections that are silent or slow.
  Limits limits{*this};

  // The tick (server_tick.cpp): commands in, the AOI module's tick, notifications out.
  std::vector<std::size_t> part_start, part_written;
  void run_tick(std::vector<aoi::Command>& cmds, aoi::TickResult& r);
  int resolve_one(const net::RawCommand& c, std::span<const aoi::Player> pos, aoi::Command* k);
  void local_commands(std::vector<aoi::Command>& cmds);

  // States, Events and Snapshots (outbox.h), the States delta-encoded with their catch-up.
  Outbox outbox{*this};

  // Zones (zones.h, docs/server.md "Zones"): the bus (zone_bus.h) and the zone's part in its cluster.
  net::ZoneBus bus;
  Zones zones{*this};

  // The zone's store (zone_store.h, --zone-store): its state after every tick, and the state and tick
  // messages it comes back from after a crash (--restore).
  ZoneStore store{*this};

  // Metrics (server_metrics.cpp): the page of the Prometheus endpoint (metrics_endpoint.h) and the
  // summary printed on stop.
  MetricsEndpoint metrics;
  std::string metrics_text();
  void print_summary(double seconds, std::uint32_t connected) const;

  // Virtual clients (virtual_clients.h, --virtual-clients): while they run, the sink of the tick's
  // notifications instead of the outbox.
  std::unique_ptr<VirtualRun> virtual_run;
};

using demos::percentile;  // stats.h

// --virtual-clients N: runs the clients and the ticks, prints the times; the exit status.
int run_virtual(Server& sv);

}  // namespace warpmind::server
