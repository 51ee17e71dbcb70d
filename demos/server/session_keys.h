// Per-connection keys of the wire protocol (docs/protocol.md, "Sealed packets"), shared by
// warpmind-server, warpmind-bots and the demo's observer. A connection begins with two packets in clear:
// the client's Connect with its X25519 public key, and the server's Keys with its own. Each side then
// derives two keys (libsodium's crypto_kx: one per direction) and seals every later packet, both ways,
// with the cipher the Keys name: ChaCha20-Poly1305 (IETF), or AES-256-GCM when the Connect offered it and
// both processors have AES-NI (it seals a 200-byte State about 3.3 times as fast):
//
//   [counter: 8 bytes, little-endian][ciphertext of the Message][tag: 16 bytes]
//
// The 12-byte nonce is the channel (1 byte), 3 zero bytes and the counter (both ciphers); the counter
// starts at 1 and grows by one per packet a side seals on that channel. A packet is opened only when its
// tag checks (this connection's key, this channel, not one bit changed) and its counter is above every
// counter opened on that channel before (a replayed or reordered packet is refused). Seal and open touch
// only their own SessionKeys: one connection's keys are used by one thread at a time.
#pragma once

#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "protocol_generated.h"  // Cipher

namespace warpmind::net {

constexpr std::size_t kPublicKeyBytes = crypto_kx_PUBLICKEYBYTES;                    // 32
constexpr std::size_t kSealOverhead = 8 + crypto_aead_chacha20poly1305_ietf_ABYTES;  // 24

// Why a packet could not be opened.
enum class OpenError { None, Forged, Replayed };

// libsodium initialised (once per process; safe from any thread).
inline bool sodium_ready() {
  static const bool ok = sodium_init() >= 0;
  return ok;
}

// Whether this process can seal with AES-256-GCM (libsodium's needs AES-NI and PCLMULQDQ).
inline bool aes256gcm_available() {
  static const bool ok = sodium_ready() && crypto_aead_aes256gcm_is_available() != 0;
  return ok;
}

static_assert(crypto_aead_aes256gcm_NPUBBYTES == crypto_aead_chacha20poly1305_ietf_NPUBBYTES &&
              crypto_aead_aes256gcm_ABYTES == crypto_aead_chacha20poly1305_ietf_ABYTES &&
              crypto_aead_aes256gcm_KEYBYTES == crypto_kx_SESSIONKEYBYTES);

using Key32 = std::array<std::uint8_t, 32>;

// 64 hexadecimal digits (either case) as 32 bytes; false (key unchanged) for anything else.
inline bool parse_hex32(const std::string& hex, Key32& key) {
  if (hex.size() != 64) return false;
  Key32 k{};
  for (std::size_t i = 0; i < 64; ++i) {
    const char c = hex[i];
    const int v = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (v < 0) return false;
    k[i / 2] = static_cast<std::uint8_t>(k[i / 2] << 4 | v);
  }
  key = k;
  return true;
}
// 32 bytes as 64 lowercase hexadecimal digits.
inline std::string hex32(const std::uint8_t* key) {
  static const char digits[] = "0123456789abcdef";
  std::string s(64, '0');
  for (std::size_t i = 0; i < 32; ++i) s[2 * i] = digits[key[i] >> 4], s[2 * i + 1] = digits[key[i] & 15];
  return s;
}

// An X25519 key pair (libsodium's crypto_kx): fresh from the system's random source, or made from a
// 32-byte seed (the server's --key-file: the same seed, the same pair, so that clients can know its
// public key in advance).
struct KeyPair {
  std::array<std::uint8_t, crypto_kx_PUBLICKEYBYTES> pk{};
  std::array<std::uint8_t, crypto_kx_SECRETKEYBYTES> sk{};
  bool make() { return sodium_ready() && crypto_kx_keypair(pk.data(), sk.data()) == 0; }
  bool from_seed(const Key32& seed) {
    return sodium_ready() && crypto_kx_seed_keypair(pk.data(), sk.data(), seed.data()) == 0;
  }
  ~KeyPair() { sodium_memzero(sk.data(), sk.size()); }
};

// One connection's keys and counters, on either side. Not ready until derive_* succeeded.
class SessionKeys {
 public:
  static constexpr std::size_t kChannelCount = 2;

  bool ready() const { return ready_; }
  // The cipher both sides agreed (the Keys'); ChaCha20-Poly1305 until set. Set it before the first seal
  // or open, and only to AES-256-GCM where aes256gcm_available() (use() is false otherwise, cipher unchanged).
  bool use(Cipher c) {
    if (c != Cipher_ChaCha20Poly1305 && (c != Cipher_Aes256Gcm || !aes256gcm_available())) return false;
    cipher_ = c;
    return true;
  }
  Cipher cipher() const { return cipher_; }
  // The client's keys, from its key pair and the server's public key (false: not a valid key).
  bool derive_client(const KeyPair& me, const std::uint8_t* server_pk) {
    ready_ = sodium_ready() &&
             crypto_kx_client_session_keys(rx_.data(), tx_.data(), me.pk.data(), me.sk.data(), server_pk) == 0;
    return ready_;
  }
  // The server's keys, from its key pair and the client's public key (false: not a valid key).
  bool derive_server(const KeyPair& me, const std::uint8_t* client_pk) {
    ready_ = sodium_ready() &&
             crypto_kx_server_session_keys(rx_.data(), tx_.data(), me.pk.data(), me.sk.data(), client_pk) == 0;
    return ready_;
  }
  // Both ends' keys of in-process connection `index`, derived from a random `master` key (libsodium's
  // crypto_kdf, which is cheap) instead of a handshake: --virtual-clients, whose clients seal and open as
  // connected ones do but make no Connect. False when libsodium cannot start (sodium_init, which also picks
  // the processor's fastest ChaCha20 and Poly1305 code: without it every seal runs the portable code).
  static bool derive_pair(const std::uint8_t* master, std::uint64_t index, SessionKeys& client, SessionKeys& server) {
    if (!sodium_ready()) return false;
    std::uint8_t both[2 * crypto_kx_SESSIONKEYBYTES];
    crypto_kdf_derive_from_key(both, sizeof both, index, "wmvirtul", master);
    std::memcpy(client.tx_.data(), both, 32), std::memcpy(server.rx_.data(), both, 32);
    std::memcpy(client.rx_.data(), both + 32, 32), std::memcpy(server.tx_.data(), both + 32, 32);
    sodium_memzero(both, sizeof both);
    client.ready_ = server.ready_ = true;
    return true;
  }
  // Seals `size` bytes for `channel` (< kChannelCount) into out, which holds size + kSealOverhead bytes.
  void seal(std::uint8_t channel, const std::uint8_t* in, std::size_t size, std::uint8_t* out) {
    const std::uint64_t n = ++sent_[channel];
    for (int k = 0; k < 8; ++k) out[k] = static_cast<std::uint8_t>(n >> (8 * k));
    std::uint8_t nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
    make_nonce(channel, n, nonce);
    unsigned long long written = 0;
    if (cipher_ == Cipher_Aes256Gcm)
      crypto_aead_aes256gcm_encrypt(out + 8, &written, in, size, nullptr, 0, nullptr, nonce, tx_.data());
    else
      crypto_aead_chacha20poly1305_ietf_encrypt(out + 8, &written, in, size, nullptr, 0, nullptr, nonce, tx_.data());
  }
  // Opens a sealed packet of `channel` into out (room for size - kSealOverhead bytes); the plaintext's
  // size in `plain`. Nothing is written to the counters unless it opens.
  OpenError open(std::uint8_t channel, const std::uint8_t* in, std::size_t size, std::uint8_t* out,
                 std::size_t& plain) {
    if (!ready_ || channel >= kChannelCount || size < kSealOverhead) return OpenError::Forged;
    std::uint64_t n = 0;
    for (int k = 0; k < 8; ++k) n |= std::uint64_t{in[k]} << (8 * k);
    std::uint8_t nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
    make_nonce(channel, n, nonce);
    unsigned long long got = 0;
    const int opened =
        cipher_ == Cipher_Aes256Gcm
            ? crypto_aead_aes256gcm_decrypt(out, &got, nullptr, in + 8, size - 8, nullptr, 0, nonce, rx_.data())
            : crypto_aead_chacha20poly1305_ietf_decrypt(out, &got, nullptr, in + 8, size - 8, nullptr, 0, nonce,
                                                        rx_.data());
    if (opened != 0) return OpenError::Forged;
    if (n <= received_[channel]) return OpenError::Replayed;
    received_[channel] = n;
    plain = static_cast<std::size_t>(got);
    return OpenError::None;
  }
  ~SessionKeys() {
    sodium_memzero(rx_.data(), rx_.size());
    sodium_memzero(tx_.data(), tx_.size());
  }

 private:
  static void make_nonce(std::uint8_t channel, std::uint64_t n, std::uint8_t* nonce) {
    std::memset(nonce, 0, crypto_aead_chacha20poly1305_ietf_NPUBBYTES);
    nonce[0] = channel;
    for (int k = 0; k < 8; ++k) nonce[4 + k] = static_cast<std::uint8_t>(n >> (8 * k));
  }
  std::array<std::uint8_t, crypto_kx_SESSIONKEYBYTES> rx_{}, tx_{};
  std::uint64_t sent_[kChannelCount] = {}, received_[kChannelCount] = {};
  Cipher cipher_ = Cipher_ChaCha20Poly1305;
  bool ready_ = false;
};

}  // namespace warpmind::net
