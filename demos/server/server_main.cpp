// warpmind-server: the AOI module's tick loop for real clients over UDP (ENet), speaking the protocol
// of protocol.fbs (docs/protocol.md, docs/server.md). This file holds the flags, the setting up and
// closing down, and the loop that services the network between ticks; server.h says where the rest is.
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "server.h"

namespace warpmind::server {

std::atomic<bool> g_stop{false};

// The AOI world of this zone: its strip of the map and the parking strip beyond it; empty string or
// the reason it cannot run.
std::string Server::open_world() {
  max_move = f.max_move > 0 ? f.max_move : f.aoi;
  rng.seed(f.seed);
  virtual_clients = f.virtual_clients;
  if (f.virtual_clients > 0 && f.zones > 1) return "--virtual-clients: one zone only";
  cap = f.virtual_clients > 0 ? f.virtual_clients : static_cast<std::uint32_t>(f.max_clients);
  total = cap * static_cast<std::uint32_t>(f.zones);
  if (f.zone >= f.zones) return "--zone: must be below --zones";
  if (f.zones % f.zone_rows != 0) return "--zone-rows: must divide --zones (the zones are rows x columns)";
  if (f.virtual_clients == 0 && f.max_clients > 4000 * f.sockets)
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
  last_applied.assign(total, 0);
  views.resize(total);
  client_ack.assign(total, 0);
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
  slots.resize(cap);
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
    if (f.cluster_key_file.empty()) return "--cluster-key-file: a zone of a cluster needs the cluster key";
    if (std::string err = read_key32("--cluster-key-file", f.cluster_key_file, key); !err.empty()) return err;
    if (!f.nats_credentials_file.empty())
      if (std::string err = read_credentials(f.nats_credentials_file, user, password); !err.empty()) return err;
    if (f.nats_cert_file.empty() != f.nats_key_file.empty())
      return "--nats-cert-file and --nats-key-file: give both or neither";
    if (!f.nats_cert_file.empty() && f.nats_ca_file.empty())
      return "--nats-cert-file: a client certificate needs TLS (--nats-ca-file)";
    if (!f.nats_tls_name.empty() && f.nats_ca_file.empty())
      return "--nats-tls-name: a name to check needs TLS (--nats-ca-file)";
    const std::string err = bus.connect(f.nats, f.nats_prefix, f.zone, key, user, password,
                                        {f.nats_ca_file, f.nats_cert_file, f.nats_key_file, f.nats_tls_name});
    std::fill(password.begin(), password.end(), '\0');
    key.fill(0);
    if (!err.empty()) return "--nats " + f.nats + ": " + err;
    relay_out.resize(f.zones);
  }
  if (!f.observer_key_file.empty()) {
    if (!first_line(f.observer_key_file, observer_key))
      return "--observer-key-file: cannot read " + f.observer_key_file;
    if (observer_key.size() < 16 || observer_key.size() > 256)
      return "--observer-key-file: " + f.observer_key_file + " must hold a key of 16 to 256 bytes on its first line";
  }
  if (!f.key_file.empty()) {
    net::Key32 seed{};
    if (std::string err = read_key32("--key-file", f.key_file, seed); !err.empty()) return err;
    const bool made = identity.from_seed(seed);
    sodium_memzero(seed.data(), seed.size());
    if (!made) return "cannot make the server's key pair (libsodium)";
  } else if (!identity.make()) {
    return "cannot make the server's key pair (libsodium)";
  }
  if (enet_initialize() != 0) return "cannot initialise ENet";
  ENetAddress address;
  if (enet_address_set_host_ip(&address, f.host.c_str()) != 0) return "--host: not an IPv4 address: " + f.host;
  address.port = static_cast<enet_uint16>(f.port);
  // One socket (an ENet host of up to 4,095 connections), or --sockets of them on one port: each made
  // unbound, marked SO_REUSEPORT and bound, the first to --port (0: any), the others to the port it got;
  // the kernel then hands each client's datagrams to one of them, always the same one.
  const std::size_t peers = std::min<std::size_t>(static_cast<std::size_t>(f.max_clients) + 64, 4095);
  ENetAddress bound{};
  for (int k = 0; k < f.sockets; ++k) {
    ENetHost* h = enet_host_create(f.sockets == 1 ? &address : nullptr, peers, net::kChannels, 0, 0);
    if (h == nullptr) return "cannot listen on " + f.host + ":" + std::to_string(address.port);
    hosts.push_back(h);
    if (f.sockets > 1) {
      const int on = 1;
      if (setsockopt(h->socket, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0 ||
          enet_socket_bind(h->socket, &address) != 0)
        return "cannot listen on " + f.host + ":" + std::to_string(address.port) + " (socket " + std::to_string(k) +
               " of --sockets " + std::to_string(f.sockets) + ")";
      h->address = address;
    }
    // The largest packet sent or received (ENet applies it both ways): a State of up to ~32,000
    // notifications, a Snapshot of 4,000 players. A client's messages are far smaller (kMaxClientPacket).
    h->maximumPacketSize = 256 * 1024;
    // A tick's commands arrive in a burst (clients send on their own tick): a socket buffer that holds
    // them all, past the system's default cap where allowed (SO_RCVBUFFORCE needs CAP_NET_ADMIN).
    for (const int opt : {SO_RCVBUF, SO_SNDBUF}) {
      const int want = f.socket_buffer, force = opt == SO_RCVBUF ? SO_RCVBUFFORCE : SO_SNDBUFFORCE;
      if (setsockopt(h->socket, SOL_SOCKET, force, &want, sizeof want) != 0)
        setsockopt(h->socket, SOL_SOCKET, opt, &want, sizeof want);
    }
    h->maximumWaitingData = 64 * 1024;  // per peer, packets received and not yet handed out
    if (k == 0) {
      enet_socket_get_address(h->socket, &bound);
      address.port = bound.port;
    }
  }
  connects_by_socket.assign(hosts.size(), 0);
  int rcvbuf = 0;
  socklen_t rcvlen = sizeof rcvbuf;
  getsockopt(hosts[0]->socket, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &rcvlen);
  socket_buffer = rcvbuf;
  limit_addresses();
  if (f.metrics_port >= 0) {
    if (std::string err = open_metrics(); !err.empty()) return err;
  }
  std::fprintf(stderr, "warpmind-server: listening on %s:%u, %d Hz, map %g, AOI %g (%s), variant %s, zone %d of %d\n",
               f.host.c_str(), bound.port, f.tick_hz, f.map, f.aoi, aoi::shape_name(cfg.shape),
               aoi::variant_name(world->variant()), f.zone, f.zones);
  std::fprintf(stderr, "warpmind-server: public key %s (%s)\n", net::hex32(identity.pk.data()).c_str(),
               f.key_file.empty() ? "made at start" : "from --key-file");
  std::fflush(stderr);
  return {};
}

// Every connection dropped, the sockets, ENet, the bus and the metrics endpoint closed.
void Server::close_network() {
  for_each_peer([](std::size_t, std::size_t, ENetPeer* p) {
    if (p->data) {
      delete static_cast<Conn*>(p->data);
      p->data = nullptr;
    }
    if (p->state == ENET_PEER_STATE_CONNECTED) enet_peer_disconnect_now(p, 0);
  });
  flush_all();
  for (ENetHost* h : hosts) enet_host_destroy(h);
  hosts.clear();
  enet_deinitialize();
  bus.close();
  stop_metrics();
  if (metrics_fd >= 0) close(metrics_fd);
}

}  // namespace warpmind::server

namespace {

using namespace warpmind;
using namespace warpmind::server;

extern "C" void on_signal(int) { g_stop.store(true); }

int bad(const std::string& why) {
  std::fprintf(stderr, "warpmind-server: %s\n", why.c_str());
  return 2;
}

int run(Server& sv) {
  const Flags& f = sv.f;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  if (const std::string err = sv.open_world(); !err.empty()) return bad(err);
  if (f.virtual_clients > 0) return run_virtual(sv);
  // A server that cannot start lets go of what it opened (sockets, ENet, the bus) before it says why.
  std::string err = sv.open_network();
  if (err.empty()) err = sv.open_store();
  if (!err.empty()) {
    sv.close_network();
    return bad(err);
  }

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
    if (Clock::now() - last_sweep > std::chrono::milliseconds(50)) {
      sv.sweep_peers();
      last_sweep = Clock::now();
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const std::uint32_t connected = sv.connected_count();
  sv.close_network();
  sv.print_summary(seconds, connected);
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
  demos::add_integer(app, "--max-clients", f.max_clients, 1, 32000, "N",
                     "players at once (at most 4,000 a socket: see --sockets)");
  demos::add_integer(app, "--sockets", f.sockets, 1, 8, "K",
                     "UDP sockets on the one port (SO_REUSEPORT), each up to 4,095 connections: more than 4,000 "
                     "players need several");
  demos::add_integer(app, "--socket-buffer", f.socket_buffer, 65536, 1 << 30, "BYTES",
                     "the UDP socket's receive and send buffers (beyond the system's cap when running with "
                     "CAP_NET_ADMIN; the summary's socket_buffer says what was set)");
  demos::add_integer(app, "--max-observers", f.max_observers, 0, 64, "N",
                     "observer connections at once (warpmind-demo --connect): a Snapshot of every player a tick each");
  demos::add_text(app, "--key-file", f.key_file, "FILE",
                  "the server's key pair from the 32-byte seed in FILE (64 hexadecimal digits on its first line), so "
                  "that clients can check its public key (printed at start; warpmind-bots --server-key)",
                  {}, "a fresh pair at every start");
  demos::add_choice(app, "--cipher", f.cipher, {"auto", "chacha20-poly1305"},
                    "the AEAD sealing packets: auto, AES-256-GCM with clients that offer it where this processor has "
                    "AES-NI, else ChaCha20-Poly1305; chacha20-poly1305: always that");
  demos::add_text(app, "--observer-key-file", f.observer_key_file, "FILE",
                  "observers must present the key on the file's first line (16 to 256 bytes); without it, "
                  "observers are admitted from loopback addresses only");
  demos::add_number(app, "--idle-seconds", f.idle_seconds, 0.0, 86400.0, "S",
                    "a joined player whose client sends nothing with its token for S seconds leaves (its slot "
                    "is freed); 0: never");
  demos::add_number(app, "--resume-seconds", f.resume_seconds, 0.0, 86400.0, "S",
                    "a player whose connection is lost without a Leave stays in the game for S seconds, for its "
                    "client to take back with a Hello carrying its token; 0: it leaves at once");
  demos::add_integer(app, "--half-open-ms", f.half_open_ms, 100, 60000, "MS",
                     "a connection whose handshake is not done after MS milliseconds is reset");
  demos::add_integer(app, "--max-half-open", f.max_half_open, 1, 65535, "N",
                     "while fewer than a quarter of the peers are free: connections one IP address may have in "
                     "their handshake for more than half of --half-open-ms, at most 1 s (the oldest beyond are reset)");
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
                     "zones of a cluster: the map cut into N zones (--zone-rows rows of N / rows columns; one row: "
                     "strips along x), one server each, meeting over NATS");
  demos::add_integer(app, "--zone-rows", f.zone_rows, 1, 64, "R",
                     "rows of the zones' grid (it must divide --zones): zone K is row K / columns, column K % columns");
  demos::add_integer(app, "--zone", f.zone, 0, 63, "K",
                     "this server's zone: column c = K % columns, row r = K / columns, the area "
                     "[map*c/columns, map*(c+1)/columns) x [map*r/rows, map*(r+1)/rows)");
  demos::add_text(app, "--nats", f.nats, "URL", "the cluster's NATS server");
  demos::add_text(app, "--nats-prefix", f.nats_prefix, "S", "the cluster's NATS subjects: S.tick and S.relay.K");
  demos::add_integer(app, "--device", f.context.device, 0, 63, "K",
                     "the CUDA device (ordinal) this server's AOI module runs on: zones of one host on different GPUs");
  demos::add_text(app, "--cluster-key-file", f.cluster_key_file, "FILE",
                  "the cluster key (64 hexadecimal digits on the first line) every zone signs its bus messages "
                  "with and checks the others' by; needed with --zones above 1");
  demos::add_text(app, "--nats-credentials-file", f.nats_credentials_file, "FILE",
                  "USER:PASSWORD on the first line: the NATS server's credentials for the cluster");
  demos::add_text(app, "--nats-ca-file", f.nats_ca_file, "FILE",
                  "TLS to the NATS server: its certificate must be signed by this CA (PEM; the chain is checked, and "
                  "the name with --nats-tls-name)",
                  {}, "none: plain TCP");
  demos::add_text(app, "--nats-cert-file", f.nats_cert_file, "FILE",
                  "with --nats-ca-file: this zone's client certificate (PEM), for a NATS server that requires one", {},
                  "none");
  demos::add_text(app, "--nats-tls-name", f.nats_tls_name, "NAME",
                  "with --nats-ca-file: a DNS name the NATS server's certificate must carry (subjectAltName)", {},
                  "none: the chain only");
  demos::add_text(app, "--nats-key-file", f.nats_key_file, "FILE", "the private key of --nats-cert-file (PEM)", {},
                  "none");
  demos::add_number(app, "--zone-timeout", f.zone_timeout, 0.01, 3600, "S",
                    "how long a zone waits for the others' tick messages before it ticks without them");
  demos::add_flag(app, "--zone-store", f.zone_store,
                  "keep this zone's state in NATS JetStream after every tick (nats-server -js), before the tick's "
                  "messages go out");
  demos::add_flag(app, "--restore", f.restore,
                  "with --zone-store: start from this zone's stored state (after a crash); its clients resume with "
                  "their tokens");
  demos::add_integer(app, "--crash-at-tick", f.crash_at_tick, 0, INT64_MAX, "T",
                     "for tests: exit at once (status 137, as if killed) right after sending this zone's message for "
                     "tick T, before running it; 0: never");
  demos::add_choice(app, "--crash-point", f.crash_point, {"message", "relays"},
                    "for tests, with --crash-at-tick: right after the tick's message is sent (message), or after the "
                    "tick has run and its relays are sent, before its state is stored (relays)");
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
