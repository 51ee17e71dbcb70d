// Connect6 games for training, in a compact binary file (".wmg6"): every game from the empty board, each
// turn its stones and the labelling search's score, 6 bytes a turn. warpmind-datagen connect6 writes them
// and turns them into the trainer's records (connect6_records.h).
//
// The file (little-endian):
//   "WMG6" · uint32 version = 1 · uint32 n · n bytes of UTF-8 text (how the games were made; n ≤ 4096)
//   then games to the end of the file, each:
//     uint32 index · uint16 turns (1..361) · uint8 result (0: White won, 1: a draw, 2: Black won)
//     · uint8 random turns (the opening's, played without a search)
//     turns × { uint16 a · uint16 b (0xFFFF for the first turn's single stone) · int16 score }
//   a, b: cells 0..360 (connect6.h); score: the labelling search's score of the position before the turn
//   from the side to move's view, or kNoScore (-32768) where there is none (the random turns must have
//   none; a decided position — a six or a block forced — has none).
// decode() replays every game with Board::play and refuses the whole file on the first fault (a bad
// header, a truncated game, an illegal turn, a bad result, a random turn with a score, more random
// turns than turns), naming the game and turn; the output is unchanged then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "game_file.h"
#include "warpmind/core/status.h"
#include "warpmind/search/connect6.h"

namespace warpmind::train {

struct Connect6TurnRecord {
  search::connect6::Turn turn;
  std::int16_t score = kNoScore;
};

struct Connect6GameRecord {
  std::uint32_t index = 0;
  int result = 1;  // 0: White won, 1: a draw, 2: Black won
  int random_turns = 0;
  std::vector<Connect6TurnRecord> turns;
};

std::vector<std::uint8_t> connect6_games_header(const std::string& info);
void append_game(const Connect6GameRecord& game, std::vector<std::uint8_t>& out);
Status decode_connect6_games(const std::uint8_t* data, std::size_t size, std::string& info,
                             std::vector<Connect6GameRecord>& games);
Status read_connect6_games(const std::string& path, std::string& info, std::vector<Connect6GameRecord>& games);

}  // namespace warpmind::train
