// The Connect6 trainer's records (train/warpmind_train/connect6_records.py): a labelled position in 128
// bytes, after a header that gives the board's windows as the engine numbers them, so that the trainer's
// window codes are the engine's. warpmind-datagen expand-connect6 writes them from games (connect6_games.h).
//
// The file (little-endian): "WMR6" · uint32 version = 1 · uint32 windows (924) · uint16 cells[924][6]
// (detail::window_cells(): each window's cells in its code's digit order), then the records:
//     0  uint8  board[91]   cell c in bits 2 (c % 4) .. 2 (c % 4) + 1 of byte c / 4: 0 empty, 1 black, 2 white
//    91  uint8  side        the side to move: 1 Black, 2 White
//    92  int16  score       the label from the side to move's view (the engine's search score)
//    94  uint8  result      the game's result for the side to move: 0 lost, 1 drawn, 2 won
//    95  uint8  0
//    96  uint16 best[2]     the labelling search's turn (0xFFFF for a one-stone turn's second stone)
//   100  uint32 game        the game's index in the expansion
//   104  uint16 turn        the position's turn in its game
//   106  uint16 stones      stones on the board
//   108  20 bytes of 0
#pragma once

#include <cstdint>
#include <vector>

#include "connect6_games.h"

namespace warpmind::train {

constexpr std::size_t kConnect6RecordBytes = 128;

// The records file's header (the windows' cells).
std::vector<std::uint8_t> connect6_records_header();
// Appends the records of `game`'s labelled positions that the window counts do not decide (no six, no
// four or five of either side: no win to complete and no block forced) and whose score lies within
// ±max_score; returns how many.
int append_records(const Connect6GameRecord& game, int max_score, std::uint32_t number, std::vector<std::uint8_t>& out);

}  // namespace warpmind::train
