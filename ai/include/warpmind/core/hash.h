// FNV-1a over bytes: the state signatures pinned by tests ("a field built from seed 7 hashes to ...").
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpmind {

inline std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace warpmind
