// warpmind-server's sessions (server_sessions.cpp): the slot table of this zone's players, the observers,
// the server's key pair, and what clients say — Connect, Hello, Observe, Leave, and the commands and
// acknowledgements checked against their connection's token and seq. Every other part reads a slot
// through slot() and moves it on only through the calls below, each saying which change it makes.
//
// A slot goes Free -> (Hello) Joining -> (its tick) Active -> (Leave, idle, slow) Leaving -> (its tick)
// Free; a lost connection makes an Active slot Detached: the player stays in the game, commanding
// nothing, until a Hello with its token makes it Active again or --resume-seconds pass (then Leaving).
//
// Called on the tick thread only, except take_command(), which touches only its own slot and may run for
// different slots on several threads at once (the virtual clients' intake).
#pragma once

#include <enet/enet.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "drops.h"
#include "protocol.h"
#include "sent_filter.h"
#include "session_keys.h"
#include "sockets.h"
#include "warpmind/aoi/aoi.h"
#include "zone_wire.h"

namespace warpmind::server {

struct Server;

enum class SlotState { Free, Joining, Active, Leaving, Detached };
// Whether a slot's player is in the game (on the map, seen and attackable).
inline bool playing(SlotState s) { return s == SlotState::Active || s == SlotState::Detached; }

// The HP a player joins with (Welcome.hp): a reused id is healed back to it in its join tick.
constexpr std::int32_t kSpawnHp = 100;

struct Slot {
  SlotState state = SlotState::Free;
  ENetPeer* peer = nullptr;
  std::uint64_t token = 0;
  std::uint32_t last_received = 0;  // highest seq received
  bool has_command = false;         // the pending command (the latest received since the last tick)
  net::RawCommand command;
  aoi::Player spawn;
  std::uint64_t acked = 0;          // the newest State tick the client acknowledged (0: none)
  std::uint64_t first_tick = 0;     // the tick of its join
  std::uint64_t heard_tick = 0;     // the tick in which its client last sent something with its token
  std::uint64_t ack_sent = 0;       // a cluster's gateway: the acknowledgement last passed on to the zones
  std::uint64_t detached_tick = 0;  // Detached: the tick in which its connection was lost
  std::uint64_t join_tick = 0;      // the tick its session joined in (a cluster's tokens are made from it)
  std::uint32_t address = 0;        // the IPv4 address its session is counted against (0: none)
  bool resume_pending = false;      // a cluster: resumed, its Resume not yet in a tick (no Welcome yet)
  SentFilter sent;                  // a cluster's gateway: what it passed on to this connection (sent_filter.h)
};

class Sessions {
 public:
  // What take_command returns besides a drop reason: a command kept, an acknowledgement only.
  static constexpr int kCommand = -1, kAckOnly = -2;

  // What the summary and the metrics report of them.
  struct Counts {
    std::uint64_t drops[kDrops] = {};  // by reason (drops.h)
    std::uint64_t joined = 0, left = 0, disconnected = 0, refused = 0, peak = 0;
    // Sessions kept over a lost connection (detached), taken back by their clients (resumed), asked for
    // and not found (resume_failed: a new session instead), left when the grace ran out (expired), and
    // connections dropped because a new one came from their address and port (superseded).
    std::uint64_t detached = 0, resumed = 0, resume_failed = 0, expired = 0, superseded = 0;
    std::uint64_t ciphers[2] = {};        // connections whose keys were agreed, by net::Cipher
    std::uint64_t commands = 0;           // commands taken (kept as a slot's pending command)
    std::uint64_t observers_refused = 0;  // Observes without the key, or from elsewhere than loopback
    // Hellos and Observes refused (ServerFull, also counted in `refused`) because their address held
    // --max-sessions-per-address players or --max-observers-per-address observers.
    std::uint64_t address_refused = 0;
  };

  explicit Sessions(Server& sv) : sv_(sv) {}

  // `slots` Free slots; spawn positions from `seed` (--seed).
  void open(std::uint32_t slots, std::uint64_t seed);
  // The server's key pair, from `seed` (--key-file) or fresh (nullptr), and the key observers must present
  // (--observer-key-file; empty: loopback observers only). False when libsodium cannot make the pair.
  bool open_keys(const net::Key32* seed, std::string observer_key);
  // Spawn positions from `seed` from now on (a restored zone: the seed and its tick).
  void reseed(std::uint64_t seed) { rng_.seed(seed); }

  // One ENet event: a connection made, a packet from it, a connection ended.
  void handle(ENetEvent& ev);
  // Frees the connection's slot: its player leaves in the next tick, or stays Detached when the connection
  // was `lost` and --resume-seconds allows. Deletes its Conn.
  void release(ENetPeer* p, bool lost = false);
  // Detached players whose clients did not come back within --resume-seconds leave (in the next tick).
  void expire_detached();
  // A joined client's Move, Attack or Ack, verified against slot `slot`'s token and seq: kept as the
  // slot's pending command (kCommand), an acknowledgement only (kAckOnly), or the reason it is dropped.
  int take_command(int slot, const net::Message& m);
  void count_drop(int reason) { ++counts_.drops[reason]; }

  // The tick: how many of the module's commands slot i's part in the next tick can make (its join: a move
  // and a heal; its leave; its latest command); and that part taken into c (false: none), the slot moved
  // on (Joining -> Active, Leaving -> Free: a cluster's client is told the tick now).
  std::size_t pending_commands(std::uint32_t i) const;
  bool take_pending(std::uint32_t i, net::RawCommand& c);
  // A cluster's gateway: slot i's resumed client (its Resume, once) and its newest acknowledgement (when
  // it moved on), as raw commands for the zones.
  void take_notes(std::uint32_t i, std::vector<net::RawCommand>& raw);

  // A message for slot k's client, built by this zone: sent when it is there (Active, its Welcome out),
  // and, in a cluster, when it is new to the connection (sent_filter.h).
  void deliver(std::uint32_t k, std::uint8_t channel, std::span<const std::uint8_t> message);
  // A cluster: message m (`bytes`) of tick relay_tick, relayed by the zone that built it: sent on as
  // deliver() would, unless it is of a tick before the connection's first; a resumed Welcome with the
  // session's token written in (it crosses the bus without one). Whether it was.
  bool relay(std::uint32_t k, std::uint64_t relay_tick, const net::Message& m, std::uint8_t channel,
             std::span<const std::uint8_t> bytes);
  // A Welcome: player id's session (token) from tick `first` on, the player at `at`.
  void make_welcome(flatbuffers::FlatBufferBuilder& b, std::uint32_t id, std::uint64_t token, std::uint64_t first,
                    const aoi::Player& at, bool resumed, std::uint32_t last_seq, std::uint32_t seq) const;
  // A resumed client's Events of the tick before: whom player id sees after it.
  void make_resume_events(flatbuffers::FlatBufferBuilder& b, std::uint32_t id) const;

  // A zone's store: the slots as stored (every client's connection gone: players Detached, leaves kept),
  // as of tick `tick`; how many players. And one command of the tick it replays, as its Welcome or
  // Goodbye went out before the crash (a join: a Detached player with the token its Welcome carried).
  std::uint32_t restore(const std::vector<net::StoredSlot>& from, std::uint64_t tick);
  void replay(std::uint32_t k, const net::RawCommand& c);

  // The virtual clients: slot i joins with `token` at `spawn`; `n` connections agreed `cipher`.
  void join_virtual(std::uint32_t i, std::uint64_t token, const aoi::Player& spawn);
  void set_sealed(net::Cipher cipher, std::uint64_t n) { counts_.ciphers[cipher] = n; }

  const Slot& slot(std::uint32_t k) const { return slots_[k]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(slots_.size()); }
  std::uint32_t active_count() const;
  std::uint32_t connected_count() const;  // players whose clients are connected (Detached ones are not)
  const std::vector<ENetPeer*>& observers() const { return observers_; }
  const net::KeyPair& identity() const { return identity_; }
  const Counts& counts() const { return counts_; }

 private:
  void refuse(ENetPeer* p, net::RefuseReason why);
  void on_receive(ENetPeer* p, std::uint8_t channel, const ENetPacket* packet);
  void on_clear(ENetPeer* p, Conn& c, std::uint8_t channel, const ENetPacket* packet);
  void on_hello(ENetPeer* p, Conn& c, const net::Hello& h);
  bool resume(ENetPeer* p, Conn& c, const net::Hello& h);
  void welcome(ENetPeer* p, int slot, bool resumed);
  void welcome_join(Slot& s, int k);
  void goodbye(ENetPeer* p, std::uint64_t at);
  void supersede(ENetPeer* p);
  void on_observe(ENetPeer* p, Conn& c, const net::Observe& o);
  bool observer_admitted(const ENetPeer* p, const net::Observe& o) const;
  // Slot s's session counted against `address` (0: none) instead of the one it was.

  Server& sv_;
  std::vector<Slot> slots_;
  std::vector<ENetPeer*> observers_;
  std::string observer_key_;                 // from --observer-key-file (empty: loopback observers only)
  net::KeyPair identity_;                    // this process's X25519 key pair, the server's side of every Connect
  std::vector<std::uint8_t> opened_;         // a received packet's Message, opened
  std::vector<std::uint8_t> relay_welcome_;  // a relayed resumed Welcome, its token written in (relay)
  std::mt19937_64 rng_;                      // spawn positions (--seed)
  std::random_device entropy_;               // session tokens
  Counts counts_;
};

}  // namespace warpmind::server
