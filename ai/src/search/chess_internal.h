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

}  // namespace warpmind::search::chess::detail
