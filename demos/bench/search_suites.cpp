// Suites "chess" and "connect6": Li et al.'s experiments with our engines.
//  1 perft      nodes per second of the multi-threaded CPU perft (start 6, Kiwipete 5) and the GPU's
//               perft (start 8 and 9, Kiwipete 6 and 7, the other standard positions at their deepest
//               published count; with the transposition table start 8 to 11, Kiwipete 6 and 7), every
//               count checked against the published one.
//  2 batches    leaf calculation (evaluation) and branch calculation (legal moves in search order) for
//               batches of 1 .. 65,536 positions from random games: one CPU thread, the CPU pool, and the
//               GPU (transfers included) — the paper's Figs. 5 and 6 (speedup against batch size).
//  3 search     the device-resident search without pruning (the whole tree built and scored on the GPU,
//               one launch per level: minimax-gpu), and the whole hybrid search against a serial
//               negamax / alpha-beta over the same ordered
//               moves: depth 5 from the start without pruning and depth 6 with pruning (--quick: 3 and
//               4), varying Lmax = Bmax: times on the CPU pool and on the GPU, and the node counts
//               N_hybrid, N_serial (the paper's Table 3).
//  4 subtrees   the pruned search as the hybrid over the upper plies with whole k-ply subtrees below
//               its horizon, one device pass per batch (chess k = 2, 3; Connect6 k = 1, 2), on the CPU
//               pool and the GPU, and the engine's own multi-threaded search at the same depth (Lazy
//               SMP; the root split), with the time split into subtrees, branches and the driver.
// connect6 runs 2 and 3 with the paper's width w = 48: depth 4 without pruning and depth 5 with it
// (--quick: 2 and 3, w = 16), from a fixed opening. GPU rows appear with the CUDA backend.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "results.h"
#include "serial_search.h"
#include "suites.h"
#include "warpmind/core/context.h"
#include "warpmind/core/random.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/hybrid.h"

namespace warpmind::bench {

namespace {

using namespace search::chess;
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Which parts of a suite run (--part, --perft-only, --resident-only).
struct Parts {
  bool perft = true, batches = true, plain = true, pruned = true;
  bool hybrid = true;    // the hybrid rows of the searches (false: the serial and device-resident rows alone)
  bool subtrees = true;  // the pruned search with whole subtrees below its horizon, and the engines' own search
};

// The flags of the chess and connect6 suites.
struct Flags {
  SuiteFlags suite;
  std::string part;
  bool perft_only = false, resident_only = false;  // --perft-only: chess
};

// The parts --part names: "" or what is wrong with the list.
std::string read_parts(const std::string& list, Parts& out) {
  out = {false, false, false, false, true, false};
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string name = list.substr(at, end - at);
    at = end + 1;
    if (name == "perft")
      out.perft = true;
    else if (name == "batches")
      out.batches = true;
    else if (name == "plain")
      out.plain = true;
    else if (name == "pruned")
      out.pruned = true;
    else if (name == "subtrees")
      out.subtrees = true;
    else
      return "unknown part '" + name + "' (perft, batches, plain, pruned, subtrees)";
  }
  return {};
}

// The parts to run: --part LIST (checked when parsed) and the two shorthands.
Parts parts_to_run(const Flags& f, const CLI::App& app) {
  Parts out;
  if (app.count("--part")) (void)read_parts(f.part, out);
  if (f.perft_only) out = {true, false, false, false, true, false};
  if (f.resident_only) out = {false, false, true, false, false, false};
  return out;
}

// A search suite's app with the flags both take (`chess`: and --perft-only).
CLI::App* add_search_suite(CLI::App& parent, const char* name, const std::string& description, Flags& f, bool chess) {
  CLI::App* app = add_suite(
      parent, name, description,
      "Checks: perft counts against the published ones; batch rows (values, move lists) against the one-thread "
      "batch, and the one-thread batch against the GPU's when it ran; whole searches' values against a serial "
      "alpha-beta over the same moves (the GPU's node counts also against the CPU pool's).",
      "shallower perft and searches, smaller batches (a smoke test)", f.suite);
  demos::add_text(
      *app, "--part", f.part, "LIST",
      "run only these parts (comma-separated; default all): perft (chess), batches, plain (the searches without "
      "pruning, the "
      "device-resident one included), pruned (with pruning, the hybrid's rows), subtrees (with pruning: the "
      "hybrid over the upper plies, whole subtrees below its horizon searched in one pass per batch, and the "
      "engine's own multi-threaded search). The results file is rewritten after each part, so a run stopped "
      "later keeps the parts it finished.",
      [](const std::string& list) {
        Parts p;
        return read_parts(list, p);
      },
      "");
  if (chess) demos::add_flag(*app, "--perft-only", f.perft_only, "the perft rows alone (= --part perft)");
  demos::add_flag(*app, "--resident-only", f.resident_only,
                  "the serial search without pruning and the device-resident search alone");
  return app;
}

// against: what the record's output was compared with ("" when it was not compared).
void add(Results& results, const char* variant, const char* backend, double ms, const char* against, bool matched,
         const std::string& params, const std::string& extra) {
  Record r;
  r.variant = variant;
  r.backend = backend;
  r.timing.ms = {ms};
  if (*against) r.compared(against, matched);
  r.params_json = params;
  r.extra_json = extra;
  results.add(r);
}

// Leaf and branch batches of 1 .. max_batch positions: one CPU thread, the CPU pool, the GPU
// (transfers included); the best of three runs of each. Every row's values (leaf) or move lists
// (branch) are compared with the one-thread result of the same batch; the one-thread row is compared
// with the GPU's (a separate implementation of the rules and evaluation) when the GPU ran, and is
// unchecked otherwise. Returns the number of rows that differ.
template <class G, class Gpu>
int batch_rows(const G& game, const std::vector<typename G::State>& positions, int max_batch, Context& ctx, Gpu* gpu,
               Results& results) {
  using State = typename G::State;
  std::printf("\nbatch   kind   | %10s %10s %10s | %9s %9s   (ms per batch)\n", "1 thread", "cpu pool", "gpu",
              "gpu x 1t", "gpu x pool");
  search::CpuBatch<G> cpu_batch{ctx.pool(), game};
  ThreadPool one(1);
  search::CpuBatch<G> serial_batch{one, game};
  char params[128];
  int failures = 0;
  for (int batch = 1; batch <= max_batch && batch <= static_cast<int>(positions.size()); batch *= 4) {
    std::vector<const State*> in;
    for (int i = 0; i < batch; ++i) in.push_back(&positions[static_cast<std::size_t>(i)]);
    for (int kind = 0; kind < 2; ++kind) {
      struct Output {
        std::vector<int> values;
        std::vector<std::vector<typename G::Move>> moves;
        bool operator==(const Output&) const = default;
      };
      const auto time = [&](auto& backend, const char* variant, Output& out) {
        double best = 1e300;
        for (int rep = 0; rep < 3; ++rep) {
          const auto t0 = Clock::now();
          if (kind == 0)
            backend.leaves(in, out.values);
          else
            backend.branches(in, out.moves);
          best = std::min(best, ms_since(t0));
        }
        if (corrupt(variant)) {
          for (int& v : out.values) ++v;
          for (auto& m : out.moves) m.clear();
        }
        return best;
      };
      Output o1, op, og;
      const double t1 = time(serial_batch, "cpu-1-thread", o1), tp = time(cpu_batch, "cpu-pool", op),
                   tg = gpu ? time(*gpu, "gpu", og) : 0.0;
      const char* what = kind == 0 ? "leaf" : "branch";
      const bool pool_ok = op == o1, gpu_ok = !gpu || og == o1;
      failures += !pool_ok + !gpu_ok;
      std::printf("%6d %-7s | %10.3f %10.3f %10.3f | %8.1fx %8.1fx %s\n", batch, what, t1, tp, tg,
                  tg > 0 ? t1 / tg : 0.0, tg > 0 ? tp / tg : 0.0, pool_ok && gpu_ok ? "" : "MISMATCH");
      std::snprintf(params, sizeof params, "{\"experiment\": \"%s\", \"batch\": %d}", what, batch);
      add(results, "cpu-1-thread", "cpu", t1, gpu ? "gpu" : "", gpu_ok, params, "");
      add(results, "cpu-pool", "cpu", tp, "cpu-1-thread", pool_ok, params, "");
      if (gpu) add(results, "gpu", "cuda", tg, "cpu-1-thread", gpu_ok, params, "");
    }
  }
  return failures;
}

// The pruned search at `depth` as the hybrid over depth - k plies with k-ply subtrees below (see
// search_rows); returns the number of rows whose value (or GPU node count) differs.
template <class G, class Gpu, class Engine>
int subtree_rows(const G& game, const char* name, const typename G::State& root, int depth, int want,
                 std::uint64_t n_serial, double serial_ms, Context& ctx, Gpu* gpu, Results& results,
                 const std::vector<int>& subtree_plies, const char* engine_name, Engine& engine) {
  search::CpuBatch<G> cpu_batch{ctx.pool(), game};
  int failures = 0;
  char params[256], extra[512];
  struct Run {
    double ms = 0, device_ms = 0, leaf_ms = 0, branch_ms = 0;
    int value = 0;
    std::uint64_t nodes = 0;  // upper-tree branches + the subtrees' nodes (their roots included)
    search::HybridStats stats;
  };
  // The hybrid over depth - k plies (CUT nodes' children one by one), k-ply subtrees below on `inner`.
  const auto run = [&](auto& inner, int k, int lmax) {
    search::HybridOptions o;
    o.depth = depth - k;
    o.pruning = true;
    o.first_child_first = true;
    o.cut_one_by_one = 1 << 20;
    o.l_min = 1;
    o.l_max = o.b_max = lmax;
    o.b_min = 8;
    search::SubtreeLeaves<G, std::remove_reference_t<decltype(inner)>> backend{inner, k};
    search::HybridSearch<G, decltype(backend)> h;
    Run r;
    const auto t0 = Clock::now();
    r.value = h.run(root, o, backend, r.stats).value;
    r.ms = ms_since(t0);
    r.device_ms = backend.device_ms;
    r.leaf_ms = backend.leaf_ms;
    r.branch_ms = backend.branch_ms;
    r.nodes = r.stats.batched_branches + r.stats.single_branches + backend.nodes;
    return r;
  };
  const auto record = [&](const char* variant, const char* backend, const Run& r, bool ok, int k, int lmax, int tail) {
    std::snprintf(params, sizeof params,
                  "{\"experiment\": \"search\", \"position\": \"%s\", \"depth\": %d, \"pruning\": true, "
                  "\"cut_nodes_one_by_one\": true, \"subtree_plies\": %d, \"l_max\": %d, \"b_max\": %d, "
                  "\"subtree_tail\": %d}",
                  name, depth, k, lmax, lmax, tail);
    std::snprintf(extra, sizeof extra,
                  "\"n_hybrid\": %llu, \"n_serial\": %llu, \"ratio\": %.4f, \"serial_ms\": %.3f, "
                  "\"nodes_per_s\": %.0f, \"leaf_batches\": %llu, \"branch_batches\": %llu, \"device_ms\": %.3f, "
                  "\"subtree_ms\": %.3f, \"branch_ms\": %.3f, \"driver_ms\": %.3f",
                  static_cast<unsigned long long>(r.nodes), static_cast<unsigned long long>(n_serial),
                  static_cast<double>(r.nodes) / static_cast<double>(n_serial), serial_ms,
                  r.ms > 0 ? static_cast<double>(r.nodes) / r.ms * 1e3 : 0.0,
                  static_cast<unsigned long long>(r.stats.leaf_batches),
                  static_cast<unsigned long long>(r.stats.branch_batches), r.device_ms, r.leaf_ms, r.branch_ms,
                  r.ms - r.leaf_ms - r.branch_ms);
    add(results, variant, backend, r.ms, "serial-alpha-beta", ok, params, extra);
  };
  const auto split = [&](const char* who, const Run& r) {
    std::printf(
        "%-9s       %s: %llu subtree batches (mean %.0f roots) %.1f ms, of which device %.1f ms; %llu branch "
        "batches %.1f ms + %llu branches one by one; driver %.1f ms\n",
        "", who, static_cast<unsigned long long>(r.stats.leaf_batches),
        r.stats.leaf_batches ? static_cast<double>(r.stats.batched_leaves) / r.stats.leaf_batches : 0.0, r.leaf_ms,
        r.device_ms, static_cast<unsigned long long>(r.stats.branch_batches), r.branch_ms,
        static_cast<unsigned long long>(r.stats.single_branches), r.ms - r.leaf_ms - r.branch_ms);
  };
  for (int k : subtree_plies) {
    if (k < 1 || k >= depth) continue;
    for (int lmax : {256, 1024}) {
      const Run cp = run(cpu_batch, k, lmax);
      Run gp;
      if (gpu) {
        (void)run(*gpu, k, lmax);  // the first run loads the kernels and grows the level buffers
        gp = run(*gpu, k, lmax);
      }
      gp.value += gpu && corrupt("subtrees-gpu") ? 1 : 0;
      const bool cpu_ok = cp.value == want, gpu_ok = !gpu || (gp.value == want && gp.nodes == cp.nodes);
      failures += !cpu_ok + !gpu_ok;
      const double ratio = static_cast<double>(cp.nodes) / static_cast<double>(n_serial);
      char mode[32];
      std::snprintf(mode, sizeof mode, "sub k=%d", k);
      std::printf("%-9s %5d %6s %9d | %10.1f %10.1f %10.1f | %12llu %12llu %6.2fx | %8.1fx %8.1fx %s\n", name, depth,
                  mode, lmax, serial_ms, cp.ms, gp.ms, static_cast<unsigned long long>(cp.nodes),
                  static_cast<unsigned long long>(n_serial), ratio, gp.ms > 0 ? serial_ms / gp.ms : 0.0,
                  gp.ms > 0 ? cp.ms / gp.ms : 0.0, cpu_ok && gpu_ok ? "" : "MISMATCH");
      split(gpu ? "gpu" : "cpu", gpu ? gp : cp);
      record("subtrees-cpu-pool", "cpu", cp, cpu_ok, k, lmax, 0);
      if (gpu) record("subtrees-gpu", "cuda", gp, gpu_ok, k, lmax, 0);
    }
  }
  // GPU only: each subtree's plies below its first searched by alpha-beta on the device, one thread a node
  // (GpuBatch::set_subtree_tail): the same values as the serial search's, with far fewer nodes.
  if constexpr (requires { Gpu::max_tail(); })
    if (gpu && Gpu::max_tail() > 0)
      for (int k : {3, 4})
        for (int lmax : {256, 1024}) {
          if (k >= depth) continue;
          gpu->set_subtree_tail(k - 1);
          (void)run(*gpu, k, lmax);
          Run gp = run(*gpu, k, lmax);
          gpu->set_subtree_tail(0);
          gp.value += corrupt("subtrees-gpu-ab") ? 1 : 0;
          const bool ok = gp.value == want;
          failures += !ok;
          char mode[32];
          std::snprintf(mode, sizeof mode, "ab k=%d", k);
          std::printf("%-9s %5d %6s %9d | %10.1f %10s %10.1f | %12llu %12llu %6.2fx | %8.1fx %9s %s\n", name, depth,
                      mode, lmax, serial_ms, "-", gp.ms, static_cast<unsigned long long>(gp.nodes),
                      static_cast<unsigned long long>(n_serial),
                      static_cast<double>(gp.nodes) / static_cast<double>(n_serial),
                      gp.ms > 0 ? serial_ms / gp.ms : 0.0, "-", ok ? "" : "MISMATCH");
          split("gpu", gp);
          record("subtrees-gpu-ab", "cuda", gp, ok, k, lmax, k - 1);
        }
  std::uint64_t nodes = 0;
  const double ms = engine(depth, nodes);
  std::printf("%-9s %5d %6s %9s | %10.1f %10.1f %10s | %12llu %12llu %6.2fx | %9s  (%s, %u threads)\n", name, depth,
              "engine", "-", serial_ms, ms, "-", static_cast<unsigned long long>(nodes),
              static_cast<unsigned long long>(n_serial), static_cast<double>(nodes) / static_cast<double>(n_serial),
              "-", engine_name, ctx.pool().size());
  std::snprintf(params, sizeof params,
                "{\"experiment\": \"search\", \"position\": \"%s\", \"depth\": %d, \"pruning\": true, "
                "\"engine\": \"%s\", \"threads\": %u}",
                name, depth, engine_name, ctx.pool().size());
  std::snprintf(extra, sizeof extra, "\"nodes\": %llu, \"n_serial\": %llu, \"serial_ms\": %.3f, \"nodes_per_s\": %.0f",
                static_cast<unsigned long long>(nodes), static_cast<unsigned long long>(n_serial), serial_ms,
                ms > 0 ? static_cast<double>(nodes) / ms * 1e3 : 0.0);
  add(results, "engine-threads", "cpu", ms, "", true, params, extra);
  return failures;
}

// The whole search from `root` against the serial reference: without pruning at depth_plain, with it at
// depth_pruned (Algorithm 2, then with CUT nodes' children one by one), Lmax = Bmax from 256 to 16,384
// (with pruning 256 and 4,096);
// the hybrid on the CPU pool and on the GPU (which must compute the same nodes). Returns the number of runs whose value differs from the serial one.
//
// With pruning (part subtrees): the hybrid search over the upper depth - k plies with whole k-ply subtrees
// below its horizon (SubtreeLeaves: each batch's subtrees searched in one pass, without pruning; CUT
// nodes' children one by one above), k from `subtree_plies`, on the CPU pool and on the GPU (the same
// nodes); then `engine(depth, nodes)`, the game's own multi-threaded search at the same depth (a
// different search: its value is not compared), which returns its time in ms.
template <class G, class Gpu, class Engine>
int search_rows(const G& game, const char* name, const typename G::State& root, int depth_plain, int depth_pruned,
                Context& ctx, Gpu* gpu, Results& results, const Parts& parts, const std::vector<int>& subtree_plies,
                const char* engine_name, Engine&& engine) {
  std::printf("\nsearch    depth prune   lmax=bmax | %10s %10s %10s | %12s %12s %7s | %9s %9s\n", "serial ms",
              "cpu pool", "gpu", "N_hybrid", "N_serial", "ratio", "gpu x ser", "gpu x pool");
  search::CpuBatch<G> cpu_batch{ctx.pool(), game};
  int failures = 0;
  char params[256], extra[256];
  for (const bool prune : {false, true}) {
    if (prune ? !parts.pruned && !parts.subtrees : !parts.plain) continue;
    const int depth = prune ? depth_pruned : depth_plain;
    // The serial reference: the best of up to three runs while they take under two seconds together
    // (the host's timing noise is tens of percent on short runs).
    std::uint64_t n_serial = 0;
    int want = 0;
    double serial_ms = 1e300, serial_total = 0;
    for (int rep = 0; rep < 3 && serial_total < 2000; ++rep) {
      n_serial = 0;
      const auto t0 = Clock::now();
      want = serial(game, root, depth, 0, -kInf<G>, kInf<G>, prune, n_serial);
      const double ms = ms_since(t0);
      serial_ms = std::min(serial_ms, ms);
      serial_total += ms;
    }
    if (gpu && !prune) {  // the device-resident search: the whole tree built and scored on the GPU
      using Result = std::conditional_t<std::is_same_v<G, search::chess::ChessGame>, search::chess::MinimaxResult,
                                        search::connect6::MinimaxResult>;
      Result r;
      Status st = gpu->minimax(root, depth, r);  // the first run loads the kernels and grows the levels
      if (st.ok()) st = gpu->minimax(root, depth, r);
      const bool ok = st.ok() && r.value == want && r.nodes == n_serial;
      failures += !ok;
      if (!st.ok()) std::fprintf(stderr, "  minimax-gpu: %s\n", st.message().c_str());
      std::printf("%-9s %5d %6s %9s | %10.1f %10s %10.2f | %12llu %12llu %6.2fx | %8.1fx %9s %s\n", name, depth, "off",
                  "resident", serial_ms, "-", r.ms, static_cast<unsigned long long>(r.nodes),
                  static_cast<unsigned long long>(n_serial), 1.0, r.ms > 0 ? serial_ms / r.ms : 0.0, "-",
                  ok ? "" : "MISMATCH");
      std::snprintf(params, sizeof params,
                    "{\"experiment\": \"search\", \"position\": \"%s\", \"depth\": %d, \"pruning\": false, "
                    "\"device_resident\": true}",
                    name, depth);
      std::snprintf(extra, sizeof extra,
                    "\"n_hybrid\": %llu, \"n_serial\": %llu, \"ratio\": 1, \"serial_ms\": %.3f, \"nodes_per_s\": %.0f",
                    static_cast<unsigned long long>(r.nodes), static_cast<unsigned long long>(n_serial), serial_ms,
                    r.ms > 0 ? static_cast<double>(r.nodes) / r.ms * 1e3 : 0.0);
      add(results, "minimax-gpu", "cuda", r.ms, "serial-alpha-beta", ok, params, extra);
    }
    if (prune && parts.subtrees)
      failures += subtree_rows(game, name, root, depth, want, n_serial, serial_ms, ctx, gpu, results, subtree_plies,
                               engine_name, engine);
    if (!parts.hybrid || (prune && !parts.pruned)) continue;
    for (int mode = 0; mode < (prune ? 2 : 1); ++mode)  // with pruning: Algorithm 2, then CUT nodes one by one
      for (int lmax : {256, 1024, 4096, 16384}) {
        if (prune && (lmax == 1024 || lmax == 16384))
          continue;  // with pruning 256 and 4,096: the trend, in half the time
        search::HybridOptions o;
        o.depth = depth;
        o.pruning = prune;
        o.first_child_first = mode == 1;
        o.cut_one_by_one = mode == 1 ? 1 << 20 : 1;
        o.l_max = o.b_max = lmax;
        o.l_min = std::min(32, lmax);
        o.b_min = std::min(8, lmax);
        const auto run = [&](auto& backend, search::HybridStats& st, int& value) {
          search::HybridSearch<G, std::remove_reference_t<decltype(backend)>> h;
          const auto s0 = Clock::now();
          value = h.run(root, o, backend, st).value;
          return ms_since(s0);
        };
        search::HybridStats sp, sg;
        int vp = 0, vg = want;
        const double mp = run(cpu_batch, sp, vp);
        const double mg = gpu ? run(*gpu, sg, vg) : 0.0;
        vp += corrupt("hybrid-cpu-pool") ? 1 : 0;
        vg += gpu && corrupt("hybrid-gpu") ? 1 : 0;
        const bool ok = vp == want && vg == want && (!gpu || sg.computed() == sp.computed());
        failures += !ok;
        const double ratio = static_cast<double>(sp.computed()) / static_cast<double>(n_serial);
        std::printf("%-9s %5d %6s %9d | %10.1f %10.1f %10.1f | %12llu %12llu %6.2fx | %8.1fx %8.1fx %s\n", name, depth,
                    !prune ? "off"
                    : mode ? "on+cut"
                           : "on",
                    lmax, serial_ms, mp, mg, static_cast<unsigned long long>(sp.computed()),
                    static_cast<unsigned long long>(n_serial), ratio, mg > 0 ? serial_ms / mg : 0.0,
                    mg > 0 ? mp / mg : 0.0, ok ? "" : "MISMATCH");
        std::snprintf(params, sizeof params,
                      "{\"experiment\": \"search\", \"position\": \"%s\", \"depth\": %d, \"pruning\": %s, "
                      "\"cut_nodes_one_by_one\": %s, \"l_max\": %d, \"b_max\": %d}",
                      name, depth, prune ? "true" : "false", mode ? "true" : "false", lmax, lmax);
        std::snprintf(extra, sizeof extra,
                      "\"n_hybrid\": %llu, \"n_serial\": %llu, \"ratio\": %.4f, \"serial_ms\": %.3f",
                      static_cast<unsigned long long>(sp.computed()), static_cast<unsigned long long>(n_serial), ratio,
                      serial_ms);
        add(results, "hybrid-cpu-pool", "cpu", mp, "serial-alpha-beta", vp == want, params, extra);
        if (gpu)
          add(results, "hybrid-gpu", "cuda", mg, "serial-alpha-beta", vg == want && sg.computed() == sp.computed(),
              params, extra);
      }
  }
  return failures;
}

int chess_run(const Flags& f, const CLI::App& app) {
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "chess", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "chess")) return rc;
  const bool quick = f.suite.quick;
  std::unique_ptr<GpuBatch> gpu;
  std::unique_ptr<GpuPerft> gpu_perft;  // freed after the perft rows: its levels take much of the memory
  if (ctx->cuda()) {
    Status st = GpuBatch::create(*ctx, gpu);
    if (st.ok()) st = GpuPerft::create(*ctx, gpu_perft);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench chess: %s\n", st.message().c_str());
      return 1;
    }
  }
  const Parts parts = parts_to_run(f, app);
  Results results("chess", ctx->cuda() ? ctx->device().name : "cpu");
  int failures = 0;
  char params[256], extra[384];

  // 1. Perft: the multi-threaded CPU perft at moderate depths, the GPU's at the depths its speed is
  // judged at (start 8, Kiwipete 6, the other standard positions at their deepest published count);
  // every count against the published one.
  struct PerftCase {
    const char* name;
    const char* fen;
    int depth;
    std::uint64_t nodes;
    bool gpu;            // false: the CPU's row
    bool table = false;  // the GPU's perft with its transposition table
  };
  const char* const kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
  std::vector<PerftCase> perfts;
  if (quick) {
    perfts = {{"start", kStartFen, 5, 4865609, false},
              {"start", kStartFen, 5, 4865609, true},
              {"kiwipete", kiwipete, 4, 4085603, true},
              {"start", kStartFen, 5, 4865609, true, true}};
  } else {
    perfts = {
        {"start", kStartFen, 6, 119060324, false},
        {"kiwipete", kiwipete, 5, 193690690, false},
        {"start", kStartFen, 8, 84998978956ull, true},
        {"start", kStartFen, 9, 2439530234167ull, true},
        {"kiwipete", kiwipete, 6, 8031647685ull, true},
        {"kiwipete", kiwipete, 7, 374190009323ull, true},
        {"pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 7, 178633661, true},
        {"pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 6, 706045033, true},
        {"pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5, 89941194, true},
        {"pos6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 6, 6923051137ull, true},
        {"start", kStartFen, 8, 84998978956ull, true, true},
        {"start", kStartFen, 9, 2439530234167ull, true, true},
        {"start", kStartFen, 10, 69352859712417ull, true, true},
        {"start", kStartFen, 11, 2097651003696806ull, true, true},
        {"kiwipete", kiwipete, 6, 8031647685ull, true, true},
        {"kiwipete", kiwipete, 7, 374190009323ull, true, true}};
  }
  if (!parts.perft) perfts.clear();
  std::printf("perft            depth | %14s %12s %10s | %s\n", "nodes", "ms", "G nodes/s", "where");
  for (const PerftCase& c : perfts) {
    if (c.gpu && !ctx->cuda()) continue;
    Position p;
    (void)parse_fen(c.fen, p);  // constants
    std::uint64_t nodes = 0, reused = 0;
    double ms = 0;
    if (c.gpu) {
      // The first run loads the kernels and grows the level buffers (at depth 9 and beyond, a run two plies
      // shallower grows all but the deepest); the second is timed.
      Status st = gpu_perft->run(p, c.depth >= 9 ? c.depth - 2 : c.depth, nodes, &ms, c.table, &reused);
      if (st.ok()) st = gpu_perft->run(p, c.depth, nodes, &ms, c.table, &reused);
      if (!st.ok()) {
        std::fprintf(stderr, "warpmind-bench chess: %s\n", st.message().c_str());
        return 1;
      }
    } else {
      const auto t0 = Clock::now();
      nodes = perft_parallel(p, c.depth, ctx->pool());
      ms = ms_since(t0);
    }
    const bool ok = nodes == c.nodes;
    failures += !ok;
    std::printf("%-16s %5d | %14llu %12.2f %10.3f | %s%s\n", c.name, c.depth, static_cast<unsigned long long>(c.nodes),
                ms, nodes / ms / 1e6,
                c.table ? "gpu, transposition table"
                : c.gpu ? "gpu"
                        : "cpu",
                ok ? "" : " COUNT MISMATCH");
    std::snprintf(params, sizeof params, "{\"experiment\": \"perft\", \"position\": \"%s\", \"depth\": %d}", c.name,
                  c.depth);
    std::snprintf(extra, sizeof extra, "\"nodes\": %llu, \"nodes_per_s\": %.0f, \"reused_positions\": %llu",
                  static_cast<unsigned long long>(nodes), nodes / ms * 1e3, static_cast<unsigned long long>(reused));
    add(results,
        c.table ? "perft-gpu-tt"
        : c.gpu ? "perft-gpu"
                : "perft-cpu",
        c.gpu ? "cuda" : "cpu", ms, "published-count", ok, params, extra);
    std::fflush(stdout);
    if (!file.write(results)) return 1;  // a long run keeps the rows it finished
  }
  gpu_perft.reset();

  if (!file.write(results)) return 1;
  if (!parts.batches && !parts.plain && !parts.pruned && !parts.subtrees) {
    file.finish(results);
    return failures ? 1 : 0;
  }

  // 2 and 3 on positions from random games, then from the start.
  std::vector<Position> positions;
  SplitMix64 rng(9);
  while (positions.size() < 65536) {
    Position p;
    (void)parse_fen(kStartFen, p);
    for (int ply = 0; ply < 80 && positions.size() < 65536; ++ply) {
      MoveList moves;
      generate_legal(p, moves);
      if (moves.size == 0) break;
      Undo u;
      make_move(p, moves.moves[rng.next() % static_cast<std::uint64_t>(moves.size)], u);
      positions.push_back(p);
    }
  }
  Position start;
  (void)parse_fen(kStartFen, start);
  if (parts.batches) failures += batch_rows(ChessGame{}, positions, quick ? 4096 : 65536, *ctx, gpu.get(), results);
  if (!file.write(results)) return 1;
  // The engine's own search at the same depth: alpha-beta with its table, quiescence and extensions,
  // Lazy SMP on every thread of the pool.
  const auto engine = [&](int depth, std::uint64_t& nodes) {
    Searcher searcher(256, static_cast<int>(ctx->pool().size()));
    SearchLimits limits;
    limits.depth = depth;
    const auto t0 = Clock::now();
    nodes = searcher.search(start, {}, limits).nodes;
    return ms_since(t0);
  };
  failures += search_rows(ChessGame{}, "start", start, quick ? 3 : 5, quick ? 4 : 6, *ctx, gpu.get(), results, parts,
                          {2, 3}, "lazy-smp", engine);
  if (gpu && !gpu->error().ok()) {
    std::fprintf(stderr, "warpmind-bench chess: %s\n", gpu->error().message().c_str());
    return 1;
  }
  if (!file.write(results)) return 1;
  file.finish(results);
  return failures ? 1 : 0;
}

int connect6_run(const Flags& f, const CLI::App& app) {
  namespace c6 = search::connect6;
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "connect6", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "connect6")) return rc;
  const bool quick = f.suite.quick;
  std::unique_ptr<c6::GpuBatch> gpu;
  if (ctx->cuda()) {
    const Status st = c6::GpuBatch::create(*ctx, gpu);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench connect6: %s\n", st.message().c_str());
      return 1;
    }
  }
  const Parts parts = parts_to_run(f, app);
  Results results("connect6", ctx->cuda() ? ctx->device().name : "cpu");
  const c6::Connect6Game game{quick ? 16 : 48};
  if (gpu && !gpu->set_game(game).ok()) return 1;
  std::printf("Connect6, width %d\n", game.width);
  std::vector<c6::Board> positions;
  SplitMix64 rng(13);
  while (positions.size() < 16384) {
    c6::Board b;
    for (int turn = 0; turn < 40 && !b.over() && positions.size() < 16384; ++turn) {
      std::vector<c6::Turn> c;
      c6::candidate_turns(b, 16, c);
      if (!b.play(c[rng.next() % c.size()]).ok()) break;
      positions.push_back(b);
    }
  }
  c6::Board root;  // an opening: both sides have played two turns
  for (const char* t : {"K10", "L10L11", "J9J11", "M12N13"}) {
    c6::Turn turn;
    if (!c6::parse_turn(t, turn).ok() || !root.play(turn).ok()) return 1;
  }
  int failures = parts.batches ? batch_rows(game, positions, quick ? 1024 : 16384, *ctx, gpu.get(), results) : 0;
  if (!file.write(results)) return 1;
  // The engine's own search at the same depth and width: alpha-beta with its root turns split over
  // every thread of the pool (forced turns first; no threat-space search, as in the rows above).
  const auto engine = [&](int depth, std::uint64_t& nodes) {
    c6::SearchOptions so;
    so.depth = depth;
    so.width = game.width;
    so.vcf_depth = 0;
    so.threads = static_cast<int>(ctx->pool().size());
    const auto t0 = Clock::now();
    nodes = c6::search(root, so).nodes;
    return ms_since(t0);
  };
  failures += search_rows(game, "open-a", root, quick ? 2 : 4, quick ? 3 : 5, *ctx, gpu.get(), results, parts, {1, 2},
                          "root-split", engine);
  if (gpu && !gpu->error().ok()) {
    std::fprintf(stderr, "warpmind-bench connect6: %s\n", gpu->error().message().c_str());
    return 1;
  }
  if (!file.write(results)) return 1;
  file.finish(results);
  return failures ? 1 : 0;
}

}  // namespace

demos::Subcommand chess_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_search_suite(
      parent, "chess",
      "perft, leaf / branch batches and the hybrid search on CPU and GPU (Li et al.)\n"
      "Chess: perft (the CPU pool's, and the GPU's at the depths its speed is judged at), leaf and branch batches "
      "of 1 .. 65,536 positions (one CPU thread, the CPU pool, the GPU), the device-resident search without "
      "pruning, the hybrid search without and with pruning (also with whole subtrees below its horizon) and the "
      "engine's own Lazy SMP search. GPU rows with --backend cuda.",
      *f, true);
  return {app, [f, app] { return chess_run(*f, *app); }};
}

demos::Subcommand connect6_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_search_suite(
      parent, "connect6",
      "leaf / branch batches and the hybrid search at w = 48 on CPU and GPU (Li et al.)\n"
      "Connect6 at w = 48 (--quick: 16) from a fixed opening: leaf and branch batches (one CPU thread, the CPU "
      "pool, the GPU), the device-resident search without pruning, the hybrid search without and with pruning "
      "(also with whole subtrees below its horizon) and the engine's own root-split search. GPU rows with "
      "--backend cuda.",
      *f, false);
  return {app, [f, app] { return connect6_run(*f, *app); }};
}

}  // namespace warpmind::bench
