// warpmind-server's limits (connection_limits.h).
#include "connection_limits.h"

#include <algorithm>

#include "datagram_check.h"
#include "server.h"

namespace warpmind::server {

namespace {

Limits* g_limits = nullptr;  // for ENet's intercept callback, which has no user data

}  // namespace

// Every raw datagram, before ENet parses it: counted, and dropped when its address sends more than
// --address-rate a second (a flood never reaches the protocol), or when it is garbage to ENet or holds a
// fragment (datagram_check.h).
int Limits::intercept(ENetHost* h, ENetEvent*) {
  Limits& self = *g_limits;
  ++self.counts_.datagrams_in;
  self.counts_.datagram_bytes_in += h->receivedDataLength;
  const Clock::time_point now = Clock::now();
  if (now - self.address_sweep_ > std::chrono::seconds(10) || self.address_buckets_.size() > 65536) {
    std::erase_if(self.address_buckets_,
                  [now](const auto& kv) { return now - kv.second.last > std::chrono::seconds(5); });
    if (self.address_buckets_.size() > 65536) self.address_buckets_.clear();
    self.address_sweep_ = now;
  }
  const std::uint64_t key = (std::uint64_t{h->receivedAddress.host} << 16) | h->receivedAddress.port;
  if (!self.address_buckets_[key].take(self.sv_.f.limits.address_rate, now)) {
    self.sv_.sessions.count_drop(Flood);
    return 1;  // consumed: ENet never sees it
  }
  switch (inspect_datagram(*h, h->receivedAddress, h->receivedData, h->receivedDataLength)) {
    case DatagramVerdict::Pass:
      return 0;
    case DatagramVerdict::Connect:
      if (self.admit_connect(h, h->receivedAddress.host)) return 0;
      self.sv_.sessions.count_drop(AddressCap);
      return 1;
    case DatagramVerdict::Garbage:
      self.sv_.sessions.count_drop(Garbage);
      return 1;
    case DatagramVerdict::Fragment:
      self.sv_.sessions.count_drop(Fragment);
      return 1;
  }
  return 0;
}

// While host h is short of peers, an address (not 127.0.0.1) that holds --max-unjoined connections in
// the handshake or not joined gets no more: its connects are dropped before ENet gives them a peer.
bool Limits::admit_connect(const ENetHost* h, std::uint32_t address) {
  const auto& hosts = sv_.sockets.hosts();
  const std::size_t k = static_cast<std::size_t>(std::find(hosts.begin(), hosts.end(), h) - hosts.begin());
  if (k >= short_.size() || !short_[k] || uncapped_address(address)) return true;
  int& held = unjoined_by_address_[address];
  if (held >= sv_.f.limits.max_unjoined) return false;
  ++held;
  return true;
}

void Limits::install() {
  g_limits = this;
  for (ENetHost* h : sv_.sockets.hosts()) h->intercept = &intercept;
}

// Connections that never said Hello, or whose reliable data piles up unacknowledged, are dropped;
// players whose clients went quiet leave; and handshakes that hang are reset (short_of_peers below).
void Limits::sweep() {
  const Clock::time_point now = Clock::now();
  sv_.sockets.for_each_peer([&](std::size_t, std::size_t, ENetPeer* p) {
    if (p->state != ENET_PEER_STATE_CONNECTED || p->data == nullptr) return;
    Conn* c = static_cast<Conn*>(p->data);
    const bool silent = c->slot < 0 && !c->observer && now - c->connected > std::chrono::seconds(5);
    const bool slow = p->reliableDataInTransit > 256 * 1024 || enet_list_size(&p->outgoingCommands) > 4096;
    // Joined, and nothing with its token for --idle-seconds (ENet keeps a connection alive by itself, so
    // a client that holds a slot and sends nothing would hold it for ever).
    const bool idle = c->slot >= 0 && sv_.f.limits.idle_seconds > 0 &&
                      static_cast<double>(sv_.tick - sv_.sessions.slot(c->slot).heard_tick) >
                          sv_.f.limits.idle_seconds * sv_.f.tick_hz;
    // An observer that sent nothing (warpmind-demo sends an Ack a second) for --idle-seconds.
    const bool gone_quiet = c->observer && sv_.f.limits.idle_seconds > 0 &&
                            std::chrono::duration<double>(now - c->heard).count() > sv_.f.limits.idle_seconds;
    if (silent || slow || idle || gone_quiet) {
      counts_.slow_peers += slow;
      counts_.idle_players += idle && !slow;
      counts_.observers_idle += gone_quiet && !slow;
      sv_.sessions.release(p);
      enet_peer_disconnect_now(p, 0);
    }
  });
  if (half_open_since_.size() != sv_.sockets.hosts().size()) half_open_since_.resize(sv_.sockets.hosts().size());
  short_.resize(sv_.sockets.hosts().size());
  unjoined_by_address_.clear();
  for (std::size_t k = 0; k < sv_.sockets.hosts().size(); ++k) short_of_peers(k, now);
  sv_.sessions.expire_detached();
}

// Host k's connections whose handshake (ENet's connect, verify, acknowledge) is not done: each holds one
// of the host's peers until ENet gives up on it (up to 30 s), so a sender of connects it never completes
// could take them all. One is reset once it is --half-open-ms old. And while fewer than a quarter of the
// host's peers are free, of the handshakes older than the grace (half of --half-open-ms, at most 1 s) one
// address (IP) keeps its --max-half-open newest: the oldest beyond are reset; likewise of the connections
// older than the grace that neither joined nor observe (an attacker that agrees keys and never says
// Hello, reconnecting each time the 5-second rule drops it), its --max-unjoined newest: the oldest beyond
// are dropped (127.0.0.1, the server's own host, is held to none). A busy server completes honest
// handshakes late, so a burst of them from one address (players behind one NAT, a bot farm) is cut short
// only when the peers run out, and then only past the grace.
void Limits::short_of_peers(std::size_t k, Clock::time_point now) {
  ENetHost* host = sv_.sockets.hosts()[k];
  std::vector<Clock::time_point>& since = half_open_since_[k];
  if (since.size() != host->peerCount) since.assign(host->peerCount, Clock::time_point{});
  half_open_.clear();
  unjoined_.clear();
  const auto limit = std::chrono::milliseconds(sv_.f.limits.half_open_ms);
  const auto grace = std::min(limit / 2, std::chrono::milliseconds(1000));
  std::size_t free = 0;
  for (std::size_t i = 0; i < host->peerCount; ++i) {
    ENetPeer* p = &host->peers[i];
    free += p->state == ENET_PEER_STATE_DISCONNECTED;
    const Conn* c = static_cast<const Conn*>(p->data);
    const bool unjoined = p->state == ENET_PEER_STATE_CONNECTED && c != nullptr && c->slot < 0 && !c->observer;
    const bool handshake = p->state >= ENET_PEER_STATE_CONNECTING && p->state <= ENET_PEER_STATE_CONNECTION_SUCCEEDED;
    if (!uncapped_address(p->address.host)) {
      if (unjoined || handshake) ++unjoined_by_address_[p->address.host];
      if (unjoined && now - c->connected > grace) unjoined_.push_back({p->address.host, c->connected, i});
    }
    if (!handshake) {
      since[i] = Clock::time_point{};
      continue;
    }
    if (since[i] == Clock::time_point{}) since[i] = now;
    if (now - since[i] > limit) {
      enet_peer_reset(p);
      since[i] = Clock::time_point{};
      ++counts_.half_open_reset;
      continue;
    }
    if (now - since[i] > grace) half_open_.push_back({p->address.host, since[i], i});
  }
  short_[k] = free * 4 < host->peerCount;
  if (!short_[k]) return;  // peers enough for everyone
  keep_newest(half_open_, sv_.f.limits.max_half_open, [&](std::size_t i) {
    enet_peer_reset(&host->peers[i]);
    since[i] = Clock::time_point{};
    ++counts_.half_open_reset;
  });
  keep_newest(unjoined_, sv_.f.limits.max_unjoined, [&](std::size_t i) {
    sv_.sessions.release(&host->peers[i]);
    enet_peer_disconnect_now(&host->peers[i], 0);
    ++counts_.unjoined_dropped;
  });
}

template <class Drop>
void Limits::keep_newest(std::vector<Held>& held, int cap, Drop drop) {
  if (held.size() <= static_cast<std::size_t>(cap)) return;  // no address can be over
  std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) {
    if (a.address != b.address) return a.address < b.address;
    if (a.since != b.since) return a.since > b.since;
    return a.index < b.index;
  });
  int run = 0;
  for (std::size_t j = 0; j < held.size(); ++j) {
    run = j > 0 && held[j].address == held[j - 1].address ? run + 1 : 0;
    if (run >= cap) drop(held[j].index);
  }
}

}  // namespace warpmind::server
