// The Connect6 game of the demo's connect6 scene (contract in connect6_table.h).
#include "connect6_table.h"

#include <sstream>

#include "warpmind/engine/stroke_text.h"

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
  stop_thinking();
  board_ = b;
  turns_ = std::move(turns);
  redo_.clear();
  pending_ = -1;
  settle();
  return Status::Ok();
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

void Connect6Table::play(const c6::Turn& t) {
  if (!board_.play(t).ok()) return;  // cannot happen: the cells were checked
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
  if (board_.winner() != c6::Empty) status_ = std::string("game over: six in a row, ") + stone_name(board_.winner()) + " wins";
  else if (board_.full()) status_ = "game over: the board is full, a draw";
  else
    status_ = std::string(stone_name(side)) + " to move, " + std::to_string(board_.stones_this_turn()) +
              (board_.stones_this_turn() == 1 ? " stone" : " stones") +
              (players_[side_index(side)] == Player::Computer ? " (the computer)" : "");
}

void Connect6Table::update() {
  if (thread_.joinable()) {
    if (!done_.load()) return;
    thread_.join();
    if (!over() && board_.at(result_.best.a) == c6::Empty) play(result_.best);
    return;
  }
  if (over() || players_[side_index(board_.to_move())] != Player::Computer) return;
  pending_ = -1;
  c6::SearchOptions o;
  o.depth = std::max(1, ai_.depth);
  o.width = std::max(1, ai_.width);
  o.time_ms = ai_.time_ms;
  o.vcf_depth = ai_.vcf_depth;
  o.threads = std::max(1, ai_.threads);
  o.interrupt = &interrupt_;
  const c6::Board root = board_;
  done_ = false;
  interrupt_ = false;
  thread_ = std::thread([this, root, o] {
    result_ = c6::search(root, o);
    done_ = true;
  });
  status_ += ", thinking";
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
    out.discs.push_back({x, y, 0.45f, s == c6::BlackStone ? rgba(30, 30, 34) : rgba(246, 244, 236),
                         engine::UnitInstance::kNoFacing});
    if (cell == last.a || cell == last.b)  // the last turn's stones: a red mark
      out.discs.push_back({x, y, 0.13f, rgba(220, 50, 40), engine::UnitInstance::kNoFacing});
  }
  if (pending_ >= 0) {
    const float x = static_cast<float>(pending_ % c6::kSize) + 0.5f, y = static_cast<float>(pending_ / c6::kSize) + 0.5f;
    out.discs.push_back({x, y, 0.45f, board_.to_move() == c6::BlackStone ? rgba(100, 100, 110) : rgba(210, 210, 200),
                         engine::UnitInstance::kNoFacing});
  }
  const bool black = board_.to_move() == c6::BlackStone;
  out.discs.push_back({n + 0.6f, black ? 0.5f : n - 0.5f, 0.35f, black ? rgba(30, 30, 34) : rgba(246, 244, 236),
                       engine::UnitInstance::kNoFacing});
}

}  // namespace warpmind::demos
