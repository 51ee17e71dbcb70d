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
  reset_to(c6::Board{}, turns);
  return Status::Ok();
}

std::string Connect6Table::record() const {
  c6::Record r;
  const auto who = [&](int side) { return players_[side] == Player::Computer ? "warpmind" : "person"; };
  r.tags = {{"Black", who(0)}, {"White", who(1)}};
  r.turns = moves_;
  r.result = state_.winner() == c6::BlackStone   ? "black"
             : state_.winner() == c6::WhiteStone ? "white"
             : state_.full()                     ? "draw"
             : !end_.empty()                     ? (side_index(state_.to_move()) == 0 ? "white" : "black")  // on time
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
  reset_to(c6::Board{}, r.turns);  // the turns were checked by read_record
  return Status::Ok();
}

std::string Connect6Table::turns_text() const {
  std::string s;
  for (const c6::Turn& t : moves_) {
    if (!s.empty()) s += ' ';
    s += c6::turn_name(t, c6::Notation::Letters);
  }
  return s;
}

void Connect6Table::click(int cell) {
  const c6::Stone side = state_.to_move();
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
  if (state_.at(cell) != c6::Empty) {
    status_ = c6::cell_name(cell, c6::Notation::Letters) + " is occupied";
    return;
  }
  if (state_.stones_this_turn() == 1) return play({cell, -1});
  if (pending_ < 0) {
    pending_ = cell;
    status_ = std::string(stone_name(side)) + ": " + c6::cell_name(cell, c6::Notation::Letters) +
              " placed, one more stone (click it again to take it back)";
    return;
  }
  play({pending_, cell});
}

bool Connect6Table::take_back_input() {
  if (pending_ < 0) return false;
  pending_ = -1;
  return true;
}

std::string Connect6Table::game_end(bool flagged) {
  const c6::Stone side = state_.to_move();
  if (state_.winner() != c6::Empty) return std::string("six in a row, ") + stone_name(state_.winner()) + " wins";
  if (state_.full()) return "the board is full, a draw";
  if (flagged)
    return std::string(stone_name(side)) + " ran out of time, " +
           stone_name(side == c6::BlackStone ? c6::WhiteStone : c6::BlackStone) + " wins";
  return {};
}

std::string Connect6Table::to_move() const {
  const c6::Stone side = state_.to_move();
  return std::string(stone_name(side)) + " to move, " + std::to_string(state_.stones_this_turn()) +
         (state_.stones_this_turn() == 1 ? " stone" : " stones") +
         (players_[side_index(side)] == Player::Computer ? " (the computer)" : "");
}

// The game's alpha-beta, or the hybrid search over the same candidate turns (Connect6Game at the width).
Connect6Table::Outcome Connect6Table::search(const c6::Board& root, const Connect6Ai& ai, std::int64_t time_ms) {
  Outcome out;
  if (ai.search == AiSearch::Hybrid) {
    out = hybrid(c6::Connect6Game{std::max(1, ai.width)}, root, ai, std::clamp(ai.depth, 1, 6), time_ms,
                 [&](const auto& res) {
                   if (res.has_move) report_.best = res.best;
                   return true;
                 });
    if (!out.has_move) {  // stopped before depth 1 completed: the first candidate turn
      std::vector<c6::Turn> first;
      c6::candidate_turns(root, std::max(1, ai.width), first);
      out.has_move = !first.empty();
      if (out.has_move) out.best = first.front();
    }
    return out;
  }
  const auto t0 = std::chrono::steady_clock::now();
  c6::SearchOptions o;
  o.depth = std::max(1, ai.depth);
  o.width = std::max(1, ai.width);
  o.time_ms = static_cast<int>(std::min<std::int64_t>(time_ms, 1 << 30));
  o.vcf_depth = ai.vcf_depth;
  o.threads = std::max(1, ai.threads);
  o.interrupt = &stop_;
  o.on_depth = [&](const c6::SearchOutcome& r) {
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_.depth = r.depth;
    report_.score = r.score;
    report_.nodes = r.nodes;
    report_.best = r.best;
    report_.time_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  };
  const c6::SearchOutcome r = c6::search(root, o);
  {
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_.forced = r.forced;
    report_.best = r.best;
    report_.nodes = r.nodes;
  }
  return {r.best.a >= 0, r.best, r.score};
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
  const c6::Turn last = moves_.empty() ? c6::Turn{} : moves_.back();
  for (int cell = 0; cell < c6::kCells; ++cell) {
    const c6::Stone s = state_.at(cell);
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
    out.discs.push_back({x, y, 0.45f, state_.to_move() == c6::BlackStone ? rgba(100, 100, 110) : rgba(210, 210, 200),
                         engine::UnitInstance::kNoFacing});
  }
  // The running search's best turn so far: ghost stones with a ring.
  const Connect6Thinking th = thinking_info();
  if (th.active && th.depth > 0)
    for (int cell : {th.best.a, th.best.b}) {
      if (cell < 0 || state_.at(cell) != c6::Empty) continue;
      const float x = static_cast<float>(cell % c6::kSize) + 0.5f, y = static_cast<float>(cell / c6::kSize) + 0.5f;
      out.discs.push_back({x, y, 0.45f, rgba(60, 140, 230, 150), engine::UnitInstance::kNoFacing});
      out.discs.push_back({x, y, 0.2f,
                           state_.to_move() == c6::BlackStone ? rgba(30, 30, 34, 160) : rgba(246, 244, 236, 160),
                           engine::UnitInstance::kNoFacing});
    }
  const bool black = state_.to_move() == c6::BlackStone;
  out.discs.push_back({n + 0.6f, black ? 0.5f : n - 0.5f, 0.35f, black ? rgba(30, 30, 34) : rgba(246, 244, 236),
                       engine::UnitInstance::kNoFacing});
}

}  // namespace warpmind::demos
