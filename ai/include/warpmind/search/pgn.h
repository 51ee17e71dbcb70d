// warpmind::search::chess — standard algebraic notation (SAN) and PGN game records.
//
// SAN as PGN's standard defines it: piece letter (none for pawns), the from-square's file, else its
// rank, else both when another piece of the same kind could reach the same square, 'x' for captures
// (a pawn's capture starts with its file), the target, "=Q" for promotions, "O-O" and "O-O-O" for
// castling, "+" for check and "#" for mate.
//
// Reading is lenient where the intent is clear and strict where it is not: "0-0" for "O-O", missing or
// extra '+'/'#', annotation marks ("!", "?", "!?"...), a missing '=' ("e8Q") and a superfluous
// disambiguation are accepted; an ambiguous move ("Nd2" when two knights can go there), a promotion
// without its piece and an illegal move are errors that say which. A move in UCI's long algebraic
// notation ("e2e4", "e7e8q") is accepted where SAN does not parse.
//
// PGN: read_pgn reads the first game of a text — tag pairs [Name "value"] (a FEN tag sets the start;
// SetUp is not required), then the movetext: move numbers ("12.", "12..."), comments ({...}, and ';'
// to the end of the line), recursive variations ((...), skipped), NAGs ($n), lines starting with '%'
// (skipped) and the result ("1-0", "0-1", "1/2-1/2", "*"; without one, the Result tag's), which ends the game; the text's end or the
// next game's first tag also ends it. Every move is checked against the rules. Any error — a malformed
// tag, a bad FEN, an unterminated comment or variation, an illegal, ambiguous or unknown move — is
// reported with its line number and the game is not returned (`out` is unchanged).
// write_pgn writes the seven-tag roster first (Event, Site, Date, Round, White, Black, Result; "?" or
// "????.??.??" when not given), the other tags in their order, FEN and SetUp "1" when the game does not
// start from the standard position, then the moves in SAN (numbered, "N..." first when Black starts),
// lines of at most 80 characters, and the result.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warpmind/core/status.h"
#include "warpmind/search/chess.h"

namespace warpmind::search::chess {

// `m` must be legal in `p`.
std::string move_to_san(const Position& p, Move m);
// A legal move of `p` from SAN (or UCI); on error `out` is unchanged.
Status parse_san(const Position& p, std::string_view text, Move& out);

struct PgnGame {
  std::vector<std::pair<std::string, std::string>> tags;  // as read (the FEN tag included), or to write
  std::string fen;                                        // the start; empty: the standard position
  std::vector<Move> moves;
  std::string result = "*";  // "1-0", "0-1", "1/2-1/2" or "*"
};

Status read_pgn(std::string_view text, PgnGame& out);
// Errors (a bad FEN, a move that is not legal where it is played, a result other than the four) leave
// `out` unchanged.
Status write_pgn(const PgnGame& g, std::string& out);

}  // namespace warpmind::search::chess
