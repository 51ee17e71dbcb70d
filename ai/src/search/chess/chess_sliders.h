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
// array of 897 KB: built once on the host (host_slider_tables()), copied to the device by whoever
// runs kernels on it, and read there through SliderTables's pointers.
//
// count_moves(p, tables) equals count_moves(p): checks and pins come from the king's view through our
// own pieces (a slider that sees our king with only our pieces removed gives check when nothing stands
// between, and pins the one piece that does), danger from each enemy slider's attacks with our king
// lifted, our moves from each piece's attacks.
#pragma once

#include <cstdint>
#include <vector>

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
WM_HD SliderTables slider_tables_at(const Bits* words) {
  SliderTables t;
  t.magic = words;
  t.attacks = words + 128 * 4;
  t.between = words + 128 * 4 + SliderTables::kAttackSets;
  t.leaper = t.between + 64 * 64;
  return t;
}

namespace slider_build {  // host_slider_words()'s builder

// The multipliers, rooks' then bishops', square by square (a1 = 0 ... h8 = 63). Each maps every subset
// of its square's relevant mask (popcount(mask) bits of index) without a harmful collision.
inline constexpr Bits kMultiplier[128] = {
    0x008000908064c000ull, 0x0040200040001000ull, 0x0180100080a0010aull, 0x8880041000800800ull, 0x1200100201200804ull,
    0x0200020004011008ull, 0x2180010000800600ull, 0x0200005088210204ull, 0x0400800040008021ull, 0x0400400020005000ull,
    0x8240801000200080ull, 0x8611001004200900ull, 0x008180800c001800ull, 0x0100800200800400ull, 0x0a02000102000408ull,
    0x8020802300104280ull, 0x0080004000402000ull, 0xe010104000402000ull, 0x0800808010002000ull, 0xa280210008100100ull,
    0x0001818014000800ull, 0xa002010100080400ull, 0x0080240001020870ull, 0x0001020004048845ull, 0x0081826280004004ull,
    0x2020810900284000ull, 0x0200100080802000ull, 0x0200080080100080ull, 0x8083080100100500ull, 0x4406000901000400ull,
    0x0005020080800100ull, 0x0090204200008114ull, 0x0010400094800420ull, 0x0900804000802002ull, 0x0201001841002000ull,
    0x4100080080801000ull, 0x4540040080800800ull, 0x0002001004040020ull, 0x0281195814001002ull, 0x1240800040800100ull,
    0x0880042000524004ull, 0x02c080410206002cull, 0x0801200241050010ull, 0x8400080010008080ull, 0x0008000500090010ull,
    0x0082009084020008ull, 0x4012000108020004ull, 0x9000104d08860004ull, 0x2004204114800100ull, 0x0148802112400300ull,
    0x0202842000100880ull, 0x001b080080900080ull, 0x001a002008100600ull, 0x0004008004020080ull, 0x5181000600040300ull,
    0x0000044401128a00ull, 0x8044110480002441ull, 0x2008110084402202ull, 0x90806005090010c1ull, 0x000420310a004a42ull,
    0x0023001004020801ull, 0x0882001008040102ull, 0x000230088118020cull, 0x0000019025040042ull, 0x0045010808008680ull,
    0x2002080204004898ull, 0x0210009a10400006ull, 0x0824050200810200ull, 0x0006061105004090ull, 0x00010108c0000000ull,
    0x0814040282104004ull, 0x0012012201106800ull, 0x10823014100c1040ull, 0x0080c2088802808cull, 0x0281108410404000ull,
    0x0101212041826200ull, 0x0020141028221058ull, 0x2201020202200202ull, 0x000082a801482000ull, 0x0000008401411044ull,
    0x0007103014300404ull, 0x0002091110010100ull, 0x42140012040c0808ull, 0x0800808802004020ull, 0x90c4004210140000ull,
    0x0800200900a01000ull, 0x00d0400201108810ull, 0x80820183814412a0ull, 0x00a01008202202b4ull, 0x01c2021a09500402ull,
    0x0084440208042400ull, 0x800400400c090100ull, 0xba10040010802100ull, 0xd182009006005000ull, 0x5011021001009004ull,
    0x0020420200510400ull, 0x0292104000468800ull, 0x00043009091c0500ull, 0x0280441000020025ull, 0x0042820080080080ull,
    0x0440101010010040ull, 0x1000900100808080ull, 0x0108108120089800ull, 0x0044010200012682ull, 0xc002500420900400ull,
    0x0040482210710800ull, 0x0002060024000200ull, 0x0281020a44000800ull, 0xa0021200a4000200ull, 0x0001301000840840ull,
    0x2868500108444220ull, 0x0004111041000200ull, 0x8044020842080200ull, 0x0000220104210200ull, 0x0000021201044000ull,
    0x0000280884040028ull, 0x4012114010858003ull, 0x0000081004082b88ull, 0x3892700508208002ull, 0x00220a041b060400ull,
    0x0812020284014881ull, 0x010434a282103100ull, 0x0490400824020800ull, 0x4a20002c00208800ull, 0x000000a011020200ull,
    0x4002940a02482202ull, 0x5100100202140406ull, 0x02102000840540c1ull,
};

inline constexpr int kStepRank[2][4] = {{1, -1, 0, 0}, {1, 1, -1, -1}},
                     kStepFile[2][4] = {{0, 0, 1, -1}, {1, -1, 1, -1}};

// Attacks of a rook (kind 0) or bishop (kind 1) on sq, square by square; with `relevant`, the mask: the
// lines without their last square.
inline Bits walk(int sq, Bits occ, int kind, bool relevant) {
  Bits a = 0;
  for (int d = 0; d < 4; ++d) {
    for (int r = (sq >> 3) + kStepRank[kind][d], f = (sq & 7) + kStepFile[kind][d]; r >= 0 && r < 8 && f >= 0 && f < 8;
         r += kStepRank[kind][d], f += kStepFile[kind][d]) {
      const int nr = r + kStepRank[kind][d], nf = f + kStepFile[kind][d];
      if (relevant && (nr < 0 || nr > 7 || nf < 0 || nf > 7)) break;
      a |= bit(r * 8 + f);
      if (occ & bit(r * 8 + f)) break;
    }
  }
  return a;
}

inline std::vector<Bits> build() {
  std::vector<Bits> w(SliderTables::kWords, 0);
  const SliderTables t = slider_tables_at(w.data());
  Bits* attacks = w.data() + (t.attacks - w.data());
  std::size_t offset = 0;
  for (int entry = 0; entry < 128; ++entry) {
    const int sq = entry & 63, kind = entry >> 6;
    const Bits mask = walk(sq, 0, kind, true);
    const int bits = popcnt(mask);
    const int shift = 64 - bits;
    w[4 * entry] = mask;
    w[4 * entry + 1] = kMultiplier[entry];
    w[4 * entry + 2] = static_cast<Bits>(offset) << 6 | static_cast<Bits>(shift);
    w[4 * entry + 3] = walk(sq, 0, kind, false);
    Bits sub = 0;
    do {  // every subset of the mask
      attacks[offset + ((sub * kMultiplier[entry]) >> shift)] = walk(sq, sub, kind, false);
      sub = (sub - mask) & mask;
    } while (sub);
    offset += std::size_t{1} << bits;
  }
  Bits* between = w.data() + (t.between - w.data());
  for (int a = 0; a < 64; ++a)
    for (int kind = 0; kind < 2; ++kind)
      for (Bits s = walk(a, 0, kind, false); s; s &= s - 1) {
        const int b = lsb(s);
        between[a * 64 + b] = walk(a, bit(b), kind, false) & walk(b, bit(a), kind, false);
      }
  Bits* leaper = w.data() + (t.leaper - w.data());
  for (int sq = 0; sq < 64; ++sq) {
    leaper[sq] = knight_attacks(bit(sq));
    leaper[64 + sq] = king_attacks(bit(sq));
    leaper[128 + sq] = pawn_attacks(kWhite, bit(sq));
    leaper[192 + sq] = pawn_attacks(kBlack, bit(sq));
  }
  return w;
}

}  // namespace slider_build

// The one array, built on the host at the first call (thread-safe, then shared; header-only so that the
// GPU modules that copy it to the device need nothing of ai/'s libraries).
inline const Bits* host_slider_words() {
  static const std::vector<Bits> words = slider_build::build();  // 16-byte aligned: operator new's alignment
  return words.data();
}
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

WM_HD int count_moves_by(const DPos& p, const TableAttacks& a) { return count_moves(p, a.t); }

// The search's rules (chess_movegen.h) with the attacks from the tables: the same moves in the same order.
using TableSearchRules = SearchRulesBy<TableAttacks>;

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
