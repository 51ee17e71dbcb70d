#include "chess_games.h"

#include <cstring>

#include "game_file.h"
#include "output.h"

namespace warpmind::train {

namespace sc = search::chess;

namespace {

constexpr char kMagic[5] = "WMGC";
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kGameHeader = 8;  // index, plies, result, random plies

// Promotion piece <-> its 3-bit code (0: none).
std::uint16_t promo_code(int promo) {
  switch (promo) {
    case sc::Knight:
      return 1;
    case sc::Bishop:
      return 2;
    case sc::Rook:
      return 3;
    case sc::Queen:
      return 4;
    default:
      return 0;
  }
}

}  // namespace

std::vector<std::uint8_t> chess_games_header(const std::string& info) { return file_header(kMagic, kVersion, info); }

void append_game(const ChessGameRecord& game, std::vector<std::uint8_t>& out) {
  put32(out, game.index);
  put16(out, static_cast<std::uint16_t>(game.plies.size()));
  out.push_back(static_cast<std::uint8_t>(game.result));
  out.push_back(static_cast<std::uint8_t>(game.random_plies));
  for (const ChessPly& p : game.plies) {
    put16(out, static_cast<std::uint16_t>(p.move.from() | p.move.to() << 6 | promo_code(p.move.promo()) << 12));
    put16(out, static_cast<std::uint16_t>(p.score));
  }
}

Status decode_chess_games(const std::uint8_t* data, std::size_t size, std::string& info,
                          std::vector<ChessGameRecord>& games) {
  std::string text;
  std::size_t at = 0;
  WM_RETURN_IF_ERROR(read_header(data, size, kMagic, kVersion, "chess games", text, at));
  std::vector<ChessGameRecord> out;
  sc::Position start;
  (void)sc::parse_fen(sc::kStartFen, start);
  for (std::size_t g = 0; at < size; ++g) {
    const std::string where = "game " + std::to_string(g) + " (at byte " + std::to_string(at) + ")";
    if (size - at < kGameHeader) return Status::Invalid(where + ": truncated header");
    ChessGameRecord game;
    game.index = get32(data + at);
    const int plies = get16(data + at + 4);
    game.result = data[at + 6];
    game.random_plies = data[at + 7];
    at += kGameHeader;
    if (plies < 1 || plies > kMaxGamePlies)
      return Status::Invalid(where + ": " + std::to_string(plies) + " plies (expected 1.." +
                             std::to_string(kMaxGamePlies) + ")");
    if (game.result > 2) return Status::Invalid(where + ": result " + std::to_string(game.result) + " (expected 0..2)");
    if (game.random_plies > plies) return Status::Invalid(where + ": more random plies than plies");
    if (size - at < static_cast<std::size_t>(plies) * 4) return Status::Invalid(where + ": truncated moves");
    sc::Position p = start;
    game.plies.reserve(static_cast<std::size_t>(plies));
    for (int k = 0; k < plies; ++k, at += 4) {
      const std::uint16_t code = get16(data + at);
      const auto score = static_cast<std::int16_t>(get16(data + at + 2));
      const int from = code & 63, to = code >> 6 & 63, promo = code >> 12 & 7;
      if (code >> 15 || promo > 4)
        return Status::Invalid(where + ", ply " + std::to_string(k) + ": malformed move code " + std::to_string(code));
      if (k < game.random_plies && score != kNoScore)
        return Status::Invalid(where + ", ply " + std::to_string(k) + ": a random ply with a score");
      sc::MoveList legal;
      sc::generate_legal(p, legal);
      const int want = promo == 0 ? static_cast<int>(sc::NoPiece) : promo;  // codes 1..4 are Knight..Queen
      const sc::Move* found = nullptr;
      for (const sc::Move& m : legal)
        if (m.from() == from && m.to() == to && m.promo() == want) found = &m;
      if (!found) return Status::Invalid(where + ", ply " + std::to_string(k) + ": illegal move");
      game.plies.push_back({*found, score});
      sc::Undo u;
      sc::make_move(p, *found, u);
    }
    out.push_back(std::move(game));
  }
  info = std::move(text);
  games = std::move(out);
  return Status::Ok();
}

Status read_chess_games(const std::string& path, std::string& info, std::vector<ChessGameRecord>& games) {
  std::string bytes;
  if (const std::string err = demos::read_file(path, bytes, std::size_t{1} << 32); !err.empty())
    return Status::Invalid(err);
  return decode_chess_games(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), info, games)
      .context(path);
}

}  // namespace warpmind::train
