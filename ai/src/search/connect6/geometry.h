// The Connect6 board's geometry and the window tests that the board, the search and the threat-space
// search share (board.cpp).
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "warpmind/search/connect6.h"

namespace warpmind::search::connect6::detail {

// The cells of every six-cell window; the windows through each cell.
const std::vector<std::array<int, 6>>& window_cells();
const std::vector<std::vector<int>>& windows_through();

// A window's owner and count: (colour, stones) when it holds one colour only, else (Empty, 0).
std::pair<Stone, int> owner(const Board& b, const std::array<int, 6>& w);

inline Stone other(Stone s) { return s == BlackStone ? WhiteStone : BlackStone; }

}  // namespace warpmind::search::connect6::detail
