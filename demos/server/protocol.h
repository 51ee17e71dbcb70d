// What warpmind-server and warpmind-bots share of the wire protocol (docs/protocol.md): the version,
// the channels, the limits, and reading a packet safely. The messages themselves are defined by
// protocol.fbs (compiled by flatc into protocol_generated.h in the build tree).
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>

#include "protocol_generated.h"

namespace warpmind::net {

constexpr std::uint32_t kProtocolVersion = 2;  // 2: sealed packets (session_keys.h)
constexpr std::uint8_t kReliableChannel = 0;   // Connect, Keys, Hello, Welcome, Refused, Leave, Events, ...
constexpr std::uint8_t kStreamChannel = 1;     // Move, Attack, State (unreliable, sequenced)
constexpr std::size_t kChannels = 2;
// The largest Message the server accepts from a client (sealed, kSealOverhead more); every client
// message is far smaller.
constexpr std::size_t kMaxClientPacket = 512;
// Seq rules: a command's seq must be above the last the server received from that client and at most
// kSeqWindow above it.
constexpr std::uint32_t kSeqWindow = 1u << 16;

// The message in `data`, or nullptr when it is not a well-formed Message (the FlatBuffers verifier:
// identifier, offsets and sizes inside the buffer, bounded depth and table count). Nothing in `data`
// is read before it is verified.
inline const Message* read_message(const std::uint8_t* data, std::size_t size) {
  if (data == nullptr || size < 8 || size > (std::size_t{1} << 20)) return nullptr;
  flatbuffers::Verifier v(data, size, /*max_depth=*/8, /*max_tables=*/16);
  if (!VerifyMessageBuffer(v)) return nullptr;
  const Message* m = GetMessage(data);
  return m->body() ? m : nullptr;
}

}  // namespace warpmind::net
