// The search's transposition table, shared by all its threads without locks: each entry two 64-bit words
// written and read with relaxed atomics, the first the key XOR the second, so that a torn write (one word
// of one thread's entry, one of another's) reads as a miss rather than as another position's data.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::search::chess::detail {

enum Bound : std::uint8_t { BoundNone = 0, Upper = 1, Lower = 2, Exact = 3 };

// One entry in two 64-bit words: the key XOR the data (so a torn write from another thread reads as a
// miss), and the data: move 20 bits, score 16, depth 8, bound 2.
struct Entry {
  std::atomic<std::uint64_t> check{0}, data{0};
};

inline std::uint64_t pack(Move m, int score, int depth, Bound b) {
  return (static_cast<std::uint64_t>(m.bits & 0xFFFFF)) |
         (static_cast<std::uint64_t>(static_cast<std::uint16_t>(score)) << 20) |
         (static_cast<std::uint64_t>(std::clamp(depth, 0, 255)) << 36) | (static_cast<std::uint64_t>(b) << 44);
}

struct Table {
  std::vector<Entry> entries;
  std::uint64_t mask = 0;
  void resize(int mb) {
    std::size_t n = 1;
    while (n * 2 * sizeof(Entry) <= static_cast<std::size_t>(mb) * (1u << 20)) n *= 2;
    entries = std::vector<Entry>(n);
    mask = n - 1;
  }
  void clear() {
    for (Entry& e : entries) e.check.store(0, std::memory_order_relaxed), e.data.store(0, std::memory_order_relaxed);
  }
  bool probe(std::uint64_t key, Move& m, int& score, int& depth, Bound& b) const {
    const Entry& e = entries[key & mask];
    const std::uint64_t d = e.data.load(std::memory_order_relaxed);
    if ((e.check.load(std::memory_order_relaxed) ^ d) != key || d == 0) return false;
    m.bits = static_cast<std::uint32_t>(d & 0xFFFFF);
    score = static_cast<std::int16_t>(d >> 20 & 0xFFFF);
    depth = static_cast<int>(d >> 36 & 0xFF);
    b = static_cast<Bound>(d >> 44 & 3);
    return true;
  }
  // Always replaces another position's entry; the same position's deeper entry only with an exact score
  // or a depth at most two plies less; a new entry without a move keeps the old one's.
  void store(std::uint64_t key, Move m, int score, int depth, Bound b) {
    Entry& e = entries[key & mask];
    const std::uint64_t old = e.data.load(std::memory_order_relaxed);
    if ((e.check.load(std::memory_order_relaxed) ^ old) == key && old != 0) {
      if (b != Exact && depth + 2 < static_cast<int>(old >> 36 & 0xFF)) return;
      if (m.bits == 0) m.bits = static_cast<std::uint32_t>(old & 0xFFFFF);
    }
    const std::uint64_t d = pack(m, score, depth, b);
    e.data.store(d, std::memory_order_relaxed);
    e.check.store(key ^ d, std::memory_order_relaxed);
  }
};

inline int to_table(int score, int ply) {
  return score > kMateBound ? score + ply : score < -kMateBound ? score - ply : score;
}
inline int from_table(int score, int ply) {
  return score > kMateBound ? score - ply : score < -kMateBound ? score + ply : score;
}

}  // namespace warpmind::search::chess::detail
