// warpmind-server: the AOI module's tick loop for real clients over UDP (ENet), speaking the protocol
// of protocol.fbs (docs/protocol.md, docs/server.md). This file holds the flags and the loop that
// services the network between ticks (setting up and closing down: server_setup.cpp); server.h says
// where the rest is.
#include <sys/socket.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cctype>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "server.h"

namespace {

using namespace warpmind;
using namespace warpmind::server;

extern "C" void on_signal(int) { g_stop.store(true); }

constexpr demos::Refusal bad{"warpmind-server"};

int run(Server& sv) {
  const Flags& f = sv.f;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  if (const std::string err = sv.open_world(); !err.empty()) return bad(err);
  if (f.virtual_clients.count > 0) return run_virtual(sv);
  // A server that cannot start lets go of what it opened (sockets, ENet, the bus) before it says why.
  std::string err = sv.open_network();
  if (err.empty()) err = sv.store.open();
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
  Clock::time_point last_sweep = start, last_trim = start;
  while (!g_stop.load()) {
    sv.service(std::min(next, stop_at));
    if (g_stop.load() || Clock::now() >= stop_at) break;
    sv.run_tick(cmds, result);
    next += period;
    if (Clock::now() > next + period) {  // more than a tick behind: skip ahead rather than burst
      sv.times.add_late();
      next = Clock::now() + period;
    }
    if (Clock::now() - last_sweep > std::chrono::milliseconds(50)) {
      sv.limits.sweep();
      last_sweep = Clock::now();
    }
#if defined(__GLIBC__)
    // Once a minute, between ticks, the heap's free pages go back to the system: glibc keeps what was
    // freed in its arenas (one per thread that allocated), so without this the resident memory follows
    // the peaks of joins, churn and messages rather than what the server holds.
    if (Clock::now() - last_trim > std::chrono::seconds(60)) {
      malloc_trim(0);
      last_trim = Clock::now();
    }
#endif
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const std::uint32_t connected = sv.sessions.connected_count();
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

// The flags of one server: where it listens, the game, its limits and keys, --virtual-clients.
void add_server_flags(CLI::App& app, Flags& f) {
  demos::add_text(app, "--host", f.listen.host, "IP", "IPv4 address to listen on");
  demos::add_integer(app, "--port", f.listen.port, 0, 65535, "N", "UDP port; 0: any free one (printed on stderr)");
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
  demos::add_integer(app, "--sockets", f.listen.sockets, 1, 8, "K",
                     "UDP sockets on the one port (SO_REUSEPORT), each up to 4,095 connections: more than 4,000 "
                     "players need several");
  demos::add_integer(app, "--socket-buffer", f.listen.socket_buffer, 65536, 1 << 30, "BYTES",
                     "the UDP socket's receive and send buffers (beyond the system's cap when running with "
                     "CAP_NET_ADMIN; the summary's socket_buffer says what was set)");
  demos::add_integer(app, "--max-observers", f.limits.max_observers, 0, 64, "N",
                     "observer connections at once (warpmind-demo --connect): a Snapshot of every player a tick each");
  demos::add_integer(app, "--max-sessions-per-address", f.limits.max_sessions_per_address, 0, 1000000, "N",
                     "players one IPv4 address may hold (Detached ones included); a Hello beyond is refused "
                     "(ServerFull). 0: no cap. Servers whose players share addresses (NAT) raise it; 127.0.0.1 is "
                     "not held to it");
  demos::add_integer(app, "--max-observers-per-address", f.limits.max_observers_per_address, 0, 64, "N",
                     "observers one IPv4 address may have (an Observe beyond is refused: ServerFull); 0: no cap; "
                     "127.0.0.1 is not held to it");
  demos::add_text(app, "--key-file", f.keys.file, "FILE",
                  "the server's key pair from the 32-byte seed in FILE (64 hexadecimal digits on its first line), so "
                  "that clients can check its public key (printed at start; warpmind-bots --server-key)",
                  {}, "a fresh pair at every start");
  demos::add_choice(app, "--cipher", f.keys.cipher, {"auto", "chacha20-poly1305"},
                    "the AEAD sealing packets: auto, AES-256-GCM with clients that offer it where this processor has "
                    "AES-NI, else ChaCha20-Poly1305; chacha20-poly1305: always that");
  demos::add_text(app, "--observer-key-file", f.keys.observer_file, "FILE",
                  "observers must present the key on the file's first line (16 to 256 bytes); without it, "
                  "observers are admitted from loopback addresses only");
  demos::add_number(app, "--idle-seconds", f.limits.idle_seconds, 0.0, 86400.0, "S",
                    "a joined player whose client sends nothing with its token for S seconds leaves (its slot "
                    "is freed); 0: never");
  demos::add_number(app, "--resume-seconds", f.limits.resume_seconds, 0.0, 86400.0, "S",
                    "a player whose connection is lost without a Leave stays in the game for S seconds, for its "
                    "client to take back with a Hello carrying its token; 0: it leaves at once");
  demos::add_integer(app, "--half-open-ms", f.limits.half_open_ms, 100, 60000, "MS",
                     "a connection whose handshake is not done after MS milliseconds is reset");
  demos::add_integer(app, "--max-half-open", f.limits.max_half_open, 1, 65535, "N",
                     "while fewer than a quarter of the peers are free: connections one IP address may have in "
                     "their handshake for more than half of --half-open-ms, at most 1 s (the oldest beyond are reset)");
  demos::add_integer(app, "--max-unjoined", f.limits.max_unjoined, 1, 65535, "N",
                     "while fewer than a quarter of the peers are free: connections one IP address (not 127.0.0.1) "
                     "may hold for more than that grace without joining or observing (the oldest beyond are dropped)");
  demos::add_number(app, "--seconds", f.seconds, 0.0, 1e7, "S", "stop after S seconds; 0: when signalled");
  demos::add_integer(app, "--peer-rate", f.limits.peer_rate, 1, 1000000, "N",
                     "messages a second one connection may send");
  demos::add_integer(app, "--address-rate", f.limits.address_rate, 1, 10000000, "N",
                     "datagrams a second one address (IP and port) may send");
  demos::add_integer(app, "--metrics-port", f.listen.metrics_port, -1, 65535, "N",
                     "serve metrics (Prometheus text format) over HTTP on this TCP port; 0: any free one (printed on "
                     "stderr); -1: none");
  demos::add_integer(app, "--seed", f.seed, 0, INT64_MAX, "N", "spawn positions (session tokens are random)");
  demos::add_integer(app, "--virtual-clients", f.virtual_clients.count, 0, 1 << 24, "N",
                     "no network: N clients in this process, every one sending a command a tick, for --ticks ticks "
                     "as fast as they run; prints the times (JSON) and exits (docs/server.md)");
  demos::add_integer(app, "--ticks", f.virtual_clients.ticks, 1, 100000, "T", "ticks of a --virtual-clients run");
  demos::add_number(app, "--attack-share", f.virtual_clients.attack_share, 0.0, 1.0, "F",
                    "--virtual-clients: share of commands that attack a player the client's last State named");
}

// The flags of a zone of a cluster (its bus and store), the context and the output.
void add_cluster_flags(CLI::App& app, Flags& f) {
  demos::add_integer(app, "--zones", f.zones, 1, 64, "N",
                     "zones of a cluster: the map cut into N zones (--zone-rows rows of N / rows columns; one row: "
                     "strips along x), one server each, meeting over NATS");
  demos::add_integer(app, "--zone-rows", f.zone_rows, 1, 64, "R",
                     "rows of the zones' grid (it must divide --zones): zone K is row K / columns, column K % columns");
  demos::add_integer(app, "--zone", f.zone, 0, 63, "K",
                     "this server's zone: column c = K % columns, row r = K / columns, the area "
                     "[map*c/columns, map*(c+1)/columns) x [map*r/rows, map*(r+1)/rows)");
  demos::add_text(app, "--nats", f.nats.url, "URL", "the cluster's NATS server");
  demos::add_text(app, "--nats-prefix", f.nats.prefix, "S", "the cluster's NATS subjects: S.tick and S.relay.K");
  demos::add_integer(app, "--device", f.context.device, 0, 63, "K",
                     "the CUDA device (ordinal) this server's AOI module runs on: zones of one host on different GPUs");
  demos::add_text(app, "--cluster-key-file", f.nats.cluster_key_file, "FILE",
                  "the cluster key (64 hexadecimal digits on the first line) every zone signs its bus messages "
                  "with and checks the others' by; needed with --zones above 1");
  demos::add_text(app, "--nats-credentials-file", f.nats.credentials_file, "FILE",
                  "USER:PASSWORD on the first line: the NATS server's credentials for the cluster");
  demos::add_text(app, "--nats-ca-file", f.nats.ca_file, "FILE",
                  "TLS to the NATS server: its certificate must be signed by this CA (PEM; the chain is checked, and "
                  "the name with --nats-tls-name)",
                  {}, "none: plain TCP");
  demos::add_text(app, "--nats-cert-file", f.nats.cert_file, "FILE",
                  "with --nats-ca-file: this zone's client certificate (PEM), for a NATS server that requires one", {},
                  "none");
  demos::add_text(app, "--nats-tls-name", f.nats.tls_name, "NAME",
                  "with --nats-ca-file: a DNS name the NATS server's certificate must carry (subjectAltName)", {},
                  "none: the chain only");
  demos::add_text(app, "--nats-key-file", f.nats.key_file, "FILE", "the private key of --nats-cert-file (PEM)", {},
                  "none");
  demos::add_number(app, "--zone-timeout", f.nats.zone_timeout, 0.01, 3600, "S",
                    "how long a zone waits for the others' tick messages before it ticks without them");
  demos::add_flag(app, "--zone-store", f.store.on,
                  "keep this zone's state in NATS JetStream after every tick (nats-server -js), before the tick's "
                  "messages go out");
  demos::add_flag(app, "--restore", f.store.restore,
                  "with --zone-store: start from this zone's stored state (after a crash); its clients resume with "
                  "their tokens");
  demos::add_integer(app, "--crash-at-tick", f.store.crash_at_tick, 0, INT64_MAX, "T",
                     "for tests: exit at once (status 137, as if killed) right after sending this zone's message for "
                     "tick T, before running it; 0: never");
  demos::add_choice(app, "--crash-point", f.store.crash_point, {"message", "relays"},
                    "for tests, with --crash-at-tick: right after the tick's message is sent (message), or after the "
                    "tick has run and its relays are sent, before its state is stored (relays)");
  demos::add_context_flags(app, f.context);
  demos::add_text(app, "--variant", f.variant, "V", "auto, cpu-grid, cpu-fast, gpu-sorted, gpu-fast",
                  [](const std::string& s) {
                    aoi::AoiVariant v;
                    return aoi::parse_variant(s, v) ? std::string() : "unknown variant '" + s + "'";
                  });
  demos::add_flag(app, "--json", f.json, "on stop, one JSON summary object on stdout");
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
  add_server_flags(app, f);
  add_cluster_flags(app, f);
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
