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
// A window through a cell and the cell's place in it (0..5, window_cells()'s order).
struct Slot {
  int window, index;
};
const std::vector<std::vector<Slot>>& window_slots();
inline constexpr int kPow3[6] = {1, 3, 9, 27, 81, 243};

// A window's owner and count: (colour, stones) when it holds one colour only, else (Empty, 0).
std::pair<Stone, int> owner(const Board& b, const std::array<int, 6>& w);

inline Stone other(Stone s) { return s == BlackStone ? WhiteStone : BlackStone; }

// The positions evaluate() scores from the window counts alone (eval::decided): a six, a six completed
// this turn, threats that cannot all be blocked. True with `score` (the side to move's view) for those.
bool decided(const Board& b, int& score);

}  // namespace warpmind::search::connect6::detail
