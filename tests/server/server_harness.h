// The server tests' harness: warpmind-server and warpmind-bots as child processes on 127.0.0.1, a
// scrape of the metrics endpoint, and an ENet client written against the protocol directly.
#pragma once

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <enet/enet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/time.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "enet_send.h"
#include "gpu_helpers.h"
#include "protocol.h"
#include "session_keys.h"
#include "zone_wire.h"

extern char** environ;

namespace warpmind::server_test {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const std::size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

inline fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wm_server_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

// A warpmind-server child process on 127.0.0.1 and a port the kernel picks.
struct ServerProcess {
  pid_t pid = -1;
  int port = 0;
  fs::path out, err;

  explicit ServerProcess(const std::vector<std::string>& extra, const std::string& name = "server") {
    out = scratch(name + ".out");
    err = scratch(name + ".err");
    std::vector<std::string> args = {warpmind::test::bin_dir() + "/warpmind-server",
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     "0",
                                     "--json",
                                     "--backend",
                                     "cpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    // Wait (at most 20 s) for "listening on 127.0.0.1:PORT".
    for (const auto until = Clock::now() + std::chrono::seconds(20); pid > 0 && Clock::now() < until;) {
      const std::string e = slurp(err);
      const std::size_t at = e.find("listening on 127.0.0.1:");
      // The whole number: the line goes on with ", 20 Hz, ...".
      if (at != std::string::npos && e.find(',', at) != std::string::npos) {
        port = std::atoi(e.c_str() + at + 23);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~ServerProcess() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  bool alive() const { return pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0; }
  // SIGINT, then the exit status (-1: it did not stop within 10 s) and the JSON summary.
  int stop(json& summary) {
    if (pid <= 0) return -1;
    kill(pid, SIGINT);
    int status = 0;
    for (const auto until = Clock::now() + std::chrono::seconds(10); Clock::now() < until;) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        summary = json::parse(last_line(slurp(out)), nullptr, false);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
};

// Random datagrams from one raw UDP socket: truncated (0..3 bytes), random (up to 1400), and larger
// than any ENet datagram (8000 bytes); at most `count`, for at most `seconds`.
inline std::uint64_t flood(int port, int count, double seconds, std::atomic<bool>& stop) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return 0;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::mt19937 rng(1234);
  std::vector<std::uint8_t> buf(8000);
  std::uint64_t sent = 0;
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  for (int i = 0; i < count && Clock::now() < until && !stop.load(); ++i) {
    std::size_t n;
    switch (i % 4) {
      case 0:
        n = rng() % 4;
        break;
      case 1:
        n = 8000;
        break;
      default:
        n = 1 + rng() % 1400;
        break;
    }
    for (std::size_t k = 0; k < n; ++k) buf[k] = static_cast<std::uint8_t>(rng());
    if (i % 8 == 2 && n >= 4) buf[0] = buf[1] = 0;  // an ENet header naming peer 0
    if (sendto(fd, buf.data(), n, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) >= 0) ++sent;
    if (i % 64 == 63) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // ~30,000 a second
  }
  close(fd);
  return sent;
}

// Runs warpmind-bots to the end; its exit status and JSON summary (the last line).
inline int run_bots(int port, const std::string& args, json& summary, const std::string& name = "bots") {
  const fs::path out = scratch(name + ".out");
  const std::string cmd = warpmind::test::bin_dir() + "/warpmind-bots --server 127.0.0.1:" + std::to_string(port) +
                          " --json " + args + " > " + out.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  summary = json::parse(last_line(slurp(out)), nullptr, false);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

// The metrics port a server started with --metrics-port 0 printed (0: none).
inline int metrics_port(const ServerProcess& server) {
  const std::string err = slurp(server.err);
  const std::size_t at = err.find("metrics on http://127.0.0.1:");
  return at == std::string::npos ? 0 : std::atoi(err.c_str() + at + 28);
}

// One scrape of /metrics ("" when the endpoint cannot be reached).
inline std::string scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return {};
  timeval tv{3, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string page;
  const std::string req = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) == 0 &&
      write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) page.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  return page;
}

// ---- A client written against the protocol directly, doing what a client must not. It agrees its
// keys (Connect, Keys) once connected, unless told not to; from then on send() and send_raw() seal what
// they send, and `received` holds what arrived opened (before the keys: as it came). `wire_in` and
// `wire_out` are the packets as they crossed the network — what an on-path host sees.
struct Client {
  ENetHost* host = nullptr;
  ENetPeer* peer = nullptr;
  warpmind::net::KeyPair pair;
  warpmind::net::SessionKeys keys;
  std::vector<std::vector<std::uint8_t>> received, wire_in, wire_out;
  std::uint64_t unopened = 0;  // sealed packets that did not open
  bool connected = false, disconnected = false;
  std::uint32_t disconnect_data = 0;  // the disconnect's data (after a Leave: the Goodbye's tick)
  bool offer_aes = false;             // whether the Connect offers AES-256-GCM (set before agree())

  // Connects to 127.0.0.1:port from `local` (nullptr: any port). ENet draws a connection's id from the
  // host's address and the second it was made, so hosts made one after the other in one process can draw
  // the same: `seed` (not 0) makes this one's its own.
  explicit Client(int port, const ENetAddress* local = nullptr, std::uint32_t seed = 0, bool agree_keys = true) {
    host = enet_host_create(local, 1, warpmind::net::kChannels, 0, 0);
    if (host && seed) host->randomSeed ^= seed * 0x9e3779b9u;
    ENetAddress a;
    enet_address_set_host_ip(&a, "127.0.0.1");
    a.port = static_cast<enet_uint16>(port);
    if (host) peer = enet_host_connect(host, &a, warpmind::net::kChannels, 0);
    pump([this] { return connected; }, 3.0);
    if (connected && agree_keys) agree();
  }
  ~Client() {
    if (host) enet_host_destroy(host);
  }
  // Sends a Connect with a fresh public key and waits (3 s at most) for the server's Keys.
  bool agree() {
    if (!pair.make()) return false;
    flatbuffers::FlatBufferBuilder b(96);
    const auto key = b.CreateVector(pair.pk.data(), pair.pk.size());
    warpmind::net::FinishMessageBuffer(
        b, warpmind::net::CreateMessage(
               b, warpmind::net::Body_Connect,
               warpmind::net::CreateConnect(b, warpmind::net::kProtocolVersion, key, offer_aes).Union()));
    send_clear(b.GetBufferPointer(), b.GetSize(), warpmind::net::kReliableChannel);
    pump([this] { return keys.ready(); }, 3.0);
    return keys.ready();
  }
  template <class Done>
  void pump(Done done, double seconds) {
    ENetEvent ev;
    for (const auto until = Clock::now() + std::chrono::duration<double>(seconds);
         host && !done() && Clock::now() < until;) {
      if (enet_host_service(host, &ev, 5) <= 0) continue;
      if (ev.type == ENET_EVENT_TYPE_CONNECT) connected = true;
      if (ev.type == ENET_EVENT_TYPE_DISCONNECT) disconnected = true, disconnect_data = ev.data;
      if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
        take(ev.packet->data, ev.packet->dataLength, ev.channelID);
        enet_packet_destroy(ev.packet);
      }
    }
  }
  void take(const std::uint8_t* data, std::size_t size, std::uint8_t channel) {
    wire_in.emplace_back(data, data + size);
    if (!keys.ready()) {
      received.emplace_back(data, data + size);
      const warpmind::net::Message* m = warpmind::net::read_message(data, size);
      // Keys with a cipher the Connect did not offer leave the keys not ready.
      if (const warpmind::net::Keys* k = m ? m->body_as_Keys() : nullptr)
        if (k->key() && k->key()->size() == warpmind::net::kPublicKeyBytes &&
            (offer_aes || k->cipher() != warpmind::net::Cipher_Aes256Gcm) && keys.use(k->cipher()))
          keys.derive_client(pair, k->key()->data());
      return;
    }
    std::vector<std::uint8_t> plain(size >= warpmind::net::kSealOverhead ? size - warpmind::net::kSealOverhead : 0);
    std::size_t n = 0;
    if (keys.open(channel, data, size, plain.data(), n) != warpmind::net::OpenError::None) return void(++unopened);
    plain.resize(n);
    received.push_back(std::move(plain));
  }
  // Bytes as they are on the wire, sealed or not.
  void send_clear(const void* data, std::size_t n, std::uint8_t channel) {
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    wire_out.emplace_back(bytes, bytes + n);
    warpmind::net::send_packet(peer, channel, bytes, n, nullptr);
    enet_host_flush(host);
  }
  // Bytes sealed with the connection's keys (in clear before them).
  void send_raw(const void* data, std::size_t n, std::uint8_t channel) {
    if (!keys.ready()) return send_clear(data, n, channel);
    std::vector<std::uint8_t> sealed(n + warpmind::net::kSealOverhead);
    keys.seal(channel, static_cast<const std::uint8_t*>(data), n, sealed.data());
    send_clear(sealed.data(), sealed.size(), channel);
  }
  void send(flatbuffers::FlatBufferBuilder& b, std::uint8_t channel) {
    send_raw(b.GetBufferPointer(), b.GetSize(), channel);
  }
  const warpmind::net::Message* find(warpmind::net::Body type) const {
    for (const auto& r : received)
      if (const warpmind::net::Message* m = warpmind::net::read_message(r.data(), r.size());
          m && m->body_type() == type)
        return m;
    return nullptr;
  }
};

// The newest State a client received (nullptr: none).
inline const warpmind::net::State* newest_state(const Client& c) {
  const warpmind::net::State* best = nullptr;
  for (const auto& r : c.received)
    if (const warpmind::net::Message* m = warpmind::net::read_message(r.data(), r.size()); m && m->body_as_State())
      if (!best || m->body_as_State()->tick() > best->tick()) best = m->body_as_State();
  return best;
}

inline void hello(flatbuffers::FlatBufferBuilder& b, std::uint32_t version) {
  b.Clear();
  warpmind::net::FinishMessageBuffer(
      b, warpmind::net::CreateMessage(b, warpmind::net::Body_Hello,
                                      warpmind::net::CreateHello(b, version, b.CreateString("test")).Union()));
}
// Sends c a Hello of this protocol and waits (3 s at most) for its Welcome; nullptr without one.
inline const warpmind::net::Message* join(Client& c, flatbuffers::FlatBufferBuilder& b) {
  hello(b, warpmind::net::kProtocolVersion);
  c.send(b, warpmind::net::kReliableChannel);
  c.pump([&] { return c.find(warpmind::net::Body_Welcome) != nullptr; }, 3.0);
  return c.find(warpmind::net::Body_Welcome);
}
// Sends c an Observe of this protocol and waits (3 s at most) for its Welcome or Refused; whether it
// was welcomed.
inline bool observe(Client& c, flatbuffers::FlatBufferBuilder& b) {
  b.Clear();
  warpmind::net::FinishMessageBuffer(
      b, warpmind::net::CreateMessage(b, warpmind::net::Body_Observe,
                                      warpmind::net::CreateObserve(b, warpmind::net::kProtocolVersion).Union()));
  c.send(b, warpmind::net::kReliableChannel);
  c.pump([&] { return c.find(warpmind::net::Body_Welcome) || c.find(warpmind::net::Body_Refused); }, 3.0);
  return c.find(warpmind::net::Body_Welcome) != nullptr;
}
inline void move(flatbuffers::FlatBufferBuilder& b, std::uint64_t token, std::uint32_t seq, float x, float y) {
  b.Clear();
  warpmind::net::FinishMessageBuffer(
      b, warpmind::net::CreateMessage(b, warpmind::net::Body_Move,
                                      warpmind::net::CreateMove(b, token, seq, x, y).Union()));
}

}  // namespace warpmind::server_test
