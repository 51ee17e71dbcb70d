// warpmind::demos::Connect6Table — a Connect6 game to play in the demo, the twin of ChessTable: the
// board and its turns, the players, the clicks that place stones, the computer's search on its own
// thread. No rendering: the scene draws what draw() gives and forwards clicks.
//
// Clicks: Black's opening turn is one stone, every later turn two. The first click of a two-stone turn
// puts a pending stone (drawn lighter); a click on it takes it back; the second click on another empty
// cell plays the turn. Clicks on occupied cells or off the board change nothing but the status line,
// which says why. The game ends with six in a row (or more), a full board, or a clock run out.
//
// The computer, clocks, pace and evaluations as ChessTable's (board_ai.h): the game's alpha-beta
// (search/connect6.h, its vcf_depth, width and depth) or the hybrid search over the same candidate
// turns (at most 6 turns deep); thinking_info() reports the last completed depth, its best turn drawn as
// ghost stones. Evaluations are from Black's view, in the evaluation's units.
//
// Records: record() is the game as a Connect6 record (search/connect6.h), load_record() starts the
// game it holds (errors change nothing).
//
// Threads: as ChessTable — one calling thread; the search runs on its own, started and collected by
// update().
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "board_ai.h"
#include "chess_table.h"  // BoardPicture
#include "warpmind/core/status.h"
#include "warpmind/search/connect6.h"

namespace warpmind::demos {

struct Connect6Ai : AiSettings {
  int depth = 3;      // turns (the hybrid search: at most 6)
  int width = 16;     // candidate pairs per node
  int vcf_depth = 2;  // turns of threat-space search first (alpha-beta)
};

struct Connect6Thinking : Thinking {
  search::connect6::Turn best{};  // the last completed depth's turn (a = -1: none yet)
  bool forced = false;            // a win or a forced block, found without a search
};

class Connect6Table {
 public:
  Connect6Table();
  ~Connect6Table();

  // A new game after `turns` ("JJ KJKK ..." or "K10 L10L11 ...", either notation). On error nothing
  // changes and the status says why.
  Status start(std::string_view turns);

  // The input layer: a cell 0..360 (column + 19 * row from the bottom left), or -1 off the board.
  void click(int cell);
  bool undo();  // the pending stone, else the last turn (both turns against the computer)
  bool redo();
  void set_player(search::connect6::Stone side, Player p);
  Player player(search::connect6::Stone side) const { return players_[side == search::connect6::BlackStone ? 0 : 1]; }
  Connect6Ai& ai() { return ai_; }
  void set_time_control(TimeControl tc);  // as ChessTable's
  GameClock& clock() { return clock_; }
  const GameClock& clock() const { return clock_; }

  void update();             // starts the computer's search when it is to move, plays its turn when done
  void wait_for_computer();  // blocks until the computer has played (at once when it is not to move)
  void move_now();           // the running search stops; its best turn so far is played at the next update()

  const search::connect6::Board& board() const { return board_; }
  const std::vector<search::connect6::Turn>& turns() const { return turns_; }
  std::string turns_text() const;  // letters-only notation, "JJ KJKK ..."
  int pending() const { return pending_; }
  bool thinking() const { return thread_.joinable(); }
  Connect6Thinking thinking_info() const;
  const std::vector<int>& evaluations() const { return evals_; }
  bool over() const { return !end_.empty(); }
  const std::string& end_reason() const { return end_; }
  std::string record() const;  // tags Black and White (person or warpmind), Result
  Status load_record(std::string_view text);
  const std::string& status() const { return status_; }

  void draw(BoardPicture& out) const;
  static int cell_at(Vec2 p);  // the cell under a world point (cells are 1 x 1, A1 at the origin), or -1

 private:
  void play(const search::connect6::Turn& t, const int* black_eval = nullptr);
  void settle();
  void stop_thinking();
  Status reset_to(search::connect6::Board b, std::vector<search::connect6::Turn> turns);
  void think(const search::connect6::Board& root, const Connect6Ai& ai, std::int64_t time_ms);
  void think_hybrid(const search::connect6::Board& root, const Connect6Ai& ai, std::int64_t time_ms);
  bool paced() const;

  search::connect6::Board board_;
  std::vector<search::connect6::Turn> turns_, redo_;
  std::vector<GameClock::Snapshot> clocks_before_;
  std::vector<int> evals_;
  GameClock clock_;
  std::chrono::steady_clock::time_point last_move_at_{};
  Player players_[2] = {Player::Person, Player::Computer};  // Black, White
  Connect6Ai ai_;
  int pending_ = -1;
  std::string status_, end_;
  std::thread thread_;
  std::atomic<bool> done_{false}, interrupt_{false};
  search::connect6::SearchOutcome result_;
  mutable std::mutex report_mutex_;
  Connect6Thinking report_;
  GpuBatchSlot<search::connect6::GpuBatch> gpu_;  // search thread only
  std::unique_ptr<ThreadPool> pool_;              // search thread only
};

}  // namespace warpmind::demos
