// The Connect6 engine of warpmind-connect6 (contract in connect6_engine.h).
#include "connect6_engine.h"

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "warpmind/core/context.h"
#include "warpmind/core/thread_pool.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/connect6_network.h"
#include "warpmind/search/hybrid.h"

namespace warpmind::demos {

using namespace warpmind::search::connect6;

class Connect6Engine::Impl {
 public:
  Impl(Output out, Output notes) : out_(std::move(out)), notes_(std::move(notes)) {
    options_.threat_depth = kThreatDepth;  // the deep threat-space search and the defence against it, on
  }
  bool handle(const std::string& line) {
    std::istringstream in(line);
    std::string cmd, arg;
    if (!(in >> cmd)) return true;
    in >> arg;
    if (cmd == "name") {
      out("name warpmind");
    } else if (cmd == "new") {
      if (arg != "black" && arg != "white") return error("new: black or white");
      board_ = Board();
      engine_ = arg == "black" ? BlackStone : WhiteStone;
      if (engine_ == BlackStone) play_ours();
    } else if (cmd == "black" || cmd == "white") {
      setup(cmd == "black" ? BlackStone : WhiteStone, arg);
    } else if (cmd == "next") {
      play_ours();
    } else if (cmd == "move") {
      Turn t;
      warpmind::Status st = parse_turn(arg, t);
      if (st.ok()) st = board_.play(t);
      if (!st.ok()) return error(st.message());
      if (!board_.over())
        play_ours();
      else
        report_end();
    } else if (cmd == "depth" || cmd == "time" || cmd == "threads") {
      try {
        const int v = std::stoi(arg);
        const int lo = cmd == "time" ? 0 : 1, hi = cmd == "depth" ? 20 : cmd == "threads" ? 256 : 3600000;
        if (v < lo || v > hi) throw std::out_of_range("range");
        (cmd == "depth" ? options_.depth : cmd == "time" ? options_.time_ms : options_.threads) = v;
        if (cmd == "threads") pool_.reset();  // the hybrid's CPU pool follows
      } catch (...) {
        return error(cmd + ": '" + arg + "' is out of range");
      }
    } else if (cmd == "threats" || cmd == "treethreats") {
      try {
        const int v = std::stoi(arg);
        if (v < 0 || v > 32) throw std::out_of_range("range");
        (cmd == "threats" ? options_.threat_depth : options_.tree_threat_depth) = v;
      } catch (...) {
        return error(cmd + ": '" + arg + "' is out of range (0..32)");
      }
    } else if (cmd == "plies") {
      try {
        const int v = std::stoi(arg);
        if (v < 0 || v > 3) throw std::out_of_range("range");
        subtree_plies_ = v;
      } catch (...) {
        return error("plies: '" + arg + "' is out of range (0..3)");
      }
    } else if (cmd == "evaluation") {
      if (arg != "network" && arg != "windows") return error("evaluation: network or windows");
      windows_ = arg == "windows";
      options_.network = windows_ ? nullptr : network_;
    } else if (cmd == "evalfile") {
      std::shared_ptr<const Network> n = Network::builtin();
      if (arg != "<builtin>" && !arg.empty()) {
        const warpmind::Status st = Network::load(arg, n);
        if (!st.ok()) return error("evalfile: " + st.message() + " (the network is unchanged)");
      }
      network_ = n;
      if (!windows_) options_.network = network_;
    } else if (cmd == "search") {
      if (arg != "alphabeta" && arg != "hybrid") return error("search: alphabeta or hybrid");
      hybrid_ = arg == "hybrid";
    } else if (cmd == "backend") {
      if (arg != "cpu" && arg != "cuda" && arg != "auto") return error("backend: cpu, cuda or auto");
      backend_ = arg;
      gpu_tried_ = false;
      gpu_.reset();
      if (arg == "cuda" && !gpu()) return error("backend cuda: " + gpu_why_ + " (the hybrid's batches run on the CPU)");
    } else if (cmd == "bench") {
      bench(arg, notes_);
    } else if (cmd == "quit") {
      return false;
    } else {
      return error("unknown command '" + cmd + "'");
    }
    return true;
  }

  // Fixed openings, a fixed depth, one thread, no time limit: the summed node count is a signature of
  // the search (changing the search changes it).
  void bench(const std::string& arg, const Output& to) {
    int depth = 3;
    if (!arg.empty()) {
      try {
        depth = std::stoi(arg);
      } catch (...) {
        depth = 0;
      }
      if (depth < 1 || depth > 6) return (void)error("bench: depth 1..6");
    }
    const char* openings[] = {"K10 L10L11 J9J11 M12N13", "K10 K11L9 J10J12 H8N14", "JJ KKKL IIHH LLMM"};
    std::uint64_t nodes = 0;
    for (const char* record : openings) {
      Board b;
      std::istringstream turns(record);
      std::string text;
      Turn t;
      while (turns >> text)
        if (!parse_turn(text, t).ok() || !b.play(t).ok()) return (void)error("bench: bad opening");  // constants
      SearchOptions o;
      o.depth = depth;
      const SearchOutcome r = warpmind::search::connect6::search(b, o);
      nodes += r.nodes;
      to("bench " + std::string(record) + ": " + turn_name(r.best, Notation::Letters) + " score " +
         std::to_string(r.score) + ", " + std::to_string(r.nodes) + " nodes");
    }
    to("bench nodes " + std::to_string(nodes));
  }

 private:
  void out(const std::string& s) { out_(s); }
  void note(const std::string& s) { notes_(s); }
  bool error(const std::string& why) {
    note("error: " + why);
    return true;
  }

  void setup(Stone s, const std::string& text) {
    // Any number of stones, two letters or letter+number each.
    std::string rest = text;
    Turn t;
    while (!rest.empty()) {
      std::size_t len = 2;
      if (rest.size() >= 2 && std::isdigit(static_cast<unsigned char>(rest[1])))
        len = rest.size() >= 3 && std::isdigit(static_cast<unsigned char>(rest[2])) ? 3 : 2;
      warpmind::Status st = parse_turn(rest.substr(0, len), t);
      if (st.ok()) st = board_.setup(s, t.a);
      if (!st.ok()) {
        error(st.message());
        return;
      }
      rest = rest.substr(len);
    }
  }

  // The GPU batch backend, when the backend is cuda or auto and a usable GPU exists (created at the
  // first use); nullptr otherwise (gpu_why_ says why).
  GpuBatch* gpu() {
    if (backend_ == "cpu") return nullptr;
    if (!gpu_tried_) {
      gpu_tried_ = true;
      warpmind::ContextOptions o;
      o.backend = warpmind::Backend::Cuda;
      o.cpu_threads = 1;
      o.quiet = true;
      warpmind::Status st = warpmind::Context::create(o, gpu_context_);
      if (st.ok()) st = GpuBatch::create(*gpu_context_, gpu_);
      if (!st.ok()) {
        gpu_why_ = st.message();
        gpu_.reset();
      }
    }
    return gpu_.get();
  }

  // The hybrid search: iterative deepening to `depth` turns while the next depth (predicted from the
  // last) fits `time` (when set), a depth that runs past it stopped there and the last completed
  // depth's turn played. The GPU's batches when there is one, else the CPU pool's.
  SearchOutcome hybrid_search() {
    const auto t0 = std::chrono::steady_clock::now();
    SearchOutcome best;
    std::vector<Turn> first;
    candidate_turns(board_, options_.width, first);
    best.best = first.front();  // the game is not over: there is a turn
    GpuBatch* device = gpu();
    if (device && !device->set_game({options_.width}).ok()) device = nullptr;  // wider than the GPU's turns
    warpmind::search::HybridOptions o;
    o.first_child_first = true;
    o.cut_one_by_one = 256;
    if (subtree_plies_ > 0) o.l_max = 256;  // a batch of subtrees stays within milliseconds
    const int below = subtree_plies_;
    // Iterative deepening of the upper depth - below turns on `backend` (with `below` turns of subtrees
    // under the horizon when below > 0: search::SubtreeLeaves).
    const auto run = [&](auto& backend) {
      using Backend = std::remove_reference_t<decltype(backend)>;
      warpmind::search::HybridSearch<Connect6Game, Backend> h;
      std::uint64_t subtree_nodes = 0;  // backend.nodes before this depth
      (void)warpmind::search::deepen(
          h, board_, o, std::max(1, options_.depth - below), options_.time_ms, t0, backend,
          [&](const auto& r, const warpmind::search::DeepeningStep& step) {
            std::uint64_t nodes = step.stats.computed();  // this depth's
            if constexpr (requires { backend.nodes; }) {
              nodes = step.stats.batched_branches + step.stats.single_branches + backend.nodes - subtree_nodes;
              subtree_nodes = backend.nodes;
            }
            if (r.has_move) best.best = r.best;
            best.score = r.value;
            best.depth = step.depth + below;
            best.nodes += nodes;
            note("info hybrid depth " + std::to_string(step.depth + below) + " score " + std::to_string(r.value) +
                 " nodes " + std::to_string(nodes) + " on the " + (device ? "GPU" : "CPU") + " (" +
                 std::to_string(step.stats.batched_leaves + step.stats.batched_branches) + " in batches" +
                 (below ? ", " + std::to_string(below) + "-turn subtrees below the horizon" : std::string()) + ")");
            return true;
          });
    };
    const auto run_on = [&](auto& batch) {
      if (below == 0) return run(batch);
      warpmind::search::SubtreeLeaves<Connect6Game, std::remove_reference_t<decltype(batch)>> subtrees{batch, below};
      run(subtrees);
    };
    if (device) {
      run_on(*device);
    } else {
      if (!pool_)
        pool_ =
            std::make_unique<warpmind::ThreadPool>(static_cast<unsigned>(options_.threads > 1 ? options_.threads : 0));
      warpmind::search::CpuBatch<Connect6Game> backend{*pool_, {options_.width}};
      run_on(backend);
    }
    if (device && !device->error().ok())
      note("info " + device->error().message() + " (the CPU computed those batches)");
    return best;
  }

  void play_ours() {
    if (board_.over()) return report_end();
    const SearchOutcome r = hybrid_ ? hybrid_search() : warpmind::search::connect6::search(board_, options_);
    const warpmind::Status st = board_.play(r.best);
    if (!st.ok()) {  // cannot happen: the search only proposes legal turns; never send an illegal one
      error("internal: " + st.message());
      return;
    }
    out("move " + turn_name(r.best, Notation::Letters));
    note("info depth " + std::to_string(r.depth) + " score " + std::to_string(r.score) + " nodes " +
         std::to_string(r.nodes) + (r.forced ? " (forced)" : ""));
    if (board_.over()) report_end();
  }

  void report_end() {
    note(board_.winner() == BlackStone   ? "result: black wins"
         : board_.winner() == WhiteStone ? "result: white wins"
                                         : "result: draw");
  }

  static constexpr int kThreatDepth = 12;  // attacking turns of the threat-space search ("threats 0": off)
  Board board_;
  Stone engine_ = WhiteStone;
  SearchOptions options_;
  std::shared_ptr<const Network> network_ = Network::builtin();  // evalfile's
  bool windows_ = true;                                          // evaluation windows (the default)
  bool hybrid_ = false;
  int subtree_plies_ = 0;  // plies: turns searched as whole subtrees below the hybrid's horizon
  std::string backend_ = "auto";
  bool gpu_tried_ = false;
  std::string gpu_why_;
  std::unique_ptr<warpmind::Context> gpu_context_;
  std::unique_ptr<GpuBatch> gpu_;
  std::unique_ptr<warpmind::ThreadPool> pool_;
  Output out_, notes_;
};

Connect6Engine::Connect6Engine(Output out, Output notes)
    : impl_(std::make_unique<Impl>(std::move(out), std::move(notes))) {}
Connect6Engine::~Connect6Engine() = default;
bool Connect6Engine::handle(const std::string& line) { return impl_->handle(line); }
void Connect6Engine::bench(const std::string& depth, const Output& to) { impl_->bench(depth, to); }

}  // namespace warpmind::demos
