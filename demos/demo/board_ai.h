// warpmind::demos — what the chess and Connect6 tables share: the computer's settings (which search,
// where the hybrid search's batches run, its tunables, time, threads, the pace of computer-against-
// computer games), what a running search reports, the game clock, and the GPU batch backend opened on
// first use.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "warpmind/core/context.h"
#include "warpmind/core/thread_pool.h"
#include "warpmind/search/hybrid.h"

namespace warpmind::demos {

enum class Player { Person, Computer };

// Which search the computer runs: the game's own alpha-beta on the CPU threads, or the node-based
// hybrid search (search/hybrid.h) with its batches on the backend (the GPU under cuda, or auto when a
// usable GPU exists; the CPU threads otherwise).
enum class AiSearch { AlphaBeta, Hybrid };

struct AiSettings {
  AiSearch search = AiSearch::AlphaBeta;
  Backend backend = Backend::Auto;  // the hybrid search's batches
  int time_ms = 1000;               // per move without a clock (0: depth alone); with one, the clock decides
  int threads = 1;
  int pace_ms = 0;  // computer against computer: at least this long between moves
  search::HybridOptions hybrid = [] {
    search::HybridOptions o;
    o.first_child_first = true;
    o.cut_one_by_one = 256;
    return o;
  }();
};

// The running search's last completed iteration, for the panel. Scores are from the side to move's view.
struct Thinking {
  bool active = false;
  AiSearch search = AiSearch::AlphaBeta;
  bool on_gpu = false;       // the hybrid search's batches run on the GPU
  std::string backend_note;  // why the GPU is not used, or its error (empty otherwise)
  int depth = 0, score = 0;
  std::uint64_t nodes = 0;
  std::int64_t time_ms = 0;
  search::HybridStats hybrid;  // the hybrid search's last depth
};

// Base time and increment per side; base_ms == 0: no clock.
struct TimeControl {
  std::int64_t base_ms = 0, increment_ms = 0;
  bool on() const { return base_ms > 0; }
};

// Both sides' clocks (side 0 and 1). At most one runs; every reading goes through `now`, which tests
// replace. Without a time control nothing runs and left_ms() is 0.
class GameClock {
 public:
  using Source = std::function<std::chrono::steady_clock::time_point()>;
  GameClock() : now_([] { return std::chrono::steady_clock::now(); }) {}
  void set_source(Source now) { now_ = std::move(now); }

  void reset(TimeControl tc);  // both sides get the base time; stopped
  const TimeControl& control() const { return tc_; }
  void start(int side);  // `side`'s time runs (the other's stops)
  void stop();           // the running side's time so far is taken; nothing runs
  // `side` has moved: its time so far is taken and the increment added; nothing runs after.
  void moved(int side);
  std::int64_t left_ms(int side) const;  // live for the running side; may go below 0
  int running() const { return running_; }
  bool flagged(int side) const { return tc_.on() && left_ms(side) <= 0; }

  struct Snapshot {
    std::int64_t left[2] = {0, 0};
  };
  // The times as they stood when the running side's time last started (its time since then not
  // taken): what undo gives back, the turn's thinking refunded. Stops nothing.
  Snapshot snapshot() const;
  void restore(const Snapshot& s);  // stopped after

 private:
  TimeControl tc_;
  std::int64_t left_[2] = {0, 0};
  int running_ = -1;
  std::chrono::steady_clock::time_point since_{};
  Source now_;
};

// The GPU batch backend of a game (search::chess::GpuBatch or search::connect6::GpuBatch), opened on
// first use when the backend allows it; get() returns nullptr (and why() says why) when there is none.
template <class Batch>
class GpuBatchSlot {
 public:
  Batch* get(Backend backend) {
    if (backend == Backend::Cpu) return nullptr;
    if (!tried_) {
      tried_ = true;
      ContextOptions o;
      o.backend = Backend::Cuda;
      o.cpu_threads = 1;
      o.quiet = true;
      Status st = Context::create(o, context_);
      if (st.ok()) st = Batch::create(*context_, batch_);
      if (!st.ok()) {
        why_ = st.message();
        batch_.reset();
      }
    }
    return batch_.get();
  }
  const std::string& why() const { return why_; }

 private:
  bool tried_ = false;
  std::string why_;
  std::unique_ptr<Context> context_;
  std::unique_ptr<Batch> batch_;
};

// The hybrid search for a board's computer playing `game` (search/hybrid.h's deepen from now, `depth` at most, `time_ms`
// when > 0, stopped by `stop`): on the GPU's batches when `gpu` gives one under ai.backend, else on
// `pool` (made, or remade, with ai.threads threads). Under `mutex`, `report` gets where the batches run
// (and why not on the GPU) and, after every completed depth, its depth, score, nodes so far, time and
// batch statistics; on_depth(result), called with the lock held, adds the game's own (its best move)
// and returns whether to go deeper. Returns the last completed depth's result (has_move false when none completed).
template <class Move>
struct HybridOutcome {
  bool has_move = false;
  Move best{};
  int value = 0;
};

template <class Game, class Batch, class OnDepth>
HybridOutcome<typename Game::Move> think_hybrid(const Game& game, const typename Game::State& root,
                                                const AiSettings& ai, int depth, std::int64_t time_ms,
                                                const std::atomic<bool>& stop, GpuBatchSlot<Batch>& gpu,
                                                std::unique_ptr<ThreadPool>& pool, std::mutex& mutex, Thinking& report,
                                                OnDepth on_depth) {
  const auto t0 = std::chrono::steady_clock::now();
  Batch* device = gpu.get(ai.backend);
  if constexpr (requires { device->set_game(game); }) {
    if (device && !device->set_game(game).ok()) device = nullptr;  // settings the GPU batches cannot take
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    report.on_gpu = device != nullptr;
    report.backend_note = device || ai.backend == Backend::Cpu ? std::string() : "no GPU: " + gpu.why();
  }
  search::HybridOptions o = ai.hybrid;
  o.stop = &stop;
  const auto each = [&](const auto& r, const search::DeepeningStep& step) {
    std::lock_guard<std::mutex> lock(mutex);
    report.depth = step.depth;
    report.score = r.value;
    report.nodes += step.stats.computed();
    report.time_ms = static_cast<std::int64_t>(step.total_ms);
    report.hybrid = step.stats;
    return on_depth(r);
  };
  HybridOutcome<typename Game::Move> out;
  const auto take = [&](const auto& r) {
    out.has_move = r.has_move;
    out.best = r.best;
    out.value = r.value;
  };
  if (device) {
    search::HybridSearch<Game, Batch> h;
    take(search::deepen(h, root, o, depth, time_ms, t0, *device, each));
    if (!device->error().ok()) {
      std::lock_guard<std::mutex> lock(mutex);
      report.backend_note = device->error().message() + " (the CPU computed those batches)";
    }
  } else {
    const int threads = ai.threads > 1 ? ai.threads : 1;
    if (!pool || static_cast<int>(pool->size()) != threads)
      pool = std::make_unique<ThreadPool>(static_cast<unsigned>(threads));
    search::CpuBatch<Game> batch{*pool, game};
    search::HybridSearch<Game, search::CpuBatch<Game>> h;
    take(search::deepen(h, root, o, depth, time_ms, t0, batch, each));
  }
  return out;
}

// "1:23.4" (minutes, seconds, tenths; "-" before a flag's overrun).
std::string clock_text(std::int64_t ms);

}  // namespace warpmind::demos
