// Suite "hybrid": the node-based hybrid search's pruning loss — nodes computed by Algorithm 2 with
// pruning, N_hybrid, against a serial alpha-beta over the same moves, N_serial — for Connect6 and chess
// positions as the batch sizes grow (the paper: 24.5M against 2.65M nodes for Connect6, 9.2x). Node
// counts do not depend on the machine or the backend; the CPU batch backend runs them.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "results.h"
#include "serial_search.h"
#include "suites.h"
#include "warpmind/core/context.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/hybrid.h"

namespace warpmind::bench {

namespace {

// The memory a search tree may hold: `mb` MiB, or with 0 half of the machine's physical memory.
std::size_t tree_limit(int mb) {
  if (mb > 0) return static_cast<std::size_t>(mb) << 20;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2
                               : std::size_t{8} << 30;
}

template <class G>
void measure(const G& rules, const char* game, const char* name, const typename G::State& s, int depth, Context& ctx,
             std::size_t max_tree_bytes, Results& results, int& failures) {
  std::uint64_t serial = 0;
  const int want = bench::serial(rules, s, depth, 0, -kInf<G>, kInf<G>, true, serial);
  search::CpuBatch<G> backend{ctx.pool(), rules};
  search::HybridSearch<G, search::CpuBatch<G>> hybrid;
  const char* const modes[] = {"plain", "ybw", "ybw+cut2", "ybw+cut"};
  for (int mode = 0; mode < 4; ++mode)
    for (int batch : {1, 16, 256, 4096, 1 << 20}) {
      search::HybridOptions o;
      o.first_child_first = mode >= 1;
      o.cut_one_by_one = mode == 2 ? 2 : mode == 3 ? 1 << 20 : 1;
      o.depth = depth;
      o.pruning = true;
      o.l_min = std::min(batch, 8);
      o.l_max = batch;
      o.b_min = std::min(batch, 4);
      o.b_max = std::max(1, batch / 4);
      o.max_tree_bytes = max_tree_bytes;
      search::HybridStats st;
      const auto r = hybrid.run(s, o, backend, st);
      const bool same = !r.out_of_memory && r.value + (corrupt("hybrid-cpu") ? 1 : 0) == want;
      failures += !same && !r.out_of_memory;
      const double mean_leaves = st.leaf_batches ? static_cast<double>(st.batched_leaves) / st.leaf_batches : 0.0;
      const double mean_branches =
          st.branch_batches ? static_cast<double>(st.batched_branches) / st.branch_batches : 0.0;
      if (r.out_of_memory) {  // not measured: recorded unchecked, with the counts reached
        std::printf("%-9s %-10s %-8s %5d %9d | the tree outgrew %zu MiB after %llu nodes: not measured\n", game, name,
                    modes[mode], depth, batch, max_tree_bytes >> 20, static_cast<unsigned long long>(st.computed()));
      } else {
        std::printf(
            "%-9s %-10s %-8s %5d %9d | %12llu %12llu %8.2fx | %12llu %9.1f %9.1f %s\n", game, name, modes[mode], depth,
            batch, static_cast<unsigned long long>(st.computed()), static_cast<unsigned long long>(serial),
            static_cast<double>(st.computed()) / static_cast<double>(serial),
            static_cast<unsigned long long>(st.max_nodes), mean_leaves, mean_branches, same ? "" : "VALUE MISMATCH");
      }
      Record rec;
      rec.variant = "hybrid-cpu";
      rec.backend = "cpu";
      rec.timing.ms = {0.0};
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "{\"game\": \"%s\", \"position\": \"%s\", \"depth\": %d, \"l_max\": %d, \"b_max\": %d, "
                    "\"first_child_first\": %s, \"cut_one_by_one\": %d}",
                    game, name, depth, o.l_max, o.b_max, o.first_child_first ? "true" : "false", o.cut_one_by_one);
      rec.params_json = buf;
      if (!r.out_of_memory) rec.compared("serial-alpha-beta", same);
      std::snprintf(buf, sizeof buf,
                    "\"n_hybrid\": %llu, \"n_serial\": %llu, \"ratio\": %.4f, \"batched\": %llu, \"pruned\": %llu, "
                    "\"max_nodes\": %llu, "
                    "\"mean_leaf_batch\": %.2f, \"mean_branch_batch\": %.2f, \"out_of_memory\": %s",
                    static_cast<unsigned long long>(st.computed()), static_cast<unsigned long long>(serial),
                    static_cast<double>(st.computed()) / static_cast<double>(serial),
                    static_cast<unsigned long long>(st.batched_leaves + st.batched_branches),
                    static_cast<unsigned long long>(st.pruned), static_cast<unsigned long long>(st.max_nodes),
                    mean_leaves, mean_branches, r.out_of_memory ? "true" : "false");
      rec.extra_json = buf;
      results.add(rec);
    }
}

// The flags of the hybrid suite (0: the default, which --quick changes).
struct Flags {
  SuiteFlags suite;
  int width = 0, depth = 0, max_tree_mb = 0;
};

int run(const Flags& f) {
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "hybrid", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "hybrid")) return rc;
  const bool quick = f.suite.quick;
  const std::size_t max_tree_bytes = tree_limit(f.max_tree_mb);
  Results results("hybrid", "node counts (machine-independent)");
  int failures = 0;
  std::printf("%-9s %-10s %-8s %5s %9s | %12s %12s %9s | %12s %9s %9s   (nodes computed; mean batch sizes)\n", "game",
              "position", "mode", "depth", "l_max", "N_hybrid", "N_serial", "ratio", "max tree", "leaves", "branches");
  const search::connect6::Connect6Game c6_game{f.width ? f.width : quick ? 8 : 16};
  const int c6_depth = f.depth ? f.depth : quick ? 2 : 3;
  const char* openings[][2] = {{"open-a", "K10 L10L11 J9J11 M12N13"}, {"open-b", "K10 K11L9 J10J12 H8N14"}};
  for (const auto& [name, record] : openings) {
    search::connect6::Board b;
    std::string rec = record, tok;
    for (std::size_t i = 0; i <= rec.size(); ++i) {
      if (i == rec.size() || rec[i] == ' ') {
        search::connect6::Turn t;
        if (!search::connect6::parse_turn(tok, t).ok() || !b.play(t).ok()) return 1;
        tok.clear();
      } else {
        tok += rec[i];
      }
    }
    measure(c6_game, "connect6", name, b, c6_depth, *ctx, max_tree_bytes, results, failures);
  }
  const char* fens[][2] = {{"start", search::chess::kStartFen},
                           {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"}};
  for (const auto& [name, fen] : fens) {
    search::chess::Position p;
    if (!search::chess::parse_fen(fen, p).ok()) return 1;
    measure(search::chess::ChessGame{}, "chess", name, p, quick ? 3 : 4, *ctx, max_tree_bytes, results, failures);
  }
  if (!file.write(results)) return 1;
  file.finish(results);
  return failures ? 1 : 0;
}

}  // namespace

demos::Subcommand hybrid_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_suite(
      parent, "hybrid",
      "the node-based hybrid search's pruning loss, N_hybrid / N_serial (Li et al.)\n"
      "The node-based hybrid search's pruning loss: nodes computed by the hybrid search over the CPU pool's "
      "batches (N_hybrid) against a serial alpha-beta's (N_serial), for Connect6 openings and chess positions, "
      "four modes and batch sizes 1 to 2^20. Node counts, not times: the results are machine-independent.",
      "Checks: every search's value against a serial alpha-beta over the same moves.",
      "smaller searches (a smoke test)", f->suite);
  demos::add_integer(*app, "--width", f->width, 1, 128, "W", "Connect6's pairs per node; the paper: 48",
                     "16; --quick: 8");
  demos::add_integer(*app, "--depth", f->depth, 1, 8, "D", "Connect6's turns searched; the paper: 5", "3; --quick: 2");
  demos::add_integer(*app, "--max-tree-mb", f->max_tree_mb, 0, 1 << 24, "MB",
                     "the memory one search tree may hold; a search that outgrows it is recorded unchecked, as not "
                     "measured (0: half the physical memory)",
                     "0");
  return {app, [f] { return run(*f); }};
}

}  // namespace warpmind::bench
