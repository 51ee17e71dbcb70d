// Chess rules (chess.h). [SECTION] tables   [SECTION] position   [SECTION] attacks and moves
// [SECTION] make / unmake   [SECTION] FEN and UCI   [SECTION] perft
#include "warpmind/search/chess.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "chess_internal.h"
#include "warpmind/core/random.h"

namespace warpmind::search::chess {

namespace {

// ---- [SECTION] tables ----------------------------------------------------------------------------

using Bits = std::uint64_t;
constexpr Bits bit(int sq) { return Bits{1} << sq; }
int pop_lsb(Bits& b) {
  const int s = __builtin_ctzll(b);
  b &= b - 1;
  return s;
}

// The eight slider directions as (file, rank) steps; the first four go up the square numbers (their
// nearest blocker is the lowest set bit of the ray's occupied squares), the last four down (the highest).
constexpr int kDirs[8][2] = {{1, 0}, {0, 1}, {1, 1}, {-1, 1}, {-1, 0}, {0, -1}, {-1, -1}, {1, -1}};

struct Tables {
  Bits knight[64], king[64], pawn[2][64];
  Bits ray[8][64];  // the squares from sq (exclusive) to the board's edge in each direction
  std::uint64_t z_piece[2][6][64], z_castle[16], z_ep[8], z_side;
  int castle_keep[64];
  Tables() {
    const auto on = [](int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; };
    for (int sq = 0; sq < 64; ++sq) {
      const int f = sq & 7, r = sq >> 3;
      knight[sq] = king[sq] = pawn[0][sq] = pawn[1][sq] = 0;
      const int kn[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
      for (const auto& d : kn)
        if (on(f + d[0], r + d[1])) knight[sq] |= bit((r + d[1]) * 8 + f + d[0]);
      for (int df = -1; df <= 1; ++df)
        for (int dr = -1; dr <= 1; ++dr)
          if ((df || dr) && on(f + df, r + dr)) king[sq] |= bit((r + dr) * 8 + f + df);
      for (int df : {-1, 1}) {
        if (on(f + df, r + 1)) pawn[White][sq] |= bit((r + 1) * 8 + f + df);
        if (on(f + df, r - 1)) pawn[Black][sq] |= bit((r - 1) * 8 + f + df);
      }
      castle_keep[sq] = 15;
      for (int d = 0; d < 8; ++d) {
        ray[d][sq] = 0;
        for (int ff = f + kDirs[d][0], rr = r + kDirs[d][1]; on(ff, rr); ff += kDirs[d][0], rr += kDirs[d][1])
          ray[d][sq] |= bit(rr * 8 + ff);
      }
    }
    castle_keep[0] = 15 & ~WhiteQueenSide;
    castle_keep[7] = 15 & ~WhiteKingSide;
    castle_keep[4] = 15 & ~(WhiteKingSide | WhiteQueenSide);
    castle_keep[56] = 15 & ~BlackQueenSide;
    castle_keep[63] = 15 & ~BlackKingSide;
    castle_keep[60] = 15 & ~(BlackKingSide | BlackQueenSide);
    SplitMix64 rng(0x5EED'C0DE'CAFEull);
    for (auto& c : z_piece)
      for (auto& t : c)
        for (auto& v : t) v = rng.next();
    for (auto& v : z_castle) v = rng.next();
    for (auto& v : z_ep) v = rng.next();
    z_side = rng.next();
  }
};
const Tables& T() {
  static const Tables t;
  return t;
}

// A slider's attacks along one direction: the ray up to and including the nearest occupied square.
template <int D>
Bits ray_attacks(const Tables& t, int sq, Bits occ) {
  const Bits r = t.ray[D][sq], blockers = r & occ;
  if (!blockers) return r;
  const int first = D < 4 ? __builtin_ctzll(blockers) : 63 - __builtin_clzll(blockers);
  return r ^ t.ray[D][first];
}
Bits rook_attacks(int sq, Bits occ) {
  const Tables& t = T();
  return ray_attacks<0>(t, sq, occ) | ray_attacks<1>(t, sq, occ) | ray_attacks<4>(t, sq, occ) |
         ray_attacks<5>(t, sq, occ);
}
Bits bishop_attacks(int sq, Bits occ) {
  const Tables& t = T();
  return ray_attacks<2>(t, sq, occ) | ray_attacks<3>(t, sq, occ) | ray_attacks<6>(t, sq, occ) |
         ray_attacks<7>(t, sq, occ);
}

Color other(Color c) { return static_cast<Color>(c ^ 1); }

void put(Position& p, int sq, Color c, PieceType t) {
  p.pieces[c][t] |= bit(sq);
  p.occupied[c] |= bit(sq);
  p.board[sq] = static_cast<std::int8_t>(t + 8 * c);
  p.key ^= T().z_piece[c][t][sq];
}
void remove(Position& p, int sq) {
  const Color c = p.color_at(sq);
  const PieceType t = p.type_at(sq);
  p.pieces[c][t] &= ~bit(sq);
  p.occupied[c] &= ~bit(sq);
  p.board[sq] = -1;
  p.key ^= T().z_piece[c][t][sq];
}

}  // namespace

namespace detail {
std::uint64_t knight_attacks(int sq) { return T().knight[sq]; }
std::uint64_t king_attacks(int sq) { return T().king[sq]; }
std::uint64_t pawn_attacks(Color c, int sq) { return T().pawn[c][sq]; }
std::uint64_t rook_attacks(int sq, std::uint64_t occupied) { return chess::rook_attacks(sq, occupied); }
std::uint64_t bishop_attacks(int sq, std::uint64_t occupied) { return chess::bishop_attacks(sq, occupied); }
}  // namespace detail

// ---- [SECTION] position --------------------------------------------------------------------------

Position::Position() { std::memset(board, -1, sizeof board); }

int Position::king_square(Color c) const { return pieces[c][King] ? __builtin_ctzll(pieces[c][King]) : -1; }

bool Position::in_check() const {
  const int k = king_square(side);
  return k >= 0 && attacked(*this, k, other(side));
}

std::uint64_t compute_key(const Position& p) {
  std::uint64_t k = 0;
  for (int sq = 0; sq < 64; ++sq)
    if (p.board[sq] >= 0) k ^= T().z_piece[p.color_at(sq)][p.type_at(sq)][sq];
  k ^= T().z_castle[p.castling];
  if (p.en_passant >= 0) k ^= T().z_ep[p.en_passant & 7];
  if (p.side == Black) k ^= T().z_side;
  return k;
}

// ---- [SECTION] attacks and moves -----------------------------------------------------------------

bool attacked(const Position& p, int sq, Color by) {
  const Tables& t = T();
  if (t.pawn[other(by)][sq] & p.pieces[by][Pawn]) return true;
  if (t.knight[sq] & p.pieces[by][Knight]) return true;
  if (t.king[sq] & p.pieces[by][King]) return true;
  const Bits occ = p.occupied[0] | p.occupied[1];
  if (bishop_attacks(sq, occ) & (p.pieces[by][Bishop] | p.pieces[by][Queen])) return true;
  return (rook_attacks(sq, occ) & (p.pieces[by][Rook] | p.pieces[by][Queen])) != 0;
}

namespace {

void add_pawn_move(MoveList& out, int from, int to, std::uint32_t flags) {
  if ((to >> 3) == 7 || (to >> 3) == 0) {
    for (int promo : {Queen, Rook, Bishop, Knight}) out.push(Move::make(from, to, promo, flags));
  } else {
    out.push(Move::make(from, to, NoPiece, flags));
  }
}

}  // namespace

void detail::generate_pseudo(const Position& p, MoveList& out, bool tactical) {
  const Tables& t = T();
  const Color us = p.side, them = other(us);
  const Bits own = p.occupied[us], enemy = p.occupied[them], occ = own | enemy;
  const int up = us == White ? 8 : -8;
  const int start_rank = us == White ? 1 : 6;
  const Bits targets = tactical ? enemy : ~own;  // the squares pieces other than pawns move to
  for (Bits b = p.pieces[us][Pawn]; b;) {
    const int from = pop_lsb(b);
    const int one = from + up;
    const bool promotes = (one >> 3) == 7 || (one >> 3) == 0;
    if (!(occ & bit(one)) && (!tactical || promotes)) {
      add_pawn_move(out, from, one, 0);
      if (!tactical && (from >> 3) == start_rank && !(occ & bit(one + up)))
        out.push(Move::make(from, one + up, NoPiece, Move::DoublePush));
    }
    for (Bits c = t.pawn[us][from] & enemy; c;) add_pawn_move(out, from, pop_lsb(c), Move::Capture);
    if (p.en_passant >= 0 && (t.pawn[us][from] & bit(p.en_passant)))
      out.push(Move::make(from, p.en_passant, NoPiece, Move::Capture | Move::EnPassant));
  }
  const auto emit = [&](int from, Bits attacks) {
    for (Bits b = attacks & targets; b;) {
      const int to = pop_lsb(b);
      out.push(Move::make(from, to, NoPiece, (enemy & bit(to)) ? std::uint32_t{Move::Capture} : 0u));
    }
  };
  for (Bits b = p.pieces[us][Knight]; b;) {
    const int s = pop_lsb(b);
    emit(s, t.knight[s]);
  }
  for (Bits b = p.pieces[us][Bishop] | p.pieces[us][Queen]; b;) {
    const int s = pop_lsb(b);
    emit(s, bishop_attacks(s, occ));
  }
  for (Bits b = p.pieces[us][Rook] | p.pieces[us][Queen]; b;) {
    const int s = pop_lsb(b);
    emit(s, rook_attacks(s, occ));
  }
  const int k = p.king_square(us);
  if (k < 0) return;
  emit(k, t.king[k]);
  if (tactical) return;
  // Castling: rights, empty squares between, the king not in check and not crossing an attacked square.
  const int home = us == White ? 4 : 60;
  if (k != home || attacked(p, home, them)) return;
  const int ks = us == White ? WhiteKingSide : BlackKingSide, qs = us == White ? WhiteQueenSide : BlackQueenSide;
  const auto rook_on = [&](int sq) { return p.board[sq] == Rook + 8 * us; };
  if ((p.castling & ks) && rook_on(home + 3) && !(occ & (bit(home + 1) | bit(home + 2))) &&
      !attacked(p, home + 1, them) && !attacked(p, home + 2, them))
    out.push(Move::make(home, home + 2, NoPiece, Move::Castle));
  if ((p.castling & qs) && rook_on(home - 4) && !(occ & (bit(home - 1) | bit(home - 2) | bit(home - 3))) &&
      !attacked(p, home - 1, them) && !attacked(p, home - 2, them))
    out.push(Move::make(home, home - 2, NoPiece, Move::Castle));
}

void generate_legal(const Position& p, MoveList& out) {
  MoveList pseudo;
  detail::generate_pseudo(p, pseudo, false);
  out.size = 0;
  Position q = p;
  const Color us = p.side;
  for (Move m : pseudo) {
    Undo u;
    make_move(q, m, u);
    const int k = q.king_square(us);
    if (k < 0 || !attacked(q, k, other(us))) out.push(m);
    unmake_move(q, m, u);
  }
}

// ---- [SECTION] make / unmake ---------------------------------------------------------------------

void make_move(Position& p, Move m, Undo& u) {
  const Tables& t = T();
  const Color us = p.side, them = other(us);
  const int from = m.from(), to = m.to();
  const PieceType piece = p.type_at(from);
  u.captured = -1;
  u.castling = p.castling;
  u.en_passant = p.en_passant;
  u.halfmove = p.halfmove;
  u.key = p.key;
  p.key ^= t.z_castle[p.castling];
  if (p.en_passant >= 0) p.key ^= t.z_ep[p.en_passant & 7];
  if (m.flags() & Move::EnPassant) {
    const int cap = to + (us == White ? -8 : 8);
    u.captured = p.board[cap];
    remove(p, cap);
  } else if (p.board[to] >= 0) {
    u.captured = p.board[to];
    remove(p, to);
  }
  remove(p, from);
  put(p, to, us, m.promo() != NoPiece ? static_cast<PieceType>(m.promo()) : piece);
  if (m.flags() & Move::Castle) {
    const bool king_side = to > from;
    const int rook_from = king_side ? from + 3 : from - 4, rook_to = king_side ? from + 1 : from - 1;
    remove(p, rook_from);
    put(p, rook_to, us, Rook);
  }
  p.castling &= t.castle_keep[from] & t.castle_keep[to];
  p.en_passant = (m.flags() & Move::DoublePush) ? (from + to) / 2 : -1;
  p.halfmove = (piece == Pawn || u.captured >= 0) ? 0 : p.halfmove + 1;
  if (us == Black) ++p.fullmove;
  p.side = them;
  p.key ^= t.z_side ^ t.z_castle[p.castling];
  if (p.en_passant >= 0) p.key ^= t.z_ep[p.en_passant & 7];
}

void unmake_move(Position& p, Move m, const Undo& u) {
  const Color us = other(p.side);
  const int from = m.from(), to = m.to();
  p.side = us;
  if (us == Black) --p.fullmove;
  const PieceType moved = m.promo() != NoPiece ? Pawn : p.type_at(to);
  if (m.flags() & Move::Castle) {
    const bool king_side = to > from;
    remove(p, king_side ? from + 1 : from - 1);
    put(p, king_side ? from + 3 : from - 4, us, Rook);
  }
  remove(p, to);
  put(p, from, us, moved);
  if (u.captured >= 0) {
    const int sq = (m.flags() & Move::EnPassant) ? to + (us == White ? -8 : 8) : to;
    put(p, sq, static_cast<Color>(u.captured >> 3), static_cast<PieceType>(u.captured & 7));
  }
  p.castling = u.castling;
  p.en_passant = u.en_passant;
  p.halfmove = u.halfmove;
  p.key = u.key;
}

void make_null_move(Position& p, Undo& u) {
  const Tables& t = T();
  u.captured = -1;
  u.castling = p.castling;
  u.en_passant = p.en_passant;
  u.halfmove = p.halfmove;
  u.key = p.key;
  if (p.en_passant >= 0) p.key ^= t.z_ep[p.en_passant & 7];
  p.en_passant = -1;
  ++p.halfmove;
  p.side = other(p.side);
  p.key ^= t.z_side;
}

void unmake_null_move(Position& p, const Undo& u) {
  p.side = other(p.side);
  p.en_passant = u.en_passant;
  p.halfmove = u.halfmove;
  p.key = u.key;
}

// ---- [SECTION] FEN and UCI -----------------------------------------------------------------------

namespace {
constexpr const char* kPieceChars = "pnbrqk";
std::string square_name(int sq) { return {static_cast<char>('a' + (sq & 7)), static_cast<char>('1' + (sq >> 3))}; }
int parse_square(std::string_view s) {
  if (s.size() != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') return -1;
  return (s[1] - '1') * 8 + (s[0] - 'a');
}
}  // namespace

Status parse_fen(std::string_view fen, Position& out) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : fen) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) f.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) f.push_back(cur);
  const auto bad = [](const std::string& why) { return Status::Invalid("FEN: " + why); };
  if (f.size() != 4 && f.size() != 6)
    return bad("expected 6 fields (placement, side, castling, en passant, halfmove, fullmove), got " +
               std::to_string(f.size()));
  Position p;
  int rank = 7, file = 0;
  for (char c : f[0]) {
    if (c == '/') {
      if (file != 8)
        return bad("rank " + std::to_string(rank + 1) + " has " + std::to_string(file) + " squares, not 8");
      if (--rank < 0) return bad("more than 8 ranks");
      file = 0;
    } else if (c >= '1' && c <= '8') {
      file += c - '0';
      if (file > 8) return bad("rank " + std::to_string(rank + 1) + " has more than 8 squares");
    } else {
      const char* at = std::strchr(kPieceChars, std::tolower(static_cast<unsigned char>(c)));
      if (!at || !*at) return bad(std::string("unknown piece '") + c + "'");
      if (file >= 8) return bad("rank " + std::to_string(rank + 1) + " has more than 8 squares");
      put(p, rank * 8 + file, std::isupper(static_cast<unsigned char>(c)) ? White : Black,
          static_cast<PieceType>(at - kPieceChars));
      ++file;
    }
  }
  if (rank != 0 || file != 8) return bad("the placement does not describe 8 ranks of 8 squares");
  if (f[1] != "w" && f[1] != "b") return bad("side to move must be 'w' or 'b', not '" + f[1] + "'");
  p.side = f[1] == "w" ? White : Black;
  if (f[2] != "-") {
    for (char c : f[2]) {
      const int r = c == 'K'   ? WhiteKingSide
                    : c == 'Q' ? WhiteQueenSide
                    : c == 'k' ? BlackKingSide
                    : c == 'q' ? BlackQueenSide
                               : 0;
      if (!r || (p.castling & r)) return bad("castling rights '" + f[2] + "' are not a subset of KQkq");
      p.castling |= r;
    }
  }
  if (f[3] != "-") {
    const int sq = parse_square(f[3]);
    if (sq < 0 || (sq >> 3) != (p.side == White ? 5 : 2))
      return bad("en passant square '" + f[3] + "' must be on rank " + (p.side == White ? "6" : "3"));
    p.en_passant = sq;
  }
  if (f.size() == 6) {
    const auto number = [&](const std::string& s, int lo, int& v) {
      if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
      v = std::stoi(s);
      return v >= lo;
    };
    if (!number(f[4], 0, p.halfmove)) return bad("halfmove clock '" + f[4] + "' is not a number >= 0");
    if (!number(f[5], 1, p.fullmove)) return bad("fullmove number '" + f[5] + "' is not a number >= 1");
  }
  for (Color c : {White, Black})
    if (__builtin_popcountll(p.pieces[c][King]) != 1)
      return bad(std::string(c == White ? "white" : "black") + " must have exactly one king");
  if ((p.pieces[White][Pawn] | p.pieces[Black][Pawn]) & 0xFF000000000000FFull)
    return bad("a pawn on the first or last rank");
  const auto has = [&](int sq, Color c, PieceType t) { return p.board[sq] == t + 8 * c; };
  if (((p.castling & WhiteKingSide) && !(has(4, White, King) && has(7, White, Rook))) ||
      ((p.castling & WhiteQueenSide) && !(has(4, White, King) && has(0, White, Rook))) ||
      ((p.castling & BlackKingSide) && !(has(60, Black, King) && has(63, Black, Rook))) ||
      ((p.castling & BlackQueenSide) && !(has(60, Black, King) && has(56, Black, Rook))))
    return bad("castling rights '" + f[2] + "' without the king and rook on their squares");
  if (p.en_passant >= 0) {
    const int pawn_sq = p.en_passant + (p.side == White ? -8 : 8);
    if (!has(pawn_sq, other(p.side), Pawn) || p.board[p.en_passant] >= 0)
      return bad("en passant square '" + f[3] + "' without the pawn that just moved past it");
  }
  if (attacked(p, p.king_square(other(p.side)), p.side)) return bad("the side not to move is in check");
  p.key = compute_key(p);
  out = p;
  return Status::Ok();
}

std::string to_fen(const Position& p) {
  std::string s;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      const int sq = rank * 8 + file;
      if (p.board[sq] < 0) {
        ++empty;
        continue;
      }
      if (empty) s += static_cast<char>('0' + empty), empty = 0;
      const char c = kPieceChars[p.type_at(sq)];
      s += p.color_at(sq) == White ? static_cast<char>(std::toupper(c)) : c;
    }
    if (empty) s += static_cast<char>('0' + empty);
    if (rank) s += '/';
  }
  s += p.side == White ? " w " : " b ";
  if (!p.castling) s += '-';
  if (p.castling & WhiteKingSide) s += 'K';
  if (p.castling & WhiteQueenSide) s += 'Q';
  if (p.castling & BlackKingSide) s += 'k';
  if (p.castling & BlackQueenSide) s += 'q';
  s += ' ';
  s += p.en_passant >= 0 ? square_name(p.en_passant) : "-";
  s += ' ' + std::to_string(p.halfmove) + ' ' + std::to_string(p.fullmove);
  return s;
}

std::string move_to_uci(Move m) {
  std::string s = square_name(m.from()) + square_name(m.to());
  if (m.promo() != NoPiece) s += kPieceChars[m.promo()];
  return s;
}

Status parse_uci_move(const Position& p, std::string_view text, Move& out) {
  const int from = text.size() >= 4 ? parse_square(text.substr(0, 2)) : -1;
  const int to = text.size() >= 4 ? parse_square(text.substr(2, 2)) : -1;
  int promo = NoPiece;
  if (text.size() == 5) {
    static constexpr const char* kPromotions = "nbrq";  // Knight, Bishop, Rook, Queen
    const char* at = std::strchr(kPromotions, text[4]);
    if (!at || !*at) return Status::Invalid("move '" + std::string(text) + "': promotion must be one of n, b, r, q");
    promo = Knight + static_cast<int>(at - kPromotions);
  }
  if (from < 0 || to < 0 || text.size() > 5)
    return Status::Invalid("move '" + std::string(text) + "' is not long algebraic notation (e.g. e2e4, e7e8q)");
  MoveList legal;
  generate_legal(p, legal);
  for (Move m : legal)
    if (m.from() == from && m.to() == to && m.promo() == promo) {
      out = m;
      return Status::Ok();
    }
  return Status::Invalid("move '" + std::string(text) + "' is not legal in " + to_fen(p));
}

// ---- [SECTION] perft -----------------------------------------------------------------------------

std::uint64_t perft(Position& p, int depth) {
  if (depth <= 0) return 1;
  MoveList moves;
  generate_legal(p, moves);
  if (depth == 1) return static_cast<std::uint64_t>(moves.size);
  std::uint64_t n = 0;
  for (Move m : moves) {
    Undo u;
    make_move(p, m, u);
    n += perft(p, depth - 1);
    unmake_move(p, m, u);
  }
  return n;
}

std::vector<std::pair<Move, std::uint64_t>> perft_divide(const Position& p, int depth, ThreadPool& pool) {
  MoveList moves;
  generate_legal(p, moves);
  std::vector<std::pair<Move, std::uint64_t>> out(static_cast<std::size_t>(moves.size));
  pool.parallel_for(out.size(), [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; ++i) {
      Position q = p;
      Undo u;
      const Move m = moves.moves[i];
      make_move(q, m, u);
      out[i] = {m, perft(q, depth - 1)};
    }
  });
  return out;
}

std::uint64_t perft_parallel(const Position& p, int depth, ThreadPool& pool) {
  if (depth <= 1) {
    Position q = p;
    return perft(q, depth);
  }
  std::uint64_t n = 0;
  for (const auto& [m, c] : perft_divide(p, depth, pool)) n += c;
  return n;
}

}  // namespace warpmind::search::chess
