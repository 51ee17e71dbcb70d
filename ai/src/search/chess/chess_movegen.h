// Fast legal move generation and counting for perft, written once for host and device like
// chess_rules.h (whose generate_legal keeps ai/'s move order for the search; this file does not: its
// moves come in an unspecified order, and it is held to generate_legal as a set by the tests).
//
// Legality comes from masks, not from making each move and testing the king:
//   checkers  enemy pieces attacking our king; with two, only king moves are legal;
//   check     the squares a non-king move must land on to answer a single check (the checker and the
//             squares between a sliding checker and the king; every square when not in check);
//   pinned    our pieces that stand alone between our king and an enemy slider; each may move only along
//             its pin ray (from the king to the pinner, the pinner included), and not at all in check
//             (one mask for orthogonal pins, one for diagonal ones);
//   danger    squares the enemy attacks with our king taken off the board: the king may not go there.
// En passant, whose legality can hinge on two pieces leaving a rank, is made and tested exactly.
//
// count_moves() counts without generating: sliders set-wise per direction (rays from different
// pieces in one direction never share a square once our own pieces are removed), pawns set-wise per
// push or capture direction, so a position's count is a few dozen popcounts. The perft kernels count
// the last ply this way and generate only the plies above it.
#pragma once

#include "search/chess/chess_rules.h"

namespace warpmind::search::chess::rules {

constexpr int kMaxLegalMoves = 218;  // the most legal moves any chess position has

// The eight ray directions: 0-3 orthogonal (N, S, E, W), 4-7 diagonal (NE, NW, SE, SW).
WM_HD Bits dir_ray(Bits gen, Bits empty, int d) {
  switch (d) {
    case 0:
      return ray(gen, empty, 8, ~Bits{0});
    case 1:
      return ray(gen, empty, -8, ~Bits{0});
    case 2:
      return ray(gen, empty, 1, kNotA);
    case 3:
      return ray(gen, empty, -1, kNotH);
    case 4:
      return ray(gen, empty, 9, kNotA);
    case 5:
      return ray(gen, empty, 7, kNotH);
    case 6:
      return ray(gen, empty, -7, kNotA);
    default:
      return ray(gen, empty, -9, kNotH);
  }
}

constexpr Bits kRank1 = 0xFFull, kRank3 = 0xFFull << 16, kRank6 = 0xFFull << 40, kRank8 = 0xFFull << 56;

struct LegalMasks {
  int king = -1;        // our king's square; -1: no king (then the slow rules are used)
  int checkers = 0;     // how many enemy pieces give check
  Bits check = 0;       // targets of non-king moves (see the header)
  Bits danger = 0;      // squares our king may not step to
  Bits pinned_hv = 0;   // our pieces pinned along a rank or file ...
  Bits pinned_d12 = 0;  // ... or a diagonal
  Bits pin_hv = 0;      // the union of the orthogonal pin rays (king to pinner, the pinner included)
  Bits pin_d12 = 0;     // the union of the diagonal ones
};
// A piece pinned along a line keeps to its own ray when it moves along that kind of line (a rook
// pinned on a file cannot reach another orthogonal ray of the king but through the king, and the same
// holds for diagonals), so one union per kind is enough.

// The squares beyond square k in direction d on an empty board. A direction with no enemy slider of
// its kind there can hold neither a check nor a pin, and its rays need not be computed.
WM_HD Bits line_beyond(int k, int d) {
  const int f = k & 7, r = k >> 3;
  const Bits above = (~Bits{0} << k) << 1, below = (Bits{1} << k) - 1;
  const int c = f - r, a = f + r - 7;
  const Bits diag = c >= 0 ? 0x8040201008040201ull >> (8 * c) : 0x8040201008040201ull << (-8 * c);
  const Bits anti = a >= 0 ? 0x0102040810204080ull << (8 * a) : 0x0102040810204080ull >> (-8 * a);
  switch (d) {
    case 0:
      return file_mask(f) & above;
    case 1:
      return file_mask(f) & below;
    case 2:
      return (0xFFull << (8 * r)) & above;
    case 3:
      return (0xFFull << (8 * r)) & below;
    case 4:
      return diag & above;
    case 5:
      return anti & above;
    case 6:
      return anti & below;
    default:
      return diag & below;
  }
}

WM_HD LegalMasks legal_masks(const DPos& p) {
  LegalMasks m;
  const int us = p.side, them = us ^ 1;
  const Bits own = side_bits(p, us), enemy = side_bits(p, them), occ = own | enemy, empty = ~occ;
  const Bits kbb = p.piece[kKing] & own;
  if (!kbb) return m;
  m.king = lsb(kbb);
  const Bits ortho = enemy & (p.piece[kRook] | p.piece[kQueen]), diag = enemy & (p.piece[kBishop] | p.piece[kQueen]);
  Bits check = 0;
  WM_UNROLL
  for (int d = 0; d < 8; ++d) {
    const Bits sliders = d < 4 ? ortho : diag;
    if (!(line_beyond(m.king, d) & sliders)) continue;
    const Bits r = dir_ray(kbb, empty, d);
    if (r & sliders) {
      ++m.checkers;
      check |= r;
    } else if (const Bits b = r & own) {
      const Bits x = dir_ray(kbb, empty | b, d);
      if (x & sliders) {
        if (d < 4)
          m.pinned_hv |= b, m.pin_hv |= x;
        else
          m.pinned_d12 |= b, m.pin_d12 |= x;
      }
    }
  }
  const Bits leapers =
      (knight_attacks(kbb) & p.piece[kKnight] & enemy) | (pawn_attacks(us, kbb) & p.piece[kPawn] & enemy);
  m.checkers += popcnt(leapers);
  check |= leapers;
  m.check = m.checkers == 0 ? ~Bits{0} : m.checkers == 1 ? check : Bits{0};
  // The enemy's attacks with our king lifted, set-wise and without branches (computing them only where
  // the king could go, or only from sliders on lines near it, measured slower on the GPU).
  Bits danger = pawn_attacks(them, p.piece[kPawn] & enemy) | knight_attacks(p.piece[kKnight] & enemy) |
                king_attacks(p.piece[kKing] & enemy);
  const Bits through_king = empty | kbb;
  WM_UNROLL
  for (int d = 0; d < 8; ++d) danger |= dir_ray(d < 4 ? ortho : diag, through_king, d);
  m.danger = danger;
  return m;
}

// Castling moves (king side first): not in check, rights, rook home, squares between empty, the squares
// the king crosses not attacked.
template <class F>
WM_HD void for_each_castle(const DPos& p, const LegalMasks& m, F&& f) {
  const int us = p.side;
  const int home = us == kWhite ? 4 : 60;
  if (m.checkers || m.king != home) return;
  const Bits occ = occupied(p), rooks = p.piece[kRook] & side_bits(p, us);
  const int ks = us == kWhite ? kWhiteKingSide : kBlackKingSide, qs = us == kWhite ? kWhiteQueenSide : kBlackQueenSide;
  if ((p.castling & ks) && (rooks & bit(home + 3)) && !(occ & (bit(home + 1) | bit(home + 2))) &&
      !(m.danger & (bit(home + 1) | bit(home + 2))))
    f(make_move(home, home + 2, kNoPiece, kCastle));
  if ((p.castling & qs) && (rooks & bit(home - 4)) && !(occ & (bit(home - 1) | bit(home - 2) | bit(home - 3))) &&
      !(m.danger & (bit(home - 1) | bit(home - 2))))
    f(make_move(home, home - 2, kNoPiece, kCastle));
}

// En passant captures, each made and tested (at most two).
template <class F>
WM_HD void for_each_en_passant(const DPos& p, F&& f) {
  if (p.ep == kNoSquare) return;
  const int us = p.side;
  for (Bits b = pawn_attacks(us ^ 1, bit(p.ep)) & p.piece[kPawn] & side_bits(p, us); b; b &= b - 1) {
    const std::uint32_t mv = make_move(lsb(b), p.ep, kNoPiece, kCapture | kEnPassant);
    if (legal_after(apply(p, mv), us)) f(mv);
  }
}

// Pawn targets of one pawn (or a set, for counting) restricted to `allowed`.
struct PawnTargets {
  Bits push, double_push, captures;
};
WM_HD PawnTargets pawn_targets(const DPos& p, Bits pawns, Bits allowed) {
  const int us = p.side;
  const Bits empty = ~occupied(p), enemy = side_bits(p, us ^ 1);
  PawnTargets t;
  if (us == kWhite) {
    t.push = (pawns << 8) & empty;
    t.double_push = ((t.push & kRank3) << 8) & empty;
  } else {
    t.push = (pawns >> 8) & empty;
    t.double_push = ((t.push & kRank6) >> 8) & empty;
  }
  t.push &= allowed;
  t.double_push &= allowed;
  t.captures = pawn_attacks(us, pawns) & enemy & allowed;
  return t;
}

// Castling, en passant and the moves of the pawns that are not pinned (set-wise: pushes and the two
// capture directions each reach distinct squares), given the masks of a position not in double check.
WM_HD int count_special_and_pawns(const DPos& p, const LegalMasks& m) {
  int n = 0;
  for_each_castle(p, m, [&](std::uint32_t) { ++n; });
  for_each_en_passant(p, [&](std::uint32_t) { ++n; });
  const int us = p.side;
  const Bits own = side_bits(p, us), empty = ~occupied(p), promo_rank = us == kWhite ? kRank8 : kRank1;
  const Bits pawns = own & ~(m.pinned_hv | m.pinned_d12) & p.piece[kPawn], enemy = side_bits(p, us ^ 1);
  Bits push, dbl, cap_a, cap_b;
  if (us == kWhite) {
    push = (pawns << 8) & empty;
    dbl = ((push & kRank3) << 8) & empty;
    cap_a = (pawns << 9) & kNotA & enemy;
    cap_b = (pawns << 7) & kNotH & enemy;
  } else {
    push = (pawns >> 8) & empty;
    dbl = ((push & kRank6) >> 8) & empty;
    cap_a = (pawns >> 7) & kNotA & enemy;
    cap_b = (pawns >> 9) & kNotH & enemy;
  }
  const Bits single = push & m.check, ca = cap_a & m.check, cb = cap_b & m.check;
  return n + popcnt(single & ~promo_rank) + popcnt(ca & ~promo_rank) + popcnt(cb & ~promo_rank) +
         4 * (popcnt(single & promo_rank) + popcnt(ca & promo_rank) + popcnt(cb & promo_rank)) + popcnt(dbl & m.check);
}

// The moves of pinned pawns, given the masks of a position not in check.
WM_HD int count_pinned_pawns(const DPos& p, const LegalMasks& m) {
  int n = 0;
  if (const Bits pp = m.pinned_hv & p.piece[kPawn]) {
    const PawnTargets t = pawn_targets(p, pp, m.pin_hv);
    n += popcnt(t.push) + popcnt(t.double_push);  // a pawn pinned on a file never reaches the last rank
  }
  const Bits promo_rank = p.side == kWhite ? kRank8 : kRank1;
  for (Bits b = m.pinned_d12 & p.piece[kPawn]; b; b &= b - 1) {
    const Bits c = pawn_targets(p, b & (~b + 1), m.pin_d12).captures;
    n += popcnt(c & ~promo_rank) + 4 * popcnt(c & promo_rank);
  }
  return n;
}

// The number of legal moves of p (equal to count_legal(p), at a fraction of its cost).
WM_HD int count_moves(const DPos& p) {
  const LegalMasks m = legal_masks(p);
  if (m.king < 0) return count_legal(p);
  const int us = p.side;
  const Bits own = side_bits(p, us), occ = occupied(p), empty = ~occ;
  int n = popcnt(king_attacks(bit(m.king)) & ~own & ~m.danger);
  if (m.checkers >= 2) return n;
  n += count_special_and_pawns(p, m);
  const Bits target = ~own & m.check;
  const Bits free = own & ~(m.pinned_hv | m.pinned_d12);
  for (Bits b = free & p.piece[kKnight]; b; b &= b - 1) n += popcnt(knight_attacks(b & (~b + 1)) & target);
  const Bits rq = p.piece[kRook] | p.piece[kQueen], bq = p.piece[kBishop] | p.piece[kQueen];
  WM_UNROLL
  for (int d = 0; d < 8; ++d) n += popcnt(dir_ray(free & (d < 4 ? rq : bq), empty, d) & target);
  if (m.checkers || !(m.pinned_hv | m.pinned_d12)) return n;  // pinned pieces cannot answer a check
  // Pinned pieces along their own kind of line (knights never move).
  WM_UNROLL
  for (int d = 0; d < 8; ++d) {
    const Bits from = d < 4 ? m.pinned_hv & rq : m.pinned_d12 & bq;
    if (from) n += popcnt(dir_ray(from, empty, d) & ~own & (d < 4 ? m.pin_hv : m.pin_d12));
  }
  return n + count_pinned_pawns(p, m);
}

// The attack sets for_each_legal_by takes, here from Kogge-Stone fills (chess_sliders.h: from tables).
struct FillAttacks {
  WM_HD LegalMasks masks(const DPos& p) const { return legal_masks(p); }
  WM_HD Bits knight(int sq) const { return knight_attacks(bit(sq)); }
  WM_HD Bits king(int sq) const { return king_attacks(bit(sq)); }
  WM_HD Bits bishop(int sq, Bits occ) const { return bishop_attacks(bit(sq), occ); }
  WM_HD Bits rook(int sq, Bits occ) const { return rook_attacks(bit(sq), occ); }
};

// Calls f(move) for every legal move of p (ai/'s 32-bit packing; order unspecified), the attack sets from a.
template <class A, class F>
WM_HD void for_each_legal_by(const DPos& p, const A& a, F&& f) {
  const LegalMasks m = a.masks(p);
  if (m.king < 0) {
    for_each_pseudo(p, [&](std::uint32_t mv) {
      if (legal_after(apply(p, mv), p.side)) f(mv);
    });
    return;
  }
  const int us = p.side;
  const Bits own = side_bits(p, us), enemy = side_bits(p, us ^ 1), occ = own | enemy;
  const auto emit = [&](int from, Bits targets) {
    for (Bits b = targets; b; b &= b - 1) {
      const int to = lsb(b);
      f(make_move(from, to, kNoPiece, (enemy & bit(to)) ? kCapture : 0u));
    }
  };
  emit(m.king, a.king(m.king) & ~own & ~m.danger);
  if (m.checkers >= 2) return;
  for_each_castle(p, m, f);
  for_each_en_passant(p, f);
  const Bits target = ~own & m.check;
  const auto pawn_moves = [&](int from, Bits allowed) {
    const PawnTargets t = pawn_targets(p, bit(from), allowed);
    for (Bits b = t.push | t.captures; b; b &= b - 1) {
      const int to = lsb(b);
      const std::uint32_t flags = (enemy & bit(to)) ? kCapture : 0u;
      if ((to >> 3) == 7 || (to >> 3) == 0) {
        f(make_move(from, to, kQueen, flags));
        f(make_move(from, to, kRook, flags));
        f(make_move(from, to, kBishop, flags));
        f(make_move(from, to, kKnight, flags));
      } else {
        f(make_move(from, to, kNoPiece, flags));
      }
    }
    if (t.double_push) f(make_move(from, lsb(t.double_push), kNoPiece, kDoublePush));
  };
  const auto piece_moves = [&](Bits pb, Bits allowed) {
    const int sq = lsb(pb);
    if (pb & p.piece[kPawn]) return pawn_moves(sq, allowed);
    Bits att = 0;
    if (pb & p.piece[kKnight]) att = a.knight(sq);
    if (pb & (p.piece[kBishop] | p.piece[kQueen])) att |= a.bishop(sq, occ);
    if (pb & (p.piece[kRook] | p.piece[kQueen])) att |= a.rook(sq, occ);
    emit(sq, att & allowed);
  };
  const Bits pinned = m.pinned_hv | m.pinned_d12;
  for (Bits b = own & ~pinned & ~p.piece[kKing]; b; b &= b - 1) piece_moves(b & (~b + 1), target);
  if (m.checkers) return;
  for (Bits b = m.pinned_hv; b; b &= b - 1) {  // along a rank or file: rooks, queens, pawns' pushes
    const Bits pb = b & (~b + 1);
    if (pb & p.piece[kPawn]) {
      pawn_moves(lsb(pb), m.pin_hv);
    } else if (pb & (p.piece[kRook] | p.piece[kQueen])) {
      emit(lsb(pb), a.rook(lsb(pb), occ) & ~own & m.pin_hv);
    }
  }
  for (Bits b = m.pinned_d12; b; b &= b - 1) {  // along a diagonal: bishops, queens, pawns' captures
    const Bits pb = b & (~b + 1);
    if (pb & p.piece[kPawn]) {
      pawn_moves(lsb(pb), m.pin_d12);
    } else if (pb & (p.piece[kBishop] | p.piece[kQueen])) {
      emit(lsb(pb), a.bishop(lsb(pb), occ) & ~own & m.pin_d12);
    }
  }
}

template <class F>
WM_HD void for_each_legal(const DPos& p, F&& f) {
  for_each_legal_by(p, FillAttacks{}, f);
}

// count_moves(p) for the attacks of FillAttacks (chess_sliders.h has the tables' overload).
WM_HD int count_moves_by(const DPos& p, const FillAttacks&) { return count_moves(p); }

// The one-thread search rules of search/alphabeta.h (search_many on the CPU, the plies below the GPU's
// breadth-first levels): legal moves by the masks above, ordered captures first by most valuable victim,
// then least valuable attacker (promotions ahead of the quiet moves), the quiet moves in generation order;
// the root's moves in the game's order (generate_legal + order_moves); leaves as leaf_value. A: where the
// attack sets come from (FillAttacks, or chess_sliders.h's TableAttacks); the moves and their order are
// the same for every A.
template <class A>
struct SearchRulesBy {
  A attacks{};
  using Pos = DPos;
  using Move = std::uint32_t;
  static constexpr int kMaxMoves = kMaxLegalMoves;
  WM_HD int moves(const DPos& p, std::uint32_t* out) const {
    int n = 0;
    for_each_legal_by(p, attacks, [&](std::uint32_t m) {
      const int to = move_to(m), promo = move_promo(m);
      std::uint32_t key = 0;  // 0..63, in bits 24..29 while sorting
      if (move_flags(m) & kCapture) {
        const int victim = (move_flags(m) & kEnPassant) ? kPawn : type_at(p, to);
        key = 16u + 8u * static_cast<std::uint32_t>(victim) + 7u - static_cast<std::uint32_t>(type_at(p, move_from(m)));
      }
      if (promo != kNoPiece) key += 8u + static_cast<std::uint32_t>(promo);
      // insertion by key, stable: a move goes after every move of a key at least its own
      std::uint32_t e = m | key << 24;
      int j = n++;
      while (j > 0 && (out[j - 1] >> 24) < key) {
        out[j] = out[j - 1];
        --j;
      }
      out[j] = e;
    });
    for (int i = 0; i < n; ++i) out[i] &= 0xFFFFFFu;
    return n;
  }
  WM_HD int root_moves(const DPos& p, std::uint32_t* out) const { return order_moves(out, generate_legal(p, out)); }
  WM_HD DPos child(const DPos& p, std::uint32_t m) const { return apply(p, m); }
  WM_HD int leaf(const DPos& p, int ply) const {
    return count_moves_by(p, attacks) == 0 ? terminal(p, ply) : evaluate(p);
  }
  WM_HD int terminal(const DPos& p, int ply) const { return rules::terminal(p, ply); }
};
using SearchRules = SearchRulesBy<FillAttacks>;

// Leaf nodes `depth` plies below p, by these rules (host side: the tests' check of them).
inline std::uint64_t perft_fast(const DPos& p, int depth) {
  if (depth <= 0) return 1;
  if (depth == 1) return static_cast<std::uint64_t>(count_moves(p));
  std::uint64_t n = 0;
  for_each_legal(p, [&](std::uint32_t mv) { n += perft_fast(apply(p, mv), depth - 1); });
  return n;
}

}  // namespace warpmind::search::chess::rules
