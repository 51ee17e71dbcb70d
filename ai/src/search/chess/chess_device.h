// The chess side of the GPU backend, host-only: DeviceGame<ChessGame> (the host's positions and moves on
// the device rules of chess_rules.h, for GpuBatch<ChessGame>) and the interface the perft kernels
// implement (gpu/src/search/chess.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "search/chess/chess_movegen.h"
#include "search/game_device.h"
#include "warpmind/core/status.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::gpu {

// Perft by breadth-first levels, one position per thread: count the legal moves, scan, write the children,
// level by level, the last two plies counted without being written (gpu/src/search/chess_perft.cu).
// Not thread-safe.
class ChessPerftDevice {
 public:
  // slider_words: chess_sliders.h's tables (host_slider_words()), copied to the device.
  static Status create(void* stream, const search::chess::rules::Bits* slider_words,
                       std::unique_ptr<ChessPerftDevice>& out);
  ~ChessPerftDevice();
  // Leaf nodes of `root` at `depth` (0..20). ms: device time (the table's clearing included, its first
  // allocation not). A level too large for the memory budget is processed in slices; budget_bytes: the
  // bytes one slice's children may take (0: a share of the free memory).
  // transposition_table (depth 3 or more): every level computes each position's own count, taking it
  // from a device hash table (a 128-bit hash of the position and the depth left; buckets of four entries,
  // the shallowest evicted first; up to 2^29 buckets, 32 GiB, and 45% of the free memory) or from an
  // equal position of the same level where it can, and stores the rest; exact whatever is evicted.
  // *reused: the positions whose count was taken rather than computed.
  Status perft(const search::chess::rules::DPos& root, int depth, std::uint64_t& nodes, double& ms,
               std::size_t budget_bytes = 0, bool transposition_table = false, std::uint64_t* reused = nullptr);

  struct Impl;

 private:
  ChessPerftDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu

namespace warpmind::search {

template <>
struct DeviceGame<chess::ChessGame> {
  using Rules = chess::rules::Device;
  static constexpr const char* kName = "chess";
  static Status check(const chess::ChessGame&) { return Status::Ok(); }
  static Rules::Params params(const chess::ChessGame&) { return {}; }
  static Rules::Pos pack(const chess::Position& p) { return chess::rules::from_position(p); }
  static chess::Move unpack(std::uint32_t bits) {
    chess::Move m;
    m.bits = bits;
    return m;
  }
  // search_many's one-thread rules (search/alphabeta.h).
  using Search = chess::rules::SearchRules;
  static Search search_rules(const chess::ChessGame&) { return {}; }
};

}  // namespace warpmind::search
