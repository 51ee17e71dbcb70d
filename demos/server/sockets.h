// warpmind-server's UDP sockets (server_sockets.cpp): the ENet hosts its clients connect to, all on one
// port (--sockets; SO_REUSEPORT: the kernel gives each client's datagrams to one of them, always the
// same), each with up to 4,095 connections; sending a message to a connection, sealed with its keys; and
// one pass of ENet over every socket. What each connection carries (ENetPeer::data) is a Conn.
//
// Called on the tick thread only: open() once, then send(), pump() and flush() as the server runs,
// close() once. The fuzz target adds a host of its own instead of opening (add()).
#pragma once

#include <enet/enet.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "connection_limits.h"
#include "protocol.h"
#include "session_keys.h"

namespace warpmind::server {

// Per connection (ENetPeer::data): made when ENet connects it, deleted when it is released.
struct Conn {
  using Clock = std::chrono::steady_clock;
  int slot = -1;
  bool observer = false;  // an Observe connection: gets a Snapshot a tick, commands nothing
  Bucket bucket;
  Clock::time_point connected;
  net::SessionKeys keys;    // ready once its Connect is answered: every later packet is sealed
  Clock::time_point heard;  // when a packet of it last opened (an observer's Ack keeps it watching)
};

class Sockets {
 public:
  // What the summary and the metrics report of them.
  struct Counts {
    std::uint64_t bytes_in = 0;                    // message bytes received (note_received)
    std::uint64_t packets_out = 0, bytes_out = 0;  // sent, at their size on the wire
    std::uint64_t send_failures = 0;               // packets ENet could not make or queue
    std::uint64_t receive_errors = 0;              // socket errors while servicing (a datagram too large, say)
  };

  // ENet, and `sockets` hosts on host:port (0: any free one), with room for max_clients players, each
  // with socket_buffer bytes of socket buffer; the port they are bound to into `bound`. Empty string or
  // the reason it cannot listen (what was opened is let go by close()).
  std::string open(const std::string& host, int port, int sockets, int socket_buffer, int max_clients,
                   enet_uint16& bound);
  // A host made elsewhere (the fuzz target's), serviced and sent through as if opened here.
  void add(ENetHost* h) {
    hosts_.push_back(h);
    connects_by_socket_.push_back(0);
  }
  // Every connection dropped (its Conn deleted), every host destroyed, ENet let go.
  void close();

  std::span<ENetHost* const> hosts() const { return hosts_; }
  template <class Fn>
  void for_each_peer(Fn&& fn) {  // fn(host index, peer index, peer)
    for (std::size_t k = 0; k < hosts_.size(); ++k)
      for (std::size_t i = 0; i < hosts_[k]->peerCount; ++i) fn(k, i, &hosts_[k]->peers[i]);
  }

  // A Message to a connection, sealed with its keys (before them, in clear: only refusals come then;
  // `seal` false: in clear whatever the keys). Queued: flush() sends it. A failure is counted.
  void send(ENetPeer* p, std::uint8_t channel, const std::uint8_t* data, std::size_t size, bool seal = true);
  void send(ENetPeer* p, std::uint8_t channel, flatbuffers::FlatBufferBuilder& b) {
    send(p, channel, b.GetBufferPointer(), b.GetSize());
  }
  void flush() {
    for (ENetHost* h : hosts_) enet_host_flush(h);
  }
  // One pass of ENet over every socket (waiting at most wait_ms for something to happen), each event
  // handed to `handle`; false when nothing happened.
  bool pump(int wait_ms, const std::function<void(ENetEvent&)>& handle);

  void note_connect(const ENetHost* h) {  // a connection made on host h
    for (std::size_t k = 0; k < hosts_.size(); ++k) connects_by_socket_[k] += hosts_[k] == h;
  }
  void note_received(std::size_t bytes) { counts_.bytes_in += bytes; }

  const Counts& counts() const { return counts_; }
  const std::vector<std::uint64_t>& connects_by_socket() const { return connects_by_socket_; }
  int socket_buffer() const { return socket_buffer_; }  // the UDP socket's receive buffer as the system set it

 private:
  std::vector<ENetHost*> hosts_;
  std::vector<std::uint64_t> connects_by_socket_;  // connections each socket took
  int socket_buffer_ = 0;
  Counts counts_;
};

}  // namespace warpmind::server
