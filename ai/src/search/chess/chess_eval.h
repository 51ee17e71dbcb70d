// The chess evaluation, written once for the CPU engine (ai/src/search/chess/chess_search.cpp) and the GPU
// rules (chess_rules.h): material and piece-square values (PeSTO's published tables), mobility (a weight
// per count of safe squares), rooks on open and half-open files, pawn threats, king safety (attackers on
// the enemy king's zone, the own pawn shield, open files and pawn storms at the king), pawn structure
// (doubled, isolated, passed — in the end game by its path and the kings' distances to it) and the
// bishop pair, tapered between middle game and end game by the material left, plus a tempo bonus;
// integers only, so both sides give the same score. The weights are the value_mg / value_eg lists and
// the kMg, kEg and kW tables, in the layout warpmind-tune writes (it fits them to labelled positions
// through side_terms and rewrites these blocks). Each side reads its own position through an adaptor B:
//   Bits pieces(int color, int type) const;  Bits occupied(int color) const;  int king_square(int c) const;
//   int side() const;  Bits knight(int sq) const;  Bits bishop(int sq, Bits occ) const;
//   Bits rook(int sq, Bits occ) const;  Bits king_zone(int sq) const;  // king moves plus the square
//   void pst(int type, int rel, int& mg, int& eg) const;  // eval::pst, or a table of it
// Types 0..5 are pawn, knight, bishop, rook, queen, king; colours 0 white, 1 black.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace warpmind::search::chess::eval {

using Bits = std::uint64_t;

WM_HD int popcount(Bits b) {
#if defined(__CUDA_ARCH__)
  return __popcll(b);
#elif defined(__POPCNT__)
  return __builtin_popcountll(b);
#else
  // Without the POPCNT instruction in the target, the builtin is a library call: a few inline ALU steps
  // are faster.
  b = b - ((b >> 1) & 0x5555555555555555ull);
  b = (b & 0x3333333333333333ull) + ((b >> 2) & 0x3333333333333333ull);
  b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int>((b * 0x0101010101010101ull) >> 56);
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

// Material values and phase weights by type.
WM_HD int value_mg(int t) {
  static constexpr int v[6] = {82, 348, 366, 478, 1027, 0};
  return v[t];
}
WM_HD int value_eg(int t) {
  static constexpr int v[6] = {94, 282, 295, 515, 938, 0};
  return v[t];
}
WM_HD int phase_of(int t) {
  static constexpr int v[6] = {0, 1, 1, 2, 4, 0};
  return v[t];
}
// Where a type's mobility weights start among the terms: knight 0..8 squares, bishop 0..13, rook 0..14,
// queen 0..27.
WM_HD int mobility_offset(int t) {
  static constexpr int v[6] = {0, 0, 9, 23, 38, 0};
  return v[t];
}

// The evaluation's terms besides material and piece-square values. Each has a middle-game and an
// end-game weight (term_weight) and is counted per side; a side's score adds count × weight.
enum Term : int {
  // An enemy knight, bishop, rook or queen our pawns attack.
  kPawnThreat,
  // A rook on a file without pawns; without pawns of its own side.
  kRookOpenFile,
  kRookHalfOpen,
  // + mobility_offset(type) + the safe squares a knight..queen attacks (not held by own pieces, not
  // attacked by enemy pawns).
  kMobility,
  // With two attackers or more: (the king-zone squares attacked, weighted knight and bishop 2, rook 3,
  // queen 4) × the attackers.
  kKingAttack = kMobility + 66,
  // An own pawn one or two ranks in front of the king, on its file or a neighbour.
  kShieldPawn,
  // A file at the king with enemy pawns but none of ours; without pawns.
  kKingFileHalf,
  kKingFileOpen,
  // An enemy pawn on a file at the king, gap ranks ahead of it (1..3): counts 4 - gap.
  kPawnStorm,
  // Each pawn past the first on a file; each pawn without own pawns on the neighbouring files.
  kDoubledPawn,
  kIsolatedPawn,
  // + advance (ranks from its start rank, 1..6).
  kPassedPawn,
  // The advance of a passed pawn whose stop square is empty.
  kPassedFree = kPassedPawn + 8,
  // The advance × the enemy king's, the own king's distance to the stop square.
  kPassedTheirKing,
  kPassedOwnKing,
  kBishopPair,
  kTermCount
};

WM_HD void term_weight(int term, int& mg, int& eg) {
  // clang-format off
  static constexpr short kW[kTermCount][2] = {
    // pawn threat
    {51, 35},
    // rook on an open, half-open file
    {26, 3}, {12, 10},
    // mobility: knight, 0..8 safe squares
    {-16, -17}, {-10, -11}, {-5, -6}, {-2, -1}, {3, 1}, {5, 5}, {9, 8}, {11, 11}, {16, 10},
    // mobility: bishop, 0..13 safe squares
    {-32, -30}, {-24, -24}, {-18, -20}, {-13, -13}, {-5, -7}, {-3, -3}, {2, 3}, {2, 6}, {8, 9}, {12, 11},
    {19, 18}, {24, 21}, {30, 29}, {34, 34},
    // mobility: rook, 0..14 safe squares
    {-15, -24}, {-10, -21}, {-9, -17}, {-5, -12}, {-5, -8}, {0, -2}, {2, 5}, {3, 8}, {4, 9}, {8, 15},
    {8, 17}, {10, 20}, {12, 24}, {14, 26}, {14, 24},
    // mobility: queen, 0..27 safe squares
    {-13, -24}, {-16, -22}, {-12, -20}, {-9, -18}, {-8, -16}, {-7, -14}, {-6, -12}, {-3, -10}, {-3, -8}, {-1, -5},
    {-2, -4}, {0, -1}, {0, 0}, {3, 3}, {4, 5}, {4, 6}, {4, 9}, {5, 10}, {6, 12}, {7, 14},
    {8, 16}, {9, 18}, {10, 20}, {11, 22}, {12, 24}, {13, 26}, {14, 28}, {15, 30},
    // king attack
    {2, 0},
    // shield pawn, half-open and open king file, storm
    {7, -4}, {-21, 7}, {-38, -8}, {-9, 4},
    // doubled, isolated
    {-8, -20}, {-13, -16},
    // passed by advance
    {0, 0}, {2, 3}, {7, 13}, {14, 34}, {21, 55}, {27, 66}, {27, 100}, {35, 147},
    // passed: free stop square, king distances
    {1, 5}, {0, 4}, {0, -5},
    // bishop pair
    {33, 51},
  };
  // clang-format on
  mg = kW[term][0];
  eg = kW[term][1];
}

// Piece-square values: PeSTO's published tables (Ronald Friederich's tapered evaluation, tuned on
// its material values above). Written as diagrams from White's side, index 0 = a8, so square `sq`
// (a1 = 0, from White's point of view) reads entry sq ^ 56. The middle-game table:
WM_HD int pst_mg(int type, int sq) {
  // clang-format off
  static constexpr short kMg[6][64] = {
    {  // pawn
         0,     0,     0,     0,     0,     0,     0,     0,
        97,   133,    61,    95,    68,   125,    34,   -11,
        -9,     7,    25,    32,    65,    56,    25,   -19,
       -15,    14,     4,    18,    23,    15,    18,   -19,
       -30,    -6,    -2,    11,    17,    13,     9,   -21,
       -23,     1,    -2,   -11,     2,     3,    31,   -13,
       -34,     2,   -14,   -22,   -19,    24,    34,   -22,
         0,     0,     0,     0,     0,     0,     0,     0,
    },
    {  // knight
      -167,   -89,   -34,   -49,    61,   -97,   -15,  -107,
       -73,   -41,    72,    36,    23,    62,     7,   -17,
       -47,    60,    36,    65,    84,   128,    73,    44,
        -8,    18,    19,    49,    34,    67,    18,    23,
       -12,     4,    16,    13,    28,    22,    21,    -6,
       -19,    -8,     8,    12,    21,    14,    25,   -11,
       -28,   -50,    -9,    -3,    -1,    20,   -13,   -18,
      -105,   -24,   -57,   -32,   -16,   -28,   -23,   -23,
    },
    {  // bishop
       -29,     4,   -82,   -37,   -25,   -42,     7,    -8,
       -26,    16,   -18,   -13,    30,    59,    18,   -46,
       -16,    37,    42,    40,    35,    50,    38,    -2,
        -5,     5,    19,    49,    37,    35,    11,    -2,
        -6,    13,    12,    25,    31,    11,    11,     4,
         0,    15,    17,    13,    15,    28,    19,     9,
         4,    18,    14,     2,     8,    19,    29,     0,
       -30,    -2,   -14,   -20,   -13,    -9,   -39,   -21,
    },
    {  // rook
        32,    42,    32,    51,    63,     9,    31,    43,
        27,    31,    57,    62,    80,    67,    26,    44,
        -3,    19,    26,    37,    17,    45,    61,    16,
       -24,   -10,     8,    25,    25,    35,    -8,   -19,
       -35,   -25,   -12,     0,     8,    -6,     5,   -21,
       -43,   -24,   -16,   -17,     3,    -1,    -6,   -34,
       -43,   -17,   -21,    -8,    -2,     9,    -5,   -70,
       -19,   -13,    -3,    14,    13,     5,   -31,   -24,
    },
    {  // queen
       -28,     0,    29,    12,    59,    44,    43,    45,
       -24,   -39,    -5,     1,   -16,    57,    28,    54,
       -14,   -17,     7,     8,    29,    55,    48,    56,
       -26,   -26,   -16,   -15,     0,    17,    -1,     2,
        -9,   -26,   -10,   -11,    -2,    -4,     4,    -2,
       -13,    -1,    -9,    -3,    -2,     1,    13,     6,
       -34,    -8,     7,     6,    11,    14,    -2,     2,
        -1,   -16,   -11,     1,   -14,   -25,   -30,   -49,
    },
    {  // king
       -65,    23,    16,   -15,   -56,   -34,     2,    13,
        29,    -1,   -20,    -7,    -8,    -4,   -38,   -29,
        -9,    24,     2,   -16,   -20,     6,    22,   -22,
       -17,   -20,   -12,   -27,   -30,   -25,   -14,   -36,
       -49,    -1,   -27,   -39,   -46,   -44,   -33,   -51,
       -14,   -14,   -22,   -46,   -45,   -30,   -15,   -27,
         2,     6,    -8,   -62,   -42,   -18,    10,     9,
       -12,    38,    15,   -52,     2,   -26,    20,    12,
    },
  };
  // clang-format on
  return kMg[type][sq ^ 56];
}

// The end-game table, in the same layout.
WM_HD int pst_eg(int type, int sq) {
  // clang-format off
  static constexpr short kEg[6][64] = {
    {  // pawn
         0,     0,     0,     0,     0,     0,     0,     0,
       174,   173,   157,   133,   147,   130,   165,   186,
        87,    98,    81,    67,    55,    53,    78,    79,
        31,    24,    13,     6,     0,     7,    16,    18,
        13,     9,    -4,   -10,    -8,    -6,     1,     0,
        12,     6,    -4,    -2,    -2,    -3,    -1,    -7,
        16,    11,     9,    12,    12,     4,     0,    -1,
         0,     0,     0,     0,     0,     0,     0,     0,
    },
    {  // knight
       -58,   -38,   -13,   -28,   -31,   -27,   -63,   -99,
       -25,    -9,   -25,    -2,    -9,   -25,   -24,   -52,
       -24,   -20,    10,     8,    -1,    -9,   -19,   -41,
       -16,     4,    20,    21,    21,    10,     8,   -18,
       -17,    -6,    15,    25,    16,    17,     4,   -17,
       -23,    -3,    -4,    16,    11,    -2,   -19,   -22,
       -42,   -19,   -10,    -5,    -4,   -20,   -23,   -43,
       -29,   -50,   -22,   -14,   -21,   -18,   -50,   -64,
    },
    {  // bishop
       -14,   -20,   -10,    -8,    -7,    -9,   -17,   -24,
        -8,    -4,     7,   -12,    -3,   -13,    -4,   -14,
         1,    -8,    -1,    -1,    -3,     7,     0,     4,
        -3,     8,    11,     7,    13,     8,     4,     2,
        -7,     3,    12,    19,     5,    10,    -2,    -9,
       -12,    -2,     7,     9,    15,     3,    -8,   -15,
       -15,   -16,    -8,    -1,     5,   -10,   -15,   -27,
       -21,    -9,   -22,    -4,    -9,   -13,    -5,   -16,
    },
    {  // rook
        13,     9,    18,    15,    11,    12,     8,     5,
        12,    12,    11,    10,    -4,     3,     8,     2,
         8,     6,     6,     5,     4,    -3,    -5,    -2,
         5,     4,    13,     1,     2,     2,     0,     3,
         4,     6,     8,     5,    -5,    -5,    -8,    -9,
        -2,     0,    -5,     0,    -7,   -13,    -8,   -16,
        -5,    -6,     0,     3,    -8,    -9,   -11,    -2,
        -8,     0,     2,    -3,    -8,   -13,     5,   -18,
    },
    {  // queen
        -8,    22,    22,    27,    27,    19,    10,    20,
       -16,    20,    32,    41,    58,    25,    30,     0,
       -20,     6,     9,    49,    47,    35,    19,     8,
         3,    22,    24,    45,    57,    40,    57,    36,
       -18,    28,    19,    46,    30,    34,    39,    23,
       -16,   -27,    16,     6,    10,    16,    10,     5,
       -22,   -23,   -31,   -16,   -16,   -23,   -36,   -32,
       -33,   -28,   -22,   -43,    -5,   -32,   -20,   -41,
    },
    {  // king
       -74,   -34,   -18,   -18,   -11,    15,     4,   -17,
       -12,    17,    14,    17,    16,    37,    23,    11,
        10,    17,    23,    15,    19,    44,    43,    13,
        -9,    22,    23,    27,    25,    32,    24,     3,
       -18,    -4,    20,    23,    27,    22,     7,   -11,
       -19,    -3,    10,    21,    21,    15,     6,    -9,
       -25,   -11,     4,    14,    14,     3,    -1,   -14,
       -50,   -33,   -20,   -10,   -28,   -11,   -22,   -43,
    },
  };
  // clang-format on
  return kEg[type][sq ^ 56];
}

WM_HD void pst(int type, int sq, int& mg, int& eg) {
  mg = pst_mg(type, sq);
  eg = pst_eg(type, sq);
}

// The king's distance between two squares (moves a king needs).
WM_HD int distance(int a, int b) {
  const int df = (a & 7) - (b & 7), dr = (a >> 3) - (b >> 3);
  return imax(df < 0 ? -df : df, dr < 0 ? -dr : dr);
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

// The squares the pawns `pawns` of colour c attack.
WM_HD Bits pawn_attack_set(int c, Bits pawns) {
  const Bits not_a = ~file_mask(0), not_h = ~file_mask(7);
  return c == 0 ? ((pawns & not_a) << 7) | ((pawns & not_h) << 9) : ((pawns & not_a) >> 9) | ((pawns & not_h) >> 7);
}

// A side's middle-game and end-game sums, from the default weights. The tuner supplies its own
// accumulator with the same two calls to record the counts instead.
struct Score {
  int mg = 0, eg = 0;
  template <class B>
  WM_HD void piece(const B& p, int type, int rel) {
    int tm = 0, te = 0;
    p.pst(type, rel, tm, te);
    mg += value_mg(type) + tm;
    eg += value_eg(type) + te;
  }
  WM_HD void term(int t, int count) {
    int wm = 0, we = 0;
    term_weight(t, wm, we);
    mg += count * wm;
    eg += count * we;
  }
};

// One side's terms, added to acc (Score or the tuner's recorder) and to phase.
template <class B, class A>
WM_HD void side_terms(const B& p, int us, A& acc, int& phase) {
  const int them = us ^ 1;
  const Bits occ = p.occupied(0) | p.occupied(1), own = p.occupied(us);
  // Mobility counts the squares not held by our own pieces nor attacked by the enemy's pawns.
  const Bits their_pawn_attacks = pawn_attack_set(them, p.pieces(them, 0));
  const Bits their_pieces = p.occupied(them) & ~p.pieces(them, 0) & ~p.pieces(them, 5);
  acc.term(kPawnThreat, popcount(pawn_attack_set(us, p.pieces(us, 0)) & their_pieces));
  const int their_king = p.king_square(them);
  const Bits king_zone = their_king >= 0 ? p.king_zone(their_king) : 0;
  int attackers = 0, attack_weight = 0;
  for (int type = 0; type <= 5; ++type)
    for (Bits b = p.pieces(us, type); b; b &= b - 1) {
      const int sq = lowest(b);
      const int rel = us == 0 ? sq : sq ^ 56;  // the table square from White's point of view
      acc.piece(p, type, rel);
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
      if (type == 3) {
        const Bits file = file_mask(sq & 7);
        if (!((p.pieces(0, 0) | p.pieces(1, 0)) & file))
          acc.term(kRookOpenFile, 1);
        else if (!(p.pieces(us, 0) & file))
          acc.term(kRookHalfOpen, 1);
      }
      if (att) {
        acc.term(kMobility + mobility_offset(type) + popcount(att & ~own & ~their_pawn_attacks), 1);
        if (att & king_zone) {
          ++attackers;
          attack_weight += popcount(att & king_zone) * (type == 4 ? 4 : type == 3 ? 3 : 2);
        }
      }
    }
  // King safety: attackers on the enemy king's zone (counted for us), our own pawn shield.
  if (attackers >= 2) acc.term(kKingAttack, attack_weight * attackers);
  const int king = p.king_square(us);
  if (king >= 0) {
    const int f = king & 7, r = king >> 3;
    const Bits shield_files = file_mask(f) | adjacent_files(f);
    const Bits shield_ranks = us == 0 ? (0xFFull << (8 * imin(r + 1, 7))) | (0xFFull << (8 * imin(r + 2, 7)))
                                      : (0xFFull << (8 * imax(r - 1, 0))) | (0xFFull << (8 * imax(r - 2, 0)));
    acc.term(kShieldPawn, popcount(p.pieces(us, 0) & shield_files & shield_ranks));
    // Files at the king without a pawn of ours are open to the enemy's rooks and queen (more so without
    // any pawn), and enemy pawns storming within three ranks of the king open more.
    for (int ff = imax(f - 1, 0); ff <= imin(f + 1, 7); ++ff) {
      const Bits file = file_mask(ff);
      if (!(p.pieces(us, 0) & file)) acc.term((p.pieces(them, 0) & file) ? kKingFileHalf : kKingFileOpen, 1);
      for (Bits b = p.pieces(them, 0) & file; b; b &= b - 1) {
        const int gap = us == 0 ? (lowest(b) >> 3) - r : r - (lowest(b) >> 3);
        if (gap >= 1 && gap <= 3) acc.term(kPawnStorm, 4 - gap);
      }
    }
  }
  // Pawn structure.
  const Bits pawns = p.pieces(us, 0), their_pawns = p.pieces(them, 0);
  for (int f = 0; f < 8; ++f) {
    const int n = popcount(pawns & file_mask(f));
    if (n > 1) acc.term(kDoubledPawn, n - 1);
    if (n && !(pawns & adjacent_files(f))) acc.term(kIsolatedPawn, n);
  }
  for (Bits b = pawns; b; b &= b - 1) {
    const int sq = lowest(b);
    if (!(front_span(us, sq) & their_pawns)) {
      const int adv = us == 0 ? (sq >> 3) : 7 - (sq >> 3);
      acc.term(kPassedPawn + adv, 1);
      // In the end game a passed pawn wants its way free, the enemy king far from the square in
      // front of it and its own king near.
      const int stop = us == 0 ? sq + 8 : sq - 8;
      if (stop >= 0 && stop < 64) {
        if (!((occ >> stop) & 1)) acc.term(kPassedFree, adv);
        const int own_king = p.king_square(us);
        if (their_king >= 0 && own_king >= 0) {
          acc.term(kPassedTheirKing, distance(their_king, stop) * adv);
          acc.term(kPassedOwnKing, distance(own_king, stop) * adv);
        }
      }
    }
  }
  if (popcount(p.pieces(us, 2)) >= 2) acc.term(kBishopPair, 1);
}

// Drawish end games, as the divisor of the end-game score: the side ahead (`strong`) without pawns and
// at most a minor piece up wins rarely (4); bishops of opposite colours and no other pieces (2); else 1.
template <class B>
WM_HD int endgame_divisor(const B& p, int strong) {
  const int weak = strong ^ 1;
  const int minor = value_eg(1), rook = value_eg(3);
  int material[2] = {0, 0};
  for (int c = 0; c < 2; ++c)
    for (int t = 1; t <= 4; ++t) material[c] += popcount(p.pieces(c, t)) * value_eg(t);
  if (!p.pieces(strong, 0) && material[strong] - material[weak] <= minor + 20 && material[strong] < rook + minor + 100)
    return 4;
  if (material[0] == value_eg(2) && material[1] == value_eg(2) && p.pieces(0, 2) && p.pieces(1, 2)) {
    constexpr Bits kDark = 0xAA55AA55AA55AA55ull;
    if (((p.pieces(0, 2) & kDark) != 0) != ((p.pieces(1, 2) & kDark) != 0)) return 2;
  }
  return 1;
}

constexpr int kTempo = 10;

// The score in centipawns from the side to move's point of view.
template <class B>
WM_HD int evaluate(const B& p) {
  Score s[2];
  int phase = 0;
  side_terms(p, 0, s[0], phase);
  side_terms(p, 1, s[1], phase);
  phase = imin(phase, 24);
  const int us = p.side(), them = us ^ 1;
  const int m = s[us].mg - s[them].mg;
  int e = s[us].eg - s[them].eg;
  e /= endgame_divisor(p, e >= 0 ? us : them);
  return (m * phase + e * (24 - phase)) / 24 + kTempo;
}

}  // namespace warpmind::search::chess::eval
