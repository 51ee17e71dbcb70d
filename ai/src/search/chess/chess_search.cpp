// The chess search (chess_search.h): one thread's principal variation search with its pruning,
// reductions, extensions and histories (Worker, search_worker.h), static exchange evaluation, and the
// order of ChessGame's children. The table is transposition.h's, the threads searcher.cpp's.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "search/chess/chess_internal.h"
#include "search/chess/search_worker.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::search::chess {

namespace {

using namespace detail;
using Bits = std::uint64_t;
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

}  // namespace

namespace detail {

struct Worker::Impl {
  Shared& s;
  Position pos;
  std::vector<std::uint64_t> keys;  // the game's and the search path's positions, for repetitions
  Move killers[kMaxPly][2]{};
  int history[2][64][64]{};
  // Per ply of the search path: the move that led to the node (as a piece-and-square index, colour * 384 +
  // type * 64 + to; -1 after a null move or at the root), its static evaluation (kNoEval when in check)
  // and the move excluded by a singular-extension search.
  struct Frame {
    int piece_to = -1;
    int eval = 0;
    Move excluded{};
  };
  static constexpr int kNoEval = -kMate - 1;
  static constexpr int kPieceTo = 2 * 6 * 64;
  Frame stack[kMaxPly + 1]{};
  // Continuation history: how a quiet move did after the move one ply and two plies before it
  // ([previous piece-to][this piece-to]), and the refutation found last after each move (counter moves).
  std::vector<std::int16_t> continuation = std::vector<std::int16_t>(static_cast<std::size_t>(kPieceTo) * kPieceTo);
  Move counter[kPieceTo]{};
  // Capture history: how captures did, by the capturing piece-to and the captured piece's type.
  std::vector<std::int16_t> capture_history = std::vector<std::int16_t>(static_cast<std::size_t>(kPieceTo) * 6);
  // Correction history: by side to move and pawn structure, how far searches found the static evaluation
  // off (an average weighted by depth, in 1/256 cp, within ±32 cp); added to every static evaluation.
  static constexpr int kCorrSlots = 1 << 14, kCorrGrain = 256, kCorrMax = 32 * kCorrGrain;
  std::vector<std::int32_t> correction = std::vector<std::int32_t>(2 * kCorrSlots);
  // Static evaluations by position: the key's upper 48 bits and the score in the low 16.
  static constexpr std::size_t kEvalCache = std::size_t{1} << 15;
  std::vector<std::uint64_t> eval_cache = std::vector<std::uint64_t>(kEvalCache);
  Move pv[kMaxPly][kMaxPly]{};
  int pv_len[kMaxPly]{};
  // The network's accumulators along the search path, per ply [White's, Black's], each computed when an
  // evaluation needs it: from the nearest computed ply above by the pieces each move changed (recorded
  // by make_legal), or from scratch where a move on the way made that perspective's king change bucket.
  const Network* net = nullptr;
  std::vector<std::int16_t> acc;
  bool acc_ok[kMaxPly + 2][2]{};
  Network::Change change[kMaxPly + 2]{};
  std::uint64_t nodes = 0;
  int seldepth = 0;
  bool main = false;

  explicit Impl(Shared& shared) : s(shared) {}

  // Ready for a search of `root` after the game's positions `history`; the histories, counter moves and
  // evaluation cache carry over from the last search (forget() clears them).
  void start(const Position& root, const std::vector<std::uint64_t>& history, bool is_main) {
    pos = root;
    keys = history;
    keys.push_back(root.key);
    main = is_main;
    nodes = 0;
    seldepth = 0;
    for (auto& k : killers) k[0] = k[1] = Move{};
    for (Frame& f : stack) f = Frame{};
    net = s.network.get();
    if (net) acc.resize(static_cast<std::size_t>(kMaxPly + 2) * 2 * static_cast<std::size_t>(net->hidden()));
    for (auto& ok : acc_ok) ok[White] = ok[Black] = false;
  }
  void forget() {
    std::memset(history, 0, sizeof history);
    std::fill(continuation.begin(), continuation.end(), std::int16_t{0});
    std::fill(std::begin(counter), std::end(counter), Move{});
    std::fill(correction.begin(), correction.end(), 0);
    std::fill(capture_history.begin(), capture_history.end(), std::int16_t{0});
    std::fill(eval_cache.begin(), eval_cache.end(), std::uint64_t{0});
  }

  int eval(int ply) {
    std::uint64_t& e = eval_cache[pos.key & (kEvalCache - 1)];
    if (((e ^ pos.key) & ~std::uint64_t{0xFFFF}) == 0) return static_cast<std::int16_t>(e & 0xFFFF);
    const int v = net && s.incremental ? network_eval(ply) : evaluate(pos, net);
    e = (pos.key & ~std::uint64_t{0xFFFF}) | static_cast<std::uint16_t>(v);
    return v;
  }

  // The correction-history entry of the position: its side to move and a hash of both sides' pawns.
  std::int32_t& correction_entry() {
    std::uint64_t h = pos.pieces[White][Pawn] * 0x9E3779B97F4A7C15ULL ^ pos.pieces[Black][Pawn] * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return correction[static_cast<std::size_t>(pos.side) * kCorrSlots + static_cast<std::size_t>(h >> 50)];
  }
  // The static evaluation `raw` corrected, kept within the non-mate scores.
  int corrected(int raw) { return std::clamp(raw + correction_entry() / kCorrGrain, -kMateBound + 1, kMateBound - 1); }
  // After a search of `depth` that scored `best` where the evaluation said `raw`: the entry moves toward
  // the difference with a weight of depth + 1 in 256 (at most 16).
  void correct(int raw, int best, int depth) {
    std::int32_t& e = correction_entry();
    const int w = std::min(depth + 1, 16);
    const int diff = std::clamp(best - raw, -kCorrMax / kCorrGrain, kCorrMax / kCorrGrain);
    e = std::clamp((e * (256 - w) + diff * kCorrGrain * w) / 256, -kCorrMax, kCorrMax);
  }

  std::int16_t* accumulator(int ply, int perspective) {
    return acc.data() + (static_cast<std::size_t>(ply) * 2 + static_cast<std::size_t>(perspective)) *
                            static_cast<std::size_t>(net->hidden());
  }
  int network_eval(int ply) {
    for (const Color c : {White, Black}) {
      int q = ply;
      while (q > 0 && !acc_ok[q][c] && !change[q].refresh[c]) --q;
      if (!acc_ok[q][c]) {  // nothing computed above, or the king changed bucket on the way: from scratch
        net->refresh(pos, c, accumulator(ply, c));
        acc_ok[ply][c] = true;
        continue;
      }
      for (int r = q + 1; r <= ply; ++r) {
        net->apply(change[r], c, accumulator(r - 1, c), accumulator(r, c));
        acc_ok[r][c] = true;
      }
    }
    const int output = net->output(accumulator(ply, pos.side), accumulator(ply, pos.side ^ 1),
                                   __builtin_popcountll(pos.occupied[White] | pos.occupied[Black]));
    return net->residual() ? std::clamp(output + evaluate(pos), -Network::kMaxValue, Network::kMaxValue) : output;
  }
  // Before move `m` (Move{}: a null move) is made at ply - 1: what it will change, for the accumulators at
  // `ply`.
  void record(int ply, Move m) {
    acc_ok[ply][White] = acc_ok[ply][Black] = false;
    if (net) change[ply] = net->change(pos, m);
  }

  int piece_to(Move m) const { return pos.side * 384 + pos.type_at(m.from()) * 64 + m.to(); }
  // The continuation-history entries for quiet move `m` (piece-to `pt`) at `ply`: after the opponent's
  // last move and after our own move before it; null where that move was a null move or before the root.
  std::int16_t* follow(int ply, int back, int pt) {
    const int prev = ply - back + 1 >= 1 ? stack[ply - back + 1].piece_to : -1;
    return prev < 0 ? nullptr : &continuation[static_cast<std::size_t>(prev) * kPieceTo + static_cast<std::size_t>(pt)];
  }
  int quiet_history(Move m, int ply) {
    const int pt = piece_to(m);
    int h = history[pos.side][m.from()][m.to()];
    for (int back = 1; back <= 2; ++back)
      if (const std::int16_t* c = follow(ply, back, pt)) h += *c;
    return h;
  }

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

  std::int16_t& capture_entry(Move m) {
    const int victim = (m.flags() & Move::EnPassant) ? Pawn : pos.type_at(m.to());
    return capture_history[static_cast<std::size_t>(piece_to(m)) * 6 + static_cast<std::size_t>(victim)];
  }

  int score_move(Move m, Move tt_move, int ply) {
    if (m == tt_move) return 1 << 30;
    if (m.flags() & Move::Capture) {
      // Captures by the victim's value and the capture history; those that lose material by exchange go
      // after the quiet moves.
      const int victim = (m.flags() & Move::EnPassant) ? Pawn : pos.type_at(m.to());
      const int value = 16 * kSeeValue[victim] - kPieceOrder[pos.type_at(m.from())] + capture_entry(m);
      if (kPieceOrder[pos.type_at(m.from())] > kPieceOrder[victim] && see(pos, m) < 0) return -(1 << 24) + value;
      return (1 << 28) + value;
    }
    if (m.promo() != NoPiece) return (1 << 27) + m.promo();
    if (m == killers[ply][0]) return (1 << 26) + 1;
    if (m == killers[ply][1]) return 1 << 26;
    if (stack[ply].piece_to >= 0 && m == counter[stack[ply].piece_to]) return (1 << 26) - 1;
    return quiet_history(m, ply);
  }

  void order(MoveList& list, Move tt_move, int ply, int* scores) {
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

  // Makes `m` when it leaves the mover's king out of check and returns true; otherwise leaves the position
  // as it was and returns false.
  bool make_legal(Move m, Undo& u, int ply) {
    record(ply + 1, m);
    const Color us = pos.side;
    make_move(pos, m, u);
    const int k = pos.king_square(us);
    if (k >= 0 && attacked(pos, k, pos.side)) {
      unmake_move(pos, m, u);
      return false;
    }
    return true;
  }

  // Quiescence: captures and promotions only (every move when in check), losing captures skipped, the
  // table consulted and filled at depth 0.
  int quiesce(int alpha, int beta, int ply) {
    ++nodes;
    seldepth = std::max(seldepth, ply);
    if (out_of_time()) return 0;
    if (ply >= kMaxPly - 1) return eval(ply);
    const bool pv_node = beta - alpha > 1;
    TableHit tt;
    if (table_cuts(0, alpha, beta, ply, pv_node, tt)) return tt.score;
    const bool check = pos.in_check();
    const int alpha0 = alpha;
    int best = -kMate + ply;
    if (!check) {
      best = corrected(eval(ply));
      if (best >= beta) return best;
      alpha = std::max(alpha, best);
    }
    MoveList list;
    detail::generate_pseudo(pos, list, !check);
    int scores[kMaxMoves];
    order(list, tt.move, ply, scores);
    Move best_move{};
    int legal = 0;
    for (int i = 0; i < list.size; ++i) {
      const Move m = pick(list, scores, i);
      // Not in check: captures that lose material by exchange are not searched, nor captures that
      // cannot lift the score to alpha even with a 200 cp margin (delta pruning).
      if (!check && scores[i] < 0 && m.promo() == NoPiece) continue;
      if (!check && m.promo() == NoPiece && !(m.flags() & Move::EnPassant) &&
          best + kSeeValue[pos.type_at(m.to())] + 200 <= alpha)
        continue;
      const int pt = piece_to(m);
      Undo u;
      if (!make_legal(m, u, ply)) continue;
      ++legal;
      stack[ply + 1].piece_to = pt;
      const int v = -quiesce(-beta, -alpha, ply + 1);
      unmake_move(pos, m, u);
      if (s.stop.load(std::memory_order_relaxed)) return 0;
      if (v > best) {
        best = v;
        if (v > alpha) {
          alpha = v;
          best_move = m;
          if (v >= beta) break;
        }
      }
    }
    if (check && legal == 0) return -kMate + ply;
    s.table.store(pos.key, best_move, to_table(best, ply), 0, best >= beta ? Lower : best > alpha0 ? Exact : Upper);
    return best;
  }

  // Gravity update (bounded by 16,384) of one history counter.
  static void nudge(int& h, int bonus) { h += bonus - h * std::abs(bonus) / 16384; }
  static void nudge(std::int16_t& h, int bonus) {
    int v = h;
    nudge(v, bonus);
    h = static_cast<std::int16_t>(v);
  }

  // The table's entry for the position, as negamax reads it (bound BoundNone: there is none).
  struct TableHit {
    Move move{};
    int score = 0, depth = 0;
    Bound bound = BoundNone;
  };

  // Reads the table's entry for the position into `tt` (its score relative to `ply`); true when it ends
  // the node, with its score: off the principal variation, searched as deep and bounded the right way
  // (negamax takes no cut at the root; quiescence asks for depth 0).
  bool table_cuts(int depth, int alpha, int beta, int ply, bool pv_node, TableHit& tt) {
    if (!s.table.probe(pos.key, tt.move, tt.score, tt.depth, tt.bound)) return false;
    tt.score = from_table(tt.score, ply);
    return !pv_node && tt.depth >= depth &&
           (tt.bound == Exact || (tt.bound == Lower && tt.score >= beta) || (tt.bound == Upper && tt.score <= alpha));
  }

  // A table score whose bound points the right way is a better guess than the static evaluation.
  static int table_guess(int static_eval, const TableHit& tt) {
    if (tt.bound != BoundNone && std::abs(tt.score) < kMateBound &&
        (tt.bound == Exact || (tt.bound == Lower && tt.score > static_eval) ||
         (tt.bound == Upper && tt.score < static_eval)))
      return tt.score;
    return static_eval;
  }

  // The principal variation at `ply`: move `m`, then the one found below it.
  void extend_pv(int ply, Move m) {
    pv[ply][ply] = m;
    for (int k = ply + 1; k < pv_len[ply + 1]; ++k) pv[ply][k] = pv[ply + 1][k];
    pv_len[ply] = std::max(pv_len[ply + 1], ply + 1);
  }

  // The stages before the move loop that can end a node not on the principal variation and not in check:
  // reverse futility, razoring, the null move and ProbCut. True when one does, with the node's score in
  // `result`.
  bool cut_early(int depth, int alpha, int beta, int ply, int static_eval, bool improving, bool allow_null,
                 bool cut_node, const TableHit& tt, int& result) {
    // Reverse futility: far enough above beta at a shallow depth, the opponent will not catch up.
    if (depth <= 7 && std::abs(beta) < kMateBound && static_eval - 85 * (depth - improving) >= beta) {
      result = static_eval;
      return true;
    }
    // Razoring: far below alpha at depth 1 to 3, a quiescence search decides whether anything can
    // reach it.
    if (depth <= 3 && static_eval + 250 * depth <= alpha && std::abs(alpha) < kMateBound) {
      const int v = quiesce(alpha - 1, alpha, ply);
      if (v < alpha) {
        result = v;
        return true;
      }
    }
    if (allow_null && null_move_cuts(depth, beta, ply, static_eval, cut_node, result)) return true;
    return depth >= 5 && std::abs(beta) < kMateBound &&
           probcut_cuts(depth, beta, ply, static_eval, cut_node, tt, result);
  }

  // Null move: give the opponent a free move; if we still fail high, this node is not worth a full
  // search (not in check, not in pawn endings where zugzwang is common). The reduction grows with the
  // depth and with the margin above beta. True when the node is cut (`result` beta, or 0 when the search
  // stopped).
  bool null_move_cuts(int depth, int beta, int ply, int static_eval, bool cut_node, int& result) {
    const Color us = pos.side;
    const bool pieces = (pos.occupied[us] & ~pos.pieces[us][Pawn] & ~pos.pieces[us][King]) != 0;
    if (depth < 3 || !pieces || static_eval < beta) return false;
    const int r = 3 + depth / 4 + std::min((static_eval - beta) / 200, 2);
    Undo u;
    record(ply + 1, Move{});
    make_null_move(pos, u);
    keys.push_back(pos.key);
    stack[ply + 1].piece_to = -1;
    const int v = -negamax(depth - r, -beta, -beta + 1, ply + 1, false, !cut_node);
    keys.pop_back();
    unmake_null_move(pos, u);
    if (s.stop.load(std::memory_order_relaxed)) {
      result = 0;
      return true;
    }
    if (v >= beta && v < kMateBound) {
      result = beta;
      return true;
    }
    return false;
  }

  // ProbCut: a capture that wins enough by exchange and still beats beta + 200 in a search four plies
  // shallower (after a quiescence check) most likely beats beta at full depth. True when the node is cut
  // (`result` that capture's score, or 0 when the search stopped).
  bool probcut_cuts(int depth, int beta, int ply, int static_eval, bool cut_node, const TableHit& tt, int& result) {
    const int probcut_beta = beta + 200;
    MoveList caps;
    detail::generate_pseudo(pos, caps, true);
    for (int i = 0; i < caps.size; ++i) {
      const Move m = caps.moves[i];
      if (m == tt.move && tt.bound != BoundNone && tt.depth >= depth - 3 && tt.score < probcut_beta) continue;
      if (see(pos, m) < probcut_beta - static_eval) continue;
      const int pt = piece_to(m);
      Undo u;
      if (!make_legal(m, u, ply)) continue;
      keys.push_back(pos.key);
      stack[ply + 1].piece_to = pt;
      int v = -quiesce(-probcut_beta, -probcut_beta + 1, ply + 1);
      if (v >= probcut_beta) v = -negamax(depth - 4, -probcut_beta, -probcut_beta + 1, ply + 1, true, !cut_node);
      keys.pop_back();
      unmake_move(pos, m, u);
      if (s.stop.load(std::memory_order_relaxed)) {
        result = 0;
        return true;
      }
      if (v >= probcut_beta) {
        s.table.store(pos.key, m, to_table(v, ply), depth - 3, Lower);
        result = v;
        return true;
      }
    }
    return false;
  }

  // Singular extension: when every move but the table's fails low against a bound a little under the
  // table's score (a search of half the depth without it), the table move is searched a ply deeper
  // (`singular` 1); when even that bound is above beta, several moves beat beta and the node is cut
  // (multi-cut). True when the node is cut (`result` that bound, or 0 when the search stopped).
  bool singular_cuts(int depth, int beta, int ply, bool cut_node, const TableHit& tt, int& singular, int& result) {
    const int singular_beta = tt.score - 2 * depth;
    stack[ply].excluded = tt.move;
    const int v = negamax((depth - 1) / 2, singular_beta - 1, singular_beta, ply, false, cut_node);
    stack[ply].excluded = Move{};
    pv_len[ply] = ply;
    if (s.stop.load(std::memory_order_relaxed)) {
      result = 0;
      return true;
    }
    if (v < singular_beta) {
      singular = 1;
    } else if (singular_beta >= beta) {
      result = singular_beta;
      return true;
    }
    return false;
  }

  // The reduction of a late quiet move (`rank` among the legal moves, move-ordering score `score`,
  // history `hist`) that neither gives nor evades check at depth 3 or more: grows with the logarithms of
  // the depth and of the rank; less on the principal variation, for killers and the counter move and for
  // moves with a good history, more when the position is not improving, at expected cut nodes and when
  // the table's best move is a capture.
  static int late_reduction(int depth, int rank, int score, int hist, bool pv_node, bool improving, bool cut_node,
                            Move tt_move) {
    int r = reduction(depth, rank);
    if (pv_node) --r;
    if (score >= (1 << 26) - 1) --r;
    if (!improving) ++r;
    if (cut_node) ++r;
    if (tt_move.flags() & Move::Capture) ++r;  // the table's best here is a capture
    r -= hist / 8192;
    return std::clamp(r, 0, depth - 2);
  }

  // A beta cutoff by `m` at `ply`: the cutoff capture gains capture history, the captures tried before it
  // lose; a quiet cutoff move becomes a killer and the counter move, and gains history (with gravity)
  // while the quiet moves tried before it lose.
  void reward_cutoff(Move m, bool quiet, int depth, int ply, const Move* tried, int n_tried, const Move* tried_captures,
                     int n_captures) {
    const Color us = pos.side;
    const int bonus = std::min(depth * depth, 400);
    for (int k = 0; k < n_captures; ++k)
      nudge(capture_entry(tried_captures[k]), tried_captures[k] == m ? bonus : -bonus);
    if (!quiet) return;
    if (!(killers[ply][0] == m)) killers[ply][1] = killers[ply][0], killers[ply][0] = m;
    if (stack[ply].piece_to >= 0) counter[stack[ply].piece_to] = m;
    for (int k = 0; k < n_tried; ++k) {
      const int b = tried[k] == m ? bonus : -bonus;
      nudge(history[us][tried[k].from()][tried[k].to()], b);
      const int tpt = piece_to(tried[k]);
      for (int back = 1; back <= 2; ++back)
        if (std::int16_t* c = follow(ply, back, tpt)) nudge(*c, b);
    }
  }

  // After the search of a node that was not a singular-extension search: the correction history learns
  // from scores that bound the evaluation on the informative side, where the best move is not a capture
  // or promotion (material the evaluation could not see), and the table stores the result.
  void finish_node(int depth, int alpha0, int beta, int ply, bool check, int raw_eval, int eval_here, int best,
                   Move best_move) {
    if (!check && std::abs(best) < kMateBound &&
        !(best > alpha0 && ((best_move.flags() & Move::Capture) || best_move.promo() != NoPiece)) &&
        !(best >= beta && best <= eval_here) && !(best <= alpha0 && best >= eval_here))
      correct(raw_eval, best, depth);
    s.table.store(pos.key, best_move, to_table(best, ply), depth, best >= beta ? Lower : best > alpha0 ? Exact : Upper);
  }

  // `cut_node`: a null-window node expected to fail high (the first move's child of an expected ALL node
  // and the reduced searches of late moves), where late quiet moves are reduced a ply more.
  int negamax(int depth, int alpha, int beta, int ply, bool allow_null, bool cut_node = false) {
    pv_len[ply] = ply;
    const Move excluded = stack[ply].excluded;  // set: a singular-extension search of this node
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
    if (ply >= kMaxPly - 1) return eval(ply);
    const bool pv_node = beta - alpha > 1;
    TableHit tt;
    if (!excluded.bits && table_cuts(depth, alpha, beta, ply, pv_node, tt) && ply > 0) return tt.score;
    // The evaluation, and the same corrected by the correction history (what the search uses).
    const int raw_eval = check || excluded.bits ? kNoEval : eval(ply);
    const int eval_here = check ? kNoEval : excluded.bits ? stack[ply].eval : corrected(raw_eval);
    stack[ply].eval = eval_here;
    int static_eval = check ? -kMate + ply : eval_here;
    // Improving: the static evaluation is above the one two plies up (our last turn); pruning is bolder
    // when it is not.
    const bool improving = !check && (ply < 2 || stack[ply - 2].eval == kNoEval || eval_here > stack[ply - 2].eval);
    if (!check) static_eval = table_guess(static_eval, tt);
    stack[ply + 1].excluded = Move{};
    int result = 0;
    if (!pv_node && !check && !excluded.bits &&
        cut_early(depth, alpha, beta, ply, static_eval, improving, allow_null, cut_node, tt, result))
      return result;
    // No table move at depth: this node was not searched before, a shallower search is cheaper and
    // fills the table for the next iteration (internal iterative reduction).
    if (tt.bound == BoundNone && depth >= 4 && !excluded.bits) --depth;
    int singular = 0;
    if (ply > 0 && depth >= 7 && !excluded.bits && tt.move.bits && (tt.bound & Lower) && tt.depth >= depth - 3 &&
        std::abs(tt.score) < kMateBound && singular_cuts(depth, beta, ply, cut_node, tt, singular, result))
      return result;
    MoveList list;
    detail::generate_pseudo(pos, list, false);
    int scores[kMaxMoves];
    order(list, tt.move, ply, scores);
    const int alpha0 = alpha;
    Move tried[kMaxMoves];           // the quiet moves searched so far, whose history a cutoff lowers
    Move tried_captures[kMaxMoves];  // the same for captures
    int n_tried = 0, n_captures = 0;
    int best = -kMate;
    Move best_move{};
    // Shallow nodes far below alpha: quiet moves that do not give check are futile (futility pruning),
    // and past a count that grows with the depth (halved when not improving), late quiet moves are not
    // searched at all.
    const bool futile =
        !check && depth <= 5 && std::abs(alpha) < kMateBound && static_eval + 100 + 100 * depth <= alpha;
    const int late_limit = check || pv_node ? kMaxMoves
                           : depth <= 5     ? (3 + depth * depth) / (improving ? 1 : 2)
                                            : kMaxMoves;
    int quiets = 0, legal = 0;
    for (int i = 0; i < list.size; ++i) {
      const Move m = pick(list, scores, i);
      if (m == excluded) continue;
      const bool quiet = !(m.flags() & Move::Capture) && m.promo() == NoPiece;
      const int pt = piece_to(m);
      const int hist = quiet ? quiet_history(m, ply) : 0;
      // Shallow nodes, once a move has a score: quiet moves with a bad history, and moves that lose more
      // material by exchange than the depth allows (captures: 100 cp a ply; quiet moves: 60 cp a ply),
      // are skipped.
      if (!pv_node && !check && legal > 0 && best > -kMateBound && depth <= 6 && m.promo() == NoPiece &&
          ((quiet && depth <= 3 && hist < -3000 * depth) || see(pos, m) < -(quiet ? 60 : 100) * depth))
        continue;
      Undo u;
      if (!make_legal(m, u, ply)) continue;
      const int rank = legal++;  // the move's rank among the legal moves searched here
      quiets += quiet;
      const bool gives_check = pos.in_check();
      if (rank > 0 && quiet && !gives_check && best > -kMateBound && (futile || quiets > late_limit)) {
        unmake_move(pos, m, u);
        continue;
      }
      keys.push_back(pos.key);
      stack[ply + 1].piece_to = pt;
      if (quiet) tried[n_tried++] = m;
      if (m.flags() & Move::Capture) tried_captures[n_captures++] = m;
      const int extension = m == tt.move ? singular : 0;
      int v;
      if (rank == 0) {
        v = -negamax(depth - 1 + extension, -beta, -alpha, ply + 1, true, !pv_node && !cut_node);
      } else {
        // Later moves get a null-window search first, reduced for late quiet moves at depth (none for
        // moves that give check or when in check), then a full-depth and a full-window one where needed.
        const int r = quiet && !check && !gives_check && depth >= 3 && rank >= 2
                          ? late_reduction(depth, rank, scores[i], hist, pv_node, improving, cut_node, tt.move)
                          : 0;
        v = -negamax(depth - 1 - r, -alpha - 1, -alpha, ply + 1, true, true);
        if (v > alpha && r) v = -negamax(depth - 1, -alpha - 1, -alpha, ply + 1, true, !cut_node);
        if (v > alpha && v < beta && pv_node) v = -negamax(depth - 1, -beta, -alpha, ply + 1, true, false);
      }
      keys.pop_back();
      unmake_move(pos, m, u);
      if (s.stop.load(std::memory_order_relaxed)) return 0;
      if (v > best) {
        best = v;
        best_move = m;
        if (v > alpha) {
          alpha = v;
          extend_pv(ply, m);
          if (v >= beta) {
            reward_cutoff(m, quiet, depth, ply, tried, n_tried, tried_captures, n_captures);
            break;
          }
        }
      }
    }
    if (legal == 0) return excluded.bits ? alpha : check ? -kMate + ply : 0;
    if (!excluded.bits) finish_node(depth, alpha0, beta, ply, check, raw_eval, eval_here, best, best_move);
    return best;
  }
};

Worker::Worker(Shared& shared) : impl_(std::make_unique<Impl>(shared)) {}
Worker::~Worker() = default;
void Worker::start(const Position& root, const std::vector<std::uint64_t>& history, bool is_main) {
  impl_->start(root, history, is_main);
}
void Worker::forget() { impl_->forget(); }
int Worker::search(int depth, int alpha, int beta) { return impl_->negamax(depth, alpha, beta, 0, false); }
std::uint64_t Worker::nodes() const { return impl_->nodes; }
int Worker::seldepth() const { return impl_->seldepth; }
void Worker::reset_seldepth() { impl_->seldepth = 0; }
int Worker::pv_length() const { return impl_->pv_len[0]; }
Move Worker::pv(int k) const { return impl_->pv[0][k]; }

}  // namespace detail

void ChessGame::children(const Position& p, std::vector<Move>& out) {
  MoveList list;
  generate_legal(p, list);
  out.assign(list.begin(), list.end());
  std::stable_partition(out.begin(), out.end(),
                        [](const Move& m) { return (m.flags() & Move::Capture) || m.promo() != NoPiece; });
}

}  // namespace warpmind::search::chess
