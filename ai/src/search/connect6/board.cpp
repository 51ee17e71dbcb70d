// The Connect6 board (connect6.h): the six-cell windows and Zobrist keys, the notation, the board kept
// incrementally (windows, named shapes, key), and the evaluation.
#include "warpmind/search/connect6.h"

#include <algorithm>
#include <cctype>

#include "search/connect6/geometry.h"
#include "warpmind/core/random.h"
#include "search/connect6/connect6_eval.h"

namespace warpmind::search::connect6 {

// ---- [SECTION] windows and keys ------------------------------------------------------------------

namespace {

struct Tables {
  std::vector<std::array<int, 6>> windows;       // the cells of every six-cell window
  std::vector<std::vector<int>> of_cell;         // the windows through each cell
  std::vector<std::vector<detail::Slot>> slots;  // the same with the cell's place in each
  std::array<std::array<std::uint64_t, kCells>, 3> key{};
  std::vector<std::vector<int>> lines_of;  // the lines (of six cells or more) through each cell
  Tables() {
    of_cell.resize(kCells);
    slots.resize(kCells);
    lines_of.resize(kCells);
    for (int l = 0; l < kLines; ++l) {
      int x, y, dx, dy, n;
      eval::line_geometry(l, x, y, dx, dy, n);
      for (int i = 0; i < n; ++i) lines_of[static_cast<std::size_t>((y + i * dy) * kSize + x + i * dx)].push_back(l);
    }
    const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (const auto& d : dirs)
      for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
          const int ex = x + 5 * d[0], ey = y + 5 * d[1];
          if (ex < 0 || ex >= kSize || ey < 0 || ey >= kSize) continue;
          std::array<int, 6> w{};
          for (int k = 0; k < 6; ++k) w[static_cast<std::size_t>(k)] = (y + k * d[1]) * kSize + x + k * d[0];
          for (int k = 0; k < 6; ++k) {
            const std::size_t c = static_cast<std::size_t>(w[static_cast<std::size_t>(k)]);
            of_cell[c].push_back(static_cast<int>(windows.size()));
            slots[c].push_back({static_cast<int>(windows.size()), k});
          }
          windows.push_back(w);
        }
    SplitMix64 rng(0xC0117EC7ull);
    for (auto& side : key)
      for (auto& v : side) v = rng.next();
  }
};
const Tables& T() {
  static const Tables t;
  return t;
}

}  // namespace

const std::vector<std::array<int, 6>>& detail::window_cells() { return T().windows; }
const std::array<int, 6>& window_cells(int w) { return T().windows[static_cast<std::size_t>(w)]; }
const std::vector<std::vector<int>>& detail::windows_through() { return T().of_cell; }
const std::vector<std::vector<detail::Slot>>& detail::window_slots() { return T().slots; }

std::pair<Stone, int> detail::owner(const Board& b, const std::array<int, 6>& w) {
  int n[3] = {0, 0, 0};
  for (int c : w) ++n[b.at(c)];
  if (n[1] && !n[2]) return {BlackStone, n[1]};
  if (n[2] && !n[1]) return {WhiteStone, n[2]};
  return {Empty, 0};
}

using detail::other;
using detail::owner;

// ---- [SECTION] notation --------------------------------------------------------------------------

std::string cell_name(int cell, Notation n) {
  const int x = cell % kSize, y = cell / kSize;
  if (n == Notation::Letters) return {static_cast<char>('A' + x), static_cast<char>('A' + y)};
  std::string name(1, static_cast<char>('A' + x + (x >= 8 ? 1 : 0)));  // skips I
  name += std::to_string(y + 1);
  return name;
}

std::string turn_name(const Turn& t, Notation n) {
  return cell_name(t.a, n) + (t.b >= 0 ? cell_name(t.b, n) : std::string());
}

Status parse_turn(std::string_view text, Turn& out) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto bad = [&](const std::string& why) { return Status::Invalid("move '" + std::string(text) + "': " + why); };
  std::vector<int> cells;
  const bool letters = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  if (letters) {
    if (s.size() != 2 && s.size() != 4) return bad("letters-only moves have 2 letters (one stone) or 4 (two)");
    for (std::size_t i = 0; i < s.size(); i += 2) {
      if (s[i] > 'S' || s[i + 1] > 'S') return bad("letters run from A to S");
      cells.push_back((s[i + 1] - 'A') * kSize + (s[i] - 'A'));
    }
  } else {
    std::size_t i = 0;
    while (i < s.size()) {
      const char col = s[i++];
      if (col < 'A' || col > 'T' || col == 'I') return bad("a column is a letter A..T without I");
      std::size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j == i || j - i > 2) return bad("a column letter must be followed by a row number 1..19");
      const int row = std::stoi(s.substr(i, j - i));
      if (row < 1 || row > kSize) return bad("rows run from 1 to 19");
      cells.push_back((row - 1) * kSize + (col - 'A' - (col > 'I' ? 1 : 0)));
      i = j;
    }
    if (cells.empty() || cells.size() > 2) return bad("one or two stones");
  }
  out.a = cells[0];
  out.b = cells.size() > 1 ? cells[1] : -1;
  return Status::Ok();
}

// ---- [SECTION] the board -------------------------------------------------------------------------

Board::Board() {
  // Every window starts empty.
  (void)T();
}

void Board::window_delta(int cell, int sign) {
  const Tables& t = T();
  for (int w : t.of_cell[static_cast<std::size_t>(cell)]) {
    const auto [who, n] = owner(*this, t.windows[static_cast<std::size_t>(w)]);
    if (who != Empty) windows_[who][static_cast<std::size_t>(n)] += sign;
  }
}

namespace {
static_assert(kShapeKinds == eval::kShapeKinds && kLines == eval::kLines);

// Line l's shapes, by colour (1, 2) and shape.
void shapes_of_line(const std::array<std::uint8_t, kCells>& cells, int l, int (&out)[3][kShapeKinds]) {
  int x, y, dx, dy, n;
  eval::line_geometry(l, x, y, dx, dy, n);
  std::uint8_t v[eval::kMaxLineLength];
  for (int i = 0; i < n; ++i) v[i] = cells[static_cast<std::size_t>((y + i * dy) * kSize + x + i * dx)];
  for (auto& row : out)
    for (int& c : row) c = 0;
  eval::line_shapes(v, n, out);
}
}  // namespace

void Board::recount_lines(int cell) {
  for (int l : T().lines_of[static_cast<std::size_t>(cell)]) {
    auto& share = line_shapes_[static_cast<std::size_t>(l)];
    int now[3][kShapeKinds];
    shapes_of_line(cells_, l, now);
    for (int c = 1; c <= 2; ++c)
      for (int k = 0; k < kShapeKinds; ++k) {
        auto& old = share[static_cast<std::size_t>((c - 1) * kShapeKinds + k)];
        shapes_[static_cast<std::size_t>(c)][static_cast<std::size_t>(k)] += now[c][k] - old;
        old = static_cast<std::uint8_t>(now[c][k]);
      }
  }
}

std::array<std::array<int, kShapeKinds>, 3> count_shapes(const Board& b) {
  std::array<std::uint8_t, kCells> cells{};
  for (int c = 0; c < kCells; ++c) cells[static_cast<std::size_t>(c)] = b.at(c);
  std::array<std::array<int, kShapeKinds>, 3> total{};
  for (int l = 0; l < kLines; ++l) {
    int n[3][kShapeKinds];
    shapes_of_line(cells, l, n);
    for (int c = 1; c <= 2; ++c)
      for (int k = 0; k < kShapeKinds; ++k) total[static_cast<std::size_t>(c)][static_cast<std::size_t>(k)] += n[c][k];
  }
  return total;
}

void Board::set_side() {
  to_move_ = stones_ == 0 ? BlackStone : (((stones_ + 1) / 2) % 2 == 1 ? WhiteStone : BlackStone);
}

void Board::place(int cell, Stone s) {
  window_delta(cell, -1);
  cells_[static_cast<std::size_t>(cell)] = s;
  window_delta(cell, +1);
  for (const detail::Slot& slot : T().slots[static_cast<std::size_t>(cell)])
    codes_[static_cast<std::size_t>(slot.window)] =
        static_cast<std::uint16_t>(codes_[static_cast<std::size_t>(slot.window)] + detail::kPow3[slot.index] * s);
  recount_lines(cell);
  key_ ^= T().key[s][static_cast<std::size_t>(cell)];
  ++stones_;
  if (windows_[s][6] > 0) winner_ = s;
  set_side();
}

void Board::remove(int cell) {
  const Stone s = at(cell);
  window_delta(cell, -1);
  cells_[static_cast<std::size_t>(cell)] = Empty;
  window_delta(cell, +1);
  for (const detail::Slot& slot : T().slots[static_cast<std::size_t>(cell)])
    codes_[static_cast<std::size_t>(slot.window)] =
        static_cast<std::uint16_t>(codes_[static_cast<std::size_t>(slot.window)] - detail::kPow3[slot.index] * s);
  recount_lines(cell);
  key_ ^= T().key[s][static_cast<std::size_t>(cell)];
  --stones_;
  winner_ = windows_[BlackStone][6] > 0 ? BlackStone : (windows_[WhiteStone][6] > 0 ? WhiteStone : Empty);
  set_side();
}

Status Board::play(const Turn& t) {
  if (over()) return Status::Invalid("the game is over");
  const int need = stones_ == 0 ? 1 : std::min(2, kCells - stones_);
  const int given = t.b >= 0 ? 2 : 1;
  if (given != need)
    return Status::Invalid(std::string(to_move_ == BlackStone ? "Black" : "White") + " must place " +
                           std::to_string(need) + (need == 1 ? " stone" : " stones") + " this turn, not " +
                           std::to_string(given));
  for (int c : {t.a, t.b}) {
    if (c < 0 && c == t.b) continue;
    if (c < 0 || c >= kCells) return Status::Invalid("a stone off the board");
    if (at(c) != Empty) return Status::Invalid(cell_name(c, Notation::Human) + " is occupied");
  }
  if (t.a == t.b) return Status::Invalid("both stones on " + cell_name(t.a, Notation::Human));
  const Stone s = to_move_;
  place(t.a, s);
  if (t.b >= 0) place(t.b, s);
  return Status::Ok();
}

Status Board::setup(Stone s, int cell) {
  if (s == Empty || cell < 0 || cell >= kCells) return Status::Invalid("setup: a stone of a colour on the board");
  if (at(cell) != Empty) return Status::Invalid(cell_name(cell, Notation::Human) + " is occupied");
  place(cell, s);
  return Status::Ok();
}

void Board::undo(const Turn& t) {
  if (t.b >= 0) remove(t.b);
  remove(t.a);
}

std::array<std::array<int, 7>, 3> count_windows(const Board& b) {
  std::array<std::array<int, 7>, 3> n{};
  for (const auto& w : T().windows) {
    const auto [who, k] = owner(b, w);
    if (who != Empty) ++n[who][static_cast<std::size_t>(k)];
  }
  return n;
}

// ---- [SECTION] evaluation ------------------------------------------------------------------------

// The weights and the scoring are ai/src/search/connect6/connect6_eval.h, shared with the GPU rules.
namespace {
using eval::kWin;
}  // namespace

namespace {
// True when two stones can hit every window of `s` holding four or five (its threats to complete six).
bool blockable(const Board& b, Stone s) {
  std::vector<std::array<int, 6>> threats;
  std::vector<int> cells;
  for (const auto& w : T().windows) {
    const auto [who, n] = owner(b, w);
    if (who != s || n < 4) continue;
    threats.push_back(w);
    for (int c : w)
      if (b.at(c) == Empty && std::find(cells.begin(), cells.end(), c) == cells.end()) cells.push_back(c);
  }
  const auto covers = [&](int x, int y) {
    for (const auto& w : threats)
      if (std::find(w.begin(), w.end(), x) == w.end() && std::find(w.begin(), w.end(), y) == w.end()) return false;
    return true;
  };
  for (std::size_t i = 0; i < cells.size(); ++i)
    for (std::size_t j = i; j < cells.size(); ++j)
      if (covers(cells[i], cells[j])) return true;
  return threats.empty();
}
}  // namespace

bool detail::decided(const Board& b, int& score) {
  const Stone me = b.to_move(), them = other(me);
  const auto& w = b.windows();
  const bool them_blockable = !eval::needs_blockable(w, me, them) || blockable(b, them);
  return eval::decided(w, me, them, them_blockable, score);
}

int evaluate(const Board& b) {
  const Stone me = b.to_move(), them = other(me);
  const auto& w = b.windows();
  const bool them_blockable = !eval::needs_blockable(w, me, them) || blockable(b, them);
  return eval::from_counts(w, b.shapes(), me, them, them_blockable);
}

}  // namespace warpmind::search::connect6
