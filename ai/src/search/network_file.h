// What the learned evaluations' network files share (chess_network.cpp, connect6_network.cpp):
// little-endian values written and read, and a file read whole with a size cap (a file larger than any
// network is refused before it is read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "warpmind/core/status.h"

namespace warpmind::search::nnue {

template <class T>
void put(std::vector<std::uint8_t>& out, T v) {
  using U = std::make_unsigned_t<T>;
  const U u = static_cast<U>(v);
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i) & 0xFF));
}

template <class T>
T get(const std::uint8_t*& p) {
  using U = std::make_unsigned_t<T>;
  U u = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) u = static_cast<U>(u | static_cast<U>(static_cast<U>(p[i]) << (8 * i)));
  p += sizeof(T);
  return static_cast<T>(u);
}

// The bytes of the file at `path` (what: "network", "Connect6 network"); at most `limit` bytes.
inline Status read_network_file(const std::string& path, std::size_t limit, const std::string& what,
                                std::vector<std::uint8_t>& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid("cannot read " + what + " file " + path);
  in.seekg(0, std::ios::end);
  const std::streamoff n = in.tellg();
  if (n < 0 || n > static_cast<std::streamoff>(limit))
    return Status::Invalid(path + ": too large for a " + what + " file");
  in.seekg(0);
  bytes.assign(static_cast<std::size_t>(n), 0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), n))
    return Status::Invalid("cannot read " + what + " file " + path);
  return Status::Ok();
}

}  // namespace warpmind::search::nnue
