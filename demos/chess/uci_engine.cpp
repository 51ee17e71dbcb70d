// The UCI engine of warpmind-chess (contract in uci_engine.h).
#include "uci_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/core/thread_pool.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/hybrid.h"
#include "warpmind/search/time_budget.h"

namespace warpmind::demos {

using namespace warpmind::search::chess;

namespace {

std::string score_text(int score) {
  if (score > kMateBound) return "mate " + std::to_string((kMate - score + 1) / 2);
  if (score < -kMateBound) return "mate -" + std::to_string((kMate + score) / 2);
  return "cp " + std::to_string(score);
}

constexpr const char* kBenchFens[] = {
    kStartFen,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
};

}  // namespace

class UciEngine::Impl {
 public:
  Impl(Output out, int hash_mb)
      : out_(std::move(out)), hash_mb_(std::clamp(hash_mb, 1, 65536)), searcher_(hash_mb_, 1), pool_(0) {
    (void)parse_fen(kStartFen, position_);
    searcher_.set_network(Network::builtin());
  }
  ~Impl() {
    searcher_.stop();
    hybrid_stop_ = true;
    wait();
  }

  // Returns false on quit.
  bool handle(const std::string& line) {
    std::istringstream in(line);
    std::string cmd;
    if (!(in >> cmd)) return true;
    if (cmd == "uci") {
      say("id name warpmind 0.1");
      say("id author the warpmind developers");
      say("option name Hash type spin default 64 min 1 max 65536");
      say("option name Threads type spin default 1 min 1 max 256");
      say("option name Backend type combo default auto var auto var cpu var cuda");
      say("option name Search type combo default alphabeta var alphabeta var hybrid");
      say("option name Lmin type spin default 32 min 1 max 1048576");
      say("option name Lmax type spin default 4096 min 1 max 1048576");
      say("option name Bmin type spin default 8 min 1 max 1048576");
      say("option name Bmax type spin default 1024 min 1 max 1048576");
      say("option name Pruning type check default true");
      say("option name FirstChildFirst type check default true");
      say("option name CutOneByOne type spin default 256 min 1 max 256");
      say("option name SubtreePlies type spin default 0 min 0 max 4");
      say("option name Evaluation type combo default network var network var classical");
      say("option name EvalFile type string default <builtin>");
      say("uciok");
    } else if (cmd == "isready") {
      if (hybrid_) (void)gpu();  // the GPU (when one is used) is started here, not on the clock
      say("readyok");
    } else if (cmd == "ucinewgame") {
      wait();
      searcher_.clear();
    } else if (cmd == "setoption") {
      setoption(in);
    } else if (cmd == "position") {
      wait();
      position(in);
    } else if (cmd == "go") {
      wait();
      go(in);
    } else if (cmd == "stop") {
      searcher_.stop();
      hybrid_stop_ = true;
      wait();
    } else if (cmd == "bench") {
      wait();
      bench(in);
    } else if (cmd == "quit") {
      searcher_.stop();
      hybrid_stop_ = true;
      wait();
      return false;
    } else {
      error("unknown command '" + cmd + "'");
    }
    return true;
  }

 private:
  void say(const std::string& line) {
    std::lock_guard<std::mutex> lock(out_mutex_);
    out_(line);
  }
  void error(const std::string& why) { say("info string error: " + why); }

  void wait() {
    if (thread_.joinable()) thread_.join();
  }

  void setoption(std::istringstream& in) {
    std::string word, name, value;
    in >> word;  // "name"
    while (in >> word && word != "value") name += (name.empty() ? "" : " ") + word;
    std::getline(in >> std::ws, value);
    const auto number = [&](int lo, int hi, int& out) {
      try {
        const int v = std::stoi(value);
        if (v < lo || v > hi) throw std::out_of_range("range");
        out = v;
        return true;
      } catch (...) {
        error("option " + name + ": '" + value + "' is not a number in [" + std::to_string(lo) + ", " +
              std::to_string(hi) + "]");
        return false;
      }
    };
    wait();
    if (name == "Hash") {
      if (number(1, 65536, hash_mb_)) searcher_.set_hash(hash_mb_);
    } else if (name == "Threads") {
      int t = 1;
      if (number(1, 256, t)) searcher_.set_threads(t);
    } else if (name == "Backend") {
      if (value != "auto" && value != "cpu" && value != "cuda") return error("option Backend: auto, cpu or cuda");
      backend_ = value;
      gpu_.reset();  // chosen again at the next use
      gpu_perft_.reset();
      gpu_context_.reset();
      gpu_tried_ = false;
      if (value == "cuda" && !gpu()) error("option Backend: cuda is unavailable here (" + gpu_why_ + "); the CPU runs");
    } else if (name == "Search") {
      if (value == "alphabeta" || value == "hybrid")
        hybrid_ = value == "hybrid";
      else
        error("option Search: alphabeta or hybrid");
    } else if (name == "Lmin" || name == "Lmax" || name == "Bmin" || name == "Bmax") {
      int v = 0;
      if (number(1, 1 << 20, v))
        (name == "Lmin"   ? hybrid_options_.l_min
         : name == "Lmax" ? hybrid_options_.l_max
         : name == "Bmin" ? hybrid_options_.b_min
                          : hybrid_options_.b_max) = v;
    } else if (name == "Evaluation") {
      if (value != "network" && value != "classical") return error("option Evaluation: network or classical");
      classical_ = value == "classical";
      searcher_.set_network(classical_ ? nullptr : network_);
    } else if (name == "EvalFile") {
      std::shared_ptr<const Network> n = Network::builtin();
      if (value != "<builtin>" && !value.empty()) {
        const Status st = Network::load(value, n);
        if (!st.ok()) return error("option EvalFile: " + st.message() + " (the network is unchanged)");
      }
      network_ = n;
      if (!classical_) searcher_.set_network(network_);
    } else if (name == "SubtreePlies") {
      int v = 0;
      if (number(0, 4, v)) subtree_plies_ = v;
    } else if (name == "CutOneByOne") {
      int v = 1;
      if (number(1, 256, v)) hybrid_options_.cut_one_by_one = v;
    } else if (name == "Pruning" || name == "FirstChildFirst") {
      if (value != "true" && value != "false")
        error("option " + name + ": true or false");
      else
        (name == "Pruning" ? hybrid_options_.pruning : hybrid_options_.first_child_first) = value == "true";
    } else {
      error("unknown option '" + name + "'");
    }
  }

  void position(std::istringstream& in) {
    std::string word;
    in >> word;
    Position p;
    if (word == "startpos") {
      (void)parse_fen(kStartFen, p);  // a constant: cannot fail
      in >> word;
    } else if (word == "fen") {
      std::string fen;
      while (in >> word && word != "moves") fen += (fen.empty() ? "" : " ") + word;
      const Status st = parse_fen(fen, p);
      if (!st.ok()) return error(st.message());
    } else {
      return error("position: expected startpos or fen");
    }
    std::vector<std::uint64_t> keys;
    if (word == "moves")
      while (in >> word) {
        Move m;
        const Status st = parse_uci_move(p, word, m);
        if (!st.ok()) return error(st.message());
        keys.push_back(p.key);
        Undo u;
        make_move(p, m, u);
      }
    position_ = p;
    history_ = keys;
  }

  void go(std::istringstream& in) {
    SearchLimits limits;
    std::int64_t wtime = -1, btime = -1, winc = 0, binc = 0, movetime = -1;
    int movestogo = 0;
    std::string word;
    while (in >> word) {
      long long v = 0;
      const auto next = [&]() {
        if (!(in >> v)) {
          error("go " + word + ": expected a number");
          return false;
        }
        return true;
      };
      if (word == "infinite")
        limits.infinite = true;
      else if (word == "perft") {
        if (!next()) return;
        return perft(static_cast<int>(std::clamp<long long>(v, 1, 20)));
      } else if (word == "wtime") {
        if (!next()) return;
        wtime = v;
      } else if (word == "btime") {
        if (!next()) return;
        btime = v;
      } else if (word == "winc") {
        if (!next()) return;
        winc = v;
      } else if (word == "binc") {
        if (!next()) return;
        binc = v;
      } else if (word == "movestogo") {
        if (!next()) return;
        movestogo = static_cast<int>(v);
      } else if (word == "movetime") {
        if (!next()) return;
        movetime = v;
      } else if (word == "depth") {
        if (!next()) return;
        limits.depth = static_cast<int>(std::clamp<long long>(v, 1, 100));
      } else if (word == "nodes") {
        if (!next()) return;
        limits.nodes = static_cast<std::uint64_t>(std::max<long long>(v, 1));
      } else
        return error("go: unknown parameter '" + word + "'");
    }
    const auto received = std::chrono::steady_clock::now();
    const std::int64_t left = position_.side == White ? wtime : btime;
    if (movetime >= 0)
      limits.time_ms = std::max<std::int64_t>(movetime - 20, 1);
    else if (left >= 0 && hybrid_)
      limits.time_ms = search::time_budget(left, position_.side == White ? winc : binc, movestogo);
    else if (left >= 0) {
      // Alpha-beta deepens iteratively: no new iteration after the soft limit, a stop at the hard one.
      const search::TimeLimits t = search::time_limits(left, position_.side == White ? winc : binc, movestogo);
      limits.time_ms = t.hard_ms;
      limits.soft_time_ms = t.soft_ms;
    }
    const Position root = position_;
    const std::vector<std::uint64_t> history = history_;
    if (hybrid_) return go_hybrid(root, limits, received);
    thread_ = std::thread([this, root, history, limits] {
      const SearchResult r = searcher_.search(root, history, limits, [this](const SearchReport& rep) {
        std::string line =
            "info depth " + std::to_string(rep.depth) + " seldepth " + std::to_string(rep.seldepth) + " score " +
            score_text(rep.score) + " nodes " + std::to_string(rep.nodes) + " nps " +
            std::to_string(rep.time_ms > 0 ? rep.nodes * 1000 / static_cast<std::uint64_t>(rep.time_ms) : rep.nodes) +
            " time " + std::to_string(rep.time_ms) + " pv";
        for (Move m : rep.pv) line += " " + move_to_uci(m);
        say(line);
      });
      say(r.has_move ? "bestmove " + move_to_uci(r.best) : "bestmove 0000");
    });
  }

  // The GPU batch backend for the hybrid search and perft, when Backend is cuda or auto and a usable
  // GPU exists (created at the first use); nullptr otherwise.
  GpuBatch* gpu() {
    if (backend_ == "cpu") return nullptr;
    if (!gpu_tried_) {
      gpu_tried_ = true;
      ContextOptions o;
      o.backend = Backend::Cuda;
      o.cpu_threads = 1;
      o.quiet = true;
      Status st = Context::create(o, gpu_context_);
      if (st.ok()) st = GpuBatch::create(*gpu_context_, gpu_);
      if (!st.ok()) {
        gpu_why_ = st.message();
        gpu_.reset();
      }
    }
    return gpu_.get();
  }

  // The node-based hybrid search (Algorithm 2) on the GPU batch backend when there is one, else on the
  // CPU's: iterative deepening of whole runs while the next one (estimated from the last, times the
  // growth so far) fits the time budget.
  // The clock runs from `received`, when `go` arrived: a depth is started only when its predicted time
  // fits the budget, and one that runs past the budget is stopped there (the last completed depth's
  // move is played), so the engine answers within its budget.
  void go_hybrid(const Position& root, const SearchLimits& limits, std::chrono::steady_clock::time_point received) {
    GpuBatch* device = gpu();
    hybrid_stop_ = false;
    const int plies = subtree_plies_;
    thread_ = std::thread([this, root, limits, device, received, plies] {
      if (device) {
        search_with(*device, plies, root, limits, received);
        if (!device->error().ok())
          say("info string " + device->error().message() + " (the CPU computed those batches)");
      } else {
        search::CpuBatch<ChessGame> backend{pool_};
        search_with(backend, plies, root, limits, received);
      }
    });
  }

  // The hybrid search on `backend`; with SubtreePlies k > 0 over the upper plies only, every horizon
  // node the root of a k-ply subtree searched in one pass per batch (search::SubtreeLeaves).
  template <class Batch>
  void search_with(Batch& backend, int plies, const Position& root, const SearchLimits& limits,
                   std::chrono::steady_clock::time_point t0) {
    if (plies == 0) {
      search::HybridSearch<ChessGame, Batch> hybrid;
      run_hybrid(hybrid, backend, 0, root, limits, t0);
      return;
    }
    search::SubtreeLeaves<ChessGame, Batch> subtrees{backend, plies};
    search::HybridSearch<ChessGame, search::SubtreeLeaves<ChessGame, Batch>> hybrid;
    run_hybrid(hybrid, subtrees, plies, root, limits, t0);
  }

  // Iterative deepening of the upper `max depth - below` plies, `below` plies under the horizon.
  template <class Search, class Batch>
  void run_hybrid(Search& hybrid, Batch& backend, int below, const Position& root, const SearchLimits& limits,
                  std::chrono::steady_clock::time_point t0) {
    MoveList legal;
    generate_legal(root, legal);
    if (legal.size == 0) return say("bestmove 0000");
    search::HybridOptions o = hybrid_options_;
    o.stop = &hybrid_stop_;
    if (below > 0) o.l_max = std::min(o.l_max, 256);  // a batch of subtrees stays within milliseconds
    const int max_depth = std::max(1, std::min(limits.depth, limits.infinite ? 64 : 12) - below);
    const std::int64_t time_ms = limits.infinite ? 0 : limits.time_ms;
    std::uint64_t subtree_nodes = 0;  // backend.nodes before this depth
    const auto r = search::deepen(
        hybrid, root, o, max_depth, time_ms, t0, backend, [&](const auto& res, const search::DeepeningStep& step) {
          // this depth's nodes; with subtrees the upper tree's branches and every subtree node
          std::uint64_t nodes = step.stats.computed();
          if constexpr (requires { backend.nodes; }) {
            nodes = step.stats.batched_branches + step.stats.single_branches + backend.nodes - subtree_nodes;
            subtree_nodes = backend.nodes;
          }
          say("info depth " + std::to_string(step.depth + below) + " score " + score_text(res.value) + " nodes " +
              std::to_string(nodes) + " time " + std::to_string(static_cast<long long>(step.total_ms)) + " pv " +
              move_to_uci(res.has_move ? res.best : legal.moves[0]));
          say("info string hybrid: " + std::to_string(step.stats.batched_leaves + step.stats.batched_branches) +
              " nodes in batches, " + std::to_string(step.stats.single_leaves + step.stats.single_branches) +
              " one by one, " + std::to_string(step.stats.pruned) + " pruned");
          return !(limits.nodes && nodes >= limits.nodes) && std::abs(res.value) <= kMateBound;
        });
    const Move best = r.has_move ? r.best : legal.moves[0];
    say("bestmove " + move_to_uci(best));
  }

  // Per root move counts, then the total; on the GPU (a perft of each child) when there is one.
  void perft(int depth) {
    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t total = 0;
    const bool on_gpu = gpu() != nullptr;
    if (on_gpu && !gpu_perft_) {
      const Status st = GpuPerft::create(*gpu_context_, gpu_perft_);
      if (!st.ok()) return error("perft: " + st.message());
    }
    if (on_gpu) {
      MoveList moves;
      generate_legal(position_, moves);
      for (const Move m : moves) {
        Position child = position_;
        Undo u;
        make_move(child, m, u);
        std::uint64_t n = 0;
        const Status st = gpu_perft_->run(child, depth - 1, n, nullptr, depth - 1 >= 6);  // the table from 6 on
        if (!st.ok()) return error("perft: " + st.message());
        say(move_to_uci(m) + ": " + std::to_string(n));
        total += n;
      }
    } else {
      for (const auto& [m, n] : perft_divide(position_, depth, pool_)) {
        say(move_to_uci(m) + ": " + std::to_string(n));
        total += n;
      }
    }
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    say("");
    say("Nodes searched: " + std::to_string(total));
    say("info string perft " + std::to_string(depth) + " in " + std::to_string(ms) + " ms on the " +
        (on_gpu ? "GPU" : "CPU"));
  }

  // A fixed search of fixed positions on one thread from a cleared table, with the evaluation the options
  // chose: the node count is a signature of the engine's search and evaluation.
  void bench(std::istringstream& in) {
    int depth = 7;
    if (!(in >> depth)) depth = 7;
    depth = std::clamp(depth, 1, 20);
    Searcher s(16, 1);
    s.set_network(searcher_.network());  // the evaluation chosen by the options
    std::uint64_t nodes = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const char* fen : kBenchFens) {
      Position p;
      (void)parse_fen(fen, p);  // constants: cannot fail
      SearchLimits l;
      l.depth = depth;
      s.clear();
      const SearchResult r = s.search(p, {}, l);
      nodes += r.nodes;
      say("info string " + std::string(fen) + ": " + move_to_uci(r.best) + " " + score_text(r.score) + ", " +
          std::to_string(r.nodes) + " nodes");
    }
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    say("Nodes searched: " + std::to_string(nodes));
    say("Nodes/second: " + std::to_string(ms > 0 ? nodes * 1000 / static_cast<std::uint64_t>(ms) : nodes));
  }

  Output out_;
  std::mutex out_mutex_;
  int hash_mb_ = 64;
  bool hybrid_ = false;
  int subtree_plies_ = 0;
  std::string backend_ = "auto";
  bool gpu_tried_ = false;
  std::string gpu_why_;
  std::unique_ptr<Context> gpu_context_;
  std::unique_ptr<GpuBatch> gpu_;
  std::unique_ptr<GpuPerft> gpu_perft_;  // perft's levels, on the same context
  std::atomic<bool> hybrid_stop_{false};
  search::HybridOptions hybrid_options_ = [] {
    search::HybridOptions o;
    o.first_child_first = true;
    o.cut_one_by_one = 256;  // expected CUT nodes release their children one at a time
    return o;
  }();
  Searcher searcher_;
  std::shared_ptr<const Network> network_ = Network::builtin();  // EvalFile's
  bool classical_ = false;                                       // Evaluation classical
  ThreadPool pool_;
  Position position_;
  std::vector<std::uint64_t> history_;
  std::thread thread_;
};

UciEngine::UciEngine(Output out, int hash_mb) : impl_(std::make_unique<Impl>(std::move(out), hash_mb)) {}
UciEngine::~UciEngine() = default;
bool UciEngine::handle(const std::string& line) { return impl_->handle(line); }

}  // namespace warpmind::demos
