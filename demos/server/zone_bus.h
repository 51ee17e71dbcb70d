// ZoneBus: the NATS connection the zones of one warpmind-server cluster share (docs/server.md, "Zones").
// Built with the NATS client library (libnats-dev) and libsodium when WARPMIND_HAVE_NATS is defined;
// without them connect() says so and the server runs one zone only.
//
// The bus is authenticated twice over: the NATS server admits only a client with the cluster's user and
// password (connect's `user`, `password`), and every message carries a tag, HMAC-SHA-256 with the
// cluster's 32-byte key over its subject and payload, that next() checks before anything of the message is
// read: a message without the right tag is dropped and counted, so only a holder of the key can speak for
// a zone, whoever else reaches the NATS server.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
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

  ZoneBus() = default;
  ZoneBus(const ZoneBus&) = delete;
  ZoneBus& operator=(const ZoneBus&) = delete;
  ~ZoneBus() { close(); }
#ifdef WARPMIND_HAVE_NATS
  // Empty string, or why the bus cannot be reached. `user` empty: no NATS credentials.
  std::string connect(const std::string& url, const std::string& prefix, int zone, const Key& key,
                      const std::string& user, const std::string& password) {
    if (sodium_init() < 0) return "libsodium cannot start";
    key_ = key;
    natsOptions* o = nullptr;
    natsStatus st = natsOptions_Create(&o);
    if (st == NATS_OK) st = natsOptions_SetURL(o, url.c_str());
    if (st == NATS_OK && !user.empty()) st = natsOptions_SetUserInfo(o, user.c_str(), password.c_str());
    if (st == NATS_OK) st = natsOptions_SetNoEcho(o, true);  // a zone never hears its own messages
    if (st == NATS_OK) st = natsOptions_SetTimeout(o, 5000);
    if (st == NATS_OK) st = natsConnection_Connect(&nc_, o);
    natsOptions_Destroy(o);
    if (st == NATS_OK) st = natsConnection_SubscribeSync(&ticks_, nc_, (prefix + ".tick").c_str());
    if (st == NATS_OK)
      st = natsConnection_SubscribeSync(&relays_, nc_, (prefix + ".relay." + std::to_string(zone)).c_str());
    if (st == NATS_OK) st = natsConnection_FlushTimeout(nc_, 5000);  // the subscriptions are in place
    return st == NATS_OK ? std::string() : std::string(natsStatus_GetText(st));
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
  void close() {
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
  Key key_{};
#else
  std::string connect(const std::string&, const std::string&, int, const Key&, const std::string&, const std::string&) {
    return "this build has no NATS client (libnats-dev) or libsodium (libsodium-dev)";
  }
  bool publish(const std::string&, std::vector<std::uint8_t>&) { return false; }
  Got next(bool, int, std::vector<std::uint8_t>&) { return Got::Nothing; }
  void close() {}
#endif
};

}  // namespace warpmind::net
