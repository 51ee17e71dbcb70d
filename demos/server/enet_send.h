// One Message onto an ENet connection, shared by warpmind-server, warpmind-bots and the demo's observer.
#pragma once

#include <enet/enet.h>

#include <cstddef>
#include <cstdint>

#include "protocol.h"
#include "session_keys.h"

namespace warpmind::net {

// Sends size bytes on channel (reliable on kReliableChannel, unreliable sequenced otherwise): sealed when
// keys is not null and ready, in clear otherwise. Returns the bytes put on the wire, or 0 when ENet
// refused the packet (no memory, or the peer is no longer connected); ENet owns a packet only once
// enet_peer_send takes it, so a refused one is freed here and nothing leaks.
inline std::size_t send_packet(ENetPeer* peer, std::uint8_t channel, const std::uint8_t* data, std::size_t size,
                               SessionKeys* keys) {
  const bool sealed = keys != nullptr && keys->ready();
  const std::uint32_t flags = channel == kReliableChannel ? ENET_PACKET_FLAG_RELIABLE : 0;
  ENetPacket* p = enet_packet_create(sealed ? nullptr : data, size + (sealed ? kSealOverhead : 0), flags);
  if (p == nullptr) return 0;
  if (sealed) keys->seal(channel, data, size, p->data);
  const std::size_t bytes = p->dataLength;
  if (enet_peer_send(peer, channel, p) != 0) {
    enet_packet_destroy(p);
    return 0;
  }
  return bytes;
}

}  // namespace warpmind::net
