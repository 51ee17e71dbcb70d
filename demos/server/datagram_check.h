// What warpmind-server's packet filter (connection_limits.h, Limits::intercept) makes of one raw datagram
// before ENet parses it. ENet would take apart whatever passes; the filter refuses what no client of this
// protocol sends, so that nothing of it is kept and every discarded datagram is counted under a reason:
//   - Fragment: a datagram with an ENet fragment command (reliable or unreliable). No client message needs
//     one (a client packet is at most 536 bytes, sealed), while ENet would hold a half-built packet of up to
//     its 256 KiB limit per fragment stream for as long as the connection lasts.
//   - Garbage: a datagram ENet would discard (or stop reading part-way): shorter than its header, a
//     compressed one (the server has no compressor), for a peer index past the host's peers, for a peer
//     that is not connected, is another address's or has another session, a command number ENet does not
//     know, a command or its data running past the datagram's end, or a command other than a connect
//     sent to no peer.
// Pure: reads the datagram and the host's peers, changes nothing; safe on any bytes.
#pragma once

#include <enet/enet.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace warpmind::server {

// Pass: ENet may take it; Connect: the same, and it asks for a new connection (to no peer, a connect
// command); Garbage, Fragment: above.
enum class DatagramVerdict { Pass, Connect, Garbage, Fragment };

namespace datagram_detail {

inline std::uint16_t read16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return ENET_NET_TO_HOST_16(v);
}

// The bytes of data after a send command's fixed part (its dataLength field), 0 for other commands.
inline std::size_t payload_of(std::uint8_t command, const std::uint8_t* at) {
  switch (command) {
    case ENET_PROTOCOL_COMMAND_SEND_RELIABLE:
      return read16(at + offsetof(ENetProtocolSendReliable, dataLength));
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE:
      return read16(at + offsetof(ENetProtocolSendUnreliable, dataLength));
    case ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED:
      return read16(at + offsetof(ENetProtocolSendUnsequenced, dataLength));
    default:
      return 0;
  }
}

}  // namespace datagram_detail

// `data`, `size`: the datagram as read from the socket; `from`: its sender; `host`: the socket's host
// (its peers, and whether it checksums datagrams).
inline DatagramVerdict inspect_datagram(const ENetHost& host, const ENetAddress& from, const std::uint8_t* data,
                                        std::size_t size) {
  using namespace datagram_detail;
  constexpr std::size_t kShortHeader = offsetof(ENetProtocolHeader, sentTime);
  if (data == nullptr || size < kShortHeader) return DatagramVerdict::Garbage;
  const std::uint16_t word = read16(data);
  const unsigned session = (word & ENET_PROTOCOL_HEADER_SESSION_MASK) >> ENET_PROTOCOL_HEADER_SESSION_SHIFT;
  const unsigned flags = word & ENET_PROTOCOL_HEADER_FLAG_MASK;
  const unsigned peer_id = word & ~(ENET_PROTOCOL_HEADER_FLAG_MASK | ENET_PROTOCOL_HEADER_SESSION_MASK);
  if (flags & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED) return DatagramVerdict::Garbage;
  std::size_t at = (flags & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) ? sizeof(ENetProtocolHeader) : kShortHeader;
  if (host.checksum != nullptr) at += sizeof(enet_uint32);
  if (at > size) return DatagramVerdict::Garbage;
  const ENetPeer* peer = nullptr;
  if (peer_id != ENET_PROTOCOL_MAXIMUM_PEER_ID) {
    if (peer_id >= host.peerCount) return DatagramVerdict::Garbage;
    peer = &host.peers[peer_id];
    const bool gone = peer->state == ENET_PEER_STATE_DISCONNECTED || peer->state == ENET_PEER_STATE_ZOMBIE;
    const bool elsewhere = peer->address.host != from.host || peer->address.port != from.port;
    const bool other_session =
        peer->outgoingPeerID < ENET_PROTOCOL_MAXIMUM_PEER_ID && session != peer->incomingSessionID;
    if (gone || elsewhere || other_session) return DatagramVerdict::Garbage;
  }
  if (at == size) return DatagramVerdict::Garbage;  // no command at all
  while (at < size) {
    if (size - at < sizeof(ENetProtocolCommandHeader)) return DatagramVerdict::Garbage;
    const std::uint8_t command = data[at] & ENET_PROTOCOL_COMMAND_MASK;
    if (command == ENET_PROTOCOL_COMMAND_SEND_FRAGMENT || command == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT)
      return DatagramVerdict::Fragment;
    if (command == ENET_PROTOCOL_COMMAND_NONE || command >= ENET_PROTOCOL_COMMAND_COUNT)
      return DatagramVerdict::Garbage;
    if (peer == nullptr && command != ENET_PROTOCOL_COMMAND_CONNECT) return DatagramVerdict::Garbage;
    const std::size_t fixed = enet_protocol_command_size(command);
    if (fixed == 0 || size - at < fixed) return DatagramVerdict::Garbage;
    const std::size_t payload = payload_of(command, data + at);
    if (size - at - fixed < payload) return DatagramVerdict::Garbage;
    at += fixed + payload;
  }
  return peer == nullptr ? DatagramVerdict::Connect : DatagramVerdict::Pass;
}

}  // namespace warpmind::server
