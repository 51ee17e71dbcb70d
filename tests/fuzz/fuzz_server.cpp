// libFuzzer target: warpmind-server's handling of its clients (demos/server), as its ENet host hands it
// events. An input is a script for up to four connections to one fresh server (map 100, AOI 20, up to 8
// players, the CPU backend on one thread): connect, disconnect, a packet in clear, a connection's keys
// agreed, a packet sealed with those keys (arbitrary bytes, or a Hello, Move, Attack, Ack, Leave or
// Observe with fuzzed fields, so that the handling behind the seal is reached), and a tick. Every event
// goes through the server's own dispatch (Sessions::handle); nothing crosses a network. After every step
// the server's bookkeeping must hold: a connection's slot is its own and points back to it, every
// playing slot's connection names that slot, no more players than slots; after a tick every player in
// the game is at a finite place inside the AOI world. WARPMIND_FUZZ_SERVER_DEBUG=1 prints what an input
// reached (joins, resumes, commands, observers, drops by reason).
#include <enet/enet.h>

#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_common.h"
#include "server.h"

namespace {

using namespace warpmind;
using namespace warpmind::server;

constexpr int kConns = 4;

// The input, read a byte or a run of bytes at a time (zeros once it runs out).
struct Reader {
  const std::uint8_t* data;
  std::size_t size, at = 0;
  bool done() const { return at >= size; }
  std::uint8_t byte() { return at < size ? data[at++] : 0; }
  template <class T>
  T value() {
    T v{};
    std::uint8_t raw[sizeof(T)] = {};
    for (std::size_t k = 0; k < sizeof(T); ++k) raw[k] = byte();
    std::memcpy(&v, raw, sizeof(T));
    return v;
  }
  std::vector<std::uint8_t> bytes(std::size_t most) {
    const std::size_t n = std::min<std::size_t>(byte() % (most + 1), size - std::min(at, size));
    std::vector<std::uint8_t> out(data + at, data + at + n);
    at += n;
    return out;
  }
};

// The client's side of one connection: its ENet peer on the server's host and its keys.
struct Client {
  ENetPeer* peer = nullptr;
  net::KeyPair pair;
  net::SessionKeys keys;
};

struct Harness {
  std::unique_ptr<Server> sv = std::make_unique<Server>();
  std::array<Client, kConns> clients;
  std::vector<aoi::Command> cmds;
  aoi::TickResult result;

  bool open() {
    Flags& f = sv->f;
    f.map = 100, f.aoi = 20, f.max_clients = 8, f.limits.max_observers = 2;
    f.limits.peer_rate = 1000000, f.limits.address_rate = 10000000;  // a script's packets come within microseconds
    f.context.backend = "cpu", f.context.threads = 1;
    if (!sv->open_world().empty() || !sv->sessions.open_keys(nullptr, {})) return false;
    ENetAddress a{};
    enet_address_set_host_ip(&a, "127.0.0.1");
    a.port = 0;
    ENetHost* h = enet_host_create(&a, 16, net::kChannels, 0, 0);
    if (h == nullptr) return false;
    sv->sockets.add(h);
    return true;
  }

  ~Harness() {
    for (ENetHost* h : sv->sockets.hosts()) {
      for (std::size_t i = 0; i < h->peerCount; ++i)
        if (h->peers[i].data) {
          delete static_cast<Conn*>(h->peers[i].data);
          h->peers[i].data = nullptr;
        }
      enet_host_destroy(h);  // frees what the server queued to send
    }
  }

  // Whether connection k is open as far as its client knows (the server may have dropped it since).
  bool open_conn(int k) const { return clients[k].peer != nullptr && clients[k].peer->data != nullptr; }

  void event(ENetEventType type, ENetPeer* p, std::uint8_t channel = 0, const std::uint8_t* data = nullptr,
             std::size_t size = 0) {
    ENetEvent ev{};
    ev.type = type;
    ev.peer = p;
    ev.channelID = channel;
    if (type == ENET_EVENT_TYPE_RECEIVE) {
      ev.packet = enet_packet_create(data, size, 0);
      if (ev.packet == nullptr) return;
    }
    sv->sessions.handle(ev);  // destroys a received packet
  }

  // A new connection for client k from 127.0.0.1:(40000 + k): a peer of the host set up as ENet sets up
  // a connected one (its channels), then the server's connect event.
  void connect(int k) {
    if (open_conn(k)) return;
    ENetAddress a{};
    enet_address_set_host_ip(&a, "127.0.0.1");
    a.port = static_cast<enet_uint16>(40000 + k);
    ENetPeer* p = enet_host_connect(sv->sockets.hosts()[0], &a, net::kChannels, 0);
    if (p == nullptr) return;
    p->state = ENET_PEER_STATE_CONNECTED;
    clients[k].peer = p;
    clients[k].keys = net::SessionKeys{};
    event(ENET_EVENT_TYPE_CONNECT, p);
  }

  void disconnect(int k) {
    if (clients[k].peer == nullptr) return;
    event(ENET_EVENT_TYPE_DISCONNECT, clients[k].peer);
    enet_peer_reset(clients[k].peer);
    clients[k].peer = nullptr;
  }

  // The Connect (in clear), the keys taken as the server's Keys give them.
  void agree(int k, Reader& in) {
    if (!open_conn(k)) return;
    Client& c = clients[k];
    net::Key32 seed{};
    seed[0] = in.byte(), seed[1] = static_cast<std::uint8_t>(k);
    if (!c.pair.from_seed(seed)) return;
    const bool offer_aes = in.byte() & 1;
    flatbuffers::FlatBufferBuilder b(96);
    const auto key = b.CreateVector(c.pair.pk.data(), c.pair.pk.size());
    net::FinishMessageBuffer(
        b,
        net::CreateMessage(b, net::Body_Connect, net::CreateConnect(b, net::kProtocolVersion, key, offer_aes).Union()));
    event(ENET_EVENT_TYPE_RECEIVE, c.peer, net::kReliableChannel, b.GetBufferPointer(), b.GetSize());
    const Conn* conn = static_cast<const Conn*>(c.peer->data);
    if (conn && conn->keys.ready() && c.keys.derive_client(c.pair, sv->sessions.identity().pk.data()))
      c.keys.use(conn->keys.cipher());
  }

  void send_sealed(int k, std::uint8_t channel, const std::uint8_t* data, std::size_t size) {
    Client& c = clients[k];
    if (!open_conn(k) || !c.keys.ready()) return;
    std::vector<std::uint8_t> sealed(size + net::kSealOverhead);
    c.keys.seal(channel % net::SessionKeys::kChannelCount, data, size, sealed.data());
    event(ENET_EVENT_TYPE_RECEIVE, c.peer, channel, sealed.data(), sealed.size());
  }

  // A token: client k's session's as the server holds it (0: none), a fuzzed one, or the one of a slot
  // the input names (another client's session, a Detached one: a resume, or a theft).
  std::uint64_t token(int k, Reader& in) {
    switch (in.byte() % 3) {
      case 1:
        return in.value<std::uint64_t>();
      case 2:
        return sv->sessions.slot(in.byte() % sv->sessions.size()).token;
      default: {
        const Conn* conn = open_conn(k) ? static_cast<const Conn*>(clients[k].peer->data) : nullptr;
        return conn && conn->slot >= 0 ? sv->sessions.slot(conn->slot).token : 0;
      }
    }
  }

  // A well-formed message of a kind the input picks, its fields from the input, sealed.
  void send_message(int k, Reader& in) {
    flatbuffers::FlatBufferBuilder b(256);
    std::uint8_t channel = net::kStreamChannel;
    switch (in.byte() % 6) {
      case 0: {
        const std::vector<std::uint8_t> name = in.bytes(80);
        const auto n = b.CreateString(reinterpret_cast<const char*>(name.data()), name.size());
        const std::uint32_t version = in.byte() & 1 ? in.value<std::uint32_t>() : net::kProtocolVersion;
        const std::uint32_t player = in.value<std::uint8_t>();
        net::FinishMessageBuffer(
            b, net::CreateMessage(b, net::Body_Hello, net::CreateHello(b, version, n, player, token(k, in)).Union()));
        channel = net::kReliableChannel;
        break;
      }
      case 1: {
        const std::uint64_t t = token(k, in);
        const auto seq = in.value<std::uint32_t>();
        const auto x = in.value<float>(), y = in.value<float>();
        net::FinishMessageBuffer(
            b,
            net::CreateMessage(b, net::Body_Move, net::CreateMove(b, t, seq, x, y, in.value<std::uint64_t>()).Union()));
        break;
      }
      case 2: {
        const std::uint64_t t = token(k, in);
        const auto seq = in.value<std::uint32_t>();
        const std::uint32_t target = in.byte();
        net::FinishMessageBuffer(
            b, net::CreateMessage(b, net::Body_Attack,
                                  net::CreateAttack(b, t, seq, target, in.value<std::uint64_t>()).Union()));
        break;
      }
      case 3: {
        const std::uint64_t t = token(k, in);
        const auto seq = in.value<std::uint32_t>();
        net::FinishMessageBuffer(
            b, net::CreateMessage(b, net::Body_Ack, net::CreateAck(b, t, seq, in.value<std::uint64_t>()).Union()));
        break;
      }
      case 4:
        net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Leave, net::CreateLeave(b, token(k, in)).Union()));
        channel = net::kReliableChannel;
        break;
      default: {
        const std::vector<std::uint8_t> key = in.bytes(40);
        const auto s = in.byte() & 1 ? b.CreateString(reinterpret_cast<const char*>(key.data()), key.size())
                                     : flatbuffers::Offset<flatbuffers::String>();
        net::FinishMessageBuffer(
            b, net::CreateMessage(b, net::Body_Observe, net::CreateObserve(b, net::kProtocolVersion, s).Union()));
        channel = net::kReliableChannel;
      }
    }
    if (in.byte() & 1) channel ^= 1;  // sometimes on the other channel
    send_sealed(k, channel, b.GetBufferPointer(), b.GetSize());
  }

  // The server's bookkeeping, after any step.
  void check() const {
    const Server& s = *sv;
    FUZZ_CHECK(s.sessions.active_count() <= s.sessions.size());
    for (const Client& c : clients) {
      if (c.peer == nullptr || c.peer->data == nullptr) continue;
      const Conn* conn = static_cast<const Conn*>(c.peer->data);
      FUZZ_CHECK(conn->slot < static_cast<int>(s.sessions.size()));
      if (conn->slot >= 0) FUZZ_CHECK(s.sessions.slot(conn->slot).peer == c.peer);
      FUZZ_CHECK(!(conn->observer && conn->slot >= 0));
    }
    for (std::uint32_t i = 0; i < s.sessions.size(); ++i) {
      const Slot& slot = s.sessions.slot(i);
      if (slot.peer == nullptr) continue;
      FUZZ_CHECK(slot.state != SlotState::Free && slot.state != SlotState::Detached);
      const Conn* conn = static_cast<const Conn*>(slot.peer->data);
      FUZZ_CHECK(conn != nullptr && conn->slot == static_cast<int>(i));
    }
  }

  // After a tick: every player of a slot in the game is at a finite place of the AOI world.
  void check_world() const {
    const std::span<const aoi::Player> at = sv->world->players();
    const WorldRect w = sv->cfg.world;
    for (std::uint32_t i = 0; i < sv->sessions.size() && i < at.size(); ++i) {
      if (sv->sessions.slot(i).state == SlotState::Free) continue;
      FUZZ_CHECK(std::isfinite(at[i].x) && std::isfinite(at[i].y));
      FUZZ_CHECK(at[i].x >= w.x0 && at[i].x <= w.x0 + w.width && at[i].y >= w.y0 && at[i].y <= w.y0 + w.height);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool ready = enet_initialize() == 0 && net::sodium_ready();
  if (!ready) __builtin_trap();
  if (size > 4096) return 0;  // a script of a few hundred steps is enough
  Harness h;
  if (!h.open()) __builtin_trap();
  Reader in{data, size};
  int ticks = 0;
  while (!in.done()) {
    const std::uint8_t op = in.byte();
    const int k = (op >> 4) % kConns;
    switch (op % 8) {
      case 0:
        h.connect(k);
        break;
      case 1:
        h.disconnect(k);
        break;
      case 2:
        h.agree(k, in);
        break;
      case 3: {  // a packet in clear (before the keys: the server's clear path; after: not sealed, dropped)
        const std::uint8_t channel = in.byte() % 3;
        const std::vector<std::uint8_t> raw = in.bytes(255);
        if (h.open_conn(k)) h.event(ENET_EVENT_TYPE_RECEIVE, h.clients[k].peer, channel, raw.data(), raw.size());
        break;
      }
      case 4: {  // arbitrary bytes, sealed
        const std::uint8_t channel = in.byte() % 2;
        const std::vector<std::uint8_t> raw = in.bytes(255);
        h.send_sealed(k, channel, raw.data(), raw.size());
        break;
      }
      case 5:
      case 6:
        h.send_message(k, in);
        break;
      default:
        if (++ticks > 64) break;  // ticks are the slow step
        h.sv->run_tick(h.cmds, h.result);
        h.check_world();
    }
    h.check();
  }
  if (std::getenv("WARPMIND_FUZZ_SERVER_DEBUG"))  // what a seed reached
    std::fprintf(stderr, "joined %llu left %llu resumed %llu commands %llu observers %zu packets out %llu drops:%s\n",
                 static_cast<unsigned long long>(h.sv->sessions.counts().joined),
                 static_cast<unsigned long long>(h.sv->sessions.counts().left),
                 static_cast<unsigned long long>(h.sv->sessions.counts().resumed),
                 static_cast<unsigned long long>(h.sv->sessions.counts().commands), h.sv->sessions.observers().size(),
                 static_cast<unsigned long long>(h.sv->sockets.counts().packets_out), [&] {
                   static std::string d;
                   d.clear();
                   for (int k = 0; k < kDrops; ++k)
                     if (h.sv->sessions.counts().drops[k])
                       d += std::string(" ") + drop_name(k) + "=" + std::to_string(h.sv->sessions.counts().drops[k]);
                   return d.c_str();
                 }());
  return 0;
}
