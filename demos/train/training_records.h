// The chess trainer's records (train/chess/): one labelled position in 168 bytes, its network inputs
// computed here by the engine's own feature code (search/chess_network.h), so that the trainer and the
// engine cannot disagree on them. warpmind-datagen expand writes them from games (chess_games.h).
//
// A record (little-endian):
//    0  uint64 occupied      bit s: square s holds a piece (a1 = 0)
//    8  uint8  pieces[16]    the occupied squares' pieces in ascending square order, a nibble each (low
//                            nibble first): colour · 6 + type (Pawn 0 .. King 5)
//   24  int16  score         the label, centipawns from the side to move's view
//   26  uint8  result        the game's result for the side to move: 0 lost, 1 drawn, 2 won
//   27  uint8  side          the side to move: 0 White, 1 Black
//   28  uint8  king32[2]     Network::king32 of each perspective: [side to move's, the other's]
//   30  uint8  count         pieces on the board (2..32)
//   31  uint8  0
//   32  uint32 game          the game's index in its file
//   36  uint16 ply           the position's ply in its game
//   38  int16  classical     chess::evaluate(p), the classical evaluation from the side to move's view
//                            (what a residual network's output is added to)
//   40  uint16 features[2][32]  Network::feature of each piece (the nibbles' order) for each perspective
//                            ([side to move's, the other's]); 0xFFFF past `count`
// A network's input row for perspective k is king_bucket[king32[k]] · 768 + features[k][i].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chess_games.h"
#include "warpmind/core/status.h"
#include "warpmind/search/chess.h"

namespace warpmind::train {

constexpr std::size_t kRecordBytes = 168;

// Which positions of a game become records: not the random opening's, not before ply `min_ply`, not in
// check, not where the move played captures or promotes (not quiet), a score within ±max_score.
struct RecordFilter {
  int min_ply = 16;
  int max_score = 3000;
};

// Appends the records of `game` that pass the filter; returns how many.
int append_records(const ChessGameRecord& game, const RecordFilter& filter, std::vector<std::uint8_t>& out);
// The position a record holds (pieces and side to move; no castling or en passant), or an error for a
// malformed record.
Status record_position(const std::uint8_t* record, search::chess::Position& out);

}  // namespace warpmind::train
