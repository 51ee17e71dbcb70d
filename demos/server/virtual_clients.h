// warpmind-server --virtual-clients (server_virtual.cpp, docs/server.md): the same command and
// notification path without sockets. Each client's message is built, sealed, opened and verified like a
// packet; its State and Events are built and sealed like a connected client's (with the cipher one would
// get: --cipher) and counted instead of sent. The clients' keys come from one random key
// (SessionKeys::derive_pair) instead of a handshake each. Commands are taken and messages built on the
// context's thread pool, each worker with its own builder.
#pragma once

#include <cstdint>
#include <vector>

#include "drops.h"
#include "protocol.h"
#include "session_keys.h"
#include "warpmind/aoi/aoi.h"

namespace warpmind::server {

struct Server;

class VirtualRun {
 public:
  explicit VirtualRun(Server& sv) : sv_(sv) {}

  // N clients (--virtual-clients) join at tick 0, then each tick every client builds one Move or Attack
  // message (by the bots' script: an attack on a player its last State named, with probability
  // --attack-share, else a step towards its waypoint), the server verifies and takes them (intake, on
  // the thread pool), runs the tick and builds every client's State and Events. Prints the times of
  // intake and tick (commands, AOI module, messages) over --ticks ticks, the join tick left out; the
  // exit status (1 when a message was dropped).
  int run();
  // One chunk of the tick's mailboxes, built and sealed for the virtual clients (the server's sink while
  // they run). Virtual clients acknowledge every State, so each State's catch-up is the players that
  // came into view.
  void deliver(const aoi::NotificationChunk& c, const aoi::TickResult& r, std::uint64_t time_us);

 private:
  // A virtual client: its waypoint, its last seq, its script's random state.
  struct Client {
    float wx = 0, wy = 0;
    std::uint32_t seq = 0;
    std::uint64_t rng = 0;
  };
  // A thread of the pool's builder, scratch and counts.
  struct Worker {
    flatbuffers::FlatBufferBuilder b{1024};
    std::vector<std::uint32_t> keys;
    std::vector<aoi::MailboxEntry> catch_up;
    std::vector<std::uint8_t> sealed;  // the message being sealed
    std::uint64_t packets = 0, bytes = 0, notifications = 0, commands = 0, drops[kDrops] = {};
    char pad[64];
  };

  float uniform(std::uint64_t& r) const;
  bool join();
  void write_commands();
  void take_commands();
  void record(const aoi::TickResult& result);
  int report() const;

  Server& sv_;
  std::vector<Worker> workers_;
  std::vector<Client> clients_;
  std::vector<net::SessionKeys> client_keys_;  // each client's side of its connection
  std::vector<net::SessionKeys> server_keys_;  // by client: the server's side of its connection
  std::vector<std::uint32_t> seen_;            // by client: a player its last State named (whom it attacks), or none
  std::vector<std::uint8_t> arena_;            // the clients' messages of the tick, kSlot bytes each
  std::vector<std::uint16_t> length_;
  std::vector<float> intake_ms_, upload_, query_, visibility_, download_;  // the stages' times
  std::uint64_t rejected_ = 0;
};

}  // namespace warpmind::server
