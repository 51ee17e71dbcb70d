// warpmind-server's limits beyond the protocol's: datagrams a second by address (--address-rate, before
// ENet parses them), and connections dropped for never saying Hello or for piling up unacknowledged
// reliable data. Messages a second by connection (--peer-rate) are taken in server_sessions.cpp.
#include "server.h"

namespace warpmind::server {

namespace {

Server* g_server = nullptr;  // for ENet's intercept callback, which has no user data

// Every raw datagram, before ENet parses it: counted, and dropped when its address sends more than
// --address-rate a second (a flood never reaches the protocol).
int intercept(ENetHost* h, ENetEvent*) {
  Server& self = *g_server;
  ++self.datagrams_in;
  self.datagram_bytes_in += h->receivedDataLength;
  const Clock::time_point now = Clock::now();
  if (now - self.address_sweep > std::chrono::seconds(10) || self.address_buckets.size() > 65536) {
    std::erase_if(self.address_buckets,
                  [now](const auto& kv) { return now - kv.second.last > std::chrono::seconds(5); });
    if (self.address_buckets.size() > 65536) self.address_buckets.clear();
    self.address_sweep = now;
  }
  const std::uint64_t key = (std::uint64_t{h->receivedAddress.host} << 16) | h->receivedAddress.port;
  if (!self.address_buckets[key].take(self.f.address_rate, now)) {
    ++self.drops[Flood];
    return 1;  // consumed: ENet never sees it
  }
  return 0;
}

}  // namespace

void Server::limit_addresses() {
  g_server = this;
  host->intercept = &intercept;
}

// Connections that never said Hello, or whose reliable data piles up unacknowledged, are dropped.
void Server::sweep_peers() {
  const Clock::time_point now = Clock::now();
  for (std::size_t i = 0; i < host->peerCount; ++i) {
    ENetPeer* p = &host->peers[i];
    if (p->state != ENET_PEER_STATE_CONNECTED || p->data == nullptr) continue;
    Conn* c = static_cast<Conn*>(p->data);
    const bool silent = c->slot < 0 && !c->observer && now - c->connected > std::chrono::seconds(5);
    const bool slow = p->reliableDataInTransit > 256 * 1024 || enet_list_size(&p->outgoingCommands) > 4096;
    if (silent || slow) {
      slow_peers += slow;
      release(p);
      enet_peer_disconnect_now(p, 0);
    }
  }
}

}  // namespace warpmind::server
