// warpmind::search::chess — the rules of chess: a bitboard position with complete legal move
// generation (castling, en passant, promotions, pins, checks), make/unmake, Zobrist keys, FEN in and out,
// moves in UCI's long algebraic notation, and perft (single- and multi-threaded).
//
// Squares are 0..63, a1 = 0, h1 = 7, a8 = 56. A Move packs from, to, promotion piece and flags in 32
// bits. Errors (a malformed FEN, an illegal or malformed move) are returned as Status saying what is
// wrong; the position is unchanged then. Nothing here allocates per node.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warpmind/core/status.h"
#include "warpmind/core/thread_pool.h"

namespace warpmind::search::chess {

enum Color : int { White = 0, Black = 1 };
enum PieceType : int { Pawn = 0, Knight, Bishop, Rook, Queen, King, NoPiece };

struct Move {
  std::uint32_t bits = 0;
  enum Flag : std::uint32_t { Capture = 1, DoublePush = 2, EnPassant = 4, Castle = 8 };
  static Move make(int from, int to, int promo = NoPiece, std::uint32_t flags = 0) {
    return {static_cast<std::uint32_t>(from) | static_cast<std::uint32_t>(to) << 6 |
            static_cast<std::uint32_t>(promo) << 12 | flags << 16};
  }
  int from() const { return static_cast<int>(bits & 63); }
  int to() const { return static_cast<int>(bits >> 6 & 63); }
  int promo() const { return static_cast<int>(bits >> 12 & 7); }
  std::uint32_t flags() const { return bits >> 16; }
  bool operator==(const Move&) const = default;
};

constexpr int kMaxMoves = 256;
struct MoveList {
  std::array<Move, kMaxMoves> moves;
  int size = 0;
  void push(Move m) { moves[static_cast<std::size_t>(size++)] = m; }
  const Move* begin() const { return moves.data(); }
  const Move* end() const { return moves.data() + size; }
};

// Castling rights bits.
enum : int { WhiteKingSide = 1, WhiteQueenSide = 2, BlackKingSide = 4, BlackQueenSide = 8 };

struct Position {
  std::uint64_t pieces[2][6] = {};  // by color and piece type
  std::uint64_t occupied[2] = {};
  std::int8_t board[64];  // piece type + 8 * color, or -1
  Color side = White;
  int castling = 0;
  int en_passant = -1;  // the square a pawn may capture onto, or -1
  int halfmove = 0, fullmove = 1;
  std::uint64_t key = 0;  // Zobrist

  Position();
  PieceType type_at(int sq) const { return board[sq] < 0 ? NoPiece : static_cast<PieceType>(board[sq] & 7); }
  Color color_at(int sq) const { return static_cast<Color>(board[sq] >> 3); }
  int king_square(Color c) const;
  bool in_check() const;
};

struct Undo {
  std::int8_t captured = -1;
  int castling = 0, en_passant = -1, halfmove = 0;
  std::uint64_t key = 0;
};

constexpr const char* kStartFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// Parses a FEN (6 fields; the last two may be omitted). On error `out` is unchanged.
Status parse_fen(std::string_view fen, Position& out);
std::string to_fen(const Position& p);

// True when square `sq` is attacked by a piece of color `by`.
bool attacked(const Position& p, int sq, Color by);
void generate_legal(const Position& p, MoveList& out);
void make_move(Position& p, Move m, Undo& u);
void unmake_move(Position& p, Move m, const Undo& u);
// Passes the turn (null-move pruning); the position must not be in check.
void make_null_move(Position& p, Undo& u);
void unmake_null_move(Position& p, const Undo& u);
std::uint64_t compute_key(const Position& p);  // from scratch (make_move keeps `key` incrementally)

std::string move_to_uci(Move m);  // e2e4, e7e8q, e1g1
// A legal move of `p` in UCI notation; errors say whether it is malformed or illegal.
Status parse_uci_move(const Position& p, std::string_view text, Move& out);

std::uint64_t perft(Position& p, int depth);
// The root moves split over the pool.
std::uint64_t perft_parallel(const Position& p, int depth, ThreadPool& pool);
// Per root move counts (UCI "go perft" style), in generation order.
std::vector<std::pair<Move, std::uint64_t>> perft_divide(const Position& p, int depth, ThreadPool& pool);

}  // namespace warpmind::search::chess
