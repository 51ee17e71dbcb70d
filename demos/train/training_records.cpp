#include "training_records.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::train {

namespace sc = search::chess;
using sc::Network;

namespace {

void put(std::uint8_t* at, std::uint64_t v, int bytes) {
  for (int b = 0; b < bytes; ++b) at[b] = static_cast<std::uint8_t>(v >> (8 * b));
}

void write_record(const sc::Position& p, int score, int result_white, std::uint32_t game, int ply, std::uint8_t* r) {
  std::memset(r, 0, kRecordBytes);
  std::memset(r + 40, 0xFF, 128);
  const std::uint64_t occ = p.occupied[sc::White] | p.occupied[sc::Black];
  put(r, occ, 8);
  put(r + 24, static_cast<std::uint16_t>(score), 2);
  const int result = p.side == sc::White ? result_white : 2 - result_white;
  r[26] = static_cast<std::uint8_t>(result);
  r[27] = static_cast<std::uint8_t>(p.side);
  const sc::Color persp[2] = {p.side, static_cast<sc::Color>(p.side ^ 1)};
  for (int k = 0; k < 2; ++k) r[28 + k] = static_cast<std::uint8_t>(Network::king32(persp[k], p.king_square(persp[k])));
  int n = 0;
  for (std::uint64_t b = occ; b; b &= b - 1, ++n) {
    const int sq = __builtin_ctzll(b);
    const int color = p.color_at(sq), type = p.type_at(sq);
    r[8 + n / 2] = static_cast<std::uint8_t>(r[8 + n / 2] | (color * 6 + type) << (n % 2 * 4));
    for (int k = 0; k < 2; ++k)
      put(r + 40 + k * 64 + n * 2,
          static_cast<std::uint64_t>(
              Network::feature(persp[k], p.king_square(persp[k]), static_cast<sc::Color>(color), type, sq)),
          2);
  }
  r[30] = static_cast<std::uint8_t>(n);
  put(r + 32, game, 4);
  put(r + 36, static_cast<std::uint64_t>(ply), 2);
  put(r + 38, static_cast<std::uint16_t>(std::clamp(sc::evaluate(p), -32000, 32000)), 2);
}

}  // namespace

int append_records(const ChessGameRecord& game, const RecordFilter& filter, std::vector<std::uint8_t>& out) {
  sc::Position p;
  (void)sc::parse_fen(sc::kStartFen, p);
  int written = 0;
  for (std::size_t k = 0; k < game.plies.size(); ++k) {
    const ChessPly& ply = game.plies[k];
    const bool quiet =
        !(ply.move.flags() & (sc::Move::Capture | sc::Move::EnPassant)) && ply.move.promo() == sc::NoPiece;
    if (static_cast<int>(k) >= game.random_plies && static_cast<int>(k) >= filter.min_ply && ply.score != kNoScore &&
        std::abs(ply.score) <= filter.max_score && quiet && !p.in_check()) {
      out.resize(out.size() + kRecordBytes);
      write_record(p, ply.score, game.result, game.index, static_cast<int>(k), out.data() + out.size() - kRecordBytes);
      ++written;
    }
    sc::Undo u;
    sc::make_move(p, ply.move, u);
  }
  return written;
}

Status record_position(const std::uint8_t* r, sc::Position& out) {
  std::uint64_t occ = 0;
  for (int b = 0; b < 8; ++b) occ |= static_cast<std::uint64_t>(r[b]) << (8 * b);
  const int count = __builtin_popcountll(occ);
  if (count != r[30] || count > 32 || r[27] > 1) return Status::Invalid("malformed training record");
  char board[64];
  std::memset(board, 0, sizeof board);
  int n = 0;
  for (std::uint64_t b = occ; b; b &= b - 1, ++n) {
    const int code = r[8 + n / 2] >> (n % 2 * 4) & 15;
    if (code > 11) return Status::Invalid("malformed training record (piece code " + std::to_string(code) + ")");
    board[__builtin_ctzll(b)] = "PNBRQKpnbrqk"[code];
  }
  std::string fen;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      const char c = board[rank * 8 + file];
      if (!c) {
        ++empty;
        continue;
      }
      if (empty) fen += static_cast<char>('0' + empty), empty = 0;
      fen += c;
    }
    if (empty) fen += static_cast<char>('0' + empty);
    if (rank) fen += '/';
  }
  fen += r[27] ? " b - - 0 1" : " w - - 0 1";
  return sc::parse_fen(fen, out);
}

}  // namespace warpmind::train
