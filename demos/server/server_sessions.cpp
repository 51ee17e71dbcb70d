// warpmind-server's sessions: connections and what their clients say (Hello, Observe, Leave, and the
// commands and acknowledgements checked against the connection's token and seq), sending, and
// servicing ENet between ticks.
#include <cmath>

#include "server.h"

namespace warpmind::server {

void Server::send(ENetPeer* p, std::uint8_t channel, flatbuffers::FlatBufferBuilder& b) {
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

void Server::refuse(ENetPeer* p, net::RefuseReason why) {
  flatbuffers::FlatBufferBuilder b(64);
  net::FinishMessageBuffer(
      b, net::CreateMessage(b, net::Body_Refused, net::CreateRefused(b, why, net::kProtocolVersion).Union()));
  send(p, net::kReliableChannel, b);
  enet_peer_disconnect_later(p, 0);
  ++refused;
}

void Server::send_bytes(ENetPeer* p, std::uint8_t channel, const std::uint8_t* data, std::size_t size) {
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

void Server::on_hello(ENetPeer* p, Conn& c, const net::Hello& h) {
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
  s.heard_tick = tick;
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
void Server::on_observe(ENetPeer* p, Conn& c, const net::Observe& o) {
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
  const auto w = net::CreateWelcome(b, net::kProtocolVersion, 0xffffffffu, 0, static_cast<std::uint32_t>(f.tick_hz),
                                    tick, f.map, cfg.world.x0, cfg.world.y0, cfg.world.width, cfg.world.height, cfg.aoi,
                                    cfg.shape == aoi::AoiShape::Circle ? net::Shape_Circle : net::Shape_Square,
                                    max_move, cfg.attack_range, f.damage, 0, 0, 0);
  net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Welcome, w.Union()));
  send(p, net::kReliableChannel, b);
}

// Frees the connection's slot (its player leaves the map in the next tick).
void Server::release(ENetPeer* p) {
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

void Server::on_receive(ENetPeer* p, const ENetPacket* packet) {
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

// A joined client's Move or Attack, verified: kept as its slot's pending command (-1), or the reason
// it is dropped. Touches only that slot, so clients can be taken in parallel.
int Server::take_command(Slot& s, int slot, const net::Message& m) const {
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
  s.heard_tick = tick;  // its client is there, whatever becomes of the message
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
    if (target >= total || target == me || (f.zones == 1 && slots[target].state != SlotState::Active)) return BadValue;
    s.command = {me, net::RawKind::Attack, seq, 0, 0, target};
  }
  s.last_received = seq;
  s.has_command = true;
  return kCommand;
}

// One pass of ENet (waiting at most wait_ms for something to happen) and every event it had; false
// when nothing happened.
bool Server::pump(int wait_ms) {
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
void Server::service(Clock::time_point until) {
  const Clock::time_point hard = std::max(until, Clock::now()) + std::chrono::milliseconds(20);
  for (;;) {
    publish_metrics();
    drain_relays();
    const Clock::time_point now = Clock::now();
    if (g_stop.load()) return;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
    const bool busy = pump(static_cast<int>(std::clamp<long long>(wait, 0, 5)));
    if (Clock::now() >= until && (!busy || Clock::now() >= hard)) return;
  }
}

}  // namespace warpmind::server
