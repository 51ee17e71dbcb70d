// The Searcher (chess_search.h): iterative deepening with aspiration windows and the time management of
// the main thread, and Lazy SMP — helper threads searching the same root on the shared table, one or two
// plies deeper, their nodes counted with the main thread's.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "search/chess/search_worker.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::search::chess {

struct Searcher::Impl {
  detail::Shared shared;
  int threads = 1;
  std::mutex running;
  std::vector<std::unique_ptr<detail::Worker>> workers;  // kept between searches (their histories carry over)
};

Searcher::Searcher(int hash_mb, int threads) : impl_(std::make_unique<Impl>()) {
  set_hash(hash_mb);
  set_threads(threads);
}
Searcher::~Searcher() = default;
void Searcher::set_hash(int hash_mb) {
  std::lock_guard<std::mutex> lock(impl_->running);
  impl_->shared.table.resize(std::clamp(hash_mb, 1, 65536));
}
void Searcher::set_threads(int threads) { impl_->threads = std::clamp(threads, 1, 1024); }
void Searcher::clear() {
  std::lock_guard<std::mutex> lock(impl_->running);
  impl_->shared.table.clear();
  for (auto& w : impl_->workers) w->forget();
}
void Searcher::stop() { impl_->shared.stop.store(true); }
void Searcher::set_network(std::shared_ptr<const Network> network, bool incremental) {
  std::lock_guard<std::mutex> lock(impl_->running);
  impl_->shared.incremental = incremental;
  if (network == impl_->shared.network) return;
  impl_->shared.network = std::move(network);
  impl_->shared.table.clear();  // scores of the other evaluation
  for (auto& w : impl_->workers) w->forget();
}
std::shared_ptr<const Network> Searcher::network() const { return impl_->shared.network; }

SearchResult Searcher::search(const Position& root, const std::vector<std::uint64_t>& history,
                              const SearchLimits& limits,
                              const std::function<void(const SearchReport&)>& on_iteration) {
  std::lock_guard<std::mutex> lock(impl_->running);
  detail::Shared& s = impl_->shared;
  s.stop.store(false);
  s.nodes.store(0);
  s.start = detail::Clock::now();
  s.time_ms = limits.time_ms;
  s.node_limit = limits.nodes;
  SearchResult result;
  MoveList legal;
  generate_legal(root, legal);
  if (legal.size == 0) return result;
  result.best = legal.moves[0];  // a legal move whatever happens
  result.has_move = true;
  const int max_depth = std::clamp(limits.depth, 1, detail::kMaxPly - 8);
  std::vector<std::unique_ptr<detail::Worker>>& workers = impl_->workers;
  workers.resize(static_cast<std::size_t>(impl_->threads));
  for (int t = 0; t < impl_->threads; ++t) {
    auto& w = workers[static_cast<std::size_t>(t)];
    if (!w) w = std::make_unique<detail::Worker>(s);
    w->start(root, history, t == 0);
  }
  // Helpers (Lazy SMP) search the same root on the shared table, starting one or two plies deeper.
  std::vector<std::thread> helpers;
  for (int t = 1; t < impl_->threads; ++t)
    helpers.emplace_back([&, t] {
      detail::Worker& w = *workers[static_cast<std::size_t>(t)];
      for (int d = 1 + t % 2; d <= max_depth && !s.stop.load(); ++d) w.search(d, -kMate, kMate);
    });
  detail::Worker& main = *workers[0];
  int stable = 0;  // iterations in a row that kept the best move
  for (int d = 1; d <= max_depth; ++d) {
    main.reset_seldepth();
    // Aspiration window: from depth 5 the search starts in a window around the last score, widened
    // (doubling) on the side that fails.
    int score = 0;
    if (d >= 5 && std::abs(result.score) < kMateBound) {
      int delta = 25, lo = result.score - delta, hi = result.score + delta;
      for (;;) {
        score = main.search(d, lo, hi);
        if (s.stop.load()) break;
        if (score <= lo) {
          lo = std::max(score - delta, -kMate);
        } else if (score >= hi) {
          hi = std::min(score + delta, kMate);
        } else {
          break;
        }
        delta *= 2;
        if (delta > 600) lo = -kMate, hi = kMate;
      }
    } else {
      score = main.search(d, -kMate, kMate);
    }
    if (s.stop.load() && d > 1) break;  // an interrupted iteration does not count (the first one does)
    const int last_score = result.score;
    if (main.pv_length() > 0) {
      stable = d > 1 && main.pv(0) == result.best ? stable + 1 : 0;
      result.best = main.pv(0);
    }
    result.score = score;
    result.depth = d;
    SearchReport r;
    r.depth = d;
    r.seldepth = main.seldepth();
    r.score = score;
    std::uint64_t total = 0;
    for (const auto& w : workers) total += w->nodes();
    r.nodes = total;
    r.time_ms = std::chrono::duration_cast<std::chrono::milliseconds>(detail::Clock::now() - s.start).count();
    for (int k = 0; k < main.pv_length(); ++k) r.pv.push_back(main.pv(k));
    if (on_iteration) on_iteration(r);
    if (s.stop.load()) break;
    // The soft limit scaled by how settled the search is: a best move that just changed or a score that
    // fell gets more time (up to twice), one kept for several iterations less (down to half).
    if (limits.soft_time_ms && !limits.infinite) {
      double scale = stable == 0 ? 1.6 : stable == 1 ? 1.2 : stable >= 4 ? 0.6 : 0.85;
      if (d > 1 && score < last_score - 30) scale *= 1.3;
      const auto soft = static_cast<std::int64_t>(static_cast<double>(limits.soft_time_ms) * std::min(scale, 2.0));
      if (r.time_ms >= soft) break;  // no time for another
    }
    if (std::abs(score) > kMateBound && d >= kMate - std::abs(score) + 2 && !limits.infinite) break;  // mate found
  }
  while (limits.infinite && !s.stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // until stop()
  s.stop.store(true);
  for (std::thread& h : helpers) h.join();
  for (const auto& w : workers) result.nodes += w->nodes();
  // Guard: the reported move is one of the root's legal moves.
  bool legal_best = false;
  for (Move m : legal) legal_best = legal_best || m == result.best;
  if (!legal_best) result.best = legal.moves[0];
  return result;
}

}  // namespace warpmind::search::chess
