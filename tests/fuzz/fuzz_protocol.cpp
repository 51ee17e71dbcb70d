// libFuzzer target: the server's wire protocol (demos/server/protocol.h, docs/protocol.md). A packet the
// verifier accepts is read field by field (every string, vector and union member the server or a bot
// touches) and must round-trip: rebuilt from what was read, it verifies again and reads the same. A
// packet it rejects reads as nullptr; none may crash. The same bytes are also read as the messages zones
// of a cluster exchange (zone_wire.h): accepted ones must re-encode to exactly the bytes read. And as a
// sealed packet (session_keys.h), with each cipher: the bytes never open with a connection's keys (they
// are no packet it sealed); sealed, they open to themselves, once, and not with the other cipher; with any
// one bit changed, not at all.
#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <vector>

#include "fuzz_common.h"
#include "protocol.h"
#include "session_keys.h"
#include "zone_wire.h"

namespace {

using namespace warpmind::net;

// Every field of the message, summed into a value the compiler cannot drop, and the message rebuilt.
std::uint64_t walk(const Message& m, flatbuffers::FlatBufferBuilder& b) {
  std::uint64_t sum = 0;
  flatbuffers::Offset<void> body;
  switch (m.body_type()) {
    case Body_Hello: {
      const Hello* h = m.body_as_Hello();
      sum += h->version();
      if (h->name())
        sum += h->name()->size() + (h->name()->size() ? static_cast<unsigned char>(h->name()->c_str()[0]) : 0);
      body =
          CreateHello(b, h->version(), h->name() ? b.CreateString(h->name()->c_str(), h->name()->size()) : 0).Union();
      break;
    }
    case Body_Move: {
      const Move* v = m.body_as_Move();
      sum += v->token() + v->seq() + v->ack();
      body = CreateMove(b, v->token(), v->seq(), v->x(), v->y(), v->ack()).Union();
      break;
    }
    case Body_Attack: {
      const Attack* a = m.body_as_Attack();
      sum += a->token() + a->seq() + a->target() + a->ack();
      body = CreateAttack(b, a->token(), a->seq(), a->target(), a->ack()).Union();
      break;
    }
    case Body_Ack: {
      const Ack* k = m.body_as_Ack();
      sum += k->token() + k->seq() + k->ack();
      body = CreateAck(b, k->token(), k->seq(), k->ack()).Union();
      break;
    }
    case Body_Observe:
      sum += m.body_as_Observe()->version();
      body = CreateObserve(b, m.body_as_Observe()->version()).Union();
      break;
    case Body_Snapshot: {
      const Snapshot* n = m.body_as_Snapshot();
      std::vector<PlayerState> players;
      if (n->players())
        for (const PlayerState* p : *n->players()) {
          sum += p->player() + static_cast<std::uint32_t>(p->hp());
          players.push_back(*p);
        }
      body = CreateSnapshot(b, n->tick(), n->time_us(), n->players() ? b.CreateVectorOfStructs(players) : 0).Union();
      break;
    }
    case Body_Leave:
      sum += m.body_as_Leave()->token();
      body = CreateLeave(b, m.body_as_Leave()->token()).Union();
      break;
    case Body_State: {
      const State* s = m.body_as_State();
      std::vector<Entry> entries, extra;
      if (s->notifications())
        for (const Entry* e : *s->notifications()) {
          sum += e->subject_field() + e->value();
          entries.push_back(*e);
        }
      if (s->catch_up())
        for (const Entry* e : *s->catch_up()) {
          sum += e->subject_field() + e->value();
          extra.push_back(*e);
        }
      sum += s->since();
      const auto notes = s->notifications() ? b.CreateVectorOfStructs(entries) : 0;
      const auto catch_up = s->catch_up() ? b.CreateVectorOfStructs(extra) : 0;
      body =
          CreateState(b, s->tick(), s->time_us(), s->last_seq(), s->x(), s->y(), s->hp(), notes, s->since(), catch_up)
              .Union();
      break;
    }
    case Body_Events: {
      const Events* e = m.body_as_Events();
      std::vector<std::uint32_t> in, out;
      if (e->entered()) in.assign(e->entered()->begin(), e->entered()->end());
      if (e->left()) out.assign(e->left()->begin(), e->left()->end());
      for (std::uint32_t v : in) sum += v;
      for (std::uint32_t v : out) sum += v;
      body = CreateEvents(b, e->tick(), e->entered() ? b.CreateVector(in) : 0, e->left() ? b.CreateVector(out) : 0)
                 .Union();
      break;
    }
    case Body_Connect: {
      const Connect* c = m.body_as_Connect();
      std::vector<std::uint8_t> key;
      if (c->key()) key.assign(c->key()->begin(), c->key()->end());
      for (std::uint8_t v : key) sum += v;
      sum += c->version() + c->aes256gcm();
      body = CreateConnect(b, c->version(), c->key() ? b.CreateVector(key) : 0, c->aes256gcm()).Union();
      break;
    }
    case Body_Welcome:
    case Body_Refused:
    case Body_Keys:
    default:
      return sum;  // sent by the server only: read by the bots, whose reading is the verifier's
  }
  b.Finish(CreateMessage(b, m.body_type(), body), MessageIdentifier());
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The server hands the reader the packet as ENet delivered it: a buffer of exactly `size` bytes.
  std::vector<std::uint8_t> packet(data, data + size);
  {
    TickMessage t;
    std::vector<std::uint8_t> again;
    if (decode_tick(packet.data(), packet.size(), 4, 1u << 12, t)) {
      encode_tick(t, again);
      FUZZ_CHECK(again == packet);
    }
    StoredZone z;
    if (decode_stored(packet.data(), packet.size(), 1, 8, 32, 5, z)) {
      encode_stored(z, again);
      FUZZ_CHECK(again == packet);
    }
    std::vector<RelayRecord> records;
    if (decode_relay(packet.data(), packet.size(), 4, 1u << 12, 2, 4096, records)) {
      begin_relay(again, wire::get<std::uint32_t>(packet.data() + 4), wire::get<std::uint64_t>(packet.data() + 8));
      for (const RelayRecord& r : records) add_relay(again, r.player, r.channel, r.message);
      FUZZ_CHECK(again == packet);
    }
  }
  for (const Cipher cipher : {Cipher_ChaCha20Poly1305, Cipher_Aes256Gcm}) {  // AES-256-GCM where the processor has it
    if (cipher == Cipher_Aes256Gcm && !aes256gcm_available()) continue;
    static const std::uint8_t master[crypto_kdf_KEYBYTES] = {7};
    SessionKeys client, server, client2, other;
    if (!SessionKeys::derive_pair(master, 1, client, server) || !client.use(cipher) || !server.use(cipher))
      __builtin_trap();
    std::vector<std::uint8_t> plain(size + kSealOverhead), sealed(size + kSealOverhead);
    std::size_t n = 0;
    FUZZ_CHECK(server.open(0, packet.data(), packet.size(), plain.data(), n) != OpenError::None);
    client.seal(1, packet.data(), packet.size(), sealed.data());
    FUZZ_CHECK(server.open(0, sealed.data(), sealed.size(), plain.data(), n) == OpenError::Forged);  // other channel
    if (cipher == Cipher_Aes256Gcm) {  // the same keys, the other cipher: never opens
      if (!SessionKeys::derive_pair(master, 1, client2, other)) __builtin_trap();
      FUZZ_CHECK(other.open(1, sealed.data(), sealed.size(), plain.data(), n) == OpenError::Forged);
    }
    FUZZ_CHECK(server.open(1, sealed.data(), sealed.size(), plain.data(), n) == OpenError::None && n == size &&
               (size == 0 || std::memcmp(plain.data(), packet.data(), size) == 0));  // (no memcmp of an empty one)
    FUZZ_CHECK(server.open(1, sealed.data(), sealed.size(), plain.data(), n) == OpenError::Replayed);
    const std::size_t bit = size ? data[0] % (8 * sealed.size()) : 0;
    sealed[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    FUZZ_CHECK(server.open(1, sealed.data(), sealed.size(), plain.data(), n) != OpenError::None);
  }
  const Message* m = read_message(packet.data(), packet.size());
  if (!m) return 0;
  flatbuffers::FlatBufferBuilder b;
  const std::uint64_t sum = walk(*m, b);
  if (b.GetSize() == 0) return 0;
  const Message* again = read_message(b.GetBufferPointer(), b.GetSize());
  FUZZ_CHECK(again != nullptr && again->body_type() == m->body_type());
  flatbuffers::FlatBufferBuilder b2;
  FUZZ_CHECK(walk(*again, b2) == sum);
  FUZZ_CHECK(b2.GetSize() == b.GetSize() && std::memcmp(b2.GetBufferPointer(), b.GetBufferPointer(), b.GetSize()) == 0);
  return 0;
}
