// warpmind-server's sessions (sessions.h): connections and what their clients say (Hello, Observe,
// Leave, and the commands and acknowledgements checked against the connection's token and seq), and the
// slots' part in the tick, the relays and the store.
#include <algorithm>
#include <cmath>

#include "sessions.h"

#include "server.h"

namespace warpmind::server {

void Sessions::open(std::uint32_t slots, std::uint64_t seed) {
  rng_.seed(seed);
  slots_.resize(slots);
}

bool Sessions::open_keys(const net::Key32* seed, std::string observer_key) {
  observer_key_ = std::move(observer_key);
  return seed ? identity_.from_seed(*seed) : identity_.make();
}

std::uint32_t Sessions::active_count() const {
  std::uint32_t n = 0;
  for (const Slot& s : slots_) n += s.state != SlotState::Free;
  return n;
}

std::uint32_t Sessions::connected_count() const {
  std::uint32_t n = 0;
  for (const Slot& s : slots_) n += s.state != SlotState::Free && s.peer != nullptr;
  return n;
}

void Sessions::refuse(ENetPeer* p, net::RefuseReason why) {
  flatbuffers::FlatBufferBuilder b(64);
  net::FinishMessageBuffer(
      b, net::CreateMessage(b, net::Body_Refused, net::CreateRefused(b, why, net::kProtocolVersion).Union()));
  sv_.sockets.send(p, net::kReliableChannel, b);  // sealed once the connection has keys
  enet_peer_disconnect_later(p, 0);
  ++counts_.refused;
}

void Sessions::on_hello(ENetPeer* p, Conn& c, const net::Hello& h) {
  if (h.version() != net::kProtocolVersion) {
    ++counts_.drops[UnknownVersion];
    refuse(p, net::RefuseReason_UnknownVersion);
    return;
  }
  if (c.slot >= 0) {
    refuse(p, net::RefuseReason_AlreadyJoined);
    return;
  }
  if (h.resume_token() != 0) {
    if (resume(p, c, h)) return;
    ++counts_.resume_failed;  // not there any more (or never was): a new session
  }
  // One address holds at most --max-sessions-per-address players (Detached ones included): a client
  // cannot take every slot by joining again and again, and honest joins from elsewhere still get in.
  const std::uint32_t host = p->address.host;
  const auto held = std::count_if(slots_.begin(), slots_.end(),
                                  [host](const Slot& s) { return s.state != SlotState::Free && s.address == host; });
  if (!under_cap(host, static_cast<std::size_t>(held), sv_.f.limits.max_sessions_per_address)) {
    ++counts_.address_refused;
    refuse(p, net::RefuseReason_ServerFull);
    return;
  }
  int free = -1;
  for (std::size_t i = 0; i < slots_.size() && free < 0; ++i)
    if (slots_[i].state == SlotState::Free) free = static_cast<int>(i);
  if (free < 0) {
    refuse(p, net::RefuseReason_ServerFull);
    return;
  }
  Slot& s = slots_[free];
  s = Slot{};
  s.state = SlotState::Joining;
  s.peer = p;
  std::uniform_real_distribution<float> where(0.0f, sv_.f.map);
  s.spawn = {where(rng_), where(rng_), kSpawnHp};
  s.first_tick = sv_.tick;
  s.heard_tick = sv_.tick;
  s.address = host;
  c.slot = free;
  ++counts_.joined;
  counts_.peak = std::max<std::uint64_t>(counts_.peak, active_count());
  if (sv_.f.zones > 1) return;  // a cluster's Welcome comes with the join's tick (welcome_join)
  do s.token = (std::uint64_t{entropy_()} << 32) ^ entropy_();
  while (s.token == 0);
  s.join_tick = sv_.tick;
  welcome(p, free, false);
}

// A cluster: slot k's join taken into the tick being gathered. Its token is made from the cluster key,
// the slot and this tick, so that the zone can make it again after a crash; the Welcome says this tick.
void Sessions::welcome_join(Slot& s, int k) {
  s.join_tick = s.first_tick = sv_.tick;
  s.token = sv_.bus.derive_token(static_cast<std::uint32_t>(sv_.f.zone), static_cast<std::uint32_t>(k), sv_.tick);
  if (s.peer) welcome(s.peer, k, false);
}

// A Hello with the token of a session whose player is still in the game (Detached, or Active on a
// connection the client has given up): the player is this connection's from the next tick on, where it
// is, with its HP, its seq counter and its last applied command. Its client holds nothing yet, so its
// first State is a snapshot and an Events of the tick before lists everyone it sees. A session whose
// join tick has not come yet (its client restarted right after its Welcome) is taken back alike: the
// Welcome says the join's tick and spawn point, and its first State is the join's. In a cluster the
// player may be in another zone's area, which holds its view: the slot waits for its Resume to go into
// the next tick, and the zone whose area it is in then answers (answer_resume). False when there is no
// such session.
bool Sessions::resume(ENetPeer* p, Conn& c, const net::Hello& h) {
  const std::uint32_t id = h.resume_player();
  if (id / sv_.cap != static_cast<std::uint32_t>(sv_.f.zone) || id >= sv_.total) return false;
  const int k = static_cast<int>(id % sv_.cap);
  Slot& s = slots_[k];
  // (A cluster's joining slot has no token yet: its Welcome comes with the join's tick.)
  const bool joining = s.state == SlotState::Joining;
  if (!(playing(s.state) || joining) || s.token != h.resume_token()) return false;
  if (ENetPeer* old = s.peer) {  // the client's earlier connection, still open here: dropped silently
    delete static_cast<Conn*>(old->data);
    old->data = nullptr;
    enet_peer_reset(old);
  }
  if (!joining) s.state = SlotState::Active;
  s.peer = p;
  s.address = p->address.host;  // counted against the address it is played from now
  s.acked = s.ack_sent = 0;
  s.sent = {};              // a new connection
  s.first_tick = sv_.tick;  // acknowledgements count from this connection's first State
  s.heard_tick = sv_.tick;
  c.slot = k;
  ++counts_.resumed;
  if (sv_.f.zones > 1) {
    s.resume_pending = true;
    s.has_command = false;
    return true;
  }
  welcome(p, k, true);
  if (joining) return true;  // no one seen yet: the join tick's Events say whom it sees
  flatbuffers::FlatBufferBuilder b(64 + 4 * sv_.clients.view(id).visible.size());
  make_resume_events(b, id);
  sv_.sockets.send(p, net::kReliableChannel, b);
  return true;
}

// A resumed client's Events of the tick before: whom player id sees after it — the view kept up while
// the client was away (nothing, when there is no view of that tick here).
void Sessions::make_resume_events(flatbuffers::FlatBufferBuilder& b, std::uint32_t id) const {
  const View& v = sv_.clients.view(id);
  b.Clear();
  const auto entered = b.CreateVector(v.tick + 1 == sv_.tick ? v.visible : std::vector<std::uint32_t>{});
  const auto none = b.CreateVector(std::vector<std::uint32_t>{});
  net::FinishMessageBuffer(
      b, net::CreateMessage(b, net::Body_Events, net::CreateEvents(b, sv_.tick - 1, entered, none).Union()));
}

// A Welcome: player id's session (token) from tick `first` on, the player at `at`.
void Sessions::make_welcome(flatbuffers::FlatBufferBuilder& b, std::uint32_t id, std::uint64_t token,
                            std::uint64_t first, const aoi::Player& at, bool resumed_session, std::uint32_t last_seq,
                            std::uint32_t seq) const {
  b.Clear();
  const auto w = net::CreateWelcome(
      b, net::kProtocolVersion, id, token, static_cast<std::uint32_t>(sv_.f.tick_hz), first, sv_.f.map,
      sv_.cfg.world.x0, sv_.cfg.world.y0, sv_.cfg.world.width, sv_.cfg.world.height, sv_.cfg.aoi,
      sv_.cfg.shape == aoi::AoiShape::Circle ? net::Shape_Circle : net::Shape_Square, sv_.max_move,
      sv_.cfg.attack_range, sv_.f.damage, at.x, at.y, at.hp, resumed_session, last_seq, seq);
  net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Welcome, w.Union()));
}

// The Welcome of slot k's session, new (its spawn point) or resumed (where its player is now; a player
// whose join tick has not come yet is at its spawn point, no command applied).
void Sessions::welcome(ENetPeer* p, int k, bool resumed_session) {
  const Slot& s = slots_[k];
  const std::uint32_t id = sv_.id_of(k);
  const bool in_game = resumed_session && s.state != SlotState::Joining;
  flatbuffers::FlatBufferBuilder b(256);
  make_welcome(b, id, s.token, sv_.tick, in_game ? sv_.world->players()[id] : s.spawn, resumed_session,
               in_game ? sv_.clients.last_applied(id) : 0, resumed_session ? s.last_received : 0);
  sv_.sockets.send(p, net::kReliableChannel, b);
}

// The end of a session that left in tick `at`: a Goodbye saying so, and again in the data of the disconnect
// that follows it (ENet drops a received packet not yet handed to the client when the disconnect comes in
// the same batch of datagrams; the disconnect's data always arrives).
void Sessions::goodbye(ENetPeer* p, std::uint64_t at) {
  flatbuffers::FlatBufferBuilder b(64);
  net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Goodbye, net::CreateGoodbye(b, at).Union()));
  sv_.sockets.send(p, net::kReliableChannel, b);
  enet_peer_disconnect_later(p, at <= UINT32_MAX ? static_cast<enet_uint32>(at) : 0);
}

// A connection completed from an address and port that another connection of this host still has: the
// client behind it is gone (restarted, or a NAT gave its port to someone new), so the old connection is
// dropped before it can send anything more to the new one. Its player, if any, is kept for a resume.
void Sessions::supersede(ENetPeer* p) {
  sv_.sockets.for_each_peer([&](std::size_t, std::size_t, ENetPeer* q) {
    if (q == p || q->state == ENET_PEER_STATE_DISCONNECTED || q->address.host != p->address.host ||
        q->address.port != p->address.port)
      return;
    if (q->data && static_cast<Conn*>(q->data)->slot >= 0) ++counts_.disconnected;
    release(q, true);
    enet_peer_reset(q);
    ++counts_.superseded;
  });
}

// Whether an Observe may watch: it carries the observer key (compared in time independent of where they
// differ), or, with no key set, it comes from a loopback address. A Snapshot is every player's position and
// HP, so no stranger may have one.
bool Sessions::observer_admitted(const ENetPeer* p, const net::Observe& o) const {
  if (observer_key_.empty()) return (ENET_NET_TO_HOST_32(p->address.host) >> 24) == 127;
  const flatbuffers::String* key = o.key();
  if (key == nullptr || key->size() != observer_key_.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < observer_key_.size(); ++i)
    diff |= static_cast<unsigned char>(key->c_str()[i] ^ observer_key_[i]);
  return diff == 0;
}

// An observer (warpmind-demo --connect): a Welcome without a player, then a Snapshot every tick.
void Sessions::on_observe(ENetPeer* p, Conn& c, const net::Observe& o) {
  if (o.version() != net::kProtocolVersion) {
    ++counts_.drops[UnknownVersion];
    refuse(p, net::RefuseReason_UnknownVersion);
    return;
  }
  if (c.slot >= 0 || c.observer) return refuse(p, net::RefuseReason_AlreadyJoined);
  if (!observer_admitted(p, o)) {
    ++counts_.observers_refused;
    return refuse(p, net::RefuseReason_NotAuthorized);
  }
  if (observers_.size() >= static_cast<std::size_t>(sv_.f.limits.max_observers))
    return refuse(p, net::RefuseReason_ServerFull);
  const auto same_address = [p](const ENetPeer* o) { return o->address.host == p->address.host; };
  if (!under_cap(p->address.host, std::count_if(observers_.begin(), observers_.end(), same_address),
                 sv_.f.limits.max_observers_per_address)) {
    ++counts_.address_refused;
    return refuse(p, net::RefuseReason_ServerFull);
  }
  c.observer = true;
  c.heard = Clock::now();
  observers_.push_back(p);
  flatbuffers::FlatBufferBuilder b(256);
  const auto w =
      net::CreateWelcome(b, net::kProtocolVersion, 0xffffffffu, 0, static_cast<std::uint32_t>(sv_.f.tick_hz), sv_.tick,
                         sv_.f.map, sv_.cfg.world.x0, sv_.cfg.world.y0, sv_.cfg.world.width, sv_.cfg.world.height,
                         sv_.cfg.aoi, sv_.cfg.shape == aoi::AoiShape::Circle ? net::Shape_Circle : net::Shape_Square,
                         sv_.max_move, sv_.cfg.attack_range, sv_.f.damage, 0, 0, 0);
  net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Welcome, w.Union()));
  sv_.sockets.send(p, net::kReliableChannel, b);
}

// Frees the connection's slot: its player leaves the map in the next tick — or, when the connection was
// lost (`lost`: no Leave) and --resume-seconds allows, stays in the game Detached for its client to
// resume. A session whose join tick has not come yet is simply dropped.
void Sessions::release(ENetPeer* p, bool lost) {
  Conn* c = static_cast<Conn*>(p->data);
  if (c == nullptr) return;
  if (c->slot >= 0) {
    Slot& s = slots_[c->slot];
    s.peer = nullptr;
    s.has_command = s.resume_pending = false;
    if (s.state == SlotState::Joining) {
      s.state = SlotState::Free;
      ++counts_.left;
    } else if (s.state == SlotState::Leaving) {  // a cluster's Leave, its tick not come yet: it still leaves
    } else if (lost && sv_.f.limits.resume_seconds > 0) {
      s.state = SlotState::Detached;
      s.detached_tick = sv_.tick;
      ++counts_.detached;
    } else {
      s.state = SlotState::Leaving;
      ++counts_.left;
    }
  }
  if (c->observer) std::erase(observers_, p);
  delete c;
  p->data = nullptr;
}

void Sessions::on_receive(ENetPeer* p, std::uint8_t channel, const ENetPacket* packet) {
  Conn* c = static_cast<Conn*>(p->data);
  if (c == nullptr) return;
  sv_.sockets.note_received(packet->dataLength);
  if (!c->bucket.take(sv_.f.limits.peer_rate, Clock::now())) return void(++counts_.drops[RateLimit]);
  if (!c->keys.ready()) return on_clear(p, *c, channel, packet);
  if (packet->dataLength > net::kMaxClientPacket + net::kSealOverhead) return void(++counts_.drops[Oversized]);
  if (packet->dataLength < net::kSealOverhead) return void(++counts_.drops[Forged]);
  // Opened into a buffer of its own: FlatBuffers reads it in place, aligned.
  opened_.resize(packet->dataLength - net::kSealOverhead);
  std::size_t size = 0;
  switch (c->keys.open(channel, packet->data, packet->dataLength, opened_.data(), size)) {
    case net::OpenError::Forged:
      return void(++counts_.drops[Forged]);
    case net::OpenError::Replayed:
      return void(++counts_.drops[Replayed]);
    case net::OpenError::None:
      break;
  }
  c->heard = Clock::now();
  const net::Message* m = net::read_message(opened_.data(), size);
  if (m == nullptr) return void(++counts_.drops[BadPacket]);
  switch (m->body_type()) {
    case net::Body_Hello:
      if (c->observer) return void(++counts_.drops[BadPacket]);
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
      return void(++counts_.drops[BadPacket]);
  }
  if (c->observer && m->body_type() == net::Body_Ack) return;  // an observer saying it is still there
  // Not joined yet: no Hello answered, or (a cluster) no Welcome yet, whose token it would carry.
  if (c->slot < 0 || slots_[c->slot].token == 0) return void(++counts_.drops[NotJoined]);
  Slot& s = slots_[c->slot];
  if (const net::Leave* l = m->body_as_Leave()) {
    if (l->token() != s.token) return void(++counts_.drops[WrongToken]);
    if (sv_.f.zones > 1 && s.state == SlotState::Active) {  // its Goodbye comes with the leave's tick (take_pending)
      s.state = SlotState::Leaving;
      s.has_command = false;
      ++counts_.left;
      return;
    }
    // Its player leaves in the next tick: the client is told which. A join whose tick has not come yet
    // is dropped: its player leaves in the tick it would have joined in, never in the game (a client
    // that left right after its Welcome learns the session's end like any other).
    // (Told before the connection's state, its keys with it, is let go.)
    if (s.state == SlotState::Active || s.state == SlotState::Joining)
      goodbye(p, sv_.tick);
    else
      enet_peer_disconnect_later(p, 0);
    release(p);
    return;
  }
  const int d = take_command(c->slot, *m);
  if (d >= 0)
    ++counts_.drops[d];
  else if (d == kCommand)
    ++counts_.commands;
}

// A packet before the connection's keys: a Connect with this protocol's version and a valid public key
// gets the server's Keys (in clear), and the connection is sealed from then on; a Hello or Observe of
// protocol 1 (which sent them in clear) or a Connect of another version gets Refused(UnknownVersion) in
// clear; anything else is dropped.
void Sessions::on_clear(ENetPeer* p, Conn& c, std::uint8_t channel, const ENetPacket* packet) {
  if (packet->dataLength > net::kMaxClientPacket) return void(++counts_.drops[Oversized]);
  const net::Message* m = net::read_message(packet->data, packet->dataLength);
  if (m == nullptr) return void(++counts_.drops[BadPacket]);
  std::uint32_t version = net::kProtocolVersion;
  if (const net::Connect* k = m->body_as_Connect())
    version = k->version();
  else if (const net::Hello* h = m->body_as_Hello())
    version = h->version();
  else if (const net::Observe* o = m->body_as_Observe())
    version = o->version();
  if (version != net::kProtocolVersion) {
    ++counts_.drops[UnknownVersion];
    return refuse(p, net::RefuseReason_UnknownVersion);  // in clear: no keys yet
  }
  if (m->body_type() != net::Body_Connect) return void(++counts_.drops[NoKeys]);
  const net::Connect* k = m->body_as_Connect();
  const flatbuffers::Vector<std::uint8_t>* key = k->key();
  if (channel != net::kReliableChannel || key == nullptr || key->size() != net::kPublicKeyBytes ||
      !c.keys.derive_server(identity_, key->data()))
    return void(++counts_.drops[BadPacket]);
  // The cipher (--cipher): AES-256-GCM when the client offers it and this server may and can use it.
  const net::Cipher cipher = k->aes256gcm() && sv_.f.keys.cipher == "auto" && c.keys.use(net::Cipher_Aes256Gcm)
                                 ? net::Cipher_Aes256Gcm
                                 : net::Cipher_ChaCha20Poly1305;
  ++counts_.ciphers[cipher];
  flatbuffers::FlatBufferBuilder b(96);
  const auto mine = b.CreateVector(identity_.pk.data(), identity_.pk.size());
  net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Keys, net::CreateKeys(b, mine, cipher).Union()));
  sv_.sockets.send(p, net::kReliableChannel, b.GetBufferPointer(), b.GetSize(), false);  // in clear: the Keys
}

// A joined client's Move or Attack, verified: kept as its slot's pending command (-1), or the reason
// it is dropped. Touches only that slot, so clients can be taken in parallel.
int Sessions::take_command(int slot, const net::Message& m) {
  Slot& s = slots_[slot];
  const std::uint32_t me = sv_.id_of(slot);
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
  // Its client is there: a message with its token and a new seq, whatever becomes of it. A stale or
  // repeated seq is not (a client could keep a slot for ever by sending one packet again).
  s.heard_tick = sv_.tick;
  // An acknowledgement counts when it names a State this client can have received and is newer than
  // the last; any other is ignored (the command stands).
  if (ack > s.acked && ack >= s.first_tick && ack < sv_.tick) s.acked = ack;
  if (m.body_as_Ack()) {
    s.last_received = seq;
    return kAckOnly;
  }
  if (const net::Move* mv = m.body_as_Move()) {
    if (!std::isfinite(mv->x()) || !std::isfinite(mv->y())) return BadValue;
    s.command = {me, net::RawKind::Move, seq, mv->x(), mv->y(), 0};
  } else {
    const std::uint32_t target = m.body_as_Attack()->target();
    // A target that is no player, or the attacker itself. An attack on a player not in the game (one
    // that left after the client's last State named it) is taken and applied to no one, in one zone as
    // in a cluster (whose gateway cannot know where the target is): the States' last applied command
    // moves past it, so a client waiting for its commands to be applied is not kept waiting.
    if (target >= sv_.total || target == me) return BadValue;
    s.command = {me, net::RawKind::Attack, seq, 0, 0, target};
  }
  s.last_received = seq;
  s.has_command = true;
  return kCommand;
}

// One ENet event: a connection made, a message, a connection ended.
void Sessions::handle(ENetEvent& ev) {
  switch (ev.type) {
    case ENET_EVENT_TYPE_CONNECT: {
      Conn* c = new Conn;
      c->connected = Clock::now();
      ev.peer->data = c;
      enet_peer_timeout(ev.peer, 0, 2000, 5000);
      // No throttling of unreliable packets: a State is dropped only by the network (or by a
      // client that stops acknowledging, which the sweep disconnects).
      enet_peer_throttle_configure(ev.peer, ENET_PEER_PACKET_THROTTLE_INTERVAL, ENET_PEER_PACKET_THROTTLE_SCALE, 0);
      sv_.sockets.note_connect(ev.peer->host);
      supersede(ev.peer);
      break;
    }
    case ENET_EVENT_TYPE_RECEIVE:
      on_receive(ev.peer, ev.channelID, ev.packet);
      enet_packet_destroy(ev.packet);
      break;
    case ENET_EVENT_TYPE_DISCONNECT:
      if (ev.peer->data && static_cast<Conn*>(ev.peer->data)->slot >= 0) ++counts_.disconnected;
      release(ev.peer, true);
      break;
    default:
      break;
  }
}

// Detached players whose clients did not come back within --resume-seconds leave (in the next tick).
void Sessions::expire_detached() {
  const double grace = sv_.f.limits.resume_seconds * sv_.f.tick_hz;
  for (Slot& s : slots_)
    if (s.state == SlotState::Detached && static_cast<double>(sv_.tick - s.detached_tick) > grace) {
      s.state = SlotState::Leaving;
      ++counts_.expired;
      ++counts_.left;
    }
}

std::size_t Sessions::pending_commands(std::uint32_t i) const {
  const Slot& s = slots_[i];
  if (s.state == SlotState::Joining) return 2;
  return s.state == SlotState::Leaving || (s.state == SlotState::Active && s.has_command);
}

// Takes slot i's part in the next tick into c: false when it has none.
bool Sessions::take_pending(std::uint32_t i, net::RawCommand& c) {
  Slot& s = slots_[i];
  if (s.state == SlotState::Joining) {
    c = {sv_.id_of(static_cast<int>(i)), net::RawKind::Join, 0, s.spawn.x, s.spawn.y, 0};
    s.state = SlotState::Active;
    if (sv_.f.zones > 1) welcome_join(s, static_cast<int>(i));
  } else if (s.state == SlotState::Leaving) {
    c = {sv_.id_of(static_cast<int>(i)), net::RawKind::Leave, 0, 0, 0, 0};
    s.state = SlotState::Free;
    if (sv_.f.zones > 1 && s.peer) {  // a cluster's Leave: its client told the tick now, the connection let go
      if (auto* conn = static_cast<Conn*>(s.peer->data)) conn->slot = -1;
      goodbye(s.peer, sv_.tick);
      s.peer = nullptr;
    }
  } else if (s.state == SlotState::Active && s.has_command) {
    s.has_command = false;
    c = s.command;
  } else {
    return false;
  }
  return true;
}

void Sessions::take_notes(std::uint32_t i, std::vector<net::RawCommand>& raw) {
  Slot& s = slots_[i];
  const std::uint32_t id = sv_.id_of(static_cast<int>(i));
  if (s.state == SlotState::Active && s.resume_pending) {  // its client is back: see Zones::answer_resume
    raw.push_back({id, net::RawKind::Resume, s.last_received, 0, 0, static_cast<std::uint32_t>(s.join_tick)});
    s.resume_pending = false;
    s.first_tick = sv_.tick;
  }
  if (s.state == SlotState::Active && s.acked != s.ack_sent && s.acked < (std::uint64_t{1} << 32)) {
    raw.push_back({id, net::RawKind::Ack, 0, 0, 0, static_cast<std::uint32_t>(s.acked)});
    s.ack_sent = s.acked;
  }
}

void Sessions::deliver(std::uint32_t k, std::uint8_t channel, std::span<const std::uint8_t> message) {
  // A cluster: through the same filter as relayed messages (a late relayed State of tick T must not
  // follow this zone's own T + 1). The message was built here: read without verifying.
  Slot& s = slots_[k];
  if (s.state == SlotState::Active && s.peer != nullptr && !s.resume_pending &&
      (sv_.f.zones == 1 || s.sent.first(*net::GetMessage(message.data()))))
    sv_.sockets.send(s.peer, channel, message.data(), message.size());
}

bool Sessions::relay(std::uint32_t k, std::uint64_t relay_tick, const net::Message& m, std::uint8_t channel,
                     std::span<const std::uint8_t> bytes) {
  // Not for a client that left meanwhile, nor (a resumed one) anything of the ticks before its Welcome,
  // nor anything older than, or the same as, what it was sent already (sent_filter.h).
  Slot& s = slots_[k];
  if (s.state != SlotState::Active || s.peer == nullptr || s.resume_pending || relay_tick < s.first_tick ||
      !s.sent.first(m))
    return false;
  if (m.body_type() == net::Body_Welcome) {  // its token written in here (kTokenFilledByGateway)
    relay_welcome_.assign(bytes.begin(), bytes.end());
    auto* w = static_cast<net::Welcome*>(net::GetMutableMessage(relay_welcome_.data())->mutable_body());
    if (w->token() != net::kTokenFilledByGateway || !w->mutate_token(s.token)) return false;
    bytes = relay_welcome_;
  }
  sv_.sockets.send(s.peer, channel, bytes.data(), bytes.size());
  return true;
}

std::uint32_t Sessions::restore(const std::vector<net::StoredSlot>& from, std::uint64_t tick) {
  std::uint32_t players = 0;
  for (std::uint32_t i = 0; i < slots_.size(); ++i) {
    const net::StoredSlot& was = from[i];
    Slot& s = slots_[i];
    s = Slot{};
    const auto state = static_cast<SlotState>(was.state);
    if (state == SlotState::Free || state == SlotState::Joining) continue;  // a join not in a tick: no Welcome went out
    s.token = sv_.bus.derive_token(static_cast<std::uint32_t>(sv_.f.zone), i, was.join_tick);
    s.last_received = was.last_received;
    s.join_tick = was.join_tick;
    s.first_tick = was.first_tick;
    s.heard_tick = tick;
    if (state == SlotState::Leaving) {
      s.state = SlotState::Leaving;
    } else {  // Active or Detached: its client's connection is gone, its player stays for a resume
      s.state = SlotState::Detached;
      s.detached_tick = tick;
      ++counts_.detached;
      ++players;
    }
  }
  return players;
}

void Sessions::replay(std::uint32_t k, const net::RawCommand& c) {
  Slot& s = slots_[k];
  switch (c.kind) {
    case net::RawKind::Join:
      s = Slot{};
      s.state = SlotState::Detached;
      s.spawn = {c.x, c.y, kSpawnHp};
      s.join_tick = s.first_tick = s.detached_tick = s.heard_tick = sv_.tick;
      s.token = sv_.bus.derive_token(static_cast<std::uint32_t>(sv_.f.zone), k, sv_.tick);
      ++counts_.detached;
      break;
    case net::RawKind::Leave:
      s = Slot{};
      break;
    case net::RawKind::Move:
    case net::RawKind::Attack:
      s.last_received = std::max(s.last_received, c.seq);
      break;
    default:
      break;
  }
}

void Sessions::join_virtual(std::uint32_t i, std::uint64_t token, const aoi::Player& spawn) {
  Slot& s = slots_[i];
  s = Slot{};
  s.state = SlotState::Joining;
  s.token = token;
  s.spawn = spawn;
}

}  // namespace warpmind::server
