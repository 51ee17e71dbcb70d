// warpmind-server's setting up and closing down: the AOI world of its zone, the bus, the keys, the UDP
// sockets and the metrics endpoint (docs/server.md). The program's flags and its loop are in
// server_main.cpp; a fuzz target drives the same Server without them (tests/fuzz/fuzz_server.cpp).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "server.h"

namespace warpmind::server {

std::atomic<bool> g_stop{false};

// The AOI world of this zone: its strip of the map and the parking strip beyond it; empty string or
// the reason it cannot run.
std::string Server::open_world() {
  max_move = f.max_move > 0 ? f.max_move : f.aoi;
  if (f.virtual_clients.count > 0 && f.zones > 1) return "--virtual-clients: one zone only";
  cap = f.virtual_clients.count > 0 ? f.virtual_clients.count : static_cast<std::uint32_t>(f.max_clients);
  total = cap * static_cast<std::uint32_t>(f.zones);
  if (f.zone >= f.zones) return "--zone: must be below --zones";
  if (f.zones % f.zone_rows != 0) return "--zone-rows: must divide --zones (the zones are rows x columns)";
  if (f.virtual_clients.count == 0 && f.max_clients > 4000 * f.listen.sockets)
    return "--max-clients: at most 4,000 a socket (ENet's 4,095 connections, with room for handshakes): --sockets " +
           std::to_string((f.max_clients + 3999) / 4000) + " or more";
  if (f.zones > 1) {
    // A zone mirrors the players within 5 AOI of its area: what its clients can see after a tick
    // (2 AOI, a square AOI's reach), from where a player can come in one tick (max move <= AOI) and
    // attacked from where (attack range <= AOI) — see docs/server.md.
    if (max_move > f.aoi) return "--max-move: a zone of a cluster needs it at most --aoi";
    if (f.attack_range > f.aoi) return "--attack-range: a zone of a cluster needs it at most --aoi";
    reach = 5 * f.aoi;
    if (f.map / static_cast<float>(f.zones / f.zone_rows) < reach || f.map / static_cast<float>(f.zone_rows) < reach)
      return "--zones: each zone (--map / columns wide, --map / --zone-rows high) must be at least 5 AOI across";
  }
  area = ZoneRect::of(f.zone, f.zones, f.zone_rows, f.map);
  clients.open(total);
  // The AOI world: the map, and beyond it a parking strip where the players not in the game wait, each
  // two buckets away from anything else (so parked players see only themselves and cost nothing).
  const int per_column = std::max(1, static_cast<int>(f.map / (2 * f.aoi)));
  const int columns = (static_cast<int>(total) + per_column - 1) / per_column;
  const float first_column = std::ceil(f.map / f.aoi) + 2;
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
    return "--map / --aoi: too many AOI buckets (at most 10^8 with the parking strip)";
  sessions.open(cap, f.seed);
  for (int i = 0; i < static_cast<int>(total); ++i)
    parking.push_back(
        {(first_column + 2.0f * (i / per_column) + 0.5f) * f.aoi, (2.0f * (i % per_column) + 0.5f) * f.aoi, 100});
  if (std::string err = demos::open_context(f.context, true, ctx); !err.empty()) return err;
  if (Status st = aoi::AoiWorld::create(*ctx, cfg, world); !st.ok()) return st.message();
  if (Status st = world->reset(parking); !st.ok()) return st.message();
  return {};
}

namespace {

// The first line of a file, trailing white space off; false when it cannot be read.
bool first_line(const std::string& path, std::string& line) {
  std::ifstream in(path);
  if (!in || !std::getline(in, line)) return false;
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return true;
}

// A 32-byte key (the cluster key, the server's key seed): 64 hexadecimal digits on the file's first
// line; empty string or what is wrong (`flag` names the option in the message).
std::string read_key32(const std::string& flag, const std::string& path, net::Key32& key) {
  std::string hex;
  if (!first_line(path, hex)) return flag + ": cannot read " + path;
  if (!net::parse_hex32(hex, key))
    return flag + ": " + path + " must hold 64 hexadecimal digits (32 bytes) on its first line";
  return {};
}

// NATS credentials: "USER:PASSWORD" on the file's first line; empty string or what is wrong.
std::string read_credentials(const std::string& path, std::string& user, std::string& password) {
  std::string line;
  if (!first_line(path, line)) return "--nats-credentials-file: cannot read " + path;
  const std::size_t colon = line.find(':');
  if (colon == 0 || colon == std::string::npos || colon + 1 == line.size())
    return "--nats-credentials-file: " + path + " must hold USER:PASSWORD on its first line";
  user = line.substr(0, colon);
  password = line.substr(colon + 1);
  return {};
}

}  // namespace

// A cluster's bus, the observer key, then the UDP host (and the metrics endpoint); empty string or the
// reason it cannot listen. A cluster's zones need the cluster key (every bus message is signed with it); NATS credentials
// are used when given.
std::string Server::open_network() {
  if (f.zones > 1) {
    net::ZoneBus::Key key{};
    std::string user, password;
    if (f.nats.cluster_key_file.empty()) return "--cluster-key-file: a zone of a cluster needs the cluster key";
    if (std::string err = read_key32("--cluster-key-file", f.nats.cluster_key_file, key); !err.empty()) return err;
    if (!f.nats.credentials_file.empty())
      if (std::string err = read_credentials(f.nats.credentials_file, user, password); !err.empty()) return err;
    if (f.nats.cert_file.empty() != f.nats.key_file.empty())
      return "--nats-cert-file and --nats-key-file: give both or neither";
    if (!f.nats.cert_file.empty() && f.nats.ca_file.empty())
      return "--nats-cert-file: a client certificate needs TLS (--nats-ca-file)";
    if (!f.nats.tls_name.empty() && f.nats.ca_file.empty())
      return "--nats-tls-name: a name to check needs TLS (--nats-ca-file)";
    const std::string err = bus.connect(f.nats.url, f.nats.prefix, f.zone, key, user, password,
                                        {f.nats.ca_file, f.nats.cert_file, f.nats.key_file, f.nats.tls_name});
    std::fill(password.begin(), password.end(), '\0');
    key.fill(0);
    if (!err.empty()) return "--nats " + f.nats.url + ": " + err;
    zones.open(f.zones);
  }
  std::string observer_key;
  if (!f.keys.observer_file.empty()) {
    if (!first_line(f.keys.observer_file, observer_key))
      return "--observer-key-file: cannot read " + f.keys.observer_file;
    if (observer_key.size() < 16 || observer_key.size() > 256)
      return "--observer-key-file: " + f.keys.observer_file + " must hold a key of 16 to 256 bytes on its first line";
  }
  net::Key32 seed{};
  if (!f.keys.file.empty())
    if (std::string err = read_key32("--key-file", f.keys.file, seed); !err.empty()) return err;
  const bool made = sessions.open_keys(f.keys.file.empty() ? nullptr : &seed, std::move(observer_key));
  sodium_memzero(seed.data(), seed.size());
  if (!made) return "cannot make the server's key pair (libsodium)";
  enet_uint16 port = 0;
  if (std::string err =
          sockets.open(f.listen.host, f.listen.port, f.listen.sockets, f.listen.socket_buffer, f.max_clients, port);
      !err.empty())
    return err;
  limits.install();
  if (f.listen.metrics_port >= 0) {
    if (std::string err = metrics.open(f.listen.host, f.listen.metrics_port, [this] { return metrics_text(); });
        !err.empty())
      return err;
  }
  std::fprintf(stderr, "warpmind-server: listening on %s:%u, %d Hz, map %g, AOI %g (%s), variant %s, zone %d of %d\n",
               f.listen.host.c_str(), port, f.tick_hz, f.map, f.aoi, aoi::shape_name(cfg.shape),
               aoi::variant_name(world->variant()), f.zone, f.zones);
  std::fprintf(stderr, "warpmind-server: public key %s (%s)\n", net::hex32(sessions.identity().pk.data()).c_str(),
               f.keys.file.empty() ? "made at start" : "from --key-file");
  std::fflush(stderr);
  return {};
}

// Every connection dropped, the sockets, ENet, the bus and the metrics endpoint closed.
void Server::close_network() {
  sockets.close();
  bus.close();
  metrics.close();
}

}  // namespace warpmind::server
