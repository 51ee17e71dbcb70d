// warpmind-server's limits beyond the protocol's (server_limits.cpp): datagrams a second by address
// (--address-rate, before ENet parses them); connections dropped for never saying Hello or for piling up
// unacknowledged reliable data; players whose clients went quiet (--idle-seconds); handshakes never
// completed (--half-open-ms, --max-half-open by address); while peers are short, connections that never
// joined (--max-unjoined by address: the oldest beyond are dropped, and new connects refused). Messages
// a second by connection (--peer-rate) are taken with each packet (server_sessions.cpp), Detached
// players' grace (--resume-seconds) by the sessions.
//
// Called on the tick thread only: install() once the sockets are open, sweep() every 50 ms or so.
#pragma once

#include <enet/enet.h>

#include <chrono>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace warpmind::server {

struct Server;

// Whether the per-address caps (--max-sessions-per-address, ...) pass over an ENet address (network
// order): 127.0.0.1, the server's own host, whose bots and tools the operator runs.
inline bool uncapped_address(std::uint32_t host) { return ENET_NET_TO_HOST_32(host) == 0x7f000001u; }
// Whether `n` already held by one address leave it room for one more under `cap` (0: no cap).
inline bool under_cap(std::uint32_t host, std::size_t n, int cap) {
  return cap == 0 || uncapped_address(host) || n < static_cast<std::size_t>(cap);
}

// A token bucket: `rate` a second, bursts of `rate` (at least 1).
struct Bucket {
  using Clock = std::chrono::steady_clock;
  double tokens = 0;
  Clock::time_point last{};
  bool take(double rate, Clock::time_point now) {
    if (last == Clock::time_point{})
      tokens = rate;
    else
      tokens = std::min(rate, tokens + rate * std::chrono::duration<double>(now - last).count());
    last = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }
};

class Limits {
 public:
  using Clock = std::chrono::steady_clock;

  // What the summary reports of them.
  struct Counts {
    std::uint64_t datagrams_in = 0, datagram_bytes_in = 0;  // every datagram, before ENet parses it
    std::uint64_t slow_peers = 0, idle_players = 0, observers_idle = 0, half_open_reset = 0, unjoined_dropped = 0;
  };

  explicit Limits(Server& sv) : sv_(sv) {}

  // Every socket's datagrams counted and held to --address-rate from now on (one Limits per process:
  // ENet's intercept callback has no user data).
  void install();
  // Connections that never said Hello, or whose reliable data piles up unacknowledged, are dropped;
  // players whose clients went quiet leave; handshakes that hang are reset.
  void sweep();
  const Counts& counts() const { return counts_; }

 private:
  // A connection held by an address: its peer index on the host and since when it is in its state.
  struct Held {
    std::uint32_t address;
    Clock::time_point since;
    std::size_t index;
  };
  static int intercept(ENetHost* h, ENetEvent*);
  bool admit_connect(const ENetHost* h, std::uint32_t address);
  void short_of_peers(std::size_t k, Clock::time_point now);
  // Of `held`, each address keeps its `cap` newest (ties: the lower index); the others' indexes are
  // passed to `drop`. Reorders `held`.
  template <class Drop>
  static void keep_newest(std::vector<Held>& held, int cap, Drop drop);

  Server& sv_;
  Counts counts_;
  std::unordered_map<std::uint64_t, Bucket> address_buckets_;
  Clock::time_point address_sweep_{};
  std::vector<std::vector<Clock::time_point>> half_open_since_;  // by host, by peer: when its handshake began
  std::vector<Held> half_open_, unjoined_;                       // the sweep's, on one host
  std::vector<bool> short_;  // by host: fewer than a quarter of its peers free at the last sweep
  // By address (not 127.0.0.1): connections in the handshake or not joined at the last sweep, and
  // connects admitted since while short of peers.
  std::unordered_map<std::uint32_t, int> unjoined_by_address_;
};

}  // namespace warpmind::server
