// warpmind::search::HybridSearch — the node-based game tree search of Li et al. (Algorithm 2, NGTS-G),
// generic over the game. The CPU keeps the tree in flat arrays and walks it depth-first; nodes are
// computed in batches breadth-first by a backend: leaves (evaluation, the paper's Algorithm 4 role) when
// at least Lmin are pending (up to Lmax at a time), else branches (move generation, Algorithm 3's role)
// when at least Bmin are pending (up to Bmax); below the minimums one node at a time on the CPU, as the
// paper does. With pruning on, every computed value updates its ancestors and alpha-beta cuts off the
// siblings that can no longer matter; the root value is the minimax value either way (tests hold it
// against a plain negamax of the same depth).
//
// A position without moves (mate or stalemate in chess, a won or full board in Connect6) scores as
// terminal wherever it is, the horizon included: a node `depth` plies below the root takes
// leaf_value() — terminal(state, depth) when the game is over there, else evaluate(state) — as a plain
// negamax that generates every node's moves before looking at the depth would give it.
//
// What a game and a backend provide is stated by the concepts Game and BatchBackend below. CpuBatch is
// the CPU backend (the thread pool); GpuBatch (search/gpu_batch.h) is the GPU one, with the same shape.
// Both also offer leaves(in, values), the evaluation alone (the paper's leaf calculation, which the
// benchmarks time).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

#include "warpmind/core/thread_pool.h"

namespace warpmind::search {

// A game for the hybrid search (chess::ChessGame, connect6::Connect6Game). A value of G carries the game's
// settings (Connect6's width); children() may be static.
//   evaluate(s)      the static value from the side to move, |v| < HybridSearch::kInfinity;
//   children(s, out) the moves in the search's order, best first; empty: the game is over;
//   over(s)          true iff children() would be empty;
//   terminal(s, ply) the score of a position without moves `ply` plies below the root;
//   apply(s, m)      the position after m.
template <class G>
concept Game = std::copyable<G> && std::default_initializable<typename G::Move> &&
    requires(const G& g, const typename G::State& s, const typename G::Move& m, std::vector<typename G::Move>& out,
             int ply) {
  { G::evaluate(s) } -> std::convertible_to<int>;
  g.children(s, out);
  { G::over(s) } -> std::convertible_to<bool>;
  { G::terminal(s, ply) } -> std::convertible_to<int>;
  { G::apply(s, m) } -> std::convertible_to<typename G::State>;
};

// A backend computes the hybrid search's batches for a game G:
//   game()                      the game (settings) it computes for;
//   leaves(in, ply, values)     values[i] = leaf_value<G>(*in[i], ply) (below);
//   branches(in, moves)         moves[i] = the children of *in[i], in the game's order.
template <class B, class G>
concept BatchBackend = Game<G> &&
    requires(B& b, const B& cb, const std::vector<const typename G::State*>& in, int ply, std::vector<int>& values,
             std::vector<std::vector<typename G::Move>>& moves) {
  { cb.game() } -> std::convertible_to<const G&>;
  b.leaves(in, ply, values);
  b.branches(in, moves);
};

struct HybridOptions {
  int depth = 4;                 // plies below the root
  int l_min = 32, l_max = 4096;  // leaf batch thresholds
  int b_min = 8, b_max = 1024;   // branch batch thresholds
  bool pruning = true;
  // Young brothers wait: a node's other children are released for computation only once its first
  // (best-ordered) child has a value, so their windows are narrow when they are batched — one way to
  // close the pruning loss of plain Algorithm 2.
  bool first_child_first = false;
  // With first_child_first: a node expected to be a CUT node (the node types of the minimal tree: the
  // root is a PV node; a PV node's first child is PV, its others CUT; a CUT node's children are ALL, an
  // ALL node's CUT) releases this many children one at a time, each once the one before has a value
  // without a cutoff, then the rest together. 1: the first child alone, as every other node; larger
  // values approach the serial search's node count at CUT nodes, where good ordering makes the first
  // children cut, while the ALL nodes (whose children must all be searched anyway) keep the batches full.
  int cut_one_by_one = 1;
  // When set and true (another thread sets it), run() returns at once with Result::stopped.
  const std::atomic<bool>* stop = nullptr;
  // run() also returns with Result::stopped once this time has passed (checked before every batch or
  // node, so within one batch's time of it). Default: no deadline.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // The memory the tree may hold, in bytes (0: no limit), counted as its nodes times the size of one
  // (a node holds a whole State; the lists of moves beside them are not counted). Checked before every
  // batch or node, so the tree can pass it by one batch's children; past it, run() frees the tree and
  // returns with Result::stopped and Result::out_of_memory — as it does when an allocation fails.
  std::size_t max_tree_bytes = 0;
};

struct HybridStats {
  std::uint64_t batched_leaves = 0, single_leaves = 0;  // computed by the backend in batches / one by one
  std::uint64_t batched_branches = 0, single_branches = 0;
  std::uint64_t leaf_batches = 0, branch_batches = 0;  // backend calls (batched / batches: mean size)
  std::uint64_t pruned = 0;                            // nodes cut off before they were computed
                                                       // (pending ones, and children never released)
  std::uint64_t max_nodes = 0;                         // the largest tree held at once
  std::uint64_t computed() const { return batched_leaves + single_leaves + batched_branches + single_branches; }
};

// The value of a node `ply` plies below the root at the search's horizon: a position without moves
// scores as terminal there too; any other is evaluated.
template <Game G>
int leaf_value(const typename G::State& s, int ply) {
  return G::over(s) ? G::terminal(s, ply) : G::evaluate(s);
}

// The negamax value, without pruning, of `s` searched `plies` more plies, `s` lying `ply` plies below the
// search's root (terminal scores count from there): leaf_value at the horizon, terminal where a
// position has no move, else max over the children of -child. nodes += the nodes of the tree, s included.
template <Game G>
int subtree_value(const G& game, const typename G::State& s, int ply, int plies, std::uint64_t& nodes) {
  ++nodes;
  if (plies <= 0) return leaf_value<G>(s, ply);
  std::vector<typename G::Move> moves;
  game.children(s, moves);
  if (moves.empty()) return G::terminal(s, ply);
  int best = std::numeric_limits<int>::min();
  for (const auto& m : moves) best = std::max(best, -subtree_value(game, G::apply(s, m), ply + 1, plies - 1, nodes));
  return best;
}

// The CPU backend: `rules` is the game it computes for ({pool} takes the game's defaults).
template <Game G>
struct CpuBatch {
  ThreadPool& pool;
  G rules{};
  const G& game() const { return rules; }
  // values[i] = leaf_value<G>(*in[i], ply).
  void leaves(const std::vector<const typename G::State*>& in, int ply, std::vector<int>& values) {
    values.resize(in.size());
    pool.parallel_for(
        in.size(),
        [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; ++i) values[i] = leaf_value<G>(*in[i], ply);
        },
        64);
  }
  // values[i] = G::evaluate(*in[i]): the evaluation alone.
  void leaves(const std::vector<const typename G::State*>& in, std::vector<int>& values) {
    values.resize(in.size());
    pool.parallel_for(
        in.size(),
        [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; ++i) values[i] = G::evaluate(*in[i]);
        },
        64);
  }
  void branches(const std::vector<const typename G::State*>& in, std::vector<std::vector<typename G::Move>>& moves) {
    moves.resize(in.size());
    pool.parallel_for(
        in.size(),
        [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; ++i) rules.children(*in[i], moves[i]);
        },
        16);
  }
  // values[i] = subtree_value(rules, *in[i], ply, plies); nodes += their nodes. (The GPU backends' subtrees()
  // have the same contract; `device_ms` is theirs alone and left unchanged here.) Once `deadline` has
  // passed or `stop` is set, the subtrees not begun yet are skipped (their values are 0 and mean
  // nothing): HybridSearch::run sets both from its options and returns stopped right after such a batch,
  // so a batch of subtrees ends within one subtree's time of the deadline.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* stop = nullptr;
  void subtrees(const std::vector<const typename G::State*>& in, int ply, int plies, std::vector<int>& values,
                std::uint64_t& nodes, double& device_ms) {
    (void)device_ms;
    values.resize(in.size());
    std::atomic<std::uint64_t> total{0};
    const bool timed = deadline != std::chrono::steady_clock::time_point::max();
    pool.parallel_for(
        in.size(),
        [&](std::size_t b, std::size_t e, unsigned) {
          std::uint64_t local = 0;
          for (std::size_t i = b; i < e; ++i) {
            if ((stop && stop->load(std::memory_order_relaxed)) ||
                (timed && std::chrono::steady_clock::now() >= deadline)) {
              values[i] = 0;
              continue;
            }
            values[i] = subtree_value(rules, *in[i], ply, plies, local);
          }
          total.fetch_add(local, std::memory_order_relaxed);
        },
        1);
    nodes += total.load();
  }
};

// A backend for HybridSearch whose leaves are the roots of whole subtrees: run the search to depth
// D - plies with it and every horizon node is replaced by the value of its `plies`-ply subtree, searched
// without pruning by Inner::subtrees (on the GPU one pass over all the batch's subtrees: the positions
// below the horizon never leave the device), so the root value is the depth-D negamax value. The host
// keeps the upper tree, the windows and the cutoffs. Every leaf goes to Inner, batches of one included.
// nodes: the subtrees' nodes (horizon nodes included); device_ms: Inner's device time; leaf_ms and
// branch_ms: the wall time of Inner's calls (what the search spent outside its own driver).
template <Game G, class Inner>
struct SubtreeLeaves {
  static constexpr bool kLeavesAreSubtrees = true;
  Inner& inner;
  int plies = 1;
  std::uint64_t nodes = 0;
  double device_ms = 0, leaf_ms = 0, branch_ms = 0;
  decltype(auto) game() const { return inner.game(); }
  // Passed on to Inner where it can end a batch early (CpuBatch::subtrees).
  void limit(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* stop) {
    if constexpr (requires { inner.deadline; }) {
      inner.deadline = deadline;
      inner.stop = stop;
    }
  }
  void leaves(const std::vector<const typename G::State*>& in, int ply, std::vector<int>& values) {
    const auto t0 = std::chrono::steady_clock::now();
    inner.subtrees(in, ply, plies, values, nodes, device_ms);
    leaf_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  void branches(const std::vector<const typename G::State*>& in, std::vector<std::vector<typename G::Move>>& moves) {
    const auto t0 = std::chrono::steady_clock::now();
    inner.branches(in, moves);
    branch_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
};

template <Game G, BatchBackend<G> Backend>
class HybridSearch {
 public:
  using State = typename G::State;
  using Move = typename G::Move;
  static constexpr int kInfinity = std::numeric_limits<int>::max() / 4;

  struct Result {
    int value = 0;
    Move best{};
    bool has_move = false;
    bool stopped = false;        // options.stop interrupted the search: value and best mean nothing
    bool out_of_memory = false;  // with stopped: the tree outgrew max_tree_bytes, or memory ran out
  };

  // Never throws: an allocation failure frees the tree and returns stopped and out_of_memory.
  Result run(const State& root, const HybridOptions& o, Backend& backend, HybridStats& stats) {
    try {
      return run_tree(root, o, backend, stats);
    } catch (const std::bad_alloc&) {
      return out_of_memory();
    }
  }

 private:
  Result out_of_memory() {
    nodes_ = {};  // frees the tree's memory at once
    moves_flat_ = {};
    pending_branches_ = {};
    pending_leaves_ = {};
    Result r;
    r.stopped = true;
    r.out_of_memory = true;
    return r;
  }

  Result run_tree(const State& root, const HybridOptions& o, Backend& backend, HybridStats& stats) {
    stats = {};
    nodes_.clear();
    moves_flat_.clear();
    nodes_.emplace_back(root, -1, 0, Move{});
    pending_branches_.clear();
    pending_leaves_.clear();
    (o.depth == 0 ? pending_leaves_ : pending_branches_).push_back(0);
    const bool timed = o.deadline != std::chrono::steady_clock::time_point::max();
    if constexpr (requires { backend.limit(o.deadline, o.stop); }) backend.limit(o.deadline, o.stop);
    while (!nodes_[0].done) {
      // A step is one batch or one node: the clock is read every step (tens of nanoseconds against a
      // batch's microseconds or more), so a deadline is kept to within one batch.
      if ((o.stop && o.stop->load(std::memory_order_relaxed)) ||
          (timed && std::chrono::steady_clock::now() >= o.deadline)) {
        Result r;
        r.stopped = true;
        return r;
      }
      stats.max_nodes = std::max<std::uint64_t>(stats.max_nodes, nodes_.size());
      if (o.max_tree_bytes && nodes_.size() > o.max_tree_bytes / sizeof(Node)) return out_of_memory();
      if (take(pending_leaves_, o, o.l_min, o.l_max, stats)) {
        // Leaves: a batch on the backend, or one on the CPU. Every leaf lies at the horizon, the same
        // number of plies below the root (o.depth: release() makes a node a leaf exactly there).
        const int leaf_ply = nodes_[static_cast<std::size_t>(batch_[0])].ply;
        batch_states_.clear();
        for (int n : batch_) batch_states_.push_back(&nodes_[static_cast<std::size_t>(n)].state);
        if (batch_.size() > 1 || static_cast<int>(batch_.size()) >= o.l_min ||
            requires { Backend::kLeavesAreSubtrees; }) {
          backend.leaves(batch_states_, leaf_ply, values_);
          stats.batched_leaves += batch_.size();
          ++stats.leaf_batches;
        } else {
          values_.assign(1, leaf_value<G>(*batch_states_[0], leaf_ply));
          ++stats.single_leaves;
        }
        for (std::size_t i = 0; i < batch_.size(); ++i) resolve(batch_[i], values_[i], o, stats);
      } else if (take(pending_branches_, o, o.b_min, o.b_max, stats)) {
        batch_states_.clear();
        for (int n : batch_) batch_states_.push_back(&nodes_[static_cast<std::size_t>(n)].state);
        if (batch_.size() > 1 || static_cast<int>(batch_.size()) >= o.b_min) {
          backend.branches(batch_states_, moves_);
          stats.batched_branches += batch_.size();
          ++stats.branch_batches;
        } else {
          moves_.resize(1);
          backend.game().children(*batch_states_[0], moves_[0]);
          ++stats.single_branches;
        }
        for (std::size_t i = 0; i < batch_.size(); ++i) expand(batch_[i], moves_[i], o, stats);
      } else {
        break;  // nothing left to compute (cannot happen while the root is open)
      }
    }
    Result r;
    r.value = nodes_[0].best;
    r.has_move = nodes_[0].best_child >= 0;
    if (r.has_move) r.best = nodes_[static_cast<std::size_t>(nodes_[0].best_child)].move;
    return r;
  }

  struct Node {
    State state;
    int parent = -1, ply = 0;
    Move move{};
    int open = 0;                     // children not resolved yet
    int moves_at = -1, children = 0;  // its moves: moves_flat_[moves_at .. moves_at + children)
    bool released = true;             // all children made and pushed for computation
    int next = 0;                     // while not: the next child to release
    enum Type : std::uint8_t { Pv, Cut, All } type = Pv;
    int best = -kInfinity, best_child = -1;
    bool done = false;
    Node(const State& s, int p, int depth, const Move& m) : state(s), parent(p), ply(depth), move(m) {}
  };

  // The alpha-beta window of node n from the best values found so far (negamax): the root searches
  // (best(root), +inf); a child n of p searches (max(best(n), -beta(p)), -alpha(p)).
  void window(int n, int& alpha, int& beta) const {
    const Node& node = nodes_[static_cast<std::size_t>(n)];
    if (node.parent < 0) {
      alpha = node.best;
      beta = kInfinity;
      return;
    }
    int pa, pb;
    window(node.parent, pa, pb);
    beta = -pa;
    alpha = std::max(node.best, -pb);
  }

  // Whether pending node n still matters: -2 when an ancestor is already resolved (a cutoff), the
  // topmost ancestor whose window has become empty (its best reached a beta that fell when a node above
  // it improved: a cutoff nobody has applied yet), or -1 when n's subtree is still open.
  int cut_above(int n) {
    chain_.clear();
    for (int a = nodes_[static_cast<std::size_t>(n)].parent; a >= 0; a = nodes_[static_cast<std::size_t>(a)].parent) {
      if (nodes_[static_cast<std::size_t>(a)].done) return -2;
      chain_.push_back(a);
    }
    int alpha = 0, beta = kInfinity;  // top-down from the root
    for (std::size_t i = chain_.size(); i-- > 0;) {
      const Node& a = nodes_[static_cast<std::size_t>(chain_[i])];
      const int child_beta = i + 1 == chain_.size() ? kInfinity : -alpha;
      const int child_alpha = std::max(a.best, i + 1 == chain_.size() ? -kInfinity : -beta);
      if (child_alpha >= child_beta) return chain_[i];
      alpha = child_alpha;
      beta = child_beta;
    }
    return -1;
  }

  // Up to `most` pending nodes from the top of the stack — the deepest, newest ones, best-ordered first,
  // so the walk is depth-first as in the paper — dropping those an ancestor's cutoff made irrelevant.
  // True when there is work; `batch_` holds it, a single node when fewer than `least` are pending.
  bool take(std::vector<int>& pending, const HybridOptions& o, int least, int most, HybridStats& stats) {
    batch_.clear();
    const std::size_t want =
        pending.size() >= static_cast<std::size_t>(std::max(least, 1)) ? static_cast<std::size_t>(most) : 1;
    while (!pending.empty() && batch_.size() < want) {
      const int n = pending.back();
      pending.pop_back();
      if (o.pruning) {
        const int top = cut_above(n);
        if (top != -1) {
          if (top >= 0) resolve(top, nodes_[static_cast<std::size_t>(top)].best, o, stats);  // its cutoff
          ++stats.pruned;
          continue;
        }
      }
      batch_.push_back(n);
    }
    return !batch_.empty();
  }

  void expand(int n, std::vector<Move>& moves, const HybridOptions& o, HybridStats& stats) {
    if (moves.empty()) {
      resolve(n, G::terminal(nodes_[static_cast<std::size_t>(n)].state, nodes_[static_cast<std::size_t>(n)].ply), o,
              stats);
      return;
    }
    const int count = static_cast<int>(moves.size());
    Node& node = nodes_[static_cast<std::size_t>(n)];
    node.moves_at = static_cast<int>(moves_flat_.size());
    moves_flat_.insert(moves_flat_.end(), moves.begin(), moves.end());
    node.open = count;
    node.children = count;
    node.released = !o.first_child_first || count == 1;
    node.next = node.released ? count : 1;
    release(n, 0, node.next, o);
  }

  // A child of p got its value without finishing p: under first_child_first, the next child of an
  // expected CUT node while fewer than cut_one_by_one have been released, else all the rest.
  void release_brothers(int p, const HybridOptions& o) {
    Node& parent = nodes_[static_cast<std::size_t>(p)];
    const int from = parent.next;
    const int count = parent.type == Node::Cut && from < o.cut_one_by_one ? 1 : parent.children - from;
    parent.next += count;
    parent.released = parent.next == parent.children;
    release(p, from, count, o);
  }

  // Makes children [from, from + count) of node p (in its move order) — nodes and positions are made only
  // when released: an expected CUT node's later children mostly never are — and pushes them for
  // computation, last to first, so the first (best-ordered) child is on top of the stack.
  void release(int p, int from, int count, const HybridOptions& o) {
    const int first = static_cast<int>(nodes_.size());
    const int ply = nodes_[static_cast<std::size_t>(p)].ply + 1;
    for (int c = from; c < from + count; ++c) {
      const Node& parent = nodes_[static_cast<std::size_t>(p)];
      const Move m = moves_flat_[static_cast<std::size_t>(parent.moves_at + c)];
      const typename Node::Type type = parent.type == Node::Cut   ? Node::All
                                       : parent.type == Node::All ? Node::Cut
                                       : c == 0                   ? Node::Pv
                                                                  : Node::Cut;
      nodes_.emplace_back(G::apply(parent.state, m), p, ply, m);  // may move the nodes: `parent` re-read above
      nodes_.back().type = type;
    }
    for (int c = first + count - 1; c >= first; --c)
      (ply >= o.depth ? pending_leaves_ : pending_branches_).push_back(c);
  }

  // Node n's value is known: it updates its parent (negamax); a parent whose children are all in, or
  // whose best reaches its beta (pruning), is resolved in turn.
  void resolve(int n, int value, const HybridOptions& o, HybridStats& stats) {
    Node& node = nodes_[static_cast<std::size_t>(n)];
    node.done = true;
    if (!node.released) stats.pruned += static_cast<std::uint64_t>(node.children - node.next);  // never released
    if (node.best_child < 0) node.best = value;
    const int p = node.parent;
    if (p < 0) return;
    Node& parent = nodes_[static_cast<std::size_t>(p)];
    if (parent.done) return;
    if (-node.best > parent.best) {
      parent.best = -node.best;
      parent.best_child = n;
    }
    --parent.open;
    bool finished = parent.open == 0;
    const bool more = !parent.released;  // the released children are all in: release more
    if (!finished && o.pruning) {
      int alpha, beta;
      window(p, alpha, beta);
      finished = alpha >= beta;  // a cutoff: the rest of p's children cannot change the root
    }
    if (finished) {
      resolve(p, parent.best, o, stats);
    } else if (more && parent.open == parent.children - parent.next) {
      release_brothers(p, o);
    }
  }

  std::vector<Node> nodes_;
  std::vector<Move> moves_flat_;
  std::vector<int> pending_branches_, pending_leaves_, batch_, chain_;
  std::vector<const State*> batch_states_;
  std::vector<int> values_;
  std::vector<std::vector<Move>> moves_;
};

// Iterative deepening of whole runs, as an engine plays to a clock: depths 1, 2, ... max_depth, each
// one run() from scratch. A depth starts only while the time since `t0` plus the last depth's time
// times the growth seen so far (at least 2, first guess 8) fits `time_ms`; a depth that runs past
// t0 + time_ms (options.deadline) or is stopped (options.stop) is abandoned and the last completed one
// stands. time_ms <= 0: no time limit. After each completed depth on_depth(result, step) is called; it
// returns false to stop deepening (a node budget, a mate found). The result is the last completed
// depth's (has_move false and stopped true when not even depth 1 completed).
struct DeepeningStep {
  int depth = 0;
  double ms = 0;        // this depth's run
  double total_ms = 0;  // since t0
  HybridStats stats;
};

template <Game G, BatchBackend<G> Backend, class OnDepth>
typename HybridSearch<G, Backend>::Result deepen(HybridSearch<G, Backend>& search, const typename G::State& root,
                                                 HybridOptions options, int max_depth, std::int64_t time_ms,
                                                 std::chrono::steady_clock::time_point t0, Backend& backend,
                                                 OnDepth&& on_depth) {
  using Ms = std::chrono::duration<double, std::milli>;
  typename HybridSearch<G, Backend>::Result best;
  best.stopped = true;
  if (time_ms > 0) options.deadline = std::min(options.deadline, t0 + std::chrono::milliseconds(time_ms));
  double last_ms = 0, growth = 8;
  for (int d = 1; d <= max_depth; ++d) {
    const double elapsed = Ms(std::chrono::steady_clock::now() - t0).count();
    if (d > 1 && time_ms > 0 && elapsed + last_ms * growth > static_cast<double>(time_ms)) break;
    options.depth = d;
    DeepeningStep step;
    step.depth = d;
    const auto r0 = std::chrono::steady_clock::now();
    const auto r = search.run(root, options, backend, step.stats);
    if (r.stopped) break;
    step.ms = Ms(std::chrono::steady_clock::now() - r0).count();
    step.total_ms = Ms(std::chrono::steady_clock::now() - t0).count();
    if (last_ms > 0.5) growth = std::max(2.0, step.ms / last_ms);
    last_ms = step.ms;
    best = r;
    if (!on_depth(static_cast<const decltype(r)&>(r), static_cast<const DeepeningStep&>(step))) break;
  }
  return best;
}

}  // namespace warpmind::search
