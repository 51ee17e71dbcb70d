#include "connect6_records.h"

#include <cstdlib>
#include <cstring>

#include "game_file.h"

namespace warpmind::train {

namespace c6 = search::connect6;

std::vector<std::uint8_t> connect6_records_header() {
  std::vector<std::uint8_t> out = {'W', 'M', 'R', '6'};
  put32(out, 1);
  put32(out, static_cast<std::uint32_t>(c6::kWindows));
  for (int w = 0; w < c6::kWindows; ++w)
    for (int c : c6::window_cells(w)) put16(out, static_cast<std::uint16_t>(c));
  return out;
}

int append_records(const Connect6GameRecord& game, int max_score, std::uint32_t number,
                   std::vector<std::uint8_t>& out) {
  c6::Board b;
  int written = 0;
  for (std::size_t k = 0; k < game.turns.size(); ++k) {
    const Connect6TurnRecord& t = game.turns[k];
    const auto& w = b.windows();
    const bool threats = w[1][4] + w[1][5] + w[2][4] + w[2][5] + w[1][6] + w[2][6] > 0;
    if (static_cast<int>(k) >= game.random_turns && t.score != kNoScore && std::abs(t.score) <= max_score && !threats &&
        t.turn.b >= 0) {
      std::uint8_t r[kConnect6RecordBytes] = {};
      for (int c = 0; c < c6::kCells; ++c) r[c / 4] = static_cast<std::uint8_t>(r[c / 4] | b.at(c) << (2 * (c % 4)));
      const c6::Stone side = b.to_move();
      r[91] = static_cast<std::uint8_t>(side);
      r[92] = static_cast<std::uint8_t>(static_cast<std::uint16_t>(t.score));
      r[93] = static_cast<std::uint8_t>(static_cast<std::uint16_t>(t.score) >> 8);
      r[94] = static_cast<std::uint8_t>(side == c6::BlackStone ? game.result : 2 - game.result);
      r[96] = static_cast<std::uint8_t>(t.turn.a), r[97] = static_cast<std::uint8_t>(t.turn.a >> 8);
      r[98] = static_cast<std::uint8_t>(t.turn.b), r[99] = static_cast<std::uint8_t>(t.turn.b >> 8);
      for (int i = 0; i < 4; ++i) r[100 + i] = static_cast<std::uint8_t>(number >> (8 * i));
      r[104] = static_cast<std::uint8_t>(k), r[105] = static_cast<std::uint8_t>(k >> 8);
      r[106] = static_cast<std::uint8_t>(b.stones()), r[107] = static_cast<std::uint8_t>(b.stones() >> 8);
      out.insert(out.end(), r, r + kConnect6RecordBytes);
      ++written;
    }
    (void)b.play(t.turn);  // checked when the games were read
  }
  return written;
}

}  // namespace warpmind::train
