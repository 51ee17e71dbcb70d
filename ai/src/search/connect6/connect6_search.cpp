// The Connect6 search (connect6.h): candidate turns (a win, the blocks of every threat, else the best pairs
// of the best cells), the threat-space search first (connect6_threats.h), then alpha-beta over the
// candidates with iterative deepening, on one thread or several sharing the root's turns.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "search/connect6/connect6_eval.h"
#include "search/connect6/connect6_threats.h"
#include "search/connect6/geometry.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/connect6_network.h"

namespace warpmind::search::connect6 {

using detail::other;
using detail::owner;
using eval::kWin;

namespace {

using Clock = std::chrono::steady_clock;

// Buffers of one ply, reused (no allocation per node once grown).
struct Scratch {
  std::vector<std::array<int, 6>> mine, theirs;
  std::vector<std::pair<int, int>> scored;
  std::vector<std::pair<int, Turn>> pairs;
  std::vector<int> cells;
  std::vector<Turn> turns;
  bool hopeless = false;  // the threats cannot all be blocked: the side to move has lost
};

struct Ctx {
  const SearchOptions& o;
  std::vector<Scratch> ply;
  Clock::time_point start;
  std::atomic<bool>* stop = nullptr;  // shared by the threads of a multi-threaded search
  std::uint64_t nodes = 0;
  bool stopped = false;
  tss::ThreatSearch* threats = nullptr;  // the VCF inside the tree (SearchOptions::tree_threat_depth)
  // The learned evaluation (SearchOptions::network): the accumulators of the position at each depth left
  // along the path, acc[depth] beside negamax(b, depth) (the root's at depth + 1).
  const Network* net = o.network.get();
  std::vector<Network::Accumulator> acc = std::vector<Network::Accumulator>(net ? ply.size() + 1 : 0);
  // Plays turn t on b for the child at `to` from the accumulators at `from`.
  void play(Board& b, const Turn& t, std::size_t from, std::size_t to) {
    const Stone me = b.to_move();
    if (net) acc[to] = acc[from];
    for (int c : {t.a, t.b}) {
      if (c < 0) continue;
      b.place(c, me);
      if (net) net->place(b, c, acc[to]);
    }
  }
  // The value of a leaf at `depth` (SearchOptions::network, else evaluate()).
  int leaf(const Board& b, int depth) {
    if (!net) return evaluate(b);
    int score = 0;
    if (detail::decided(b, score)) return score;
    return net->value(b, acc[static_cast<std::size_t>(depth)]);
  }
  // True when the side to move on `b` wins by continuous fours within the tree threat search's budget.
  bool vcf_in_tree(Board& b) {
    tss::ThreatSearch::Limits lim;
    lim.max_nodes = static_cast<std::uint64_t>(std::max(1, o.tree_threat_nodes));
    lim.quiet_turns = 0;
    lim.interrupt = o.interrupt;
    if (o.time_ms > 0) lim.deadline = start + std::chrono::milliseconds(o.time_ms);
    const int turns = std::min(o.tree_threat_depth, 32);
    return threats->solve(b, b.to_move(), turns, lim, nullptr) == tss::ThreatSearch::Result::Win;
  }
  bool out_of_time() {
    // The clock every 16 nodes: a node costs microseconds (a threat-space node up to a millisecond),
    // a clock read tens of nanoseconds.
    if (o.time_ms > 0 && (nodes & 15) == 0 &&
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count() >= o.time_ms) {
      stopped = true;
      if (stop) stop->store(true);
    }
    if (stop && stop->load(std::memory_order_relaxed)) stopped = true;
    if (o.interrupt && o.interrupt->load(std::memory_order_relaxed)) stopped = true;
    return stopped;
  }
};

// How much a stone of `me` on `cell` builds for us and blocks of them.
int cell_value(const Board& b, int cell, Stone me) {
  int v = 0;
  for (int wi : detail::windows_through()[static_cast<std::size_t>(cell)]) {
    const auto [who, n] = owner(b, detail::window_cells()[static_cast<std::size_t>(wi)]);
    v += eval::window_gain(who, n, me);
  }
  return v;
}

// Empty cells of the windows where `s` has 4 or 5 stones (threats to complete six).
void threat_windows(const Board& b, Stone s, std::vector<std::array<int, 6>>& out) {
  out.clear();
  for (const auto& w : detail::window_cells()) {
    const auto [who, n] = owner(b, w);
    if (who == s && n >= 4) out.push_back(w);
  }
}

// Candidate turns for the side to move, best first: a win now, else blocks of every threat, else the
// best pairs of the best-scored cells near the stones (scored by the network's cell scores when given).
void candidate_turns(const Board& b, int width, Scratch& sc, bool& forced, const Network* net = nullptr) {
  std::vector<Turn>& out = sc.turns;
  out.clear();
  sc.hopeless = false;
  forced = false;
  const Stone me = b.to_move(), them = other(me);
  const int need = b.stones() == 0 ? 1 : std::min(2, kCells - b.stones());
  if (b.stones() == 0) {
    out.push_back({kCells / 2, -1});
    forced = true;
    return;
  }
  std::vector<std::array<int, 6>>& mine = sc.mine;
  std::vector<std::array<int, 6>>& theirs = sc.theirs;
  threat_windows(b, me, mine);
  std::vector<std::pair<int, int>>& scored = sc.scored;
  scored.clear();
  for (int c = 0; c < kCells; ++c) {
    if (b.at(c) != Empty) continue;
    bool near = false;
    const int x = c % kSize, y = c / kSize;
    for (int dy = -2; dy <= 2 && !near; ++dy)
      for (int dx = -2; dx <= 2 && !near; ++dx) {
        const int xx = x + dx, yy = y + dy;
        near = xx >= 0 && xx < kSize && yy >= 0 && yy < kSize && b.at(yy * kSize + xx) != Empty;
      }
    if (near) scored.push_back({net ? net->cell_score(b, c, me) : cell_value(b, c, me), c});
  }
  std::sort(scored.begin(), scored.end(),
            [](const auto& p, const auto& q) { return p.first != q.first ? p.first > q.first : p.second < q.second; });
  const auto filler = [&](int not_this) {
    for (const auto& [v, c] : scored)
      if (c != not_this) return c;
    for (int c = 0; c < kCells; ++c)
      if (b.at(c) == Empty && c != not_this) return c;
    return -1;
  };
  if (!mine.empty()) {  // win now: fill a window of ours
    std::vector<int> empty;
    for (int c : mine[0])
      if (b.at(c) == Empty) empty.push_back(c);
    const int a = empty[0], second = empty.size() > 1 ? empty[1] : filler(a);
    out.push_back({a, need == 2 ? second : -1});
    forced = true;
    return;
  }
  threat_windows(b, them, theirs);
  if (!theirs.empty()) {  // every threat window needs a stone of ours
    std::vector<int>& cells = sc.cells;
    cells.clear();
    for (const auto& w : theirs)
      for (int c : w)
        if (b.at(c) == Empty && std::find(cells.begin(), cells.end(), c) == cells.end()) cells.push_back(c);
    const auto covers = [&](int a, int c2) {
      for (const auto& w : theirs)
        if (std::find(w.begin(), w.end(), a) == w.end() && std::find(w.begin(), w.end(), c2) == w.end()) return false;
      return true;
    };
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (covers(cells[i], -1)) {
        out.push_back({cells[i], need == 2 ? filler(cells[i]) : -1});
        continue;
      }
      for (std::size_t j = i + 1; j < cells.size() && need == 2; ++j)
        if (covers(cells[i], cells[j])) out.push_back({cells[i], cells[j]});
    }
    if (out.empty()) {  // lost anyway: block what we can
      sc.hopeless = true;
      out.push_back({cells[0], need == 2 && cells.size() > 1 ? cells[1] : (need == 2 ? filler(cells[0]) : -1)});
    }
    forced = true;
    if (static_cast<int>(out.size()) > width) out.resize(static_cast<std::size_t>(width));
    return;
  }
  const std::size_t top = std::min<std::size_t>(scored.size(), 14);
  if (need == 1) {
    for (std::size_t i = 0; i < top; ++i) out.push_back({scored[i].second, -1});
    return;
  }
  std::vector<std::pair<int, Turn>>& pairs = sc.pairs;
  pairs.clear();
  for (std::size_t i = 0; i < top; ++i)
    for (std::size_t j = i + 1; j < top; ++j)
      pairs.push_back({scored[i].first + scored[j].first, {scored[i].second, scored[j].second}});
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& p, const auto& q) { return p.first > q.first; });
  for (std::size_t i = 0; i < pairs.size() && static_cast<int>(i) < width; ++i) out.push_back(pairs[i].second);
  if (out.empty() && top == 1) out.push_back({scored[0].second, filler(scored[0].second)});
}

// Threat-space search (VCF, victory by continuous fours): can the side to move force six within `depth`
// of its turns by turns that each make a threat (a window of four or five) the opponent must block?
// The opponent's answers are all its blocking turns (or its own win now).
bool vcf(Board& b, int depth, Ctx& ctx, std::vector<Scratch>& scratch, Turn* first) {
  ++ctx.nodes;
  const Stone me = b.to_move();
  if (b.winner() != Empty) return b.winner() == me;
  if (b.full() || depth == 0 || ctx.out_of_time()) return false;
  Scratch& sc = scratch[static_cast<std::size_t>(2 * depth)];
  bool forced = false;
  candidate_turns(b, 64, sc, forced, ctx.net);
  if (forced) {  // we win now, or we must block first (then this is not a VCF)
    if (b.windows()[me][4] + b.windows()[me][5] == 0) return false;
    if (first) *first = sc.turns[0];
    return true;
  }
  // (Deeper calls use lower scratch slots, so these lists stay intact while we recurse.)
  for (const Turn& t : sc.turns) {  // pairs of the best cells; those that threaten are followed
    b.place(t.a, me);
    if (t.b >= 0) b.place(t.b, me);
    bool win = b.winner() == me;
    if (!win && b.windows()[me][4] + b.windows()[me][5] > 0) {
      Scratch& reply = scratch[static_cast<std::size_t>(2 * depth - 1)];
      bool blocks = false;
      candidate_turns(b, 64, reply, blocks, ctx.net);
      win = reply.hopeless;
      if (!win) {
        win = true;
        for (const Turn& d : reply.turns) {
          const Stone them = b.to_move();
          b.place(d.a, them);
          if (d.b >= 0) b.place(d.b, them);
          const bool still = vcf(b, depth - 1, ctx, scratch, nullptr);
          b.undo(d);
          if (!still) {
            win = false;
            break;
          }
        }
      }
    }
    b.undo(t);
    if (win) {
      if (first) *first = t;
      return true;
    }
    if (ctx.stopped) return false;
  }
  return false;
}

int negamax(Board& b, int depth, int alpha, int beta, Ctx& ctx) {
  ++ctx.nodes;
  if (b.winner() != Empty) return b.winner() == b.to_move() ? kWin : -kWin;
  if (b.full()) return 0;
  if (depth == 0 || ctx.out_of_time()) return ctx.leaf(b, depth);
  Scratch& sc = ctx.ply[static_cast<std::size_t>(depth)];
  bool forced = false;
  candidate_turns(b, ctx.o.width, sc, forced, ctx.net);
  if (!forced && ctx.threats && ctx.vcf_in_tree(b)) return kWin - 1;
  const std::vector<Turn>& turns = sc.turns;
  int best = -kWin - 1;
  for (const Turn& t : turns) {
    ctx.play(b, t, static_cast<std::size_t>(depth), static_cast<std::size_t>(depth - 1));
    const int v = -negamax(b, depth - 1, -beta, -alpha, ctx);
    b.undo(t);
    if (v > best) best = v;
    if (v > alpha) alpha = v;
    if (alpha >= beta || ctx.stopped) break;
  }
  return best;
}

bool legal_turn(const Board& b, const Turn& t) {
  const auto free = [&](int c) { return c >= 0 && c < kCells && b.at(c) == Empty; };
  if (!free(t.a)) return false;
  if (b.stones_this_turn() == 1) return t.b < 0;
  return free(t.b) && t.a != t.b;
}

// The deep threat-space search at the root (SearchOptions::threat_depth). Returns true when `out` is
// the answer (our win, or the one turn that defends); else `turns` may have been narrowed to the turns
// that refute the opponent's threats.
bool threat_root(Board& b, const SearchOptions& o, Clock::time_point start, std::vector<Turn>& turns,
                 SearchOutcome& out, std::uint64_t& nodes) {
  using TS = tss::ThreatSearch;
  const Stone me = b.to_move(), them = other(me);
  TS ts;
  ts.set_network(o.network.get());
  const auto by = [&](int permille) {
    return o.time_ms > 0 ? start + std::chrono::milliseconds(static_cast<long long>(o.time_ms) * permille / 1000)
                         : Clock::time_point{};
  };
  TS::Limits lim;
  lim.max_nodes = static_cast<std::uint64_t>(std::max(1, o.threat_nodes));
  lim.interrupt = o.interrupt;
  lim.deadline = by(200);
  Turn win;
  int depth = 0;
  if (ts.solve(b, me, o.threat_depth, lim, &win, &depth) == TS::Result::Win && legal_turn(b, win)) {
    out.best = win;
    out.forced = true;
    out.score = kWin;
    out.depth = depth;
    nodes += ts.nodes();
    return true;
  }
  lim.deadline = by(300);
  Turn threat;
  int their_depth = 0;
  if (ts.solve(b, them, o.threat_depth, lim, &threat, &their_depth) != TS::Result::Win) {
    nodes += ts.nodes();
    return false;
  }
  // The defence: the usual turns and the pairs of the cells around the opponent's threats, each kept
  // unless the opponent still wins after it — within two turns more than its win took (a turn that
  // only delays the win by more is rare, and searching every candidate to full depth costs most).
  std::vector<int> zone;
  ts.zone(b, them, 12, zone);
  for (int c : {threat.a, threat.b})
    if (c >= 0 && b.at(c) == Empty && std::find(zone.begin(), zone.end(), c) == zone.end()) zone.push_back(c);
  std::vector<Turn> tried = turns;
  const auto known = [&](int x, int y) {
    for (const Turn& t : tried)
      if ((t.a == x && t.b == y) || (t.a == y && t.b == x)) return true;
    return false;
  };
  for (std::size_t i = 0; i < zone.size(); ++i)
    for (std::size_t j = i + 1; j < zone.size(); ++j)
      if (!known(zone[i], zone[j])) tried.push_back({zone[i], zone[j]});
  lim.deadline = by(550);
  lim.max_nodes = std::max<std::uint64_t>(1, lim.max_nodes / 8);
  const int check_depth = std::min(o.threat_depth, their_depth + 2);
  std::vector<Turn> kept;
  std::size_t next = 0;
  for (; next < tried.size(); ++next) {
    const Turn& t = tried[next];
    if (!legal_turn(b, t)) continue;
    b.place(t.a, me);
    if (t.b >= 0) b.place(t.b, me);
    const TS::Result r = b.winner() == me ? TS::Result::NoWin : ts.solve(b, them, check_depth, lim, nullptr);
    b.undo(t);
    if (r != TS::Result::Win) kept.push_back(t);
    if (lim.deadline != Clock::time_point{} && Clock::now() >= lim.deadline) break;
    if (o.interrupt && o.interrupt->load(std::memory_order_relaxed)) break;
  }
  nodes += ts.nodes();
  if (next < tried.size())  // out of time: the usual turns not yet tried stay
    for (std::size_t i = next + 1; i < turns.size(); ++i) kept.push_back(turns[i]);
  if (kept.empty()) return false;  // lost whatever we do: the usual turns
  turns = kept;
  if (kept.size() == 1) {
    out.best = kept[0];
    out.forced = true;
    return true;
  }
  return false;
}

}  // namespace

void candidate_turns(const Board& b, int width, std::vector<Turn>& out) {
  out.clear();
  if (b.over()) return;
  Scratch sc;
  bool forced = false;
  candidate_turns(b, width, sc, forced);
  out.swap(sc.turns);
}

int Connect6Game::terminal(const Board& b, int ply) {
  if (b.winner() == Empty) return 0;  // a full board
  return b.winner() == b.to_move() ? kWin - ply : -(kWin - ply);
}

SearchOutcome search(const Board& root, const SearchOptions& o) {
  SearchOutcome out;
  Ctx ctx{o, std::vector<Scratch>(static_cast<std::size_t>(std::max(1, o.depth)) + 1), Clock::now()};
  std::unique_ptr<tss::ThreatSearch> tree_threats;
  if (o.tree_threat_depth > 0) ctx.threats = (tree_threats = std::make_unique<tss::ThreatSearch>(16)).get();
  if (ctx.threats) ctx.threats->set_network(ctx.net);
  Board b = root;
  const std::size_t top = ctx.ply.size();  // the root's accumulators
  if (ctx.net) ctx.net->refresh(b, ctx.acc[top]);
  Scratch root_scratch;
  bool forced = false;
  candidate_turns(b, o.width, root_scratch, forced, ctx.net);
  std::vector<Turn>& turns = root_scratch.turns;
  if (turns.empty()) return out;
  out.best = turns[0];
  const bool win_now = forced && b.windows()[b.to_move()][4] + b.windows()[b.to_move()][5] > 0;
  const bool threats = o.threat_depth > 0 && b.stones() > 0 && !win_now && !root_scratch.hopeless;
  if (forced && turns.size() == 1 && !threats) {
    out.forced = true;
    return out;
  }
  if (threats) {
    if (threat_root(b, o, ctx.start, turns, out, ctx.nodes)) {
      out.nodes = ctx.nodes;
      return out;
    }
    out.best = turns[0];
  } else if (!forced && o.vcf_depth > 0) {  // a forced win through threats, before the full search
    std::vector<Scratch> scratch(static_cast<std::size_t>(2 * o.vcf_depth) + 1);
    Turn win;
    if (vcf(b, o.vcf_depth, ctx, scratch, &win)) {
      out.best = win;
      out.forced = true;
      out.score = kWin;
      out.nodes = ctx.nodes;
      return out;
    }
  }
  const int threads = std::max(1, o.threads);
  std::atomic<bool> stop{false};
  std::vector<int> values(turns.size());
  for (int d = 1; d <= std::max(1, o.depth); ++d) {
    int alpha = -kWin - 1;
    Turn best = turns[0];
    if (threads == 1) {
      for (const Turn& t : turns) {
        ctx.play(b, t, top, static_cast<std::size_t>(d - 1));
        const int v = -negamax(b, d - 1, -kWin - 1, -alpha, ctx);
        b.undo(t);
        if (ctx.stopped && d > 1) break;
        if (v > alpha) {
          alpha = v;
          best = t;
        }
      }
    } else {
      // Root splitting: every root turn searched with the full window on some thread (exact values),
      // then the first best in turn order — the same choice as the serial loop.
      std::vector<std::thread> pool;
      std::vector<std::uint64_t> counts(static_cast<std::size_t>(threads), 0);
      for (int w = 0; w < threads; ++w)
        pool.emplace_back([&, w] {
          Ctx mine{o, std::vector<Scratch>(static_cast<std::size_t>(std::max(1, o.depth)) + 1), ctx.start, &stop};
          std::unique_ptr<tss::ThreatSearch> own_threats;
          if (o.tree_threat_depth > 0) mine.threats = (own_threats = std::make_unique<tss::ThreatSearch>(16)).get();
          if (mine.threats) mine.threats->set_network(mine.net);
          Board own = b;
          if (mine.net) mine.acc[top] = ctx.acc[top];
          for (std::size_t i = static_cast<std::size_t>(w); i < turns.size(); i += static_cast<std::size_t>(threads)) {
            mine.play(own, turns[i], top, static_cast<std::size_t>(d - 1));
            values[i] = -negamax(own, d - 1, -kWin - 1, kWin + 1, mine);
            own.undo(turns[i]);
          }
          counts[static_cast<std::size_t>(w)] = mine.nodes;
        });
      for (std::thread& t : pool) t.join();
      for (std::uint64_t c : counts) ctx.nodes += c;
      ctx.stopped = stop.load();
      if (!(ctx.stopped && d > 1))
        for (std::size_t i = 0; i < turns.size(); ++i)
          if (values[i] > alpha) {
            alpha = values[i];
            best = turns[i];
          }
    }
    if (ctx.stopped && d > 1) break;
    out.best = best;
    out.score = alpha;
    out.depth = d;
    if (o.on_depth) {
      SearchOutcome so_far = out;
      so_far.nodes = ctx.nodes;
      o.on_depth(so_far);
    }
    // Search the best turn first next time.
    std::stable_partition(turns.begin(), turns.end(), [&](const Turn& t) { return t == best; });
    if (alpha >= kWin / 2 || ctx.stopped) break;
  }
  out.nodes = ctx.nodes;
  return out;
}

}  // namespace warpmind::search::connect6
