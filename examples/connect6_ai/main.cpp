// A Connect6 AI embedded through warpmind's C++ API: two settings of the engine play a game from the
// empty board (Black: depth 2 at width 16; White: depth 3), printing each turn, until one of them makes
// six in a row or 60 turns are played. Exits 1 if the engine proposes a turn the board rejects.
#include <cstdio>
#include <string>

#include "warpmind/search/connect6.h"

using namespace warpmind::search::connect6;

int main() {
  Board board;
  std::string record;
  int turns = 0;
  for (; turns < 60 && !board.over(); ++turns) {
    SearchOptions o;
    o.depth = board.to_move() == BlackStone ? 2 : 3;
    o.width = 16;
    const SearchOutcome r = search(board, o);
    if (!board.play(r.best).ok())
      return std::fprintf(stderr, "rejected turn %s\n", turn_name(r.best, Notation::Human).c_str()), 1;
    record += turn_name(r.best, Notation::Human) + " ";
  }
  std::printf("%s\n", record.c_str());
  const char* result = board.winner() == BlackStone   ? "black wins"
                       : board.winner() == WhiteStone ? "white wins"
                                                      : "no winner";
  std::printf("%d turns: %s\n", turns, result);
  return 0;
}
