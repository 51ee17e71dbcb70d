// What the training data's game files share (chess_games.h, connect6_games.h): little-endian words, and
// the header "MAGIC" · uint32 version · uint32 n · n bytes of UTF-8 text (how the games were made,
// n ≤ 4096) that opens each file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "warpmind/core/status.h"

namespace warpmind::train {

constexpr std::size_t kMaxInfo = 4096;
constexpr std::int16_t kNoScore = INT16_MIN;  // a position without a label

inline void put16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}
inline void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  put16(out, static_cast<std::uint16_t>(v));
  put16(out, static_cast<std::uint16_t>(v >> 16));
}
inline std::uint16_t get16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
inline std::uint32_t get32(const std::uint8_t* p) { return get16(p) | static_cast<std::uint32_t>(get16(p + 2)) << 16; }

// A file's header: magic, version and text (cut to kMaxInfo bytes).
inline std::vector<std::uint8_t> file_header(const char (&magic)[5], std::uint32_t version, const std::string& info) {
  std::vector<std::uint8_t> out(magic, magic + 4);
  const std::string text = info.substr(0, kMaxInfo);
  put32(out, version);
  put32(out, static_cast<std::uint32_t>(text.size()));
  out.insert(out.end(), text.begin(), text.end());
  return out;
}

// Reads a header: the text and where the games start; an error naming `what` for a bad one.
inline Status read_header(const std::uint8_t* data, std::size_t size, const char (&magic)[5], std::uint32_t version,
                          const std::string& what, std::string& info, std::size_t& games_at) {
  if (size < 12 || std::memcmp(data, magic, 4) != 0)
    return Status::Invalid("not a " + what + " file (no " + std::string(magic) + " header)");
  if (const std::uint32_t v = get32(data + 4); v != version)
    return Status::Invalid(what + " file version " + std::to_string(v) + " (this reader takes " +
                           std::to_string(version) + ")");
  const std::uint32_t n = get32(data + 8);
  if (n > kMaxInfo || n > size - 12) return Status::Invalid("the header's text is longer than the file allows");
  info.assign(reinterpret_cast<const char*>(data + 12), n);
  games_at = 12 + n;
  return Status::Ok();
}

}  // namespace warpmind::train
