// The Connect6 game of the demo's connect6 scene (contract in connect6_table.h).
#include "connect6_table.h"

#include <algorithm>
#include <sstream>

#include "warpmind/engine/stroke_text.h"
#include "warpmind/search/time_budget.h"

namespace warpmind::demos {

namespace c6 = search::connect6;

namespace {

std::uint32_t rgba(int r, int g, int b, int a = 255) {
  return static_cast<std::uint32_t>(r) | (static_cast<std::uint32_t>(g) << 8) | (static_cast<std::uint32_t>(b) << 16) |
         (static_cast<std::uint32_t>(a) << 24);
}
const char* stone_name(c6::Stone s) { return s == c6::BlackStone ? "Black" : "White"; }
int side_index(c6::Stone s) { return s == c6::BlackStone ? 0 : 1; }

}  // namespace

Connect6Table::Connect6Table() { (void)start(""); }
Connect6Table::~Connect6Table() { stop_thinking(); }

Status Connect6Table::start(std::string_view text) {
  c6::Board b;
  std::vector<c6::Turn> turns;
  std::istringstream in{std::string(text)};
  for (std::string word; in >> word;) {
    c6::Turn t;
    Status st = c6::parse_turn(word, t);
    if (st.ok()) st = b.play(t);
    if (!st.ok()) {
      status_ = "turn " + std::to_string(turns.size() + 1) + " '" + word + "': " + st.message();
      return Status::Invalid(status_);
    }
    turns.push_back(t);
  }
  return reset_to(b, std::move(turns));
}

Status Connect6Table::reset_to(c6::Board b, std::vector<c6::Turn> turns) {
  stop_thinking();
  board_ = b;
  turns_ = std::move(turns);
  redo_.clear();
  evals_.assign(turns_.size(), 0);
  clock_.reset(clock_.control());
  clocks_before_.assign(turns_.size(), clock_.snapshot());
  last_move_at_ = {};
  pending_ = -1;
  settle();
  return Status::Ok();
}

void Connect6Table::set_time_control(TimeControl tc) {
  clock_.reset(tc);
  clocks_before_.assign(turns_.size(), clock_.snapshot());
  settle();
}

std::string Connect6Table::record() const {
  c6::Record r;
  const auto who = [&](int side) { return players_[side] == Player::Computer ? "warpmind" : "person"; };
  r.tags = {{"Black", who(0)}, {"White", who(1)}};
  r.turns = turns_;
  r.result = board_.winner() == c6::BlackStone   ? "black"
             : board_.winner() == c6::WhiteStone ? "white"
             : board_.full()                     ? "draw"
             : !end_.empty()                     ? (side_index(board_.to_move()) == 0 ? "white" : "black")  // on time
                                                 : "*";
  std::string text;
  (void)c6::write_record(r, text);  // the turns were played by the rules: cannot fail
  return text;
}

Status Connect6Table::load_record(std::string_view text) {
  c6::Record r;
  const Status st = c6::read_record(text, r);
  if (!st.ok()) {
    status_ = "record: " + st.message();
    return Status::Invalid(status_);
  }
  c6::Board b;
  for (const c6::Turn& t : r.turns) (void)b.play(t);  // checked by read_record
  return reset_to(b, std::move(r.turns));
}

std::string Connect6Table::turns_text() const {
  std::string s;
  for (const c6::Turn& t : turns_) {
    if (!s.empty()) s += ' ';
    s += c6::turn_name(t, c6::Notation::Letters);
  }
  return s;
}

void Connect6Table::click(int cell) {
  const c6::Stone side = board_.to_move();
  if (over()) {
    settle();
    status_ += "; no more turns";
    return;
  }
  if (players_[side_index(side)] == Player::Computer) {
    status_ = std::string("the computer plays ") + stone_name(side) + "; wait for its turn";
    return;
  }
  if (cell < 0 || cell >= c6::kCells) {
    status_ = "that click was off the board";
    return;
  }
  if (cell == pending_) {
    pending_ = -1;
    status_ = std::string(stone_name(side)) + " to move: the pending stone is taken back";
    return;
  }
  if (board_.at(cell) != c6::Empty) {
    status_ = c6::cell_name(cell, c6::Notation::Letters) + " is occupied";
    return;
  }
  if (board_.stones_this_turn() == 1) return play({cell, -1});
  if (pending_ < 0) {
    pending_ = cell;
    status_ = std::string(stone_name(side)) + ": " + c6::cell_name(cell, c6::Notation::Letters) +
              " placed, one more stone (click it again to take it back)";
    return;
  }
  play({pending_, cell});
}

void Connect6Table::play(const c6::Turn& t, const int* black_eval) {
  const int mover = side_index(board_.to_move());
  const GameClock::Snapshot before = clock_.snapshot();
  if (!board_.play(t).ok()) return;  // cannot happen: the cells were checked
  clocks_before_.push_back(before);
  evals_.push_back(black_eval ? *black_eval : evals_.empty() ? 0 : evals_.back());
  clock_.moved(mover);
  last_move_at_ = std::chrono::steady_clock::now();
  turns_.push_back(t);
  redo_.clear();
  pending_ = -1;
  settle();
}

bool Connect6Table::undo() {
  stop_thinking();
  if (pending_ >= 0) {
    pending_ = -1;
    settle();
    return true;
  }
  if (turns_.empty()) return false;
  const auto take_back = [&] {
    board_.undo(turns_.back());
    clock_.restore(clocks_before_.back());
    clocks_before_.pop_back();
    evals_.pop_back();
    redo_.push_back(turns_.back());
    turns_.pop_back();
  };
  take_back();
  const int side = side_index(board_.to_move());
  if (players_[side] == Player::Computer && players_[side ^ 1] == Player::Person && !turns_.empty()) take_back();
  settle();
  return true;
}

bool Connect6Table::redo() {
  stop_thinking();
  if (redo_.empty()) return false;
  std::vector<c6::Turn> rest = std::move(redo_);
  const c6::Turn t = rest.back();
  rest.pop_back();
  play(t);
  redo_ = std::move(rest);
  return true;
}

void Connect6Table::set_player(c6::Stone side, Player p) {
  if (players_[side_index(side)] == p) return;
  if (side == board_.to_move()) stop_thinking();
  players_[side_index(side)] = p;
  settle();
}

void Connect6Table::settle() {
  const c6::Stone side = board_.to_move();
  end_.clear();
  if (board_.winner() != c6::Empty)
    end_ = std::string("six in a row, ") + stone_name(board_.winner()) + " wins";
  else if (board_.full())
    end_ = "the board is full, a draw";
  else if (clock_.flagged(side_index(side)))
    end_ = std::string(stone_name(side)) + " ran out of time, " +
           stone_name(side == c6::BlackStone ? c6::WhiteStone : c6::BlackStone) + " wins";
  const bool both_computers = players_[0] == Player::Computer && players_[1] == Player::Computer;
  if (!end_.empty())
    clock_.stop();
  else if (!(both_computers && ai_.pace_ms > 0))
    clock_.start(side_index(side));
  if (!end_.empty())
    status_ = "game over: " + end_;
  else
    status_ = std::string(stone_name(side)) + " to move, " + std::to_string(board_.stones_this_turn()) +
              (board_.stones_this_turn() == 1 ? " stone" : " stones") +
              (players_[side_index(side)] == Player::Computer ? " (the computer)" : "");
}

void Connect6Table::update() {
  if (!over() && clock_.flagged(side_index(board_.to_move()))) {
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
    const int black = board_.to_move() == c6::BlackStone ? result_.score : -result_.score;
    if (!over() && result_.best.a >= 0 && board_.at(result_.best.a) == c6::Empty) play(result_.best, &black);
    return;
  }
  if (over() || players_[side_index(board_.to_move())] != Player::Computer || paced()) return;
  pending_ = -1;
  const int side = side_index(board_.to_move());
  clock_.start(side);
  const std::int64_t time_ms =
      clock_.control().on() ? search::time_budget(clock_.left_ms(side), clock_.control().increment_ms) : ai_.time_ms;
  const c6::Board root = board_;
  done_ = false;
  interrupt_ = false;
  {
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_ = Connect6Thinking{};
    report_.active = true;
    report_.search = ai_.search;
  }
  thread_ = std::thread([this, root, ai = ai_, time_ms] {
    if (ai.search == AiSearch::Hybrid)
      think_hybrid(root, ai, time_ms);
    else
      think(root, ai, time_ms);
    done_ = true;
  });
  status_ += ", thinking";
}

bool Connect6Table::paced() const {
  if (players_[0] != Player::Computer || players_[1] != Player::Computer || ai_.pace_ms <= 0) return false;
  return std::chrono::steady_clock::now() - last_move_at_ < std::chrono::milliseconds(ai_.pace_ms);
}

void Connect6Table::think(const c6::Board& root, const Connect6Ai& ai, std::int64_t time_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  c6::SearchOptions o;
  o.depth = std::max(1, ai.depth);
  o.width = std::max(1, ai.width);
  o.time_ms = static_cast<int>(std::min<std::int64_t>(time_ms, 1 << 30));
  o.vcf_depth = ai.vcf_depth;
  o.threads = std::max(1, ai.threads);
  o.interrupt = &interrupt_;
  o.on_depth = [&](const c6::SearchOutcome& r) {
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_.depth = r.depth;
    report_.score = r.score;
    report_.nodes = r.nodes;
    report_.best = r.best;
    report_.time_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  };
  result_ = c6::search(root, o);
  std::lock_guard<std::mutex> lock(report_mutex_);
  report_.forced = result_.forced;
  report_.best = result_.best;
  report_.nodes = result_.nodes;
}

// The hybrid search over the same candidate turns (Connect6Game at the width).
void Connect6Table::think_hybrid(const c6::Board& root, const Connect6Ai& ai, std::int64_t time_ms) {
  const auto r = demos::think_hybrid(c6::Connect6Game{std::max(1, ai.width)}, root, ai, std::clamp(ai.depth, 1, 6),
                                     time_ms, interrupt_, gpu_, pool_, report_mutex_, report_, [&](const auto& res) {
                                       if (res.has_move) report_.best = res.best;
                                       return true;
                                     });
  result_ = c6::SearchOutcome{};
  result_.score = r.value;
  if (r.has_move) {
    result_.best = r.best;
  } else {  // stopped before depth 1 completed: the first candidate turn
    std::vector<c6::Turn> first;
    c6::candidate_turns(root, std::max(1, ai.width), first);
    if (!first.empty()) result_.best = first.front();
  }
}

void Connect6Table::wait_for_computer() {
  update();
  if (thread_.joinable()) {
    while (!done_.load()) std::this_thread::yield();
    update();
  }
}

void Connect6Table::move_now() {
  if (thread_.joinable()) interrupt_ = true;
}

void Connect6Table::stop_thinking() {
  if (!thread_.joinable()) return;
  interrupt_ = true;
  thread_.join();
  std::lock_guard<std::mutex> lock(report_mutex_);
  report_.active = false;
}

Connect6Thinking Connect6Table::thinking_info() const {
  std::lock_guard<std::mutex> lock(report_mutex_);
  return report_;
}

int Connect6Table::cell_at(Vec2 p) {
  if (!(p.x >= 0 && p.x < c6::kSize && p.y >= 0 && p.y < c6::kSize)) return -1;
  return static_cast<int>(p.y) * c6::kSize + static_cast<int>(p.x);
}

void Connect6Table::draw(BoardPicture& out) const {
  out.clear();
  const float n = static_cast<float>(c6::kSize);
  out.area = {-1.2f, -1.2f, n + 2.4f, n + 2.4f};
  out.quad(0, 0, n, n, rgba(214, 172, 104));
  for (int i = 0; i < c6::kSize; ++i) {
    const float c = static_cast<float>(i) + 0.5f;
    out.segment(0.5f, c, n - 0.5f, c, rgba(60, 40, 20));
    out.segment(c, 0.5f, c, n - 0.5f, rgba(60, 40, 20));
    const char letter[2] = {static_cast<char>('A' + i), 0};
    engine::stroke_text(letter, c - 0.2f, -0.85f, 0.55f, rgba(200, 200, 200), out.lines);
    engine::stroke_text(letter, -0.85f, c - 0.27f, 0.55f, rgba(200, 200, 200), out.lines);
  }
  for (int x : {3, 9, 15})  // the star points
    for (int y : {3, 9, 15}) out.quad(x + 0.42f, y + 0.42f, x + 0.58f, y + 0.58f, rgba(60, 40, 20));
  const c6::Turn last = turns_.empty() ? c6::Turn{} : turns_.back();
  for (int cell = 0; cell < c6::kCells; ++cell) {
    const c6::Stone s = board_.at(cell);
    if (s == c6::Empty) continue;
    const float x = static_cast<float>(cell % c6::kSize) + 0.5f, y = static_cast<float>(cell / c6::kSize) + 0.5f;
    out.discs.push_back(
        {x, y, 0.45f, s == c6::BlackStone ? rgba(30, 30, 34) : rgba(246, 244, 236), engine::UnitInstance::kNoFacing});
    if (cell == last.a || cell == last.b)  // the last turn's stones: a red mark
      out.discs.push_back({x, y, 0.13f, rgba(220, 50, 40), engine::UnitInstance::kNoFacing});
  }
  if (pending_ >= 0) {
    const float x = static_cast<float>(pending_ % c6::kSize) + 0.5f,
                y = static_cast<float>(pending_ / c6::kSize) + 0.5f;
    out.discs.push_back({x, y, 0.45f, board_.to_move() == c6::BlackStone ? rgba(100, 100, 110) : rgba(210, 210, 200),
                         engine::UnitInstance::kNoFacing});
  }
  // The running search's best turn so far: ghost stones with a ring.
  const Connect6Thinking th = thinking_info();
  if (th.active && th.depth > 0)
    for (int cell : {th.best.a, th.best.b}) {
      if (cell < 0 || board_.at(cell) != c6::Empty) continue;
      const float x = static_cast<float>(cell % c6::kSize) + 0.5f, y = static_cast<float>(cell / c6::kSize) + 0.5f;
      out.discs.push_back({x, y, 0.45f, rgba(60, 140, 230, 150), engine::UnitInstance::kNoFacing});
      out.discs.push_back({x, y, 0.2f,
                           board_.to_move() == c6::BlackStone ? rgba(30, 30, 34, 160) : rgba(246, 244, 236, 160),
                           engine::UnitInstance::kNoFacing});
    }
  const bool black = board_.to_move() == c6::BlackStone;
  out.discs.push_back({n + 0.6f, black ? 0.5f : n - 0.5f, 0.35f, black ? rgba(30, 30, 34) : rgba(246, 244, 236),
                       engine::UnitInstance::kNoFacing});
}

}  // namespace warpmind::demos
