// The modules' saved states (crowd_solver.h, aoi.h, nav_fields.h): little-endian words written to and read
// from bytes, whatever the host. The reader does not check bounds: the caller checks the length it needs first.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace warpmind::bytes {

struct Writer {
  std::vector<std::uint8_t>& out;
  void raw(const char* s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(s[i]));
  }
  void u32(std::uint32_t v) {
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
  }
  void u64(std::uint64_t v) {
    u32(static_cast<std::uint32_t>(v));
    u32(static_cast<std::uint32_t>(v >> 32));
  }
  void f32(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    u32(bits);
  }
};

struct Reader {
  std::span<const std::uint8_t> in;
  std::size_t at = 0;
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int b = 0; b < 4; ++b) v |= static_cast<std::uint32_t>(in[at + b]) << (8 * b);
    at += 4;
    return v;
  }
  std::uint64_t u64() {
    const std::uint64_t lo = u32();
    return lo | static_cast<std::uint64_t>(u32()) << 32;
  }
  float f32() {
    const std::uint32_t bits = u32();
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  // True when the next n bytes equal `expect` (and skips them).
  bool same(const std::vector<std::uint8_t>& expect) {
    const bool eq = std::memcmp(in.data() + at, expect.data(), expect.size()) == 0;
    at += expect.size();
    return eq;
  }
};

}  // namespace warpmind::bytes
