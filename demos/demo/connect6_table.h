// warpmind::demos::Connect6Table — a Connect6 game to play in the demo: BoardTable (board_table.h: the
// turns, players, clocks, evaluations and the computer's search on its own thread) over Connect6, with
// the clicks that place stones, records and the drawing. No rendering: the scene draws what draw() gives
// and forwards clicks.
//
// Clicks: Black's opening turn is one stone, every later turn two. The first click of a two-stone turn
// puts a pending stone (drawn lighter); a click on it takes it back, and so does undo; the second click
// on another empty cell plays the turn. Clicks on occupied cells or off the board change nothing but the
// status line, which says why. The game ends with six in a row (or more), a full board, or a clock run
// out.
//
// The computer: the game's alpha-beta (search/connect6.h, its vcf_depth, width and depth) or the hybrid
// search over the same candidate turns (at most 6 turns deep); thinking_info() reports the last completed
// depth, its best turn drawn as ghost stones. Sides are 0 for Black (who opens) and 1 for White;
// evaluations are from Black's view, in the evaluation's units.
//
// Records: record() is the game as a Connect6 record (search/connect6.h), load_record() starts the
// game it holds (errors change nothing).
//
// Threads: every call is from one thread (the render loop).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "board_ai.h"
#include "board_table.h"
#include "board_picture.h"
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

// Connect6 as the table plays it (board_table.h).
struct Connect6Play {
  using Game = search::connect6::Connect6Game;
  using State = search::connect6::Board;
  using Move = search::connect6::Turn;
  using Ai = Connect6Ai;
  using Thinking = Connect6Thinking;
  static int side(const State& b) { return b.to_move() == search::connect6::BlackStone ? 0 : 1; }
  static void apply(State& b, const Move& t) { (void)b.play(t); }  // legal: checked by the caller
};

class Connect6Table : public BoardTable<Connect6Play> {
 public:
  Connect6Table();
  ~Connect6Table() override;

  // A new game after `turns` ("JJ KJKK ..." or "K10 L10L11 ...", either notation). On error nothing
  // changes and the status says why.
  Status start(std::string_view turns);

  // The input layer: a cell 0..360 (column + 19 * row from the bottom left), or -1 off the board.
  void click(int cell);
  using BoardTable::player;  // by side index, and by stone:
  using BoardTable::set_player;
  void set_player(search::connect6::Stone side, Player p) { BoardTable::set_player(index(side), p); }
  Player player(search::connect6::Stone side) const { return BoardTable::player(index(side)); }

  const search::connect6::Board& board() const { return state_; }
  const std::vector<search::connect6::Turn>& turns() const { return moves(); }
  std::string turns_text() const;  // letters-only notation, "JJ KJKK ..."
  int pending() const { return pending_; }
  std::string record() const;  // tags Black and White (person or warpmind), Result
  Status load_record(std::string_view text);

  void draw(BoardPicture& out) const;
  static int cell_at(Vec2 p);  // the cell under a world point (cells are 1 x 1, A1 at the origin), or -1

 private:
  static int index(search::connect6::Stone s) { return s == search::connect6::BlackStone ? 0 : 1; }
  void clear_input() override { pending_ = -1; }
  bool take_back_input() override;
  std::string game_end(bool flagged) override;
  std::string to_move() const override;
  Outcome search(const search::connect6::Board& root, const Connect6Ai& ai, std::int64_t time_ms) override;

  int pending_ = -1;
};

}  // namespace warpmind::demos
