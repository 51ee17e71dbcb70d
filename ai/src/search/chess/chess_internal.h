// Attack tables shared by the chess rules and evaluation (ai/src/search only).
#pragma once

#include <cstdint>

#include "warpmind/search/chess.h"

namespace warpmind::search::chess::detail {

std::uint64_t knight_attacks(int sq);
std::uint64_t king_attacks(int sq);
std::uint64_t pawn_attacks(Color c, int sq);
std::uint64_t rook_attacks(int sq, std::uint64_t occupied);
std::uint64_t bishop_attacks(int sq, std::uint64_t occupied);
// The moves of the side to move that obey the rules except that the own king may be left in check
// (the caller tests that after make_move); `tactical`: only captures and promotions (no castling).
void generate_pseudo(const Position& p, MoveList& out, bool tactical);

}  // namespace warpmind::search::chess::detail
