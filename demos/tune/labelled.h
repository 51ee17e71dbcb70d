// One line of labelled positions, `FEN;score;bestmove;result` (scripts/chess-label.py and
// scripts/chess-datagen.py write them): the reference engine's score in centipawns from the side to move's
// view, its best move and the game's result from White's view (1, 0.5 or 0).
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>

#include "warpmind/search/chess.h"

namespace warpmind::demos {

// True when the line parses and the position is quiet: not in check, the best move neither a capture nor
// a promotion, |score| <= max_score. Malformed and other lines give false.
inline bool parse_labelled(const std::string& line, double max_score, search::chess::Position& p, double& score,
                           double& result) {
  namespace sc = search::chess;
  const std::size_t a = line.find(';'), b = a == std::string::npos ? a : line.find(';', a + 1),
                    c = b == std::string::npos ? b : line.find(';', b + 1);
  sc::Move best;
  if (c == std::string::npos || !sc::parse_fen(line.substr(0, a), p).ok() ||
      !sc::parse_uci_move(p, line.substr(b + 1, c - b - 1), best).ok())
    return false;
  char* end = nullptr;
  score = std::strtod(line.c_str() + a + 1, &end);
  result = std::strtod(line.c_str() + c + 1, nullptr);
  return end == line.c_str() + b && !(best.flags() & (sc::Move::Capture | sc::Move::EnPassant)) &&
         best.promo() == sc::NoPiece && !p.in_check() && std::fabs(score) <= max_score &&
         (result == 0 || result == 0.5 || result == 1);
}

}  // namespace warpmind::demos
