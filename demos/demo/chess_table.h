// warpmind::demos::ChessTable — a chess game to play in the demo: the position and its history, the
// players (a person or the computer on each side), the clicks that make moves, and the computer's
// search running on its own thread. No rendering and no window: the scene draws what draw() gives
// and forwards clicks, so the tests play whole games through the same input layer as a player.
//
// Clicks: a click on one of the side-to-move's pieces selects it (its legal targets are shown); a
// click on one of those targets plays the move — castling is the king's two-square move, en passant
// the pawn's diagonal step — and a promotion waits for promote(). Any other click changes nothing but
// the status line, which says why. The game ends by mate, stalemate, threefold repetition, the
// fifty-move rule or bare material (kings with at most one minor piece); over() and status() say which.
//
// The computer: the engine's alpha-beta (Searcher) or the hybrid search (board_ai.h's AiSettings; at
// most 12 plies) on its own thread, started by update() when the computer is to move and collected by a
// later update(); thinking_info() reports its last completed depth.
//
// Clocks: with a time control (set_time_control) the side to move's clock runs; a move takes the time
// used and adds the increment; a side whose time runs out loses (over(), "... ran out of time"). The
// computer's budget is then time_budget() of its clock (search/time_budget.h) instead of its time per
// move. Between two computers with a pace, the next clock starts when the search does. Undo gives the
// clocks back their times at the start of the turns taken back.
//
// Evaluations: evaluations()[k] is the score after move k from White's view, in centipawns: the
// computer's search score for its moves, the value before for a person's (0 at the start).
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
#include "warpmind/core/geometry.h"
#include "warpmind/core/status.h"
#include "warpmind/engine/renderer.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::demos {

// What a board scene hands the renderer (world units: the board's squares are 1 x 1, a1 / A1 at the
// origin, y up).
struct BoardPicture {
  WorldRect area;                           // the board with its coordinate margin
  std::vector<engine::LineVertex> fills;    // squares, highlights (triangles)
  std::vector<engine::UnitInstance> discs;  // pieces, stones
  std::vector<engine::LineVertex> lines;    // letters, coordinates, arrows (segments)
  void clear() {
    fills.clear();
    discs.clear();
    lines.clear();
  }
  void quad(float x0, float y0, float x1, float y1, std::uint32_t rgba);
  void segment(float x0, float y0, float x1, float y1, std::uint32_t rgba);
  void arrow(float x0, float y0, float x1, float y1, std::uint32_t rgba);
};

struct ChessAi : AiSettings {
  int depth = 64;  // plies (the hybrid search: at most 12)
};

struct ChessThinking : Thinking {  // scores in centipawns
  std::vector<search::chess::Move> pv;
};

class ChessTable {
 public:
  ChessTable();
  ~ChessTable();

  // A new game from `fen` (empty: the start) after `uci_moves` ("e2e4 e7e5 ..."). On error nothing
  // changes and the status says why.
  Status start(std::string_view fen, std::string_view uci_moves);

  // The input layer. square: 0..63 (a1 = 0, h8 = 63), or -1 for a click off the board.
  void click(int square);
  // The piece a pending promotion becomes (Queen, Rook, Bishop, Knight); ignored when none is pending.
  void promote(search::chess::PieceType piece);
  bool undo();  // takes back the last move (both moves when the computer plays the other side)
  bool redo();
  void set_player(search::chess::Color side, Player p);
  Player player(search::chess::Color side) const { return players_[side]; }
  ChessAi& ai() { return ai_; }
  // Applies at once: both clocks get the base time (the side to move's starts unless the game is over).
  void set_time_control(TimeControl tc);
  GameClock& clock() { return clock_; }
  const GameClock& clock() const { return clock_; }

  // Starts the computer's search when it is to move, plays its move when the search is done.
  void update();
  // Blocks until the computer has played (or returns at once when it is not to move).
  void wait_for_computer();
  void move_now();  // the running search stops; its best move so far is played at the next update()

  const search::chess::Position& position() const { return position_; }
  std::string fen() const { return search::chess::to_fen(position_); }
  const std::vector<search::chess::Move>& moves() const { return moves_; }  // played so far, in UCI order
  std::string moves_text() const;                                           // "e2e4 e7e5 ..."
  // The game as PGN (search/pgn.h): tags White and Black (person or warpmind), Result from the end.
  std::string pgn() const;
  Status load_pgn(std::string_view text);  // the first game of the text; errors change nothing
  int selected() const { return selected_; }
  std::vector<int> targets() const;  // the selected piece's legal targets
  bool promotion_pending() const { return pending_ >= 0; }
  bool thinking() const { return thread_.joinable(); }
  ChessThinking thinking_info() const;
  const std::vector<int>& evaluations() const { return evals_; }
  bool over() const { return !end_.empty(); }
  const std::string& status() const { return status_; }
  const std::string& end_reason() const { return end_; }

  // The board, `flipped`: Black at the bottom.
  void draw(BoardPicture& out, bool flipped) const;
  // The square under a world point, or -1.
  static int square_at(Vec2 p, bool flipped);

 private:
  void play(search::chess::Move m, const int* white_eval = nullptr);
  void settle();  // after a move or a take-back: game over?, status; the clock that runs
  void stop_thinking();
  void think(const search::chess::Position& root, const std::vector<std::uint64_t>& history, const ChessAi& ai,
             std::int64_t time_ms);
  void think_hybrid(const search::chess::Position& root, const ChessAi& ai, std::int64_t time_ms);
  bool paced() const;  // both sides are the computer and the pace has not passed since the last move
  std::vector<std::uint64_t> history_keys() const;

  search::chess::Position position_;
  std::vector<search::chess::Position> before_;  // the position before each move played
  std::vector<search::chess::Move> moves_, redo_;
  std::vector<GameClock::Snapshot> clocks_before_;  // the clocks before each move played
  std::vector<int> evals_;
  GameClock clock_;
  std::chrono::steady_clock::time_point last_move_at_{};
  Player players_[2] = {Player::Person, Player::Computer};
  ChessAi ai_;
  int selected_ = -1, pending_ = -1;          // pending_: the promotion's target square
  std::string status_, end_, outcome_ = "*";  // outcome_: the PGN result
  // The computer's search.
  std::unique_ptr<search::chess::Searcher> searcher_;
  GpuBatchSlot<search::chess::GpuBatch> gpu_;  // used by the search thread only
  std::unique_ptr<ThreadPool> pool_;           // the hybrid's CPU batches; search thread only
  std::thread thread_;
  std::atomic<bool> done_{false}, stop_requested_{false};
  search::chess::SearchResult result_;
  mutable std::mutex report_mutex_;
  ChessThinking report_;
};

}  // namespace warpmind::demos
