// warpmind::demos::BoardTable<P> — what a board game of the demo is, whatever the game: the position and
// the moves that led to it (taken back and played again by undo and redo), the two players (a person or
// the computer on each side), the clocks, the evaluations after every move, and the computer's search on
// its own thread. ChessTable and Connect6Table are this over their games; each adds its input layer
// (clicks), its records and its drawing, and answers the hooks below.
//
// P, the game as the table plays it:
//   using Game = ...;   // the hybrid search's game (search/hybrid.h)
//   using State = Game::State;  using Move = Game::Move;
//   using Ai = ...;     // AiSettings and the game's own settings
//   using Thinking = ...;  // Thinking and what the game's search adds
//   static int side(const State&);          // the side to move: 0 moves first (White, Black), 1 second
//   static void apply(State&, const Move&); // a legal move played
//
// The computer: when it is to move, update() starts search() on a thread of its own and a later update()
// plays the move it found; move_now() asks the search to stop now (its best move so far is played), and
// anything that changes the game first stops the search and forgets it. With a time control the side to
// move's clock runs; a move takes the time used and adds the increment; the computer's budget is
// time_budget() of its clock (search/time_budget.h) instead of its time per move. Between two computers
// with a pace, the next clock starts when the search does. Undo gives the clocks back their times at the
// start of the turns taken back; against the computer it takes back to the person's turn.
//
// Evaluations: evaluations()[k] is the score after move k from side 0's view, in the game's units: the
// computer's search score for its moves, the value before for a person's (0 at the start).
//
// Threads: every call is from one thread (the render loop). A derived class's destructor must call
// stop_thinking() (the search's thread runs its hooks).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "board_ai.h"
#include "warpmind/core/status.h"
#include "warpmind/search/gpu_batch.h"
#include "warpmind/search/time_budget.h"

namespace warpmind::demos {

template <class P>
class BoardTable {
 public:
  using Game = typename P::Game;
  using State = typename P::State;
  using Move = typename P::Move;
  using Ai = typename P::Ai;
  using Thinking = typename P::Thinking;

  BoardTable() = default;
  BoardTable(const BoardTable&) = delete;
  BoardTable& operator=(const BoardTable&) = delete;
  virtual ~BoardTable() = default;

  bool undo();  // takes back the last move (both moves when the computer plays the other side)
  bool redo();
  void set_player(int side, Player p);
  Player player(int side) const { return players_[side]; }
  Ai& ai() { return ai_; }
  // Applies at once: both clocks get the base time (the side to move's starts unless the game is over).
  void set_time_control(TimeControl tc);
  GameClock& clock() { return clock_; }
  const GameClock& clock() const { return clock_; }

  // Starts the computer's search when it is to move, plays its move when the search is done.
  void update();
  // Blocks until the computer has played (or returns at once when it is not to move).
  void wait_for_computer();
  void move_now();  // the running search stops; its best move so far is played at the next update()

  const std::vector<Move>& moves() const { return moves_; }  // played so far
  bool thinking() const { return thread_.joinable(); }
  Thinking thinking_info() const {
    std::lock_guard<std::mutex> lock(report_mutex_);
    return report_;
  }
  const std::vector<int>& evaluations() const { return evals_; }
  bool over() const { return !end_.empty(); }
  const std::string& status() const { return status_; }
  const std::string& end_reason() const { return end_; }

 protected:
  struct Outcome {
    bool has_move = false;
    Move best{};
    int score = 0;  // from the side to move's view
  };

  // Pending clicks (a selected piece, a pending stone) are forgotten: a move was played or taken back.
  virtual void clear_input() = 0;
  // undo()'s first step, before any move: true when it took back something of the input (a pending stone).
  virtual bool take_back_input() { return false; }
  // Why the game is over ("" while it goes on); `flagged`: the side to move's clock has run out.
  virtual std::string game_end(bool flagged) = 0;
  // The status line while the game goes on (who is to move).
  virtual std::string to_move() const = 0;
  // On the calling thread, just before the search's thread starts (a copy of what the search needs).
  virtual void prepare_search() {}
  // On the search's thread: the computer's move from `root`; it reports into report_ under report_mutex_,
  // and stops early once stop_ is set.
  virtual Outcome search(const State& root, const Ai& ai, std::int64_t time_ms) = 0;
  // Besides stop_, what stops the running search (a searcher's own stop); any thread.
  virtual void interrupt() {}

  // A new game: `moves` (legal, checked by the caller) played from `start`.
  void reset_to(const State& start, const std::vector<Move>& moves);
  void play(const Move& m, const int* first_eval = nullptr);  // first_eval: the score from side 0's view
  void settle();  // after a move, a take-back or a change of players or clocks: over?, the clock, status
  void stop_thinking();
  bool paced() const;  // both sides are the computer and the pace has not passed since the last move
  // The hybrid search (board_ai.h's think_hybrid) on the table's GPU slot and pool, `depth` at most; its
  // best move when a depth completed (has_move false otherwise). on_depth(result) adds the game's report.
  template <class OnDepth>
  Outcome hybrid(const Game& game, const State& root, const Ai& ai, int depth, std::int64_t time_ms, OnDepth on_depth) {
    const auto r = think_hybrid(game, root, ai, depth, time_ms, stop_, gpu_, pool_, report_mutex_, report_, on_depth);
    return {r.has_move, r.best, r.value};
  }

  State state_{};
  std::vector<State> before_;  // the position before each move played
  std::vector<Move> moves_, redo_;
  Player players_[2] = {Player::Person, Player::Computer};
  Ai ai_;
  std::string status_, end_;
  std::atomic<bool> stop_{false};  // the running search is asked to stop
  mutable std::mutex report_mutex_;
  Thinking report_;

 private:
  std::vector<GameClock::Snapshot> clocks_before_;  // the clocks before each move played
  std::vector<int> evals_;
  GameClock clock_;
  std::chrono::steady_clock::time_point last_move_at_{};
  std::thread thread_;
  std::atomic<bool> done_{false};
  Outcome result_;
  GpuBatchSlot<search::GpuBatch<Game>> gpu_;  // the search's thread only
  std::unique_ptr<ThreadPool> pool_;          // the hybrid search's CPU batches; the search's thread only
};

template <class P>
void BoardTable<P>::reset_to(const State& start, const std::vector<Move>& moves) {
  stop_thinking();
  state_ = start;
  before_.clear();
  for (const Move& m : moves) {
    before_.push_back(state_);
    P::apply(state_, m);
  }
  moves_ = moves;
  redo_.clear();
  evals_.assign(moves_.size(), 0);
  clock_.reset(clock_.control());
  clocks_before_.assign(moves_.size(), clock_.snapshot());
  last_move_at_ = {};
  clear_input();
  settle();
}

template <class P>
void BoardTable<P>::set_time_control(TimeControl tc) {
  clock_.reset(tc);
  clocks_before_.assign(moves_.size(), clock_.snapshot());
  settle();
}

template <class P>
void BoardTable<P>::play(const Move& m, const int* first_eval) {
  const int mover = P::side(state_);
  clocks_before_.push_back(clock_.snapshot());
  before_.push_back(state_);
  P::apply(state_, m);
  moves_.push_back(m);
  evals_.push_back(first_eval ? *first_eval : evals_.empty() ? 0 : evals_.back());
  clock_.moved(mover);
  last_move_at_ = std::chrono::steady_clock::now();
  redo_.clear();
  clear_input();
  settle();
}

template <class P>
bool BoardTable<P>::undo() {
  stop_thinking();
  if (take_back_input()) {
    settle();
    return true;
  }
  if (moves_.empty()) return false;
  const auto take_back = [&] {
    state_ = before_.back();
    before_.pop_back();
    clock_.restore(clocks_before_.back());
    clocks_before_.pop_back();
    evals_.pop_back();
    redo_.push_back(moves_.back());
    moves_.pop_back();
  };
  take_back();
  const int side = P::side(state_);  // against the computer, back to the person's turn
  if (players_[side] == Player::Computer && players_[side ^ 1] == Player::Person && !moves_.empty()) take_back();
  clear_input();
  settle();
  return true;
}

template <class P>
bool BoardTable<P>::redo() {
  stop_thinking();
  if (redo_.empty()) return false;
  std::vector<Move> rest = std::move(redo_);
  const Move m = rest.back();
  rest.pop_back();
  play(m);
  redo_ = std::move(rest);
  return true;
}

template <class P>
void BoardTable<P>::set_player(int side, Player p) {
  if (players_[side] == p) return;
  if (side == P::side(state_)) stop_thinking();
  players_[side] = p;
  settle();
}

template <class P>
void BoardTable<P>::settle() {
  const int side = P::side(state_);
  end_ = game_end(clock_.flagged(side));
  const bool both_computers = players_[0] == Player::Computer && players_[1] == Player::Computer;
  if (!end_.empty())
    clock_.stop();
  else if (!(both_computers && ai_.pace_ms > 0))
    clock_.start(side);  // else when its search starts
  status_ = end_.empty() ? to_move() : "game over: " + end_;
}

template <class P>
void BoardTable<P>::update() {
  const int side = P::side(state_);
  if (!over() && clock_.flagged(side)) {  // time ran out (the search's is given up)
    stop_thinking();
    settle();
    return;
  }
  if (thread_.joinable()) {
    if (!done_.load()) return;
    thread_.join();
    {
      std::lock_guard<std::mutex> lock(report_mutex_);
      report_.active = false;
    }
    const int first = side == 0 ? result_.score : -result_.score;
    if (result_.has_move && !over()) play(result_.best, &first);
    return;
  }
  if (over() || players_[side] != Player::Computer || paced()) return;
  clear_input();
  clock_.start(side);
  const std::int64_t time_ms =
      clock_.control().on() ? search::time_budget(clock_.left_ms(side), clock_.control().increment_ms) : ai_.time_ms;
  done_ = false;
  stop_ = false;
  {
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_ = Thinking{};
    report_.active = true;
    report_.search = ai_.search;
  }
  prepare_search();
  thread_ = std::thread([this, root = state_, ai = ai_, time_ms] {
    result_ = search(root, ai, time_ms);
    done_ = true;
  });
  status_ += ", thinking";
}

template <class P>
bool BoardTable<P>::paced() const {
  if (players_[0] != Player::Computer || players_[1] != Player::Computer || ai_.pace_ms <= 0) return false;
  return std::chrono::steady_clock::now() - last_move_at_ < std::chrono::milliseconds(ai_.pace_ms);
}

template <class P>
void BoardTable<P>::wait_for_computer() {
  update();
  if (thread_.joinable()) {
    while (!done_.load()) std::this_thread::yield();
    update();
  }
}

template <class P>
void BoardTable<P>::move_now() {
  if (!thread_.joinable()) return;
  stop_ = true;
  interrupt();
}

template <class P>
void BoardTable<P>::stop_thinking() {
  if (!thread_.joinable()) return;
  stop_ = true;
  interrupt();
  thread_.join();
  std::lock_guard<std::mutex> lock(report_mutex_);
  report_.active = false;
}

}  // namespace warpmind::demos
