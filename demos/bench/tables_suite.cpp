// Suite "tables": a game server's AI opponents. N independent positions — each a position of a real game
// (the built-in assets/<game>/games.txt, games of the engines' committed matches) at a random ply, plus
// up to two random moves — each get a move from one search_many call (warpmind/search/search_many.h) at
// a fixed depth: on the context's CPU threads (alpha-beta, a position a task) and on the GPU at every
// tail (the plies searched by alpha-beta, one thread a node, below the breadth-first levels). Moves per
// second, nodes, and every GPU move and value checked against the CPU's.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "results.h"
#include "suites.h"
#include "warpmind/core/random.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/gpu_batch.h"
#include "warpmind/search/search_many.h"

namespace warpmind::bench {

extern const unsigned char k_chess_games[];
extern const std::size_t k_chess_gamesSize;
extern const unsigned char k_connect6_games[];
extern const std::size_t k_connect6_gamesSize;

namespace {

using namespace search;

struct Flags {
  SuiteFlags suite;
  std::string game = "all";
  int tables = 0, depth = 0, width = 16;
  std::uint64_t seed = 1;
};

// The games of a built-in file: one a line, moves separated by spaces; '#' starts a comment line.
std::vector<std::vector<std::string>> read_games(const unsigned char* bytes, std::size_t size) {
  std::vector<std::vector<std::string>> games;
  const std::string_view text(reinterpret_cast<const char*>(bytes), size);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> moves;
    std::size_t i = 0;
    while (i < line.size()) {
      const std::size_t j = std::min(line.find(' ', i), line.size());
      if (j > i) moves.emplace_back(line.substr(i, j - i));
      i = j + 1;
    }
    games.push_back(std::move(moves));
  }
  return games;
}

// How each game reads a move of its games file onto a state.
bool play(chess::Position& p, const std::string& text) {
  chess::Move m;
  if (!chess::parse_uci_move(p, text, m).ok()) return false;
  p = chess::ChessGame::apply(p, m);
  return true;
}
bool play(connect6::Board& b, const std::string& text) {
  connect6::Turn t;
  return connect6::parse_turn(text, t).ok() && b.play(t).ok();
}

// `n` positions with a move to make: a random game at a random ply, then up to two random moves.
template <class G>
bool sample(const G& game, const typename G::State& start, const std::vector<std::vector<std::string>>& games,
            std::size_t n, std::uint64_t seed, std::vector<typename G::State>& out) {
  SplitMix64 rng(seed);
  std::vector<typename G::Move> moves;
  out.clear();
  while (out.size() < n) {
    const auto& g = games[rng.next() % games.size()];
    const std::size_t plies = rng.next() % (g.size() + 1);
    typename G::State s = start;
    for (std::size_t k = 0; k < plies; ++k)
      if (!play(s, g[k])) {
        std::fprintf(stderr, "warpmind-bench tables: move '%s' of a built-in game does not parse\n", g[k].c_str());
        return false;
      }
    for (int extra = static_cast<int>(rng.next() % 3); extra > 0; --extra) {
      game.children(s, moves);
      if (moves.empty()) break;
      s = G::apply(s, moves[rng.next() % moves.size()]);
    }
    game.children(s, moves);
    if (!moves.empty()) out.push_back(s);
  }
  return true;
}

int width_of(const chess::ChessGame&) { return 0; }
int width_of(const connect6::Connect6Game& g) { return g.width; }

template <class G>
int measure(const G& game, const char* name, const std::vector<typename G::State>& positions, int depth, Context& ctx,
            GpuBatch<G>* gpu, Results& results) {
  using Move = typename G::Move;
  const std::size_t n = positions.size();
  std::vector<TableMove<Move>> cpu(n), dev(n);
  SearchManyStats cs;
  Timing ct;
  const bool ran = time_runs(
      [&] {
        return search_many(ctx.pool(), game, std::span(positions), depth, std::span(cpu), &cs).ok() ? cs.ms : -1.0;
      },
      0, 1, 3, 5000, ct);
  if (!ran) {
    std::fprintf(stderr, "warpmind-bench tables: the CPU search failed\n");
    return 1;
  }
  char params[200];
  std::snprintf(params, sizeof params,
                "{\"experiment\": \"tables\", \"game\": \"%s\", \"tables\": %zu, \"depth\": %d, \"width\": %d", name, n,
                depth, width_of(game));
  const auto row = [&](const char* variant, const Timing& t, const SearchManyStats& st, double vs_cpu) {
    std::printf("%-9s %5d %7zu | %-12s %10.1f %12.0f %14llu %9.1f %s\n", name, depth, n, variant, t.median(),
                static_cast<double>(n) / (t.median() / 1000.0), static_cast<unsigned long long>(st.nodes), st.device_ms,
                vs_cpu > 0 ? (std::to_string(vs_cpu).substr(0, 6) + "x").c_str() : "");
  };
  row("cpu-threads", ct, cs, 0);
  Record rc;
  rc.variant = "cpu-threads";
  rc.backend = "cpu";
  rc.timing = ct;
  rc.params_json = std::string(params) + ", \"threads\": " + std::to_string(ctx.pool().size()) + "}";
  char extra[240];
  std::snprintf(extra, sizeof extra, "\"moves_per_s\": %.1f, \"nodes\": %llu, \"nodes_per_s\": %.0f",
                static_cast<double>(n) / (ct.median() / 1000.0), static_cast<unsigned long long>(cs.nodes),
                static_cast<double>(cs.nodes) / (ct.median() / 1000.0));
  rc.extra_json = extra;
  results.add(rc);
  if (!gpu) return 0;
  int failures = 0;
  // Every tail the device takes.
  const int most = std::min(depth - 1, GpuBatch<G>::max_tail());
  for (int tail = 0; tail <= most; ++tail) {
    SearchManyStats gs;
    Timing gt;
    Status err;
    const bool ok = time_runs(
        [&] {
          err = gpu->search_many(std::span(positions), depth, std::span(dev), &gs, tail);
          return err.ok() ? gs.ms : -1.0;
        },
        1, 1, 5, 5000, gt);
    if (!ok) {
      std::fprintf(stderr, "warpmind-bench tables: GPU tail %d: %s\n", tail, err.message().c_str());
      ++failures;
      continue;
    }
    std::size_t mismatches = 0;
    if (corrupt("gpu-tail")) dev[0].value += 1;
    for (std::size_t i = 0; i < n; ++i)
      mismatches += dev[i].value != cpu[i].value || dev[i].has_move != cpu[i].has_move || !(dev[i].best == cpu[i].best);
    failures += mismatches != 0;
    const std::string variant = "gpu-tail" + std::to_string(tail);
    const double ratio = ct.median() / gt.median();
    row(variant.c_str(), gt, gs, ratio);
    if (mismatches) std::printf("          %zu of %zu moves or values differ from the CPU's\n", mismatches, n);
    Record rg;
    rg.variant = variant;
    rg.backend = "cuda";
    rg.timing = gt;
    rg.params_json = std::string(params) + ", \"tail\": " + std::to_string(tail) + "}";
    rg.compared("cpu-threads", mismatches == 0);
    std::snprintf(extra, sizeof extra,
                  "\"moves_per_s\": %.1f, \"nodes\": %llu, \"nodes_per_s\": %.0f, \"device_ms\": %.3f, "
                  "\"x_cpu\": %.3f, \"mismatches\": %zu",
                  static_cast<double>(n) / (gt.median() / 1000.0), static_cast<unsigned long long>(gs.nodes),
                  static_cast<double>(gs.nodes) / (gt.median() / 1000.0), gs.device_ms, ratio, mismatches);
    rg.extra_json = extra;
    results.add(rg);
  }
  return failures;
}

template <class G>
int run_game(const Flags& f, const G& game, const char* name, const typename G::State& start,
             const unsigned char* games_text, std::size_t games_size, int depth, Context& ctx, Results& results) {
  const auto games = read_games(games_text, games_size);
  std::vector<typename G::State> positions;
  const std::size_t n = static_cast<std::size_t>(f.tables ? f.tables : f.suite.quick ? 500 : 10000);
  if (games.empty() || !sample(game, start, games, n, f.seed, positions)) return 1;
  std::unique_ptr<GpuBatch<G>> gpu;
  if (ctx.cuda()) {
    const Status st = GpuBatch<G>::create(ctx, gpu, game);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench tables: %s\n", st.message().c_str());
      return 1;
    }
  }
  return measure(game, name, positions, depth, ctx, gpu.get(), results);
}

int run(const Flags& f) {
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "tables", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "tables")) return rc;
  Results results("tables", ctx->cuda() ? ctx->device().name : "cpu");
  std::printf("%-9s %5s %7s | %-12s %10s %12s %14s %9s %s\n", "game", "depth", "tables", "variant", "ms", "moves/s",
              "nodes", "device ms", "x cpu");
  // The depths of each game: --depth, else chess 3 and 4, Connect6 2 and 3 (--quick: the first).
  const auto depths = [&](std::vector<int> all) {
    if (f.depth) return std::vector<int>{f.depth};
    if (f.suite.quick) all.resize(1);
    return all;
  };
  int failures = 0;
  if (f.game != "connect6") {
    chess::Position start;
    if (!chess::parse_fen(chess::kStartFen, start).ok()) return 1;
    for (int d : depths({3, 4})) {
      failures += run_game(f, chess::ChessGame{}, "chess", start, k_chess_games, k_chess_gamesSize, d, *ctx, results);
      if (!file.write(results)) return 1;
    }
  }
  if (f.game != "chess") {
    for (int d : depths({2, 3})) {
      failures += run_game(f, connect6::Connect6Game{f.width}, "connect6", connect6::Board{}, k_connect6_games,
                           k_connect6_gamesSize, d, *ctx, results);
      if (!file.write(results)) return 1;
    }
  }
  file.finish(results);
  return failures ? 1 : 0;
}

}  // namespace

demos::Subcommand tables_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_suite(
      parent, "tables",
      "many positions, a move each, in one call (a game server's AI opponents)\n"
      "A game server's AI opponents: N positions of real games (the engines' committed matches, a random ply, "
      "plus up to two random moves) each get a move from one search_many call at a fixed depth, on the CPU "
      "threads (alpha-beta, a position a task) and on the GPU at every tail (the last plies searched by "
      "alpha-beta one thread a node, below breadth-first levels). Moves per second and nodes.",
      "Checks: every GPU move and value against the CPU's search of the same positions.", "500 tables, chess depth 3",
      f->suite);
  demos::add_choice(*app, "--game", f->game, {"chess", "connect6"}, "the game");
  demos::add_integer(*app, "--tables", f->tables, 1, 4000000, "N", "positions searched at once", "10000; --quick: 500");
  demos::add_integer(*app, "--depth", f->depth, 1, kSearchManyMaxDepth, "D", "plies (Connect6: turns) searched",
                     "chess 3 and 4, Connect6 2 and 3 (--quick: the first)");
  demos::add_integer(*app, "--width", f->width, 1, 128, "W", "Connect6's candidate turns per node");
  demos::add_integer(*app, "--seed", f->seed, 0, INT64_MAX, "N", "the positions' seed");
  return {app, [f] { return run(*f); }};
}

}  // namespace warpmind::bench
