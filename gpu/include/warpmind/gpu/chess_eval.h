// The chess evaluation, written once for the CPU engine (ai/src/search/chess_search.cpp) and the GPU
// rules (chess_rules.h): material, piece-square values, mobility, king safety (attackers on the enemy
// king's zone, the own pawn shield), pawn structure (doubled, isolated, passed) and the bishop pair,
// tapered between middle game and end game by the material left, plus a tempo bonus; integers only, so
// both sides give the same score. Each side reads its own position through an adaptor B:
//   Bits pieces(int color, int type) const;  Bits occupied(int color) const;  int king_square(int c) const;
//   int side() const;  Bits knight(int sq) const;  Bits bishop(int sq, Bits occ) const;
//   Bits rook(int sq, Bits occ) const;  Bits king_zone(int sq) const;  // king moves plus the square
//   void pst(int type, int rel, int& mg, int& eg) const;  // chess_eval::pst, or a table of it
// Types 0..5 are pawn, knight, bishop, rook, queen, king; colours 0 white, 1 black.
#pragma once

#include <cstdint>

#include "warpmind/gpu/hd.h"

namespace warpmind::gpu::chess_eval {

using Bits = std::uint64_t;

WM_HD int popcount(Bits b) {
#if defined(__CUDA_ARCH__)
  return __popcll(b);
#else
  return __builtin_popcountll(b);
#endif
}
WM_HD int lowest(Bits b) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(b)) - 1;
#else
  return __builtin_ctzll(b);
#endif
}
WM_HD int imin(int a, int b) { return a < b ? a : b; }
WM_HD int imax(int a, int b) { return a > b ? a : b; }

// Material, phase and mobility weights by type.
WM_HD int value_mg(int t) {
  constexpr int v[6] = {100, 320, 330, 500, 950, 0};
  return v[t];
}
WM_HD int value_eg(int t) {
  constexpr int v[6] = {120, 300, 315, 540, 950, 0};
  return v[t];
}
WM_HD int phase_of(int t) {
  constexpr int v[6] = {0, 1, 1, 2, 4, 0};
  return v[t];
}
WM_HD int mobility_mg(int t) {
  constexpr int v[6] = {0, 4, 5, 2, 1, 0};
  return v[t];
}
WM_HD int mobility_eg(int t) {
  constexpr int v[6] = {0, 4, 5, 4, 2, 0};
  return v[t];
}

// Piece-square values from White's point of view, built from simple shapes: centralisation for minor
// pieces and the end-game king, advancement for pawns, a sheltered back rank for the middle-game king.
WM_HD void pst(int type, int sq, int& mg, int& eg) {
  const int f = sq & 7, r = sq >> 3;
  const int fc = imin(f, 7 - f), rc = imin(r, 7 - r);  // 0 at the edge, 3 in the centre
  const int centre = fc + rc;                          // 0..6
  switch (type) {
    case 0:  // pawn
      mg = r * 4 + (fc >= 2 && r >= 3 ? 8 : 0) - (r == 1 && fc >= 2 ? 4 : 0);
      eg = r * 10;
      break;
    case 1:  // knight
      mg = centre * 8 - 20;
      eg = centre * 6 - 18;
      break;
    case 2:  // bishop
      mg = centre * 4 - 8;
      eg = centre * 4 - 10;
      break;
    case 3:  // rook
      mg = (r == 6 ? 15 : 0) + (fc >= 3 ? 4 : 0);
      eg = 0;
      break;
    case 4:  // queen
      mg = centre * 2 - 5;
      eg = centre * 4 - 10;
      break;
    default:  // king
      mg = r == 0 ? (fc == 0 || f == 1 || f == 6 ? 20 : (f == 4 || f == 3 ? 0 : 10)) : -10 * r;
      eg = centre * 8 - 24;
      break;
  }
}

WM_HD Bits file_mask(int f) { return 0x0101010101010101ull << f; }
WM_HD Bits adjacent_files(int f) { return (f > 0 ? file_mask(f - 1) : 0) | (f < 7 ? file_mask(f + 1) : 0); }
// Squares in front of a pawn of colour c on sq (same and adjacent files), for passed-pawn tests.
WM_HD Bits front_span(int c, int sq) {
  const int f = sq & 7, r = sq >> 3;
  const Bits files = file_mask(f) | adjacent_files(f);
  Bits ahead = 0;
  if (c == 0) {
    for (int rr = r + 1; rr < 8; ++rr) ahead |= 0xFFull << (8 * rr);
  } else {
    for (int rr = r - 1; rr >= 0; --rr) ahead |= 0xFFull << (8 * rr);
  }
  return files & ahead;
}

// One side's terms, added to mg, eg and phase.
template <class B>
WM_HD void side_terms(const B& p, int us, int& mg, int& eg, int& phase) {
  const int them = us ^ 1;
  const Bits occ = p.occupied(0) | p.occupied(1), own = p.occupied(us);
  const int their_king = p.king_square(them);
  const Bits king_zone = their_king >= 0 ? p.king_zone(their_king) : 0;
  int attackers = 0, attack_weight = 0;
  for (int type = 0; type <= 5; ++type)
    for (Bits b = p.pieces(us, type); b; b &= b - 1) {
      const int sq = lowest(b);
      const int rel = us == 0 ? sq : sq ^ 56;  // the table square from White's point of view
      int tm = 0, te = 0;
      p.pst(type, rel, tm, te);
      mg += value_mg(type) + tm;
      eg += value_eg(type) + te;
      phase += phase_of(type);
      Bits att = 0;
      switch (type) {
        case 1:
          att = p.knight(sq);
          break;
        case 2:
          att = p.bishop(sq, occ);
          break;
        case 3:
          att = p.rook(sq, occ);
          break;
        case 4:
          att = p.bishop(sq, occ) | p.rook(sq, occ);
          break;
        default:
          break;
      }
      if (att) {
        const int mob = popcount(att & ~own);
        mg += mobility_mg(type) * mob;
        eg += mobility_eg(type) * mob;
        if (att & king_zone) {
          ++attackers;
          attack_weight += popcount(att & king_zone) * (type == 4 ? 4 : type == 3 ? 3 : 2);
        }
      }
    }
  // King safety: attackers on the enemy king's zone (counted for us), our own pawn shield.
  if (attackers >= 2) mg += attack_weight * attackers * 2;
  const int king = p.king_square(us);
  if (king >= 0) {
    const int f = king & 7, r = king >> 3;
    const Bits shield_files = file_mask(f) | adjacent_files(f);
    const Bits shield_ranks = us == 0 ? (0xFFull << (8 * imin(r + 1, 7))) | (0xFFull << (8 * imin(r + 2, 7)))
                                      : (0xFFull << (8 * imax(r - 1, 0))) | (0xFFull << (8 * imax(r - 2, 0)));
    mg += 10 * popcount(p.pieces(us, 0) & shield_files & shield_ranks);
  }
  // Pawn structure.
  const Bits pawns = p.pieces(us, 0), their_pawns = p.pieces(them, 0);
  for (int f = 0; f < 8; ++f) {
    const int n = popcount(pawns & file_mask(f));
    if (n > 1) mg -= 10 * (n - 1), eg -= 20 * (n - 1);
    if (n && !(pawns & adjacent_files(f))) mg -= 12 * n, eg -= 15 * n;
  }
  for (Bits b = pawns; b; b &= b - 1) {
    const int sq = lowest(b);
    if (!(front_span(us, sq) & their_pawns)) {
      const int adv = us == 0 ? (sq >> 3) : 7 - (sq >> 3);
      mg += adv * 5;
      eg += adv * adv * 3;
    }
  }
  if (popcount(p.pieces(us, 2)) >= 2) mg += 30, eg += 50;
}

// The score in centipawns from the side to move's point of view.
template <class B>
WM_HD int evaluate(const B& p) {
  int mg[2] = {0, 0}, eg[2] = {0, 0}, phase = 0;
  side_terms(p, 0, mg[0], eg[0], phase);
  side_terms(p, 1, mg[1], eg[1], phase);
  phase = imin(phase, 24);
  const int us = p.side(), them = us ^ 1;
  const int m = mg[us] - mg[them], e = eg[us] - eg[them];
  return (m * phase + e * (24 - phase)) / 24 + 10;  // + tempo
}

}  // namespace warpmind::gpu::chess_eval
