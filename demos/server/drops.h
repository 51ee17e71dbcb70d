// Why warpmind-server dropped a packet (or a datagram): the reasons its summary and metrics count.
#pragma once

namespace warpmind::server {

// Why a packet (or a datagram) was dropped.
enum Drop : int {
  BadPacket,       // not a Message (verifier failed), or a message a client never sends
  Oversized,       // more than kMaxClientPacket bytes
  UnknownVersion,  // Hello with another protocol version
  NotJoined,       // a command before the Hello was answered
  WrongToken,      // a token that is not this connection's
  StaleSeq,        // seq not above the last received (replayed or reordered)
  SeqWindow,       // seq more than kSeqWindow above the last received
  BadValue,        // a non-finite target position, or an attack on no player
  RateLimit,       // more messages from one connection than --peer-rate allows
  Flood,           // more datagrams from one address than --address-rate allows (before ENet sees them)
  Forged,          // a packet that does not open with the connection's keys (docs/protocol.md, "Sealed packets")
  Replayed,        // a sealed packet whose counter is not above the last opened on its channel
  NoKeys,          // before the keys: anything but a Connect (or a clear Hello or Observe, refused)
  Garbage,         // a datagram ENet would discard: not its format, or for no connection of this address
  Fragment,        // a datagram with an ENet fragment (no client message needs one; datagram_check.h)
  AddressCap,      // a connect from an address holding --max-unjoined connections while peers are short
  kDrops
};
inline const char* drop_name(int d) {
  static const char* names[] = {"bad_packet", "oversized", "unknown_version", "not_joined", "wrong_token", "stale_seq",
                                "seq_window", "bad_value", "rate_limit",      "flood",      "forged",      "replayed",
                                "no_keys",    "garbage",   "fragment",        "address_cap"};
  return names[d];
}

}  // namespace warpmind::server
