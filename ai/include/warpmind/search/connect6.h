// warpmind::search::connect6 — Connect6: rules, notation, the six-window evaluation and a CPU search.
//
// Rules: a 19 x 19 board; Black opens with one stone, then each side places two stones per turn; six or
// more in a row (horizontal, vertical, diagonal) wins — overlines included; a full board is a draw.
// Cells are 0..360, row-major from the bottom-left (column A, row 1).
//
// Notation: human — column letter skipping I (A..T) and row number, "K10" is the centre; letters-only —
// column and row letters A..S, "JJ" is the centre. A turn is two stones ("K10L11", "JJKK") or, for the
// opening, one ("K10", "JJ"). Bad records get an error saying what is wrong and change nothing.
//
// Evaluation: every six-cell window in the four directions that holds stones of one colour only counts
// for that colour by how many it holds (1..5; a 6 is a win); the score weighs the counts, from the side
// to move's point of view, with the windows that threaten to complete this turn (4 or 5 stones) weighed
// most, plus the side to move's named shapes on the board's lines (live and sleeping twos and threes;
// fours and fives are counted too). Integer and order-free, so a GPU port can match it; kept
// incrementally by place/undo.
//
// Search: forced turns first (win now; block every threat when the opponent threatens to win), then a
// threat-space search (VCF: a win through turns that each make a threat the opponent must block, against
// every blocking answer; with threat_depth, the deep VCF/VCT search and the defence against the
// opponent's), else alpha-beta over turns: candidate cells scored by the windows through them, the best
// pairs kept up to a width (the paper uses w = 48), iterative deepening under a depth and time limit.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/core/status.h"
#include "warpmind/search/gpu_batch.h"

namespace warpmind::search::connect6 {

constexpr int kSize = 19, kCells = kSize * kSize;
constexpr int kShapeKinds = 8, kLines = 92;  // named shapes; lines of six cells or more
constexpr int kWindows = 924;                // six-cell windows: 266 rows, 266 columns, 2 · 196 diagonals
enum Stone : std::uint8_t { Empty = 0, BlackStone = 1, WhiteStone = 2 };

struct Turn {
  int a = -1, b = -1;  // b == -1: a one-stone turn (Black's opening)
  bool operator==(const Turn&) const = default;
};

enum class Notation { Human, Letters };
std::string cell_name(int cell, Notation n);
std::string turn_name(const Turn& t, Notation n);
// Parses a turn in either notation (detected from the text).
Status parse_turn(std::string_view text, Turn& out);

// A game record, as text. Tag pairs first, as PGN writes them ([Black "name"], [White "name"],
// [Result "..."], any others kept in order), then the turns in order, in either notation, separated by
// white space; turn numbers ("12.") are skipped, ';' starts a comment to the end of the line, lines
// starting with '%' are skipped, and a result word ends the record: "black" or "white" (that side won),
// "draw", or "*" (unfinished; also what a record without a result gets). read_record checks every turn
// by playing it from the empty board: an unknown word, a malformed tag, an illegal turn (wrong stone
// count, an occupied cell, a turn after the game ended) is an error naming its line, and `out` is left
// unchanged. write_record writes the tags (Result last, from `result`), a blank line, one numbered turn
// per line in letters notation ("1. JJ", "2. KJKK"), then the result; it checks the same and fails
// without writing.
struct Record {
  std::vector<std::pair<std::string, std::string>> tags;
  std::vector<Turn> turns;
  std::string result = "*";
};
Status read_record(std::string_view text, Record& out);
Status write_record(const Record& r, std::string& out);

class Board {
 public:
  Board();
  Stone at(int cell) const { return static_cast<Stone>(cells_[static_cast<std::size_t>(cell)]); }
  Stone to_move() const { return to_move_; }
  int stones() const { return stones_; }
  int stones_this_turn() const { return stones_ == 0 ? 1 : 2; }  // how many the side to move places
  Stone winner() const { return winner_; }                       // Empty while nobody has six
  bool full() const { return stones_ == kCells; }
  bool over() const { return winner_ != Empty || full(); }

  // Checks a turn for the side to move (right number of stones, on empty cells, distinct, game not
  // over); plays it when it is legal. On error nothing changes.
  Status play(const Turn& t);
  // Puts a stone of `s` on an empty cell without turn bookkeeping (setting up a position); the side to
  // move becomes the other colour once the stone count says so.
  Status setup(Stone s, int cell);
  void undo(const Turn& t);  // the last played turn

  // Window counts: windows[c][k] = windows holding k stones of colour c (index 1 black, 2 white) and
  // none of the other, k = 1..6.
  const std::array<std::array<int, 7>, 3>& windows() const { return windows_; }
  // Shape counts: shapes[c][k] = groups of colour c on the board's lines that form named shape k (live
  // two, sleeping two, live three, sleeping three, live four, sleeping four, live five, sleeping five),
  // kept like the windows. A group is a run of a line's windows holding c's stones and none of the other
  // colour's; its size m the most stones one of them holds. A four or five is live when the defender
  // needs two stones to stop all its windows of four or more, sleeping when one does; a two or three is
  // live when 4 - m more stones can make it a live four, sleeping when they can make only a sleeping
  // four or nothing (docs/search.md, Named shapes).
  const std::array<std::array<int, kShapeKinds>, 3>& shapes() const { return shapes_; }
  std::uint64_t key() const { return key_; }
  // Window w's pattern from Black's view (0..728): Σ_i 3^i · cell i of the window (0 empty, 1 black,
  // 2 white), its cells in the order window_cells(w) lists them; kept like the counts.
  int window_code(int w) const { return codes_[static_cast<std::size_t>(w)]; }

  void place(int cell, Stone s);  // low level: updates windows, key, winner
  void remove(int cell);

 private:
  std::array<std::uint8_t, kCells> cells_{};
  std::array<std::array<int, 7>, 3> windows_{};
  std::array<std::array<int, kShapeKinds>, 3> shapes_{};
  std::array<std::array<std::uint8_t, 2 * kShapeKinds>, kLines> line_shapes_{};  // each line's share
  std::array<std::uint16_t, kWindows> codes_{};
  Stone to_move_ = BlackStone;
  Stone winner_ = Empty;
  int stones_ = 0;
  std::uint64_t key_ = 0;
  void window_delta(int cell, int sign);
  void recount_lines(int cell);  // the shapes of the lines through cell
  void set_side();
};

// Window w's six cells (w < kWindows), along its direction: rows, columns, diagonals, anti-diagonals.
const std::array<int, 6>& window_cells(int w);

// The windows of every cell recounted from scratch (the test's brute force).
std::array<std::array<int, 7>, 3> count_windows(const Board& b);
// The shapes of every line recounted from scratch.
std::array<std::array<int, kShapeKinds>, 3> count_shapes(const Board& b);

int evaluate(const Board& b);  // from the side to move's view

class Network;  // connect6_network.h

struct SearchOptions {
  int depth = 3;      // turns
  int width = 16;     // pairs kept per node (the paper's experiments use 48)
  int time_ms = 0;    // 0: no limit
  int vcf_depth = 2;  // turns of the short threat-space search run first (0: none; unused with threat_depth)
  // The deep threat-space search (off when 0, the library's default; warpmind-connect6 runs 12): threats
  // counted by the stones the defender needs to stop them (1, 2; 3 or more is a won double threat); VCF
  // (every attacking turn a threat), then VCT (also quiet turns that set up a double threat), up to
  // `threat_depth` attacking turns (1..32; more counts as 32, 0 or less is off), with its own
  // transposition table (Zobrist keys). Before the alpha-beta: a win of ours found is played at once
  // (forced, score 1,000,000, depth = its attacking turns; the first found — VCF by increasing depth,
  // then VCT — and at that depth the first in the threat search's order: double threats, then threats
  // needing two stones, then one, by cell scores, the lower cell first on ties); else a win of the
  // opponent's found (as if it moved now) restricts the root to every candidate turn — the usual ones
  // and pairs of the cells around its threats — after which it is no longer found; the alpha-beta
  // chooses among them as usual (one alone is played, forced); none: the usual turns. `threat_nodes`
  // (>= 1) bounds each threat search (a defence check gets an eighth); with `time_ms` the threat
  // searches end by about half of it. A search out of budget proves nothing: no win is claimed, a turn
  // it could not check is kept. Deterministic for a given position without time_ms. The defender's
  // free stones are tried near the threats only, so a win is proven against those answers.
  int threat_depth = 0;
  int threat_nodes = 200000;
  // Threats inside the alpha-beta (off when 0, the library's default): at every node below the root
  // with a turn or more left to search and no threat to block, a VCF search (every attacking turn a
  // threat; up to `tree_threat_depth` attacking turns, 1..32, more counts as 32) of at most
  // `tree_threat_nodes` (>= 1) nodes for the side to move, with a transposition table kept through the
  // search; a win found scores the node as won (kWin - 1, the mover's view) without searching its
  // turns. Out of budget it proves nothing and the node is searched as usual. Deterministic without
  // time_ms.
  int tree_threat_depth = 0;
  int tree_threat_nodes = 2000;
  int threads = 1;  // > 1: root splitting, every root turn searched exactly on some thread
  // The learned evaluation (connect6_network.h), or null for evaluate() and the window gains: its value at
  // the alpha-beta's leaves (after the same wins and losses evaluate() finds first) and its cell scores
  // for the candidate cells of the alpha-beta and the threat searches. Shared, not copied.
  std::shared_ptr<const Network> network;
  // When set and true (another thread sets it), the search stops soon and returns the best turn of the
  // last completed depth, as when its time runs out.
  const std::atomic<bool>* interrupt = nullptr;
  // When set: called on the searching thread after every completed depth with the outcome so far
  // (best turn, score, depth, nodes until then).
  std::function<void(const struct SearchOutcome&)> on_depth;
};
struct SearchOutcome {
  Turn best;
  int score = 0, depth = 0;
  std::uint64_t nodes = 0;
  bool forced = false;  // a win or a forced block, no search needed
};
// The side to move's turn; the game must not be over.
SearchOutcome search(const Board& b, const SearchOptions& o);

// The turns the search considers for the side to move, best first (a forced win or the blocks of every
// threat when there are any, else up to `width` pairs); empty when the game is over.
void candidate_turns(const Board& b, int width, std::vector<Turn>& out);

// The Connect6 game for the hybrid node-based search (search/hybrid.h).
struct Connect6Game {
  using State = Board;
  using Move = Turn;
  int width = 16;  // pairs per node, >= 1 (the GPU backend generates at most rules::kMaxTurns = 128)
  static int evaluate(const Board& b) { return connect6::evaluate(b); }
  void children(const Board& b, std::vector<Turn>& out) const {
    out.clear();
    if (!b.over()) candidate_turns(b, width, out);
  }
  static bool over(const Board& b) { return b.over(); }  // a six on the board, or a full board
  static int terminal(const Board& b, int ply);
  static Board apply(const Board& b, const Turn& t) {
    Board c = b;
    const Stone s = c.to_move();
    c.place(t.a, s);
    if (t.b >= 0) c.place(t.b, s);
    return c;
  }
};

// The hybrid search's batches on the GPU (search/gpu_batch.h): Connect6Game::children's turns at the
// backend's width, at most 128 (create() and set_game() refuse wider games).
using GpuBatch = search::GpuBatch<Connect6Game>;
using MinimaxResult = search::MinimaxResult<Turn>;

}  // namespace warpmind::search::connect6

// Compiled once in the library (ai/src/search/gpu_batch.cpp).
extern template class warpmind::search::GpuBatch<warpmind::search::connect6::Connect6Game>;
