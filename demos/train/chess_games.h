// Chess games for training, in a compact binary file (".wmg"): every game from the starting position,
// each ply its move and the labelling search's score, about 4 bytes a position. warpmind-datagen writes
// them (demos/train/datagen_main.cpp) and turns them into the trainer's records (training_records.h).
//
// The file (little-endian):
//   "WMGC" · uint32 version = 1 · uint32 n · n bytes of UTF-8 text (how the games were made; n ≤ 4096)
//   then games to the end of the file, each:
//     uint32 index (the game's number in its run: a run's games may be written in any order)
//     uint16 plies (1..1024) · uint8 result (0: Black won, 1: a draw, 2: White won) · uint8 random plies
//     plies × { uint16 move · int16 score }
//   move: from (bits 0-5, a1 = 0) | to (bits 6-11) | promotion (bits 12-14: 0 none, 1 knight, 2 bishop,
//   3 rook, 4 queen); bit 15 is 0. score: the labelling search's score of the position before the move,
//   in centipawns from the side to move's view, or kNoScore (-32768) where there is none (the opening's
//   random plies must have none; a mate score is stored as none).
// decode() replays every game and refuses the whole file on the first fault — a bad header, a truncated
// game, an illegal or malformed move, a bad result, a random ply with a score, more random plies than
// plies — with a Status naming the game and ply; the output is unchanged then. Nothing is checked about
// how a game ended (games are adjudicated).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "game_file.h"
#include "warpmind/core/status.h"
#include "warpmind/search/chess.h"

namespace warpmind::train {

constexpr int kMaxGamePlies = 1024;

struct ChessPly {
  search::chess::Move move;
  std::int16_t score = kNoScore;
};

struct ChessGameRecord {
  std::uint32_t index = 0;
  int result = 1;  // 0: Black won, 1: a draw, 2: White won
  int random_plies = 0;
  std::vector<ChessPly> plies;
};

// The file's header with its text; then append_game() for each game.
std::vector<std::uint8_t> chess_games_header(const std::string& info);
void append_game(const ChessGameRecord& game, std::vector<std::uint8_t>& out);

// A whole file's bytes: its text and its games (each replayed and checked); on error both are unchanged.
Status decode_chess_games(const std::uint8_t* data, std::size_t size, std::string& info,
                          std::vector<ChessGameRecord>& games);
Status read_chess_games(const std::string& path, std::string& info, std::vector<ChessGameRecord>& games);

}  // namespace warpmind::train
