// ZoneBus: the NATS connection the zones of one warpmind-server cluster share (docs/server.md, "Zones").
// Built with the NATS client library (libnats-dev) and libsodium when WARPMIND_HAVE_NATS is defined;
// without them connect() says so and the server runs one zone only.
//
// The bus is authenticated twice over: the NATS server admits only a client with the cluster's user and
// password (connect's `user`, `password`), and every message carries a tag, HMAC-SHA-256 with the
// cluster's 32-byte key over its subject and payload, that next() checks before anything of the message is
// read: a message without the right tag is dropped and counted, so only a holder of the key can speak for
// a zone, whoever else reaches the NATS server. With TLS (connect's `tls`: the CA file given) the
// connection is encrypted and the NATS server's certificate must be signed by that CA (its chain is
// checked, not its name: the CA is the cluster's own); with a client certificate and key as well, the NATS
// server can require them (`verify: true`), so only the cluster's zones connect at all.
//
// With a store (open_store, --zone-store), the bus also keeps what a zone needs to come back after a
// crash, in NATS JetStream (docs/server.md, "A zone crash"): a stream of every zone's tick messages (the
// last 10 s) and a stream holding each zone's last stored state, both signed like every other message.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#ifdef WARPMIND_HAVE_NATS
#include <nats/nats.h>
#include <sodium.h>
#endif

namespace warpmind::net {

// The bus the zones of a cluster talk over: NATS subjects "<prefix>.tick" (every zone's tick message)
// and "<prefix>.relay.<zone>" (States and Events for the clients connected to that zone).
class ZoneBus {
 public:
  static constexpr std::size_t kKeyBytes = 32, kTagBytes = 32;
  using Key = std::array<std::uint8_t, kKeyBytes>;
  enum class Got { Nothing, Message, BadTag };
  // TLS to the NATS server: ca_file empty means none (plain TCP); cert_file and key_file (PEM) are the
  // zone's client certificate, both or neither; name, when given, a DNS name the server's certificate
  // must carry (otherwise only its chain to the CA is checked).
  struct Tls {
    std::string ca_file, cert_file, key_file, name;
  };

  ZoneBus() = default;
  ZoneBus(const ZoneBus&) = delete;
  ZoneBus& operator=(const ZoneBus&) = delete;
  ~ZoneBus() { close(); }
#ifdef WARPMIND_HAVE_NATS
  // Empty string, or why the bus cannot be reached. `user` empty: no NATS credentials.
  std::string connect(const std::string& url, const std::string& prefix, int zone, const Key& key,
                      const std::string& user, const std::string& password, const Tls& tls = {}) {
    if (sodium_init() < 0) return "libsodium cannot start";
    key_ = key;
    natsOptions* o = nullptr;
    natsStatus st = natsOptions_Create(&o);
    if (st == NATS_OK) st = natsOptions_SetURL(o, url.c_str());
    if (st == NATS_OK && !user.empty()) st = natsOptions_SetUserInfo(o, user.c_str(), password.c_str());
    if (st == NATS_OK && !tls.ca_file.empty()) st = natsOptions_SetSecure(o, true);
    if (st == NATS_OK && !tls.ca_file.empty()) st = natsOptions_LoadCATrustedCertificates(o, tls.ca_file.c_str());
    if (st == NATS_OK && !tls.cert_file.empty())
      st = natsOptions_LoadCertificatesChain(o, tls.cert_file.c_str(), tls.key_file.c_str());
    if (st == NATS_OK && !tls.name.empty()) st = natsOptions_SetExpectedHostname(o, tls.name.c_str());
    if (st == NATS_OK) st = natsOptions_SetNoEcho(o, true);  // a zone never hears its own messages
    if (st == NATS_OK) st = natsOptions_SetTimeout(o, 5000);
    if (st == NATS_OK) st = natsConnection_Connect(&nc_, o);
    natsOptions_Destroy(o);
    if (st == NATS_OK) st = natsConnection_SubscribeSync(&ticks_, nc_, (prefix + ".tick").c_str());
    if (st == NATS_OK)
      st = natsConnection_SubscribeSync(&relays_, nc_, (prefix + ".relay." + std::to_string(zone)).c_str());
    if (st == NATS_OK) st = natsConnection_FlushTimeout(nc_, 5000);  // the subscriptions are in place
    if (st == NATS_OK) return {};
    std::string why = natsStatus_GetText(st);
    if (const char* detail = nats_GetLastError(nullptr); detail != nullptr && *detail != '\0' && why != detail)
      why += std::string(" (") + detail + ")";
    return why;
  }
  // Publishes data with its tag (appended to `data` for the call, then taken off again).
  bool publish(const std::string& subject, std::vector<std::uint8_t>& data) {
    if (!nc_) return false;
    const std::size_t n = data.size();
    data.resize(n + kTagBytes);
    tag(subject, data.data(), n, data.data() + n);
    const bool ok = natsConnection_Publish(nc_, subject.c_str(), data.data(), static_cast<int>(data.size())) == NATS_OK;
    data.resize(n);
    return ok;
  }
  // The next message of the tick (or relay) subscription within timeout_ms (0: only one already here),
  // its tag checked and taken off: Message (in `out`), BadTag (dropped), or Nothing.
  Got next(bool relay, int timeout_ms, std::vector<std::uint8_t>& out) {
    natsSubscription* sub = relay ? relays_ : ticks_;
    natsMsg* m = nullptr;
    if (sub == nullptr || natsSubscription_NextMsg(&m, sub, timeout_ms) != NATS_OK) return Got::Nothing;
    return checked(m, out);
  }

 private:
  // A message's tag checked and taken off (the message destroyed): Message (in `out`) or BadTag.
  Got checked(natsMsg* m, std::vector<std::uint8_t>& out) {
    const auto* d = reinterpret_cast<const std::uint8_t*>(natsMsg_GetData(m));
    const std::size_t size = static_cast<std::size_t>(natsMsg_GetDataLength(m));
    bool good = size >= kTagBytes;
    if (good) {
      std::uint8_t want[kTagBytes];
      tag(natsMsg_GetSubject(m), d, size - kTagBytes, want);
      good = sodium_memcmp(want, d + size - kTagBytes, kTagBytes) == 0;
    }
    if (good) out.assign(d, d + size - kTagBytes);
    natsMsg_Destroy(m);
    return good ? Got::Message : Got::BadTag;
  }

 public:
  // The JetStream streams of the cluster under `prefix` (made if missing; the zones make them alike):
  // <PREFIX>_TICKS keeps the subject <prefix>.tick for 10 s, <PREFIX>_STATE the last message of each
  // <prefix>.state.<zone>, in memory. Empty string or why not.
  std::string open_store(const std::string& prefix) {
    if (!nc_) return "no bus";
    jsErrCode jerr = static_cast<jsErrCode>(0);
    if (natsConnection_JetStream(&js_, nc_, nullptr) != NATS_OK) return "no JetStream context";
    std::string base = prefix;
    std::replace(base.begin(), base.end(), '.', '_');
    ticks_stream_ = base + "_TICKS";
    state_stream_ = base + "_STATE";
    const std::string tick_subject = prefix + ".tick", state_subject = prefix + ".state.*";
    for (int k = 0; k < 2; ++k) {
      jsStreamConfig c;
      jsStreamConfig_Init(&c);
      const char* subjects[] = {k == 0 ? tick_subject.c_str() : state_subject.c_str()};
      c.Name = k == 0 ? ticks_stream_.c_str() : state_stream_.c_str();
      c.Subjects = subjects;
      c.SubjectsLen = 1;
      c.Storage = js_MemoryStorage;
      if (k == 0) {
        c.MaxAge = std::int64_t{10} * 1000000000;
        c.MaxMsgs = 1 << 16;
      } else {
        c.MaxMsgsPerSubject = 1;
      }
      // The zones start together: when another made the stream first, adding it fails one way or
      // another, and the stream is there.
      natsStatus st = NATS_ERR;
      for (int attempt = 0; attempt < 5 && st != NATS_OK; ++attempt) {
        jsStreamInfo* si = nullptr;
        st = js_AddStream(&si, js_, &c, nullptr, &jerr);
        if (si) jsStreamInfo_Destroy(si);
        si = nullptr;
        if (st != NATS_OK && js_GetStreamInfo(&si, js_, c.Name, nullptr, &jerr) == NATS_OK) st = NATS_OK;
        if (si) jsStreamInfo_Destroy(si);
        if (st != NATS_OK) nats_Sleep(100);
      }
      if (st != NATS_OK)
        return std::string("JetStream stream ") + c.Name + ": " + natsStatus_GetText(st) +
               " (is nats-server running with -js?)";
    }
    return {};
  }
  // Waits until everything published so far has reached the NATS server.
  void flush() {
    if (nc_) natsConnection_FlushTimeout(nc_, 5000);
  }
  // Stores data (signed) as the zone's state, waiting for JetStream's acknowledgement: true once kept.
  bool store(const std::string& subject, std::vector<std::uint8_t>& data) {
    if (!js_) return false;
    const std::size_t n = data.size();
    data.resize(n + kTagBytes);
    tag(subject, data.data(), n, data.data() + n);
    jsPubAck* ack = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    const bool ok =
        js_Publish(&ack, js_, subject.c_str(), data.data(), static_cast<int>(data.size()), nullptr, &jerr) == NATS_OK;
    if (ack) jsPubAck_Destroy(ack);
    data.resize(n);
    return ok;
  }
  // The last state stored on `subject`, its tag checked: Message (in `out`), BadTag, or Nothing.
  Got load(const std::string& subject, std::vector<std::uint8_t>& out) {
    natsMsg* m = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    if (!js_ || js_GetLastMsg(&m, js_, state_stream_.c_str(), subject.c_str(), nullptr, &jerr) != NATS_OK)
      return Got::Nothing;
    return checked(m, out);
  }
  // The last `count` tick messages the store kept, newest first, each checked and passed to fn
  // (BadTag ones too, with an empty payload); fn returns false to stop.
  void tick_log(std::size_t count, const std::function<bool(Got, std::vector<std::uint8_t>&)>& fn) {
    jsStreamInfo* si = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    if (!js_ || js_GetStreamInfo(&si, js_, ticks_stream_.c_str(), nullptr, &jerr) != NATS_OK) return;
    const std::uint64_t first = si->State.FirstSeq, last = si->State.LastSeq, msgs = si->State.Msgs;
    jsStreamInfo_Destroy(si);
    std::vector<std::uint8_t> out;
    for (std::uint64_t seq = last; msgs > 0 && seq >= first && seq > 0 && count > 0; --seq, --count) {
      natsMsg* m = nullptr;
      if (js_GetMsg(&m, js_, ticks_stream_.c_str(), seq, nullptr, &jerr) != NATS_OK) continue;
      const Got got = checked(m, out);
      if (got == Got::BadTag) out.clear();
      if (!fn(got, out)) return;
    }
  }
  // A session token a zone can make again after a crash: the first 8 bytes of HMAC-SHA-256 with the
  // cluster key over (zone, slot, the tick the session joined in), never 0. Unguessable without the key.
  std::uint64_t derive_token(std::uint32_t zone, std::uint32_t slot, std::uint64_t join_tick) const {
    std::uint8_t in[24] = {'w', 'm', 't', 'o', 'k', 'e', 'n', '1'}, out[kTagBytes];
    std::memcpy(in + 8, &zone, 4);
    std::memcpy(in + 12, &slot, 4);
    std::memcpy(in + 16, &join_tick, 8);
    crypto_auth_hmacsha256(out, in, sizeof in, key_.data());
    std::uint64_t t;
    std::memcpy(&t, out, 8);
    return t == 0 ? 1 : t;
  }
  void close() {
    if (js_) jsCtx_Destroy(js_);
    js_ = nullptr;
    if (ticks_) natsSubscription_Destroy(ticks_);
    if (relays_) natsSubscription_Destroy(relays_);
    if (nc_) {
      natsConnection_FlushTimeout(nc_, 1000);
      natsConnection_Destroy(nc_);
    }
    if (nc_ || ticks_ || relays_) nats_Close();
    ticks_ = relays_ = nullptr;
    nc_ = nullptr;
    sodium_memzero(key_.data(), key_.size());
  }

 private:
  // HMAC-SHA-256 with the cluster key over the subject, a zero byte and the payload.
  void tag(const char* subject, const std::uint8_t* data, std::size_t n, std::uint8_t* out) const {
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, key_.data(), key_.size());
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(subject), std::strlen(subject) + 1);
    crypto_auth_hmacsha256_update(&st, data, n);
    crypto_auth_hmacsha256_final(&st, out);
  }
  void tag(const std::string& subject, const std::uint8_t* data, std::size_t n, std::uint8_t* out) const {
    tag(subject.c_str(), data, n, out);
  }
  natsConnection* nc_ = nullptr;
  natsSubscription *ticks_ = nullptr, *relays_ = nullptr;
  jsCtx* js_ = nullptr;
  std::string ticks_stream_, state_stream_;
  Key key_{};
#else
  std::string connect(const std::string&, const std::string&, int, const Key&, const std::string&, const std::string&) {
    return "this build has no NATS client (libnats-dev) or libsodium (libsodium-dev)";
  }
  bool publish(const std::string&, std::vector<std::uint8_t>&) { return false; }
  Got next(bool, int, std::vector<std::uint8_t>&) { return Got::Nothing; }
  std::string open_store(const std::string&) { return "no NATS client in this build"; }
  void flush() {}
  bool store(const std::string&, std::vector<std::uint8_t>&) { return false; }
  Got load(const std::string&, std::vector<std::uint8_t>&) { return Got::Nothing; }
  void tick_log(std::size_t, const std::function<bool(Got, std::vector<std::uint8_t>&)>&) {}
  std::uint64_t derive_token(std::uint32_t, std::uint32_t, std::uint64_t) const { return 1; }
  void close() {}
#endif
};

}  // namespace warpmind::net
