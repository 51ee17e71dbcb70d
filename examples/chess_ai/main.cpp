// A chess AI embedded through warpmind's C++ API: the engine plays both sides of a game from the start
// position (a fixed depth, so the game is the same every run) until mate, a draw by the fifty-move rule or
// 40 moves, printing the moves in UCI notation; then it finds the mate in one of Scholar's mate. Exits 1 if a move it
// returns is not legal or the mate is missed.
#include <cstdio>
#include <string>
#include <vector>

#include "warpmind/search/chess.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"

using namespace warpmind::search::chess;

namespace {

bool legal(const Position& p, Move m) {
  MoveList list;
  generate_legal(p, list);
  for (int i = 0; i < list.size; ++i)
    if (list.moves[i] == m) return true;
  return false;
}

}  // namespace

int main() {
  Searcher engine(16, 1);                  // a 16 MB table, one thread
  engine.set_network(Network::builtin());  // the learned evaluation warpmind-chess plays with
  Position p;
  if (!parse_fen(kStartFen, p).ok()) return 2;
  std::vector<std::uint64_t> history;  // keys of the positions played, for repetition draws
  SearchLimits limits;
  limits.depth = 5;
  std::string game;
  for (int ply = 0; ply < 80 && p.halfmove < 100; ++ply) {
    const SearchResult r = engine.search(p, history, limits);
    if (!r.has_move) break;  // mate or stalemate
    if (!legal(p, r.best)) return std::fprintf(stderr, "illegal move %s\n", move_to_uci(r.best).c_str()), 1;
    game += (ply % 2 == 0 ? std::to_string(ply / 2 + 1) + ". " : std::string()) + move_to_uci(r.best) + " ";
    history.push_back(p.key);
    Undo u;
    make_move(p, r.best, u);
  }
  std::printf("%s\n", game.c_str());

  // Scholar's mate: Qxf7 mates at once; the engine must find it and score it as mate.
  Position puzzle;
  if (!parse_fen("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", puzzle).ok()) return 2;
  limits.depth = 4;
  const SearchResult r = engine.search(puzzle, {}, limits);
  std::printf("puzzle: %s, score %d (mate in %d plies)\n", move_to_uci(r.best).c_str(), r.score, kMate - r.score);
  return r.has_move && move_to_uci(r.best) == "h5f7" && r.score > kMateBound ? 0 : 1;
}
