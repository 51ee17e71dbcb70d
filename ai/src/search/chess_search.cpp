// Chess evaluation and search (chess_search.h). [SECTION] evaluation   [SECTION] transposition table
// [SECTION] the search   [SECTION] the searcher
#include "warpmind/search/chess_search.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "chess_internal.h"

namespace warpmind::search::chess {

// ---- [SECTION] evaluation ------------------------------------------------------------------------

namespace {

using Bits = std::uint64_t;
int popcount(Bits b) { return __builtin_popcountll(b); }

constexpr int kValueMg[6] = {100, 320, 330, 500, 950, 0};
constexpr int kValueEg[6] = {120, 300, 315, 540, 950, 0};
constexpr int kPhase[6] = {0, 1, 1, 2, 4, 0};
constexpr int kMobilityMg[6] = {0, 4, 5, 2, 1, 0}, kMobilityEg[6] = {0, 4, 5, 4, 2, 0};

// Piece-square tables from White's point of view, built from simple shapes: centralisation for minor
// pieces and the end-game king, advancement for pawns, a sheltered back rank for the middle-game king.
struct Pst {
  int mg[6][64], eg[6][64];
  Pst() {
    for (int sq = 0; sq < 64; ++sq) {
      const int f = sq & 7, r = sq >> 3;
      const int fc = std::min(f, 7 - f), rc = std::min(r, 7 - r);  // 0 at the edge, 3 in the centre
      const int centre = fc + rc;                                  // 0..6
      mg[Pawn][sq] = r * 4 + (fc >= 2 && r >= 3 ? 8 : 0) - (r == 1 && fc >= 2 ? 4 : 0);
      eg[Pawn][sq] = r * 10;
      mg[Knight][sq] = centre * 8 - 20;
      eg[Knight][sq] = centre * 6 - 18;
      mg[Bishop][sq] = centre * 4 - 8;
      eg[Bishop][sq] = centre * 4 - 10;
      mg[Rook][sq] = (r == 6 ? 15 : 0) + (fc >= 3 ? 4 : 0);
      eg[Rook][sq] = 0;
      mg[Queen][sq] = centre * 2 - 5;
      eg[Queen][sq] = centre * 4 - 10;
      mg[King][sq] = r == 0 ? (fc == 0 || f == 1 || f == 6 ? 20 : (f == 4 || f == 3 ? 0 : 10)) : -10 * r;
      eg[King][sq] = centre * 8 - 24;
    }
  }
};
const Pst& pst() {
  static const Pst p;
  return p;
}

constexpr Bits kFile[8] = {0x0101010101010101ull,      0x0101010101010101ull << 1, 0x0101010101010101ull << 2,
                           0x0101010101010101ull << 3, 0x0101010101010101ull << 4, 0x0101010101010101ull << 5,
                           0x0101010101010101ull << 6, 0x0101010101010101ull << 7};

Bits adjacent_files(int f) { return (f > 0 ? kFile[f - 1] : 0) | (f < 7 ? kFile[f + 1] : 0); }

// Squares in front of a pawn of color c on sq (same and adjacent files), for passed-pawn tests.
Bits front_span(Color c, int sq) {
  const int f = sq & 7, r = sq >> 3;
  const Bits files = kFile[f] | adjacent_files(f);
  Bits ahead = 0;
  if (c == White) {
    for (int rr = r + 1; rr < 8; ++rr) ahead |= 0xFFull << (8 * rr);
  } else {
    for (int rr = r - 1; rr >= 0; --rr) ahead |= 0xFFull << (8 * rr);
  }
  return files & ahead;
}

void side_terms(const Position& p, Color us, int& mg, int& eg, int& phase) {
  const Color them = static_cast<Color>(us ^ 1);
  const Pst& t = pst();
  const Bits occ = p.occupied[0] | p.occupied[1];
  const Bits own = p.occupied[us];
  const int their_king = p.king_square(them);
  const Bits king_zone = their_king >= 0 ? detail::king_attacks(their_king) | (Bits{1} << their_king) : 0;
  int attackers = 0, attack_weight = 0;
  for (int type = Pawn; type <= King; ++type)
    for (Bits b = p.pieces[us][type]; b; b &= b - 1) {
      const int sq = __builtin_ctzll(b);
      const int rel = us == White ? sq : sq ^ 56;  // the table square from White's point of view
      mg += kValueMg[type] + t.mg[type][rel];
      eg += kValueEg[type] + t.eg[type][rel];
      phase += kPhase[type];
      Bits att = 0;
      switch (type) {
        case Knight:
          att = detail::knight_attacks(sq);
          break;
        case Bishop:
          att = detail::bishop_attacks(sq, occ);
          break;
        case Rook:
          att = detail::rook_attacks(sq, occ);
          break;
        case Queen:
          att = detail::bishop_attacks(sq, occ) | detail::rook_attacks(sq, occ);
          break;
        default:
          break;
      }
      if (att) {
        const int mob = popcount(att & ~own);
        mg += kMobilityMg[type] * mob;
        eg += kMobilityEg[type] * mob;
        if (att & king_zone) {
          ++attackers;
          attack_weight += popcount(att & king_zone) * (type == Queen ? 4 : type == Rook ? 3 : 2);
        }
      }
    }
  // King safety: attackers on the enemy king's zone (counted for us), our own pawn shield.
  if (attackers >= 2) mg += attack_weight * attackers * 2;
  const int king = p.king_square(us);
  if (king >= 0) {
    const int f = king & 7, r = king >> 3;
    const Bits shield_files = kFile[f] | adjacent_files(f);
    const Bits shield_ranks = us == White
                                  ? (0xFFull << (8 * std::min(r + 1, 7))) | (0xFFull << (8 * std::min(r + 2, 7)))
                                  : (0xFFull << (8 * std::max(r - 1, 0))) | (0xFFull << (8 * std::max(r - 2, 0)));
    mg += 10 * popcount(p.pieces[us][Pawn] & shield_files & shield_ranks);
  }
  // Pawn structure.
  const Bits pawns = p.pieces[us][Pawn], their_pawns = p.pieces[them][Pawn];
  for (int f = 0; f < 8; ++f) {
    const int n = popcount(pawns & kFile[f]);
    if (n > 1) mg -= 10 * (n - 1), eg -= 20 * (n - 1);
    if (n && !(pawns & adjacent_files(f))) mg -= 12 * n, eg -= 15 * n;
  }
  for (Bits b = pawns; b; b &= b - 1) {
    const int sq = __builtin_ctzll(b);
    if (!(front_span(us, sq) & their_pawns)) {
      const int adv = us == White ? (sq >> 3) : 7 - (sq >> 3);
      mg += adv * 5;
      eg += adv * adv * 3;
    }
  }
  if (popcount(p.pieces[us][Bishop]) >= 2) mg += 30, eg += 50;
}

}  // namespace

int evaluate(const Position& p) {
  int mg[2] = {0, 0}, eg[2] = {0, 0}, phase = 0;
  for (Color c : {White, Black}) side_terms(p, c, mg[c], eg[c], phase);
  phase = std::min(phase, 24);
  const int us = p.side, them = us ^ 1;
  const int m = mg[us] - mg[them], e = eg[us] - eg[them];
  return (m * phase + e * (24 - phase)) / 24 + 10;  // + tempo
}

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
      return (1 << 28) + kPieceOrder[victim] * 64 - kPieceOrder[pos.type_at(m.from())];
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
    // Null move: give the opponent a free move; if we still fail high, this node is not worth a full
    // search (not in check, not in pawn endings where zugzwang is common).
    const Color us = pos.side;
    const bool pieces = (pos.occupied[us] & ~pos.pieces[us][Pawn] & ~pos.pieces[us][King]) != 0;
    if (allow_null && !pv_node && !check && depth >= 3 && pieces && evaluate(pos) >= beta) {
      Undo u;
      make_null_move(pos, u);
      keys.push_back(pos.key);
      const int v = -negamax(depth - 3, -beta, -beta + 1, ply + 1, false);
      keys.pop_back();
      unmake_null_move(pos, u);
      if (s.stop.load(std::memory_order_relaxed)) return 0;
      if (v >= beta && v < kMateBound) return beta;
    }
    MoveList list;
    generate_legal(pos, list);
    if (list.size == 0) return check ? -kMate + ply : 0;
    int scores[kMaxMoves];
    order(list, tt_move, ply, scores);
    const int alpha0 = alpha;
    int best = -kMate;
    Move best_move = list.moves[0];
    for (int i = 0; i < list.size; ++i) {
      const Move m = pick(list, scores, i);
      Undo u;
      make_move(pos, m, u);
      keys.push_back(pos.key);
      int v;
      if (i == 0) {
        v = -negamax(depth - 1, -beta, -alpha, ply + 1, true);
      } else {
        // Late quiet moves at depth get a reduced null-window search first.
        const bool quiet = !(m.flags() & Move::Capture) && m.promo() == NoPiece && !check;
        const int r = quiet && depth >= 3 && i >= 4 ? 1 : 0;
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
              history[us][m.from()][m.to()] = std::min(history[us][m.from()][m.to()] + depth * depth, 1 << 20);
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
    const int score = main.negamax(d, -kMate, kMate, 0, false);
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
