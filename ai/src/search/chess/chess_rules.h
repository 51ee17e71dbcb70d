// The chess rules and evaluation the GPU kernels run (gpu/src/search/chess.cu), written once for host and
// device: with nvcc every function is __host__ __device__, with a plain C++ compiler they are ordinary
// inline functions, so the test suite checks them on the host against ai/'s rules and evaluation
// (tests/search/chess_device_rules_test.cpp) on machines without a GPU too.
//
// A DPos is a compact copy-make position (72 bytes): six piece bitboards, two colour bitboards, the side
// to move, castling rights and the en-passant square (64: none). Moves use ai/'s 32-bit packing (from,
// to << 6, promotion << 12, flags << 16) and are generated in ai/'s order: pawns (push, double push,
// captures, en passant; promotions Q, R, B, N), knights, bishops and queens diagonally, rooks and queens
// orthogonally, the king, castling king side then queen side. Sliding attacks use Kogge-Stone fills, so
// no tables are needed on the device. evaluate() is ai/'s chess::evaluate term for term.
#pragma once

#include <cstdint>

#include "search/chess/chess_eval.h"
#include "core/hd.h"

namespace warpmind::search::chess::rules {

using Bits = std::uint64_t;

enum : int { kPawn = 0, kKnight, kBishop, kRook, kQueen, kKing, kNoPiece };
enum : int { kWhite = 0, kBlack = 1 };
enum : std::uint32_t { kCapture = 1, kDoublePush = 2, kEnPassant = 4, kCastle = 8 };
enum : int { kWhiteKingSide = 1, kWhiteQueenSide = 2, kBlackKingSide = 4, kBlackQueenSide = 8 };
constexpr int kNoSquare = 64;
constexpr int kMaxMoves = 256;

struct DPos {
  Bits piece[6];  // by type, both colours
  Bits color[2];
  std::uint8_t side, castling, ep, pad[5];
};
static_assert(sizeof(DPos) == 72, "DPos is 72 bytes");

WM_HD int popcnt(Bits b) { return eval::popcount(b); }
WM_HD int lsb(Bits b) { return eval::lowest(b); }
WM_HD Bits bit(int sq) { return Bits{1} << sq; }

WM_HD std::uint32_t make_move(int from, int to, int promo, std::uint32_t flags) {
  return static_cast<std::uint32_t>(from) | static_cast<std::uint32_t>(to) << 6 |
         static_cast<std::uint32_t>(promo) << 12 | flags << 16;
}
WM_HD int move_from(std::uint32_t m) { return static_cast<int>(m & 63); }
WM_HD int move_to(std::uint32_t m) { return static_cast<int>(m >> 6 & 63); }
WM_HD int move_promo(std::uint32_t m) { return static_cast<int>(m >> 12 & 7); }
WM_HD std::uint32_t move_flags(std::uint32_t m) { return m >> 16; }

// ---- attacks -------------------------------------------------------------------------------------

constexpr Bits kNotA = 0xfefefefefefefefeull, kNotH = 0x7f7f7f7f7f7f7f7full;
constexpr Bits kNotAB = 0xfcfcfcfcfcfcfcfcull, kNotGH = 0x3f3f3f3f3f3f3f3full;

// From any position type with pieces[colour][type] bitboards, side, castling and en_passant (-1: none),
// such as ai/'s chess::Position (host only).
template <class P>
DPos from_position(const P& p) {
  DPos d{};
  for (int c = 0; c < 2; ++c)
    for (int t = kPawn; t <= kKing; ++t) {
      d.piece[t] |= p.pieces[c][t];
      d.color[c] |= p.pieces[c][t];
    }
  d.side = static_cast<std::uint8_t>(p.side);
  d.castling = static_cast<std::uint8_t>(p.castling);
  d.ep = static_cast<std::uint8_t>(p.en_passant >= 0 ? p.en_passant : kNoSquare);
  return d;
}

WM_HD Bits shift(Bits b, int s) { return s > 0 ? b << s : b >> -s; }

// Kogge-Stone occluded fill in one direction (shift s, wrap mask m), then one step: the attacks.
WM_HD Bits ray(Bits gen, Bits empty, int s, Bits m) {
  Bits pro = empty & m;
  gen |= pro & shift(gen, s);
  pro &= shift(pro, s);
  gen |= pro & shift(gen, 2 * s);
  pro &= shift(pro, 2 * s);
  gen |= pro & shift(gen, 4 * s);
  return shift(gen, s) & m;
}
WM_HD Bits rook_attacks(Bits b, Bits occ) {
  const Bits e = ~occ;
  return ray(b, e, 8, ~Bits{0}) | ray(b, e, -8, ~Bits{0}) | ray(b, e, 1, kNotA) | ray(b, e, -1, kNotH);
}
WM_HD Bits bishop_attacks(Bits b, Bits occ) {
  const Bits e = ~occ;
  return ray(b, e, 9, kNotA) | ray(b, e, 7, kNotH) | ray(b, e, -7, kNotA) | ray(b, e, -9, kNotH);
}
WM_HD Bits knight_attacks(Bits b) {
  const Bits l1 = (b >> 1) & kNotH, l2 = (b >> 2) & kNotGH, r1 = (b << 1) & kNotA, r2 = (b << 2) & kNotAB;
  const Bits h1 = l1 | r1, h2 = l2 | r2;
  return (h1 << 16) | (h1 >> 16) | (h2 << 8) | (h2 >> 8);
}
WM_HD Bits king_attacks(Bits b) {
  Bits a = ((b << 1) & kNotA) | ((b >> 1) & kNotH);
  const Bits row = b | a;
  return a | (row << 8) | (row >> 8);
}
// Squares attacked by pawns of colour c on b.
WM_HD Bits pawn_attacks(int c, Bits b) {
  return c == kWhite ? ((b << 9) & kNotA) | ((b << 7) & kNotH) : ((b >> 7) & kNotA) | ((b >> 9) & kNotH);
}

WM_HD Bits occupied(const DPos& p) { return p.color[0] | p.color[1]; }
// Colour c's pieces, selected rather than indexed: an array indexed by a variable would put the position
// in local memory on the device.
WM_HD Bits side_bits(const DPos& p, int c) { return c ? p.color[1] : p.color[0]; }
WM_HD int king_square(const DPos& p, int c) {
  const Bits k = p.piece[kKing] & side_bits(p, c);
  return k ? lsb(k) : -1;
}
WM_HD int type_at(const DPos& p, int sq) {
  const Bits b = bit(sq);
  for (int t = kPawn; t <= kKing; ++t)
    if (p.piece[t] & b) return t;
  return kNoPiece;
}

WM_HD bool attacked(const DPos& p, int sq, int by) {
  const Bits s = bit(sq), them = side_bits(p, by);
  if (pawn_attacks(by ^ 1, s) & p.piece[kPawn] & them) return true;
  if (knight_attacks(s) & p.piece[kKnight] & them) return true;
  if (king_attacks(s) & p.piece[kKing] & them) return true;
  const Bits occ = occupied(p);
  if (bishop_attacks(s, occ) & (p.piece[kBishop] | p.piece[kQueen]) & them) return true;
  return (rook_attacks(s, occ) & (p.piece[kRook] | p.piece[kQueen]) & them) != 0;
}

WM_HD bool in_check(const DPos& p) {
  const int k = king_square(p, p.side);
  return k >= 0 && attacked(p, k, p.side ^ 1);
}

// ---- moves ---------------------------------------------------------------------------------------

WM_HD int castle_keep(int sq) {
  switch (sq) {
    case 0:
      return ~kWhiteQueenSide & 15;
    case 4:
      return ~(kWhiteKingSide | kWhiteQueenSide) & 15;
    case 7:
      return ~kWhiteKingSide & 15;
    case 56:
      return ~kBlackQueenSide & 15;
    case 60:
      return ~(kBlackKingSide | kBlackQueenSide) & 15;
    case 63:
      return ~kBlackKingSide & 15;
    default:
      return 15;
  }
}

// The position after move m. Every array index is a loop constant, so on the device the position
// stays in registers.
WM_HD DPos apply(const DPos& p, std::uint32_t m) {
  const int us = p.side, them = us ^ 1;
  const int from = move_from(m), to = move_to(m), promo = move_promo(m);
  const std::uint32_t flags = move_flags(m);
  const Bits fb = bit(from), tb = bit(to);
  const int piece = type_at(p, from), placed = promo != kNoPiece ? promo : piece;
  int captured = kNoPiece;
  Bits taken = 0;
  if (flags & kEnPassant) {
    captured = kPawn;
    taken = bit(to + (us == kWhite ? -8 : 8));
  } else if (side_bits(p, them) & tb) {
    captured = type_at(p, to);
    taken = tb;
  }
  Bits rook = 0;
  if (flags & kCastle) {
    const bool king_side = to > from;
    rook = bit(king_side ? from + 3 : from - 4) | bit(king_side ? from + 1 : from - 1);
  }
  DPos q;
  WM_UNROLL
  for (int t = 0; t < 6; ++t)
    q.piece[t] = p.piece[t] ^ (t == piece ? fb : Bits{0}) ^ (t == placed ? tb : Bits{0}) ^
                 (t == captured ? taken : Bits{0}) ^ (t == kRook ? rook : Bits{0});
  const Bits moved = fb | tb | rook;
  q.color[kWhite] = p.color[kWhite] ^ (us == kWhite ? moved : taken);
  q.color[kBlack] = p.color[kBlack] ^ (us == kBlack ? moved : taken);
  q.castling = static_cast<std::uint8_t>(p.castling & castle_keep(from) & castle_keep(to));
  q.ep = static_cast<std::uint8_t>((flags & kDoublePush) ? (from + to) / 2 : kNoSquare);
  q.side = static_cast<std::uint8_t>(them);
  WM_UNROLL
  for (int i = 0; i < 5; ++i) q.pad[i] = 0;
  return q;
}

// Calls f(move) for every pseudo-legal move, in ai/'s order.
template <class F>
WM_HD void for_each_pseudo(const DPos& p, F&& f) {
  const int us = p.side, them = us ^ 1;
  const Bits own = side_bits(p, us), enemy = side_bits(p, them), occ = own | enemy;
  const int up = us == kWhite ? 8 : -8;
  const int start_rank = us == kWhite ? 1 : 6;
  const auto pawn_move = [&](int from, int to, std::uint32_t flags) {
    if ((to >> 3) == 7 || (to >> 3) == 0) {
      f(make_move(from, to, kQueen, flags));
      f(make_move(from, to, kRook, flags));
      f(make_move(from, to, kBishop, flags));
      f(make_move(from, to, kKnight, flags));
    } else {
      f(make_move(from, to, kNoPiece, flags));
    }
  };
  for (Bits b = p.piece[kPawn] & own; b; b &= b - 1) {
    const int from = lsb(b);
    const int one = from + up;
    if (!(occ & bit(one))) {
      pawn_move(from, one, 0);
      if ((from >> 3) == start_rank && !(occ & bit(one + up))) f(make_move(from, one + up, kNoPiece, kDoublePush));
    }
    const Bits att = pawn_attacks(us, bit(from));
    for (Bits c = att & enemy; c; c &= c - 1) pawn_move(from, lsb(c), kCapture);
    if (p.ep != kNoSquare && (att & bit(p.ep))) f(make_move(from, p.ep, kNoPiece, kCapture | kEnPassant));
  }
  const auto emit = [&](int from, Bits targets) {
    for (Bits b = targets & ~own; b; b &= b - 1) {
      const int to = lsb(b);
      f(make_move(from, to, kNoPiece, (enemy & bit(to)) ? kCapture : 0u));
    }
  };
  for (Bits b = p.piece[kKnight] & own; b; b &= b - 1) emit(lsb(b), knight_attacks(b & (~b + 1)));
  for (Bits b = (p.piece[kBishop] | p.piece[kQueen]) & own; b; b &= b - 1)
    emit(lsb(b), bishop_attacks(b & (~b + 1), occ));
  for (Bits b = (p.piece[kRook] | p.piece[kQueen]) & own; b; b &= b - 1) emit(lsb(b), rook_attacks(b & (~b + 1), occ));
  const int k = king_square(p, us);
  if (k < 0) return;
  emit(k, king_attacks(bit(k)));
  const int home = us == kWhite ? 4 : 60;
  if (k != home || attacked(p, home, them)) return;
  const int ks = us == kWhite ? kWhiteKingSide : kBlackKingSide, qs = us == kWhite ? kWhiteQueenSide : kBlackQueenSide;
  const Bits rooks = p.piece[kRook] & own;
  if ((p.castling & ks) && (rooks & bit(home + 3)) && !(occ & (bit(home + 1) | bit(home + 2))) &&
      !attacked(p, home + 1, them) && !attacked(p, home + 2, them))
    f(make_move(home, home + 2, kNoPiece, kCastle));
  if ((p.castling & qs) && (rooks & bit(home - 4)) && !(occ & (bit(home - 1) | bit(home - 2) | bit(home - 3))) &&
      !attacked(p, home - 1, them) && !attacked(p, home - 2, them))
    f(make_move(home, home - 2, kNoPiece, kCastle));
}

// Legal: the mover's king (if it has one) is not attacked after the move.
WM_HD bool legal_after(const DPos& q, int mover) {
  const int k = king_square(q, mover);
  return k < 0 || !attacked(q, k, mover ^ 1);
}

// The legal moves in ai/'s generation order; returns their number (at most kMaxMoves).
WM_HD int generate_legal(const DPos& p, std::uint32_t* out) {
  int n = 0;
  for_each_pseudo(p, [&](std::uint32_t m) {
    if (legal_after(apply(p, m), p.side)) out[n++] = m;
  });
  return n;
}

WM_HD int count_legal(const DPos& p) {
  int n = 0;
  for_each_pseudo(p, [&](std::uint32_t m) { n += legal_after(apply(p, m), p.side) ? 1 : 0; });
  return n;
}

// The search's move order (ai's ChessGame::children): captures and promotions first, each group in
// generation order. In place; returns the number of moves.
WM_HD int order_moves(std::uint32_t* m, int n) {
  std::uint32_t rest[kMaxMoves];
  int a = 0, r = 0;
  for (int i = 0; i < n; ++i) {
    if ((move_flags(m[i]) & kCapture) || move_promo(m[i]) != kNoPiece)
      m[a++] = m[i];
    else
      rest[r++] = m[i];
  }
  for (int i = 0; i < r; ++i) m[a + i] = rest[i];
  return n;
}

// ---- evaluation: chess_eval.h, shared with the CPU engine ------------------------------------------

// chess_eval's view of a DPos.
using eval::file_mask;

struct EvalBoard {
  const DPos& p;
  WM_HD Bits pieces(int c, int t) const { return p.piece[t] & side_bits(p, c); }
  WM_HD Bits occupied(int c) const { return side_bits(p, c); }
  WM_HD int king_square(int c) const { return rules::king_square(p, c); }
  WM_HD int side() const { return p.side; }
  WM_HD Bits knight(int sq) const { return knight_attacks(bit(sq)); }
  WM_HD Bits bishop(int sq, Bits occ) const { return bishop_attacks(bit(sq), occ); }
  WM_HD Bits rook(int sq, Bits occ) const { return rook_attacks(bit(sq), occ); }
  WM_HD Bits king_zone(int sq) const { return king_attacks(bit(sq)) | bit(sq); }
  WM_HD void pst(int type, int rel, int& mg, int& eg) const { eval::pst(type, rel, mg, eg); }
};

WM_HD int evaluate(const DPos& p) { return eval::evaluate(EvalBoard{p}); }

// ---- the hybrid search's leaves (ai's ChessGame::terminal and search::leaf_value) -----------------

constexpr int kMate = 32000;  // ai's chess::kMate

// A position without legal moves, `ply` plies below the root: mated (from the side to move) or drawn.
WM_HD int terminal(const DPos& p, int ply) { return in_check(p) ? -(kMate - ply) : 0; }

// A node at the search's horizon: terminal when it has no legal move, else evaluated.
WM_HD int leaf_value(const DPos& p, int ply) { return count_legal(p) == 0 ? terminal(p, ply) : evaluate(p); }

// The rules as the GPU backend sees them (GameDevice<Device>, ai/src/search/game_device.h).
struct Device {
  using Pos = DPos;
  using Move = std::uint32_t;
  struct Params {};  // chess batches take no settings
  static constexpr int kMaxMoves = rules::kMaxMoves;
};

}  // namespace warpmind::search::chess::rules
