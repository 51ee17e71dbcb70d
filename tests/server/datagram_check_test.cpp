// The server's packet filter on hand-made ENet datagrams (datagram_check.h): what ENet would take passes,
// fragments and what ENet would discard do not.
#include "datagram_check.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace {

using warpmind::server::DatagramVerdict;
using warpmind::server::inspect_datagram;

// A datagram under construction: ENet's header, then commands, in network byte order.
struct Datagram {
  std::vector<std::uint8_t> bytes;
  Datagram(unsigned peer_id, unsigned session, bool sent_time = true, bool compressed = false) {
    std::uint16_t word = static_cast<std::uint16_t>(peer_id | (session << ENET_PROTOCOL_HEADER_SESSION_SHIFT));
    if (sent_time) word |= ENET_PROTOCOL_HEADER_FLAG_SENT_TIME;
    if (compressed) word |= ENET_PROTOCOL_HEADER_FLAG_COMPRESSED;
    put16(word);
    if (sent_time) put16(1234);
  }
  void put16(std::uint16_t v) {
    v = ENET_HOST_TO_NET_16(v);
    bytes.insert(bytes.end(), reinterpret_cast<std::uint8_t*>(&v), reinterpret_cast<std::uint8_t*>(&v) + 2);
  }
  // A command of `size` bytes (its fixed part) with its number; the rest zeros but for dataLength.
  Datagram& command(std::uint8_t number, std::size_t size) {
    const std::size_t at = bytes.size();
    bytes.resize(at + size, 0);
    bytes[at] = number | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
    return *this;
  }
  Datagram& connect() { return command(ENET_PROTOCOL_COMMAND_CONNECT, sizeof(ENetProtocolConnect)); }
  Datagram& ping() { return command(ENET_PROTOCOL_COMMAND_PING, sizeof(ENetProtocolPing)); }
  // A reliable send that says it carries `declared` bytes and carries `actual`.
  Datagram& reliable(std::uint16_t declared, std::size_t actual) {
    const std::size_t at = bytes.size();
    command(ENET_PROTOCOL_COMMAND_SEND_RELIABLE, sizeof(ENetProtocolSendReliable));
    const std::uint16_t n = ENET_HOST_TO_NET_16(declared);
    std::memcpy(bytes.data() + at + offsetof(ENetProtocolSendReliable, dataLength), &n, 2);
    bytes.resize(bytes.size() + actual, 0x5a);
    return *this;
  }
  Datagram& fragment(bool reliable) {
    command(reliable ? ENET_PROTOCOL_COMMAND_SEND_FRAGMENT : ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT,
            sizeof(ENetProtocolSendFragment));
    bytes.resize(bytes.size() + 100, 0x5a);
    return *this;
  }
};

class DatagramCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(enet_initialize(), 0);
    ENetAddress a{};
    enet_address_set_host_ip(&a, "127.0.0.1");
    host = enet_host_create(&a, 4, 2, 0, 0);
    ASSERT_NE(host, nullptr);
    enet_address_set_host_ip(&from, "127.0.0.5");
    from.port = 40000;
    // Peer 1 as a connected client at `from`, its session 1.
    ENetPeer& p = host->peers[1];
    p.state = ENET_PEER_STATE_CONNECTED;
    p.address = from;
    p.outgoingPeerID = 0;
    p.incomingSessionID = 1;
  }
  void TearDown() override {
    if (host) {
      host->peers[1].state = ENET_PEER_STATE_DISCONNECTED;
      enet_host_destroy(host);
    }
    enet_deinitialize();
  }
  DatagramVerdict check(const Datagram& d) const {
    return inspect_datagram(*host, from, d.bytes.data(), d.bytes.size());
  }
  ENetHost* host = nullptr;
  ENetAddress from{};
};

TEST_F(DatagramCheck, WhatEnetWouldTakePasses) {
  EXPECT_EQ(check(Datagram(ENET_PROTOCOL_MAXIMUM_PEER_ID, 0).connect()), DatagramVerdict::Connect);
  EXPECT_EQ(check(Datagram(1, 1).ping()), DatagramVerdict::Pass);
  EXPECT_EQ(check(Datagram(1, 1, false).reliable(40, 40).ping().reliable(0, 0)), DatagramVerdict::Pass);
  EXPECT_EQ(check(Datagram(1, 1).command(ENET_PROTOCOL_COMMAND_ACKNOWLEDGE, sizeof(ENetProtocolAcknowledge))),
            DatagramVerdict::Pass);
}

TEST_F(DatagramCheck, FragmentsAreRefusedWhereverTheyStand) {
  EXPECT_EQ(check(Datagram(1, 1).fragment(true)), DatagramVerdict::Fragment);
  EXPECT_EQ(check(Datagram(1, 1).fragment(false)), DatagramVerdict::Fragment);
  EXPECT_EQ(check(Datagram(1, 1).ping().reliable(8, 8).fragment(true)), DatagramVerdict::Fragment);
  EXPECT_EQ(check(Datagram(ENET_PROTOCOL_MAXIMUM_PEER_ID, 0).connect().fragment(true)), DatagramVerdict::Fragment);
}

TEST_F(DatagramCheck, WhatEnetWouldDiscardIsGarbage) {
  const Datagram empty(1, 1);
  EXPECT_EQ(check(empty), DatagramVerdict::Garbage);                                          // no command
  EXPECT_EQ(inspect_datagram(*host, from, empty.bytes.data(), 1), DatagramVerdict::Garbage);  // half a header
  EXPECT_EQ(inspect_datagram(*host, from, nullptr, 0), DatagramVerdict::Garbage);
  EXPECT_EQ(check(Datagram(1, 1, true, true).ping()), DatagramVerdict::Garbage);                  // compressed
  EXPECT_EQ(check(Datagram(4, 0).ping()), DatagramVerdict::Garbage);                              // past the peers
  EXPECT_EQ(check(Datagram(2, 0).ping()), DatagramVerdict::Garbage);                              // a free peer
  EXPECT_EQ(check(Datagram(1, 2).ping()), DatagramVerdict::Garbage);                              // another session
  EXPECT_EQ(check(Datagram(ENET_PROTOCOL_MAXIMUM_PEER_ID, 0).ping()), DatagramVerdict::Garbage);  // no peer
  EXPECT_EQ(check(Datagram(1, 1).command(0, 4)), DatagramVerdict::Garbage);                       // command 0
  EXPECT_EQ(check(Datagram(1, 1).command(13, 4)), DatagramVerdict::Garbage);                      // past the last
  EXPECT_EQ(check(Datagram(1, 1).reliable(41, 40)), DatagramVerdict::Garbage);                    // data past the end
  Datagram cut(ENET_PROTOCOL_MAXIMUM_PEER_ID, 0);
  cut.connect();
  cut.bytes.resize(cut.bytes.size() - 1);
  EXPECT_EQ(check(cut), DatagramVerdict::Garbage);  // a command past the end
  ENetAddress other = from;
  ++other.port;
  const Datagram ping = Datagram(1, 1).ping();
  EXPECT_EQ(inspect_datagram(*host, other, ping.bytes.data(), ping.bytes.size()), DatagramVerdict::Garbage);
}

// Random bytes as a flood sends them: any length up to ENet's buffer, or a valid header then random
// commands. From an address with no connection, none passes: at most a well-formed connect.
TEST_F(DatagramCheck, RandomBytesFromAStrangerNeverPassButAsAConnect) {
  std::mt19937 rng(7);
  ENetAddress stranger{};
  enet_address_set_host_ip(&stranger, "127.0.0.9");
  stranger.port = 50000;
  int passed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> d(rng() % 1400);
    for (auto& b : d) b = static_cast<std::uint8_t>(rng());
    if (i % 2 && d.size() >= 4) d[0] = 0x80 | 0x0f, d[1] = 0xff;  // to no peer, with a sent time
    const DatagramVerdict v = inspect_datagram(*host, stranger, d.data(), d.size());
    EXPECT_NE(v, DatagramVerdict::Pass);
    if (v == DatagramVerdict::Connect) {
      ++passed;
      EXPECT_EQ(d[4] & ENET_PROTOCOL_COMMAND_MASK, ENET_PROTOCOL_COMMAND_CONNECT);
    }
  }
  EXPECT_LT(passed, 200);
}

}  // namespace
