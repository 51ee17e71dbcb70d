// Watching a live warpmind-server (warpmind-demo --scene aoi --connect HOST:PORT; docs/server.md,
// "Watching a server"): an ENet connection that agrees its keys (Connect, Keys: docs/protocol.md, "Sealed
// packets"), then sends `Observe` instead of `Hello`, sealed like everything after it, takes the server's
// `Welcome` (its AOI world, AOI size and shape, tick rate) and then one `Snapshot` a tick (every player in
// the game: id, position, HP). No rendering and no ImGui here: the AOI scene (scene_aoi.cpp) and the
// headless run (main.cpp) draw what it holds with draw_observed().
//
// Threading: one thread owns a ServerObserver (ENet hosts are not thread-safe); poll() never waits.
// Built only where ENet and FlatBuffers are (the build defines WARPMIND_HAVE_OBSERVER=1 then).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "warpmind/aoi/aoi.h"
#include "warpmind/core/geometry.h"
#include "warpmind/engine/renderer.h"

struct _ENetHost;
struct _ENetPeer;

namespace warpmind::demos {

// Where a connection stands. Refused, Disconnected and Failed are final: open a new observer to retry.
enum class ObserverState {
  Connecting,    // ENet handshake under way (at most kObserverTimeout)
  Waiting,       // connected, Observe sent, no Welcome yet (at most kObserverTimeout)
  Watching,      // welcomed: snapshots arrive
  Refused,       // the server answered Refused (reason())
  Disconnected,  // the server or the network ended the connection after it was up
  Failed,        // no answer in time, or a Welcome that cannot be used (reason())
};
const char* observer_state_name(ObserverState s);

// How long the handshake and the Welcome may take each before the observer gives up.
inline constexpr double kObserverTimeoutS = 5.0;

// What the Welcome says about the server's world.
struct ObservedWorld {
  float map = 0;       // players move in [0, map] x [0, map]
  aoi::AoiConfig aoi;  // world (the map and the parking strip), aoi, shape: the rule's inputs
  std::uint32_t tick_hz = 0;
};

class ServerObserver {
 public:
  // Parses "HOST:PORT" (HOST an IPv4 address or a name, PORT 1..65535); empty or what is wrong.
  static std::string check_address(const std::string& address);
  // Starts connecting to `address` without waiting; empty, or why it cannot start (bad address, ENet).
  // `key`: the server's observer key (--observer-key-file), sent sealed in the Observe; empty: none (a
  // server without a key admits observers from loopback). `server_key`: the server's public key as
  // warpmind-server prints it (64 hexadecimal digits, --server-key; check_server_key()), or empty: any
  // server's key is taken. A server whose Keys carry another public key is left before anything is sent to
  // it sealed (no Observe, so no observer key reaches it): Failed, "the server's public key is not the one
  // given (--server-key)". Once watching, it sends an Ack a second, so that the server (--idle-seconds)
  // keeps it.
  static std::string open(const std::string& address, const std::string& key, const std::string& server_key,
                          std::unique_ptr<ServerObserver>& out);
  // Empty when `hex` is a public key open() takes (64 hexadecimal digits, either case), else why not.
  static std::string check_server_key(const std::string& hex);
  // The first line of `path` as an observer key (16 to 256 bytes, as the server reads it); empty, or why not.
  static std::string read_key(const std::string& path, std::string& key);
  ~ServerObserver();
  ServerObserver(const ServerObserver&) = delete;
  ServerObserver& operator=(const ServerObserver&) = delete;

  // Services the connection without blocking (enet_host_service with timeout 0), handling at most
  // `max_events` ENet events, so a frame's work is bounded. Call it every frame.
  void poll(int max_events = 256);
  // Leaves politely: a disconnect, serviced for at most `wait_s` seconds (0: sent without waiting).
  void close(double wait_s = 0.2);

  ObserverState state() const { return state_; }
  const std::string& reason() const { return reason_; }  // why Refused, Disconnected or Failed
  const std::string& address() const { return address_; }
  bool connected() const { return state_ == ObserverState::Waiting || state_ == ObserverState::Watching; }
  bool welcomed() const { return welcomed_; }
  const ObservedWorld& world() const { return world_; }  // valid once welcomed()

  // The latest snapshot (empty before the first): players in ascending ids, positions, HP.
  std::uint64_t tick() const { return tick_; }
  std::span<const std::uint32_t> ids() const { return ids_; }
  std::span<const aoi::Player> players() const { return players_; }
  std::uint64_t snapshots() const { return snapshots_; }
  // Packets that failed the verified read, or whose contents made no sense (ignored whole).
  std::uint64_t bad_packets() const { return bad_packets_; }
  double snapshots_per_second() const;  // over the last second
  double last_snapshot_age_s() const;   // -1 before the first
  // The "connect" object of stats.json: address, state, connected, welcomed, snapshots, last tick,
  // players, bad packets, reason.
  std::string stats_json() const;

 private:
  ServerObserver() = default;
  void fail(ObserverState s, const std::string& why);
  void on_packet(const std::uint8_t* data, std::size_t size, std::uint8_t channel);
  void on_message(const std::uint8_t* data, std::size_t size);
  void on_keys(const std::uint8_t* data, std::size_t size);
  void send_sealed(std::uint8_t channel, const std::uint8_t* data, std::size_t size);

  using Clock = std::chrono::steady_clock;
  _ENetHost* host_ = nullptr;
  _ENetPeer* peer_ = nullptr;
  std::string address_, reason_, key_;
  bool pinned_ = false;  // server_key given: the Keys must carry pin_
  std::uint8_t pin_[32] = {};
  ObserverState state_ = ObserverState::Connecting;
  Clock::time_point since_;  // when the current state began
  bool welcomed_ = false;
  ObservedWorld world_;
  std::uint64_t tick_ = 0, snapshots_ = 0, bad_packets_ = 0;
  std::vector<std::uint32_t> ids_;
  std::vector<aoi::Player> players_;
  std::deque<Clock::time_point> arrivals_;  // the last second's snapshots
  Clock::time_point last_snapshot_;
  Clock::time_point last_ack_;
  std::uint32_t ack_seq_ = 0;
  struct Sealing;  // the connection's key pair and keys (observer.cpp)
  std::unique_ptr<Sealing> sealing_;
  std::vector<std::uint8_t> opened_;  // a packet opened
};

// The players of the latest snapshot inside the AOI of the player with id `selected` by the module's rule
// (aoi_sees of tests/oracles/aoi_oracle.h on the Welcome's world and AOI), ascending ids, `selected`
// included; empty when it is not in the snapshot.
std::vector<std::uint32_t> observed_aoi(const ServerObserver& o, std::uint32_t selected);

// The picture of what the observer holds: the map's outline, the AOI bucket grid (square buckets laid
// from the world's corner; left out above 400 per side), players as discs coloured by HP, the selected
// player larger with its AOI (its 3 x 3 buckets, or the circle) and lines to the players in it.
void draw_observed(const ServerObserver& o, std::uint32_t selected, std::vector<engine::UnitInstance>& units,
                   std::vector<engine::LineVertex>& lines);

// The rectangle to show: the map (the Welcome's; 1000 x 1000 before it).
WorldRect observed_view(const ServerObserver& o);

}  // namespace warpmind::demos
