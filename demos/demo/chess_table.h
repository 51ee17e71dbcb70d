// warpmind::demos::ChessTable — a chess game to play in the demo: BoardTable (board_table.h: the moves,
// players, clocks, evaluations and the computer's search on its own thread) over chess, with the clicks
// that make moves, PGN records and the drawing. No rendering and no window: the scene draws what draw()
// gives and forwards clicks, so the tests play whole games through the same input layer as a player.
//
// Clicks: a click on one of the side-to-move's pieces selects it (its legal targets are shown); a
// click on one of those targets plays the move — castling is the king's two-square move, en passant
// the pawn's diagonal step — and a promotion waits for promote(). Any other click changes nothing but
// the status line, which says why. The game ends by mate, stalemate, threefold repetition, the
// fifty-move rule, bare material (kings with at most one minor piece) or a clock run out (a draw when
// the other side cannot mate); over() and status() say which.
//
// The computer: the engine's alpha-beta (Searcher, with the built-in network, as warpmind-chess plays)
// or the hybrid search (board_ai.h's AiSettings; at most 12 plies); thinking_info() reports its last
// completed depth and principal variation. Sides are chess::White (0) and chess::Black (1); evaluations
// are from White's view, in centipawns.
//
// Threads: every call is from one thread (the render loop).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "board_ai.h"
#include "board_picture.h"
#include "board_table.h"
#include "warpmind/core/geometry.h"
#include "warpmind/core/status.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::demos {

struct ChessAi : AiSettings {
  int depth = 64;  // plies (the hybrid search: at most 12)
};

struct ChessThinking : Thinking {  // scores in centipawns
  std::vector<search::chess::Move> pv;
};

// Chess as the table plays it (board_table.h).
struct ChessPlay {
  using Game = search::chess::ChessGame;
  using State = search::chess::Position;
  using Move = search::chess::Move;
  using Ai = ChessAi;
  using Thinking = ChessThinking;
  static int side(const State& p) { return p.side; }
  static void apply(State& p, const Move& m) {
    search::chess::Undo u;
    search::chess::make_move(p, m, u);
  }
};

class ChessTable : public BoardTable<ChessPlay> {
 public:
  ChessTable();
  ~ChessTable() override;

  // A new game from `fen` (empty: the start) after `uci_moves` ("e2e4 e7e5 ..."). On error nothing
  // changes and the status says why.
  Status start(std::string_view fen, std::string_view uci_moves);

  // The input layer. square: 0..63 (a1 = 0, h8 = 63), or -1 for a click off the board.
  void click(int square);
  // The piece a pending promotion becomes (Queen, Rook, Bishop, Knight); ignored when none is pending.
  void promote(search::chess::PieceType piece);

  const search::chess::Position& position() const { return state_; }
  std::string fen() const { return search::chess::to_fen(state_); }
  std::string moves_text() const;  // "e2e4 e7e5 ...", the moves in UCI notation
  // The game as PGN (search/pgn.h): tags White and Black (person or warpmind), Result from the end.
  std::string pgn() const;
  Status load_pgn(std::string_view text);  // the first game of the text; errors change nothing
  int selected() const { return selected_; }
  std::vector<int> targets() const;  // the selected piece's legal targets
  bool promotion_pending() const { return pending_ >= 0; }

  // The board, `flipped`: Black at the bottom.
  void draw(BoardPicture& out, bool flipped) const;
  // The square under a world point, or -1.
  static int square_at(Vec2 p, bool flipped);

 private:
  void clear_input() override { selected_ = pending_ = -1; }
  std::string game_end(bool flagged) override;
  std::string to_move() const override;
  void prepare_search() override;
  Outcome search(const search::chess::Position& root, const ChessAi& ai, std::int64_t time_ms) override;
  void interrupt() override { searcher_->stop(); }

  int selected_ = -1, pending_ = -1;                   // pending_: the promotion's target square
  std::string outcome_ = "*";                          // the PGN result
  std::unique_ptr<search::chess::Searcher> searcher_;  // the alpha-beta; the search's thread only
  std::vector<std::uint64_t> history_;                 // the game's keys, for the search's repetitions
};

}  // namespace warpmind::demos
