// ZoneBus: the NATS connection the zones of one warpmind-server cluster share (docs/server.md, "Zones").
// Built with the NATS client library (libnats-dev) when WARPMIND_HAVE_NATS is defined; without it
// connect() says so and the server runs one zone only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#ifdef WARPMIND_HAVE_NATS
#include <nats/nats.h>
#endif

namespace warpmind::net {

// The bus the zones of a cluster talk over: NATS subjects "<prefix>.tick" (every zone's tick message)
// and "<prefix>.relay.<zone>" (States and Events for the clients connected to that zone).
class ZoneBus {
 public:
  ZoneBus() = default;
  ZoneBus(const ZoneBus&) = delete;
  ZoneBus& operator=(const ZoneBus&) = delete;
  ~ZoneBus() { close(); }
#ifdef WARPMIND_HAVE_NATS
  // Empty string, or why the bus cannot be reached.
  std::string connect(const std::string& url, const std::string& prefix, int zone) {
    natsOptions* o = nullptr;
    natsStatus st = natsOptions_Create(&o);
    if (st == NATS_OK) st = natsOptions_SetURL(o, url.c_str());
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
  bool publish(const std::string& subject, const std::vector<std::uint8_t>& data) {
    return nc_ && natsConnection_Publish(nc_, subject.c_str(), data.data(), static_cast<int>(data.size())) == NATS_OK;
  }
  // The next message of the tick (or relay) subscription within timeout_ms (0: only one already here).
  bool next(bool relay, int timeout_ms, std::vector<std::uint8_t>& out) {
    natsSubscription* sub = relay ? relays_ : ticks_;
    natsMsg* m = nullptr;
    if (sub == nullptr || natsSubscription_NextMsg(&m, sub, timeout_ms) != NATS_OK) return false;
    const auto* d = reinterpret_cast<const std::uint8_t*>(natsMsg_GetData(m));
    out.assign(d, d + natsMsg_GetDataLength(m));
    natsMsg_Destroy(m);
    return true;
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
  }

 private:
  natsConnection* nc_ = nullptr;
  natsSubscription *ticks_ = nullptr, *relays_ = nullptr;
#else
  std::string connect(const std::string&, const std::string&, int) {
    return "this build has no NATS client (libnats-dev)";
  }
  bool publish(const std::string&, const std::vector<std::uint8_t>&) { return false; }
  bool next(bool, int, std::vector<std::uint8_t>&) { return false; }
  void close() {}
#endif
};

}  // namespace warpmind::net
