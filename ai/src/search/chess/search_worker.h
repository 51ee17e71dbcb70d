// One thread's alpha-beta (chess_search.cpp) and what the threads of one search share: the table, the
// stop flag and the limits (searcher.cpp runs them, Lazy SMP).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "search/chess/transposition.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_network.h"

namespace warpmind::search::chess::detail {

using Clock = std::chrono::steady_clock;
constexpr int kMaxPly = 128;

struct Shared {
  Table table;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> nodes{0};
  Clock::time_point start;
  std::int64_t time_ms = 0;
  std::uint64_t node_limit = 0;
  std::shared_ptr<const Network> network;  // null: the classical evaluation
  bool incremental = true;                 // the network's accumulators kept along the path
};

// A thread's search: principal variation search with its histories, which carry over between searches.
class Worker {
 public:
  explicit Worker(Shared& shared);
  ~Worker();
  // Ready for a search of `root` after the game's positions `history` (their keys); the main thread
  // (is_main) checks the time and node limits.
  void start(const Position& root, const std::vector<std::uint64_t>& history, bool is_main);
  void forget();  // clears the histories, counter moves and evaluation cache (a new game)
  // The root searched `depth` plies deep in the window (alpha, beta); its score.
  int search(int depth, int alpha, int beta);
  std::uint64_t nodes() const;  // since start()
  int seldepth() const;         // the deepest ply reached since reset_seldepth()
  void reset_seldepth();
  int pv_length() const;  // the root's principal variation of the last search()
  Move pv(int k) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::search::chess::detail
