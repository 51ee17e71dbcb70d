#include "connect6_games.h"

#include "game_file.h"
#include "output.h"

namespace warpmind::train {

namespace c6 = search::connect6;

namespace {
constexpr char kMagic[5] = "WMG6";
constexpr std::uint32_t kVersion = 1;
constexpr std::uint16_t kNone = 0xFFFF;
}  // namespace

std::vector<std::uint8_t> connect6_games_header(const std::string& info) { return file_header(kMagic, kVersion, info); }

void append_game(const Connect6GameRecord& game, std::vector<std::uint8_t>& out) {
  put32(out, game.index);
  put16(out, static_cast<std::uint16_t>(game.turns.size()));
  out.push_back(static_cast<std::uint8_t>(game.result));
  out.push_back(static_cast<std::uint8_t>(game.random_turns));
  for (const Connect6TurnRecord& t : game.turns) {
    put16(out, static_cast<std::uint16_t>(t.turn.a));
    put16(out, t.turn.b < 0 ? kNone : static_cast<std::uint16_t>(t.turn.b));
    put16(out, static_cast<std::uint16_t>(t.score));
  }
}

Status decode_connect6_games(const std::uint8_t* data, std::size_t size, std::string& info,
                             std::vector<Connect6GameRecord>& games) {
  std::string text;
  std::size_t at = 0;
  WM_RETURN_IF_ERROR(read_header(data, size, kMagic, kVersion, "Connect6 games", text, at));
  std::vector<Connect6GameRecord> out;
  for (std::size_t g = 0; at < size; ++g) {
    const std::string where = "game " + std::to_string(g) + " (at byte " + std::to_string(at) + ")";
    if (size - at < 8) return Status::Invalid(where + ": truncated header");
    Connect6GameRecord game;
    game.index = get32(data + at);
    const int turns = get16(data + at + 4);
    game.result = data[at + 6];
    game.random_turns = data[at + 7];
    at += 8;
    if (turns < 1 || turns > c6::kCells)
      return Status::Invalid(where + ": " + std::to_string(turns) + " turns (expected 1..361)");
    if (game.result > 2) return Status::Invalid(where + ": result " + std::to_string(game.result) + " (expected 0..2)");
    if (game.random_turns > turns) return Status::Invalid(where + ": more random turns than turns");
    if (size - at < static_cast<std::size_t>(turns) * 6) return Status::Invalid(where + ": truncated turns");
    c6::Board b;
    game.turns.reserve(static_cast<std::size_t>(turns));
    for (int k = 0; k < turns; ++k, at += 6) {
      const std::uint16_t a = get16(data + at), second = get16(data + at + 2);
      const auto score = static_cast<std::int16_t>(get16(data + at + 4));
      const std::string turn = where + ", turn " + std::to_string(k);
      if (k < game.random_turns && score != kNoScore) return Status::Invalid(turn + ": a random turn with a score");
      const c6::Turn t{a, second == kNone ? -1 : static_cast<int>(second)};
      if (a >= c6::kCells || (t.b >= c6::kCells)) return Status::Invalid(turn + ": a stone off the board");
      if (const Status s = b.play(t); !s.ok()) return Status::Invalid(turn + ": " + s.message());
      game.turns.push_back({t, score});
    }
    out.push_back(std::move(game));
  }
  info = std::move(text);
  games = std::move(out);
  return Status::Ok();
}

Status read_connect6_games(const std::string& path, std::string& info, std::vector<Connect6GameRecord>& games) {
  std::string bytes;
  if (const std::string err = demos::read_file(path, bytes, std::size_t{1} << 32); !err.empty())
    return Status::Invalid(err);
  return decode_connect6_games(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), info, games)
      .context(path);
}

}  // namespace warpmind::train
