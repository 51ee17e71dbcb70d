// Slider attacks by table lookup (magic bitboards) and the perft's leaf count built on them, written once
// for host and device like chess_movegen.h.
//
// A rook's or bishop's attacks from a square depend only on the occupied squares of its relevant mask (its
// lines without the board's edge). (occupancy & mask) * multiplier >> shift maps each subset of the mask
// to a distinct index of the square's block of the attack table, or to an index whose entry is the same
// attack set: one multiply, one shift and one load per piece, where the Kogge-Stone fills of
// chess_rules.h take some twenty operations per direction. The multipliers are constants of this project
// (found once by a seeded random search; SliderTablesTest checks every subset of every mask). The table
// (107,648 attack sets), the squares between every pair of squares on a line and the multipliers make one
// array of 897 KB: built once on the host (host_slider_tables()), copied once to the device by whoever
// runs kernels on it, and read there through SliderTables's pointers.
//
// count_moves(p, tables) equals count_moves(p): checks and pins come from the king's view through our
// own pieces (a slider that sees our king with only our pieces removed gives check when nothing stands
// between, and pins the one piece that does), danger from each enemy slider's attacks with our king
// lifted, our moves from each piece's attacks.
#pragma once

#include <cstdint>

#include "search/chess/chess_movegen.h"

namespace warpmind::search::chess::rules {

struct SliderTables {
  // [square + 64 * bishop][4]: relevant mask, multiplier, the block's offset << 6 | shift, and the lines
  // through the square on an empty board (16-byte aligned pairs, each read in one load on the device).
  const Bits* magic = nullptr;
  const Bits* attacks = nullptr;  // the attack sets, block after block
  const Bits* between = nullptr;  // [a * 64 + b]: the squares strictly between a and b on a line, else 0
  const Bits* leaper = nullptr;   // [square]: knight attacks; [64 + square]: king; [128 + 64 * colour + square]: pawn

  static constexpr int kAttackSets = 102400 + 5248;
  static constexpr int kWords = 128 * 4 + kAttackSets + 64 * 64 + 256;  // the one array's length

  WM_HD static Bits load(const Bits* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(reinterpret_cast<const unsigned long long*>(p));
#else
    return *p;
#endif
  }
  struct Pair {
    Bits a, b;
  };
  WM_HD static Pair load2(const Bits* p) {  // p 16-byte aligned
#if defined(__CUDA_ARCH__)
    const ulonglong2 v = __ldg(reinterpret_cast<const ulonglong2*>(p));
    return {v.x, v.y};
#else
    return {p[0], p[1]};
#endif
  }
  WM_HD Bits slider(int entry, Bits occ) const {
    const Pair mm = load2(magic + 4 * entry);
    const Bits key = load(magic + 4 * entry + 2);
    // The index is the product's top 12 bits at most (shift >= 52): its high word shifted, 32-bit work.
    const auto high = static_cast<std::uint32_t>(((occ & mm.a) * mm.b) >> 32);
    return load(attacks + (key >> 6) + (high >> ((key & 63) - 32)));
  }
  // The squares a rook (a bishop) on sq would attack on an empty board.
  WM_HD Bits rook_lines(int sq) const { return load(magic + 4 * sq + 3); }
  WM_HD Bits bishop_lines(int sq) const { return load(magic + 4 * (64 + sq) + 3); }
  WM_HD Bits rook(int sq, Bits occ) const { return slider(sq, occ); }
  WM_HD Bits bishop(int sq, Bits occ) const { return slider(64 + sq, occ); }
  WM_HD Bits line_between(int a, int b) const { return load(between + a * 64 + b); }
  WM_HD Bits knight(int sq) const { return load(leaper + sq); }
  WM_HD Bits king(int sq) const { return load(leaper + 64 + sq); }
  WM_HD Bits pawn(int colour, int sq) const { return load(leaper + 128 + 64 * colour + sq); }
};

// Pointers into `words` (SliderTables::kWords of them, as host_slider_words() lays them out).
inline SliderTables slider_tables_at(const Bits* words) {
  SliderTables t;
  t.magic = words;
  t.attacks = words + 128 * 4;
  t.between = words + 128 * 4 + SliderTables::kAttackSets;
  t.leaper = t.between + 64 * 64;
  return t;
}

// The array on the host, built on first use (thread-safe), and the tables over it.
const Bits* host_slider_words();
inline SliderTables host_slider_tables() { return slider_tables_at(host_slider_words()); }

// The legal-move masks of chess_movegen.h, from the tables, except that danger holds only the squares
// the king could step or castle to (the others are never asked): each tested on its own, since the king
// mostly has few such squares.
WM_HD LegalMasks legal_masks(const DPos& p, const SliderTables& t) {
  LegalMasks m;
  const int us = p.side, them = us ^ 1;
  // (colour arrays indexed by a variable would put the position in local memory)
  const Bits own = us ? p.color[1] : p.color[0], enemy = us ? p.color[0] : p.color[1], occ = own | enemy;
  const Bits kbb = p.piece[kKing] & own;
  if (!kbb) return m;
  const int k = lsb(kbb);
  m.king = k;
  const Bits ortho = enemy & (p.piece[kRook] | p.piece[kQueen]), diag = enemy & (p.piece[kBishop] | p.piece[kQueen]);
  const Bits knights = enemy & p.piece[kKnight], pawns = enemy & p.piece[kPawn];
  Bits checkers = (t.knight(k) & knights) | (t.pawn(us, k) & pawns);
  Bits check = checkers;
  // Sliders that see the king through our own pieces only: nothing between gives check, one piece is pinned.
  for (Bits s = t.rook(k, enemy) & ortho; s; s &= s - 1) {
    const int sq = lsb(s);
    const Bits line = t.line_between(k, sq), b = line & occ;
    if (!b) {
      checkers |= s & (~s + 1);
      check |= line | bit(sq);
    } else if (!(b & (b - 1))) {
      m.pinned_hv |= b;
      m.pin_hv |= line | bit(sq);
    }
  }
  for (Bits s = t.bishop(k, enemy) & diag; s; s &= s - 1) {
    const int sq = lsb(s);
    const Bits line = t.line_between(k, sq), b = line & occ;
    if (!b) {
      checkers |= s & (~s + 1);
      check |= line | bit(sq);
    } else if (!(b & (b - 1))) {
      m.pinned_d12 |= b;
      m.pin_d12 |= line | bit(sq);
    }
  }
  m.checkers = popcnt(checkers);
  m.check = m.checkers == 0 ? ~Bits{0} : m.checkers == 1 ? check : Bits{0};
  // The squares to test: the king's steps, and the castling king's destination where it has the right.
  Bits asked = t.king(k) & ~own;
  const int home = us == kWhite ? 4 : 60;
  if (k == home && !m.checkers) {
    if (p.castling & (us == kWhite ? kWhiteKingSide : kBlackKingSide)) asked |= bit(home + 2) & ~occ;
    if (p.castling & (us == kWhite ? kWhiteQueenSide : kBlackQueenSide)) asked |= bit(home - 2) & ~occ;
  }
  // Leapers set-wise; a slider only where it stands on a line through the square.
  const Bits lifted = occ ^ kbb;
  const Bits kings = enemy & p.piece[kKing];
  m.danger = asked & (pawn_attacks(them, pawns) | knight_attacks(knights) | (kings ? t.king(lsb(kings)) : 0));
  for (Bits s = asked & ~m.danger; s; s &= s - 1) {
    const int sq = lsb(s);
    if (((t.rook_lines(sq) & ortho) && (t.rook(sq, lifted) & ortho)) ||
        ((t.bishop_lines(sq) & diag) && (t.bishop(sq, lifted) & diag)))
      m.danger |= s & (~s + 1);
  }
  return m;
}

// The number of legal moves of p (equal to count_moves(p) and count_legal(p)).
WM_HD int count_moves(const DPos& p, const SliderTables& t) {
  const LegalMasks m = legal_masks(p, t);
  if (m.king < 0) return count_legal(p);
  const Bits own = p.side ? p.color[1] : p.color[0], occ = occupied(p);
  int n = popcnt(t.king(m.king) & ~own & ~m.danger);
  if (m.checkers >= 2) return n;
  n += count_special_and_pawns(p, m);
  const Bits target = ~own & m.check;
  const Bits free = own & ~(m.pinned_hv | m.pinned_d12);
  for (Bits b = free & p.piece[kKnight]; b; b &= b - 1) n += popcnt(t.knight(lsb(b)) & target);
  const Bits rq = p.piece[kRook] | p.piece[kQueen], bq = p.piece[kBishop] | p.piece[kQueen];
  for (Bits b = free & rq; b; b &= b - 1) n += popcnt(t.rook(lsb(b), occ) & target);
  for (Bits b = free & bq; b; b &= b - 1) n += popcnt(t.bishop(lsb(b), occ) & target);
  if (m.checkers) return n;  // pinned pieces cannot answer a check
  for (Bits b = m.pinned_hv & rq; b; b &= b - 1) n += popcnt(t.rook(lsb(b), occ) & ~own & m.pin_hv);
  for (Bits b = m.pinned_d12 & bq; b; b &= b - 1) n += popcnt(t.bishop(lsb(b), occ) & ~own & m.pin_d12);
  return n + count_pinned_pawns(p, m);
}

// for_each_legal's attack sets and masks from the tables.
struct TableAttacks {
  SliderTables t;
  WM_HD LegalMasks masks(const DPos& p) const { return legal_masks(p, t); }
  WM_HD Bits knight(int sq) const { return t.knight(sq); }
  WM_HD Bits king(int sq) const { return t.king(sq); }
  WM_HD Bits bishop(int sq, Bits occ) const { return t.bishop(sq, occ); }
  WM_HD Bits rook(int sq, Bits occ) const { return t.rook(sq, occ); }
};

// Calls f(move) for every legal move of p, as for_each_legal(p, f) does, the attacks from the tables.
template <class F>
WM_HD void for_each_legal(const DPos& p, const SliderTables& t, F&& f) {
  for_each_legal_by(p, TableAttacks{t}, f);
}

// Leaf nodes `depth` plies below p, listed and counted with the tables (host side: the tests' check).
inline std::uint64_t perft_tables(const DPos& p, int depth, const SliderTables& t) {
  if (depth <= 0) return 1;
  if (depth == 1) return static_cast<std::uint64_t>(count_moves(p, t));
  std::uint64_t n = 0;
  for_each_legal(p, t, [&](std::uint32_t mv) { n += perft_tables(apply(p, mv), depth - 1, t); });
  return n;
}

}  // namespace warpmind::search::chess::rules
