// Chess evaluation and search (chess_search.h). [SECTION] evaluation   [SECTION] transposition table
// [SECTION] the search   [SECTION] the searcher
#include "warpmind/search/chess_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "chess_internal.h"
#include "warpmind/gpu/chess_eval.h"

namespace warpmind::search::chess {

// ---- [SECTION] evaluation ------------------------------------------------------------------------

namespace {

using Bits = std::uint64_t;

// The evaluation is gpu/include/warpmind/gpu/chess_eval.h, shared with the GPU rules; here it reads a
// Position, with the piece-square values from a table built once from chess_eval::pst.
struct PstTable {
  int mg[6][64], eg[6][64];
  PstTable() {
    for (int t = 0; t < 6; ++t)
      for (int sq = 0; sq < 64; ++sq) gpu::chess_eval::pst(t, sq, mg[t][sq], eg[t][sq]);
  }
};
const PstTable& pst_table() {
  static const PstTable t;
  return t;
}

struct EvalBoard {
  const Position& p;
  const PstTable& t = pst_table();
  Bits pieces(int c, int type) const { return p.pieces[c][type]; }
  Bits occupied(int c) const { return p.occupied[c]; }
  int king_square(int c) const { return p.king_square(static_cast<Color>(c)); }
  int side() const { return p.side; }
  Bits knight(int sq) const { return detail::knight_attacks(sq); }
  Bits bishop(int sq, Bits occ) const { return detail::bishop_attacks(sq, occ); }
  Bits rook(int sq, Bits occ) const { return detail::rook_attacks(sq, occ); }
  Bits king_zone(int sq) const { return detail::king_attacks(sq) | (Bits{1} << sq); }
  void pst(int type, int rel, int& mg, int& eg) const {
    mg = t.mg[type][rel];
    eg = t.eg[type][rel];
  }
};

}  // namespace

int evaluate(const Position& p) { return gpu::chess_eval::evaluate(EvalBoard{p}); }

// ---- [SECTION] transposition table ---------------------------------------------------------------

namespace {

enum Bound : std::uint8_t { BoundNone = 0, Upper = 1, Lower = 2, Exact = 3 };

// One entry in two 64-bit words: the key XOR the data (so a torn write from another thread reads as a
// miss), and the data: move 20 bits, score 16, depth 8, bound 2.
struct Entry {
  std::atomic<std::uint64_t> check{0}, data{0};
};

std::uint64_t pack(Move m, int score, int depth, Bound b) {
  return (static_cast<std::uint64_t>(m.bits & 0xFFFFF)) |
         (static_cast<std::uint64_t>(static_cast<std::uint16_t>(score)) << 20) |
         (static_cast<std::uint64_t>(std::clamp(depth, 0, 255)) << 36) | (static_cast<std::uint64_t>(b) << 44);
}

struct Table {
  std::vector<Entry> entries;
  std::uint64_t mask = 0;
  void resize(int mb) {
    std::size_t n = 1;
    while (n * 2 * sizeof(Entry) <= static_cast<std::size_t>(mb) * (1u << 20)) n *= 2;
    entries = std::vector<Entry>(n);
    mask = n - 1;
  }
  void clear() {
    for (Entry& e : entries) e.check.store(0, std::memory_order_relaxed), e.data.store(0, std::memory_order_relaxed);
  }
  bool probe(std::uint64_t key, Move& m, int& score, int& depth, Bound& b) const {
    const Entry& e = entries[key & mask];
    const std::uint64_t d = e.data.load(std::memory_order_relaxed);
    if ((e.check.load(std::memory_order_relaxed) ^ d) != key || d == 0) return false;
    m.bits = static_cast<std::uint32_t>(d & 0xFFFFF);
    score = static_cast<std::int16_t>(d >> 20 & 0xFFFF);
    depth = static_cast<int>(d >> 36 & 0xFF);
    b = static_cast<Bound>(d >> 44 & 3);
    return true;
  }
  void store(std::uint64_t key, Move m, int score, int depth, Bound b) {
    Entry& e = entries[key & mask];
    const std::uint64_t d = pack(m, score, depth, b);
    e.data.store(d, std::memory_order_relaxed);
    e.check.store(key ^ d, std::memory_order_relaxed);
  }
};

int to_table(int score, int ply) {
  return score > kMateBound ? score + ply : score < -kMateBound ? score - ply : score;
}
int from_table(int score, int ply) {
  return score > kMateBound ? score - ply : score < -kMateBound ? score + ply : score;
}

}  // namespace

// ---- [SECTION] the search ------------------------------------------------------------------------

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxPly = 128;
constexpr int kPieceOrder[7] = {1, 3, 3, 5, 9, 20, 0};
// Late-move reductions by depth and move rank: 0.75 + ln(depth) ln(rank) / 2.25, in plies.
struct Reductions {
  int r[64][kMaxMoves];
  Reductions() {
    for (int d = 0; d < 64; ++d)
      for (int i = 0; i < kMaxMoves; ++i)
        r[d][i] = d == 0 || i == 0 ? 0 : static_cast<int>(0.75 + std::log(d) * std::log(i) / 2.25);
  }
};
int reduction(int depth, int rank) {
  static const Reductions t;
  return t.r[std::min(depth, 63)][std::min(rank, kMaxMoves - 1)];
}
constexpr int kSeeValue[7] = {100, 320, 330, 500, 950, 20000, 0};

// Every piece of either colour attacking `sq` with the board occupied by `occ`.
Bits attackers_to(const Position& p, int sq, Bits occ) {
  const Bits bq = p.pieces[White][Bishop] | p.pieces[Black][Bishop] | p.pieces[White][Queen] | p.pieces[Black][Queen];
  const Bits rq = p.pieces[White][Rook] | p.pieces[Black][Rook] | p.pieces[White][Queen] | p.pieces[Black][Queen];
  return (detail::pawn_attacks(Black, sq) & p.pieces[White][Pawn]) |
         (detail::pawn_attacks(White, sq) & p.pieces[Black][Pawn]) |
         (detail::knight_attacks(sq) & (p.pieces[White][Knight] | p.pieces[Black][Knight])) |
         (detail::king_attacks(sq) & (p.pieces[White][King] | p.pieces[Black][King])) |
         (detail::bishop_attacks(sq, occ) & bq) | (detail::rook_attacks(sq, occ) & rq);
}

// Static exchange evaluation: the material the side to move wins (negative: loses) by playing capture
// `m` and letting both sides recapture on its square, least valuable attacker first, each free to stop
// when going on would lose. X-ray attackers behind the moved pieces join as the board empties.
int see(const Position& p, Move m) {
  const int to = m.to();
  const int victim = (m.flags() & Move::EnPassant) ? Pawn : p.type_at(to);
  Bits occ = p.occupied[White] | p.occupied[Black];
  if (m.flags() & Move::EnPassant) occ ^= Bits{1} << (p.side == White ? to - 8 : to + 8);
  int gain[40];
  int d = 0;
  gain[0] = kSeeValue[victim];
  int attacker = p.type_at(m.from());
  Bits from_bit = Bits{1} << m.from();
  int side = p.side;
  while (d < 38) {
    ++d;
    gain[d] = kSeeValue[attacker] - gain[d - 1];  // the score should `attacker` be taken in turn
    if (std::max(-gain[d - 1], gain[d]) < 0) break;
    occ ^= from_bit;
    side ^= 1;
    const Bits att = attackers_to(p, to, occ) & occ & p.occupied[side];
    if (!att) break;
    for (int t = Pawn; t <= King; ++t)
      if (const Bits b = att & p.pieces[side][t]) {
        from_bit = b & (~b + 1);
        attacker = t;
        break;
      }
  }
  while (--d) gain[d - 1] = -std::max(-gain[d - 1], gain[d]);
  return gain[0];
}

struct Shared {
  Table table;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> nodes{0};
  Clock::time_point start;
  std::int64_t time_ms = 0;
  std::uint64_t node_limit = 0;
};

struct Worker {
  Shared& s;
  Position pos;
  std::vector<std::uint64_t> keys;  // the game's and the search path's positions, for repetitions
  Move killers[kMaxPly][2]{};
  int history[2][64][64]{};
  Move pv[kMaxPly][kMaxPly]{};
  int pv_len[kMaxPly]{};
  std::uint64_t nodes = 0;
  int seldepth = 0;
  bool main = false;

  explicit Worker(Shared& shared) : s(shared) {}

  bool out_of_time() {
    if (s.stop.load(std::memory_order_relaxed)) return true;
    if ((nodes & 1023) == 0) {
      const std::uint64_t total = s.nodes.fetch_add(1024, std::memory_order_relaxed) + 1024;
      if ((s.node_limit && total >= s.node_limit) ||
          (s.time_ms &&
           std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - s.start).count() >= s.time_ms))
        s.stop.store(true, std::memory_order_relaxed);
    }
    return s.stop.load(std::memory_order_relaxed);
  }

  bool repeated() const {
    // The current position's key against the earlier ones with the same side to move, within the
    // halfmove clock.
    const std::size_t n = keys.size();
    const std::uint64_t k = keys.back();
    for (std::size_t back = 4; back <= static_cast<std::size_t>(pos.halfmove) && back < n; back += 2)
      if (keys[n - 1 - back] == k) return true;
    return false;
  }

  int score_move(Move m, Move tt_move, int ply) const {
    if (m == tt_move) return 1 << 30;
    if (m.flags() & Move::Capture) {
      const int victim = (m.flags() & Move::EnPassant) ? Pawn : pos.type_at(m.to());
      const int mvv_lva = kPieceOrder[victim] * 64 - kPieceOrder[pos.type_at(m.from())];
      // Captures that lose material by exchange go after the quiet moves.
      if (kPieceOrder[pos.type_at(m.from())] > kPieceOrder[victim] && see(pos, m) < 0) return -(1 << 24) + mvv_lva;
      return (1 << 28) + mvv_lva;
    }
    if (m.promo() != NoPiece) return (1 << 27) + m.promo();
    if (m == killers[ply][0]) return (1 << 26) + 1;
    if (m == killers[ply][1]) return 1 << 26;
    return history[pos.side][m.from()][m.to()];
  }

  void order(MoveList& list, Move tt_move, int ply, int* scores) const {
    for (int i = 0; i < list.size; ++i) scores[i] = score_move(list.moves[i], tt_move, ply);
  }
  static Move pick(MoveList& list, int* scores, int i) {
    int best = i;
    for (int j = i + 1; j < list.size; ++j)
      if (scores[j] > scores[best]) best = j;
    std::swap(list.moves[i], list.moves[best]);
    std::swap(scores[i], scores[best]);
    return list.moves[i];
  }

  int quiesce(int alpha, int beta, int ply) {
    ++nodes;
    seldepth = std::max(seldepth, ply);
    if (out_of_time()) return 0;
    if (ply >= kMaxPly - 1) return evaluate(pos);
    const bool check = pos.in_check();
    int best = -kMate + ply;
    if (!check) {
      best = evaluate(pos);
      if (best >= beta) return best;
      alpha = std::max(alpha, best);
    }
    MoveList list;
    generate_legal(pos, list);
    if (list.size == 0) return check ? -kMate + ply : 0;
    int scores[kMaxMoves];
    order(list, Move{}, ply, scores);
    for (int i = 0; i < list.size; ++i) {
      const Move m = pick(list, scores, i);
      if (!check && !(m.flags() & Move::Capture) && m.promo() == NoPiece) continue;
      // Not in check: captures that lose material by exchange are not searched.
      if (!check && scores[i] < 0 && m.promo() == NoPiece) continue;
      Undo u;
      make_move(pos, m, u);
      const int v = -quiesce(-beta, -alpha, ply + 1);
      unmake_move(pos, m, u);
      if (s.stop.load(std::memory_order_relaxed)) return 0;
      if (v > best) {
        best = v;
        if (v > alpha) {
          alpha = v;
          if (v >= beta) break;
        }
      }
    }
    return best;
  }

  int negamax(int depth, int alpha, int beta, int ply, bool allow_null) {
    pv_len[ply] = ply;
    if (ply > 0) {
      if (pos.halfmove >= 100 || repeated()) return 0;
      alpha = std::max(alpha, -kMate + ply);  // mate-distance pruning
      beta = std::min(beta, kMate - ply - 1);
      if (alpha >= beta) return alpha;
    }
    const bool check = pos.in_check();
    if (check) ++depth;  // check extension
    if (depth <= 0) return quiesce(alpha, beta, ply);
    ++nodes;
    if (out_of_time()) return 0;
    if (ply >= kMaxPly - 1) return evaluate(pos);
    const bool pv_node = beta - alpha > 1;
    Move tt_move{};
    int tt_score = 0, tt_depth = 0;
    Bound tt_bound = BoundNone;
    if (s.table.probe(pos.key, tt_move, tt_score, tt_depth, tt_bound)) {
      tt_score = from_table(tt_score, ply);
      if (!pv_node && ply > 0 && tt_depth >= depth &&
          (tt_bound == Exact || (tt_bound == Lower && tt_score >= beta) || (tt_bound == Upper && tt_score <= alpha)))
        return tt_score;
    }
    const Color us = pos.side;
    int static_eval = check ? -kMate + ply : evaluate(pos);
    // A table score whose bound points the right way is a better guess than the static evaluation.
    if (!check && tt_bound != BoundNone && std::abs(tt_score) < kMateBound &&
        (tt_bound == Exact || (tt_bound == Lower && tt_score > static_eval) ||
         (tt_bound == Upper && tt_score < static_eval)))
      static_eval = tt_score;
    // Reverse futility: far enough above beta at a shallow depth, the opponent will not catch up.
    if (!pv_node && !check && depth <= 6 && std::abs(beta) < kMateBound && static_eval - 90 * depth >= beta)
      return static_eval;
    // Null move: give the opponent a free move; if we still fail high, this node is not worth a full
    // search (not in check, not in pawn endings where zugzwang is common). The reduction grows with the
    // depth and with the margin above beta.
    const bool pieces = (pos.occupied[us] & ~pos.pieces[us][Pawn] & ~pos.pieces[us][King]) != 0;
    if (allow_null && !pv_node && !check && depth >= 3 && pieces && static_eval >= beta) {
      const int r = 3 + depth / 4 + std::min((static_eval - beta) / 200, 2);
      Undo u;
      make_null_move(pos, u);
      keys.push_back(pos.key);
      const int v = -negamax(depth - r, -beta, -beta + 1, ply + 1, false);
      keys.pop_back();
      unmake_null_move(pos, u);
      if (s.stop.load(std::memory_order_relaxed)) return 0;
      if (v >= beta && v < kMateBound) return beta;
    }
    // No table move at depth: this node was not searched before, a shallower search is cheaper and
    // fills the table for the next iteration (internal iterative reduction).
    if (tt_bound == BoundNone && depth >= 4) --depth;
    MoveList list;
    generate_legal(pos, list);
    if (list.size == 0) return check ? -kMate + ply : 0;
    int scores[kMaxMoves];
    order(list, tt_move, ply, scores);
    const int alpha0 = alpha;
    Move tried[kMaxMoves];  // the quiet moves searched so far, whose history a cutoff lowers
    int n_tried = 0;
    int best = -kMate;
    Move best_move = list.moves[0];
    // Shallow nodes far below alpha: quiet moves that do not give check are futile (futility pruning),
    // and past a count that grows with the depth, late quiet moves are not searched at all.
    const bool futile =
        !check && depth <= 4 && std::abs(alpha) < kMateBound && static_eval + 100 + 100 * depth <= alpha;
    const int late_limit = check || pv_node ? kMaxMoves : depth <= 4 ? 3 + depth * depth : kMaxMoves;
    int quiets = 0;
    for (int i = 0; i < list.size; ++i) {
      const Move m = pick(list, scores, i);
      const bool quiet = !(m.flags() & Move::Capture) && m.promo() == NoPiece;
      quiets += quiet;
      Undo u;
      make_move(pos, m, u);
      const bool gives_check = pos.in_check();
      if (i > 0 && quiet && !gives_check && best > -kMateBound && (futile || quiets > late_limit)) {
        unmake_move(pos, m, u);
        continue;
      }
      keys.push_back(pos.key);
      if (quiet) tried[n_tried++] = m;
      int v;
      if (i == 0) {
        v = -negamax(depth - 1, -beta, -alpha, ply + 1, true);
      } else {
        // Late quiet moves at depth get a reduced null-window search first, the reduction growing with
        // the logarithms of the depth and of the move's rank; less on the principal variation and for
        // killers, none for moves that give check or when in check.
        int r = 0;
        if (quiet && !check && !gives_check && depth >= 3 && i >= 2) {
          r = reduction(depth, i);
          if (pv_node) --r;
          if (m == killers[ply][0] || m == killers[ply][1]) --r;
          r = std::clamp(r, 0, depth - 2);
        }
        v = -negamax(depth - 1 - r, -alpha - 1, -alpha, ply + 1, true);
        if (v > alpha && (r || v < beta)) v = -negamax(depth - 1, -beta, -alpha, ply + 1, true);
      }
      keys.pop_back();
      unmake_move(pos, m, u);
      if (s.stop.load(std::memory_order_relaxed)) return 0;
      if (v > best) {
        best = v;
        best_move = m;
        if (v > alpha) {
          alpha = v;
          pv[ply][ply] = m;
          for (int k = ply + 1; k < pv_len[ply + 1]; ++k) pv[ply][k] = pv[ply + 1][k];
          pv_len[ply] = std::max(pv_len[ply + 1], ply + 1);
          if (v >= beta) {
            if (!(m.flags() & Move::Capture)) {
              if (!(killers[ply][0] == m)) killers[ply][1] = killers[ply][0], killers[ply][0] = m;
              // History with gravity (bounded by 16,384): the cutoff move gains, the quiet moves tried
              // before it lose.
              const int bonus = std::min(depth * depth, 400);
              for (int k = 0; k < n_tried; ++k) {
                int& h = history[us][tried[k].from()][tried[k].to()];
                const int b = tried[k] == m ? bonus : -bonus;
                h += b - h * bonus / 16384;
              }
            }
            break;
          }
        }
      }
    }
    s.table.store(pos.key, best_move, to_table(best, ply), depth, best >= beta ? Lower : best > alpha0 ? Exact : Upper);
    return best;
  }
};

}  // namespace

void ChessGame::children(const Position& p, std::vector<Move>& out) {
  MoveList list;
  generate_legal(p, list);
  out.assign(list.begin(), list.end());
  std::stable_partition(out.begin(), out.end(),
                        [](const Move& m) { return (m.flags() & Move::Capture) || m.promo() != NoPiece; });
}

// ---- [SECTION] the searcher ----------------------------------------------------------------------

struct Searcher::Impl {
  Shared shared;
  int threads = 1;
  std::mutex running;
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
}
void Searcher::stop() { impl_->shared.stop.store(true); }

SearchResult Searcher::search(const Position& root, const std::vector<std::uint64_t>& history,
                              const SearchLimits& limits,
                              const std::function<void(const SearchReport&)>& on_iteration) {
  std::lock_guard<std::mutex> lock(impl_->running);
  Shared& s = impl_->shared;
  s.stop.store(false);
  s.nodes.store(0);
  s.start = Clock::now();
  s.time_ms = limits.time_ms;
  s.node_limit = limits.nodes;
  SearchResult result;
  MoveList legal;
  generate_legal(root, legal);
  if (legal.size == 0) return result;
  result.best = legal.moves[0];  // a legal move whatever happens
  result.has_move = true;
  const int max_depth = std::clamp(limits.depth, 1, kMaxPly - 8);
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < impl_->threads; ++t) {
    auto w = std::make_unique<Worker>(s);
    w->pos = root;
    w->keys = history;
    w->keys.push_back(root.key);
    w->main = t == 0;
    workers.push_back(std::move(w));
  }
  // Helpers (Lazy SMP) search the same root on the shared table, starting one or two plies deeper.
  std::vector<std::thread> helpers;
  for (int t = 1; t < impl_->threads; ++t)
    helpers.emplace_back([&, t] {
      Worker& w = *workers[static_cast<std::size_t>(t)];
      for (int d = 1 + t % 2; d <= max_depth && !s.stop.load(); ++d) w.negamax(d, -kMate, kMate, 0, false);
    });
  Worker& main = *workers[0];
  for (int d = 1; d <= max_depth; ++d) {
    main.seldepth = 0;
    // Aspiration window: from depth 5 the search starts in a window around the last score, widened
    // (doubling) on the side that fails.
    int score = 0;
    if (d >= 5 && std::abs(result.score) < kMateBound) {
      int delta = 25, lo = result.score - delta, hi = result.score + delta;
      for (;;) {
        score = main.negamax(d, lo, hi, 0, false);
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
      score = main.negamax(d, -kMate, kMate, 0, false);
    }
    if (s.stop.load() && d > 1) break;  // an interrupted iteration does not count (the first one does)
    if (main.pv_len[0] > 0) result.best = main.pv[0][0];
    result.score = score;
    result.depth = d;
    SearchReport r;
    r.depth = d;
    r.seldepth = main.seldepth;
    r.score = score;
    std::uint64_t total = 0;
    for (const auto& w : workers) total += w->nodes;
    r.nodes = total;
    r.time_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - s.start).count();
    for (int k = 0; k < main.pv_len[0]; ++k) r.pv.push_back(main.pv[0][k]);
    if (on_iteration) on_iteration(r);
    if (s.stop.load()) break;
    if (limits.soft_time_ms && !limits.infinite && r.time_ms >= limits.soft_time_ms) break;  // no time for another
    if (std::abs(score) > kMateBound && d >= kMate - std::abs(score) + 2 && !limits.infinite) break;  // mate found
  }
  while (limits.infinite && !s.stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // until stop()
  s.stop.store(true);
  for (std::thread& h : helpers) h.join();
  for (const auto& w : workers) result.nodes += w->nodes;
  // Guard: the reported move is one of the root's legal moves.
  bool legal_best = false;
  for (Move m : legal) legal_best = legal_best || m == result.best;
  if (!legal_best) result.best = legal.moves[0];
  return result;
}

}  // namespace warpmind::search::chess
