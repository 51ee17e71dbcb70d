// warpmind-server's limits (connection_limits.h).
#include "connection_limits.h"

#include "server.h"

namespace warpmind::server {

namespace {

Limits* g_limits = nullptr;  // for ENet's intercept callback, which has no user data

}  // namespace

// Every raw datagram, before ENet parses it: counted, and dropped when its address sends more than
// --address-rate a second (a flood never reaches the protocol).
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
  return 0;
}

void Limits::install() {
  g_limits = this;
  for (ENetHost* h : sv_.sockets.hosts()) h->intercept = &intercept;
}

// Connections that never said Hello, or whose reliable data piles up unacknowledged, are dropped;
// players whose clients went quiet leave; and handshakes that hang are reset (half_open below).
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
  for (std::size_t k = 0; k < sv_.sockets.hosts().size(); ++k) half_open(k, now);
  sv_.sessions.expire_detached();
}

// Host k's connections whose handshake (ENet's connect, verify, acknowledge) is not done: each holds one of the
// host's peers until ENet gives up on it (up to 30 s), so a sender of connects it never completes could
// take them all. One is reset once it is --half-open-ms old. And while fewer than a quarter of the
// host's peers are free, of the handshakes older than the grace (half of --half-open-ms, at most 1 s) one
// address (IP) keeps its --max-half-open newest: the oldest beyond are reset. A busy server completes
// honest handshakes late, so a burst of them from one address (players behind one NAT, a bot farm) is
// cut short only when the peers run out, and then only past the grace.
void Limits::half_open(std::size_t k, Clock::time_point now) {
  ENetHost* host = sv_.sockets.hosts()[k];
  std::vector<Clock::time_point>& since = half_open_since_[k];
  if (since.size() != host->peerCount) since.assign(host->peerCount, Clock::time_point{});
  std::vector<std::pair<std::uint32_t, std::size_t>>& open = half_open_peers_;  // (address, peer index)
  open.clear();
  const auto limit = std::chrono::milliseconds(sv_.f.limits.half_open_ms);
  const auto grace = std::min(limit / 2, std::chrono::milliseconds(1000));
  std::size_t free = 0;
  for (std::size_t i = 0; i < host->peerCount; ++i) {
    ENetPeer* p = &host->peers[i];
    free += p->state == ENET_PEER_STATE_DISCONNECTED;
    const bool handshake = p->state >= ENET_PEER_STATE_CONNECTING && p->state <= ENET_PEER_STATE_CONNECTION_SUCCEEDED;
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
    if (now - since[i] > grace) open.emplace_back(p->address.host, i);
  }
  if (free * 4 >= host->peerCount) return;                                          // peers enough for everyone
  if (open.size() <= static_cast<std::size_t>(sv_.f.limits.max_half_open)) return;  // no address can be over
  // By address, the newest first (then by index): the ones past --max-half-open are reset.
  std::sort(open.begin(), open.end(), [&since](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    if (since[a.second] != since[b.second]) return since[a.second] > since[b.second];
    return a.second < b.second;
  });
  int run = 0;
  for (std::size_t j = 0; j < open.size(); ++j) {
    run = j > 0 && open[j].first == open[j - 1].first ? run + 1 : 0;
    if (run < sv_.f.limits.max_half_open) continue;
    enet_peer_reset(&host->peers[open[j].second]);
    since[open[j].second] = Clock::time_point{};
    ++counts_.half_open_reset;
  }
}

}  // namespace warpmind::server
