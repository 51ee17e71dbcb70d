// Connect6 (connect6.h). [SECTION] windows and keys   [SECTION] notation   [SECTION] the board
// [SECTION] evaluation   [SECTION] search
#include "warpmind/search/connect6.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <memory>
#include <thread>

#include "connect6_threats.h"
#include "search/tags.h"
#include "warpmind/core/random.h"
#include "search/connect6/connect6_eval.h"

namespace warpmind::search::connect6 {

// ---- [SECTION] windows and keys ------------------------------------------------------------------

namespace {

struct Tables {
  std::vector<std::array<int, 6>> windows;  // the cells of every six-cell window
  std::vector<std::vector<int>> of_cell;    // the windows through each cell
  std::array<std::array<std::uint64_t, kCells>, 3> key{};
  std::vector<std::vector<int>> lines_of;  // the lines (of six cells or more) through each cell
  Tables() {
    of_cell.resize(kCells);
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
          for (int c : w) of_cell[static_cast<std::size_t>(c)].push_back(static_cast<int>(windows.size()));
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

Stone other(Stone s) { return s == BlackStone ? WhiteStone : BlackStone; }

}  // namespace

namespace tss {
const std::vector<std::array<int, 6>>& window_cells() { return T().windows; }
const std::vector<std::vector<int>>& windows_through() { return T().of_cell; }
}  // namespace tss

namespace {

// A window's owner and count: (colour, stones) when it holds one colour only, else (Empty, 0).
std::pair<Stone, int> owner(const Board& b, const std::array<int, 6>& w) {
  int n[3] = {0, 0, 0};
  for (int c : w) ++n[b.at(c)];
  if (n[1] && !n[2]) return {BlackStone, n[1]};
  if (n[2] && !n[1]) return {WhiteStone, n[2]};
  return {Empty, 0};
}

}  // namespace

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

int evaluate(const Board& b) {
  const Stone me = b.to_move(), them = other(me);
  const auto& w = b.windows();
  const bool them_blockable = !eval::needs_blockable(w, me, them) || blockable(b, them);
  return eval::from_counts(w, b.shapes(), me, them, them_blockable);
}

// ---- [SECTION] search ----------------------------------------------------------------------------

namespace {

using Clock = std::chrono::steady_clock;

// Buffers of one ply, reused (no allocation per node once grown).
struct Scratch {
  std::vector<std::array<int, 6>> mine, theirs;
  std::vector<std::pair<int, int>> scored;
  std::vector<std::pair<int, Turn>> pairs;
  std::vector<int> cells;
  std::vector<Turn> turns;
  bool hopeless = false;  // the threats cannot all be blocked: the side to move has lost
};

struct Ctx {
  const SearchOptions& o;
  std::vector<Scratch> ply;
  Clock::time_point start;
  std::atomic<bool>* stop = nullptr;  // shared by the threads of a multi-threaded search
  std::uint64_t nodes = 0;
  bool stopped = false;
  tss::ThreatSearch* threats = nullptr;  // the VCF inside the tree (SearchOptions::tree_threat_depth)
  // True when the side to move on `b` wins by continuous fours within the tree threat search's budget.
  bool vcf_in_tree(Board& b) {
    tss::ThreatSearch::Limits lim;
    lim.max_nodes = static_cast<std::uint64_t>(std::max(1, o.tree_threat_nodes));
    lim.quiet_turns = 0;
    lim.interrupt = o.interrupt;
    if (o.time_ms > 0) lim.deadline = start + std::chrono::milliseconds(o.time_ms);
    const int turns = std::min(o.tree_threat_depth, 32);
    return threats->solve(b, b.to_move(), turns, lim, nullptr) == tss::ThreatSearch::Result::Win;
  }
  bool out_of_time() {
    // The clock every 16 nodes: a node costs microseconds (a threat-space node up to a millisecond),
    // a clock read tens of nanoseconds.
    if (o.time_ms > 0 && (nodes & 15) == 0 &&
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count() >= o.time_ms) {
      stopped = true;
      if (stop) stop->store(true);
    }
    if (stop && stop->load(std::memory_order_relaxed)) stopped = true;
    if (o.interrupt && o.interrupt->load(std::memory_order_relaxed)) stopped = true;
    return stopped;
  }
};

// How much a stone of `me` on `cell` builds for us and blocks of them.
int cell_value(const Board& b, int cell, Stone me) {
  int v = 0;
  for (int wi : T().of_cell[static_cast<std::size_t>(cell)]) {
    const auto [who, n] = owner(b, T().windows[static_cast<std::size_t>(wi)]);
    v += eval::window_gain(who, n, me);
  }
  return v;
}

// Empty cells of the windows where `s` has 4 or 5 stones (threats to complete six).
void threat_windows(const Board& b, Stone s, std::vector<std::array<int, 6>>& out) {
  out.clear();
  for (const auto& w : T().windows) {
    const auto [who, n] = owner(b, w);
    if (who == s && n >= 4) out.push_back(w);
  }
}

// Candidate turns for the side to move, best first: a win now, else blocks of every threat, else the
// best pairs of the best-scored cells near the stones.
void candidate_turns(const Board& b, int width, Scratch& sc, bool& forced) {
  std::vector<Turn>& out = sc.turns;
  out.clear();
  sc.hopeless = false;
  forced = false;
  const Stone me = b.to_move(), them = other(me);
  const int need = b.stones() == 0 ? 1 : std::min(2, kCells - b.stones());
  if (b.stones() == 0) {
    out.push_back({kCells / 2, -1});
    forced = true;
    return;
  }
  std::vector<std::array<int, 6>>& mine = sc.mine;
  std::vector<std::array<int, 6>>& theirs = sc.theirs;
  threat_windows(b, me, mine);
  std::vector<std::pair<int, int>>& scored = sc.scored;
  scored.clear();
  for (int c = 0; c < kCells; ++c) {
    if (b.at(c) != Empty) continue;
    bool near = false;
    const int x = c % kSize, y = c / kSize;
    for (int dy = -2; dy <= 2 && !near; ++dy)
      for (int dx = -2; dx <= 2 && !near; ++dx) {
        const int xx = x + dx, yy = y + dy;
        near = xx >= 0 && xx < kSize && yy >= 0 && yy < kSize && b.at(yy * kSize + xx) != Empty;
      }
    if (near) scored.push_back({cell_value(b, c, me), c});
  }
  std::sort(scored.begin(), scored.end(),
            [](const auto& p, const auto& q) { return p.first != q.first ? p.first > q.first : p.second < q.second; });
  const auto filler = [&](int not_this) {
    for (const auto& [v, c] : scored)
      if (c != not_this) return c;
    for (int c = 0; c < kCells; ++c)
      if (b.at(c) == Empty && c != not_this) return c;
    return -1;
  };
  if (!mine.empty()) {  // win now: fill a window of ours
    std::vector<int> empty;
    for (int c : mine[0])
      if (b.at(c) == Empty) empty.push_back(c);
    const int a = empty[0], second = empty.size() > 1 ? empty[1] : filler(a);
    out.push_back({a, need == 2 ? second : -1});
    forced = true;
    return;
  }
  threat_windows(b, them, theirs);
  if (!theirs.empty()) {  // every threat window needs a stone of ours
    std::vector<int>& cells = sc.cells;
    cells.clear();
    for (const auto& w : theirs)
      for (int c : w)
        if (b.at(c) == Empty && std::find(cells.begin(), cells.end(), c) == cells.end()) cells.push_back(c);
    const auto covers = [&](int a, int c2) {
      for (const auto& w : theirs)
        if (std::find(w.begin(), w.end(), a) == w.end() && std::find(w.begin(), w.end(), c2) == w.end()) return false;
      return true;
    };
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (covers(cells[i], -1)) {
        out.push_back({cells[i], need == 2 ? filler(cells[i]) : -1});
        continue;
      }
      for (std::size_t j = i + 1; j < cells.size() && need == 2; ++j)
        if (covers(cells[i], cells[j])) out.push_back({cells[i], cells[j]});
    }
    if (out.empty()) {  // lost anyway: block what we can
      sc.hopeless = true;
      out.push_back({cells[0], need == 2 && cells.size() > 1 ? cells[1] : (need == 2 ? filler(cells[0]) : -1)});
    }
    forced = true;
    if (static_cast<int>(out.size()) > width) out.resize(static_cast<std::size_t>(width));
    return;
  }
  const std::size_t top = std::min<std::size_t>(scored.size(), 14);
  if (need == 1) {
    for (std::size_t i = 0; i < top; ++i) out.push_back({scored[i].second, -1});
    return;
  }
  std::vector<std::pair<int, Turn>>& pairs = sc.pairs;
  pairs.clear();
  for (std::size_t i = 0; i < top; ++i)
    for (std::size_t j = i + 1; j < top; ++j)
      pairs.push_back({scored[i].first + scored[j].first, {scored[i].second, scored[j].second}});
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& p, const auto& q) { return p.first > q.first; });
  for (std::size_t i = 0; i < pairs.size() && static_cast<int>(i) < width; ++i) out.push_back(pairs[i].second);
  if (out.empty() && top == 1) out.push_back({scored[0].second, filler(scored[0].second)});
}

// Threat-space search (VCF, victory by continuous fours): can the side to move force six within `depth`
// of its turns by turns that each make a threat (a window of four or five) the opponent must block?
// The opponent's answers are all its blocking turns (or its own win now).
bool vcf(Board& b, int depth, Ctx& ctx, std::vector<Scratch>& scratch, Turn* first) {
  ++ctx.nodes;
  const Stone me = b.to_move();
  if (b.winner() != Empty) return b.winner() == me;
  if (b.full() || depth == 0 || ctx.out_of_time()) return false;
  Scratch& sc = scratch[static_cast<std::size_t>(2 * depth)];
  bool forced = false;
  candidate_turns(b, 64, sc, forced);
  if (forced) {  // we win now, or we must block first (then this is not a VCF)
    if (b.windows()[me][4] + b.windows()[me][5] == 0) return false;
    if (first) *first = sc.turns[0];
    return true;
  }
  // (Deeper calls use lower scratch slots, so these lists stay intact while we recurse.)
  for (const Turn& t : sc.turns) {  // pairs of the best cells; those that threaten are followed
    b.place(t.a, me);
    if (t.b >= 0) b.place(t.b, me);
    bool win = b.winner() == me;
    if (!win && b.windows()[me][4] + b.windows()[me][5] > 0) {
      Scratch& reply = scratch[static_cast<std::size_t>(2 * depth - 1)];
      bool blocks = false;
      candidate_turns(b, 64, reply, blocks);
      win = reply.hopeless;
      if (!win) {
        win = true;
        for (const Turn& d : reply.turns) {
          const Stone them = b.to_move();
          b.place(d.a, them);
          if (d.b >= 0) b.place(d.b, them);
          const bool still = vcf(b, depth - 1, ctx, scratch, nullptr);
          b.undo(d);
          if (!still) {
            win = false;
            break;
          }
        }
      }
    }
    b.undo(t);
    if (win) {
      if (first) *first = t;
      return true;
    }
    if (ctx.stopped) return false;
  }
  return false;
}

int negamax(Board& b, int depth, int alpha, int beta, Ctx& ctx) {
  ++ctx.nodes;
  if (b.winner() != Empty) return b.winner() == b.to_move() ? kWin : -kWin;
  if (b.full()) return 0;
  if (depth == 0 || ctx.out_of_time()) return evaluate(b);
  Scratch& sc = ctx.ply[static_cast<std::size_t>(depth)];
  bool forced = false;
  candidate_turns(b, ctx.o.width, sc, forced);
  if (!forced && ctx.threats && ctx.vcf_in_tree(b)) return kWin - 1;
  const std::vector<Turn>& turns = sc.turns;
  int best = -kWin - 1;
  for (const Turn& t : turns) {
    const Stone me = b.to_move();
    b.place(t.a, me);
    if (t.b >= 0) b.place(t.b, me);
    const int v = -negamax(b, depth - 1, -beta, -alpha, ctx);
    b.undo(t);
    if (v > best) best = v;
    if (v > alpha) alpha = v;
    if (alpha >= beta || ctx.stopped) break;
  }
  return best;
}

bool legal_turn(const Board& b, const Turn& t) {
  const auto free = [&](int c) { return c >= 0 && c < kCells && b.at(c) == Empty; };
  if (!free(t.a)) return false;
  if (b.stones_this_turn() == 1) return t.b < 0;
  return free(t.b) && t.a != t.b;
}

// The deep threat-space search at the root (SearchOptions::threat_depth). Returns true when `out` is
// the answer (our win, or the one turn that defends); else `turns` may have been narrowed to the turns
// that refute the opponent's threats.
bool threat_root(Board& b, const SearchOptions& o, Clock::time_point start, std::vector<Turn>& turns,
                 SearchOutcome& out, std::uint64_t& nodes) {
  using TS = tss::ThreatSearch;
  const Stone me = b.to_move(), them = other(me);
  TS ts;
  const auto by = [&](int permille) {
    return o.time_ms > 0 ? start + std::chrono::milliseconds(static_cast<long long>(o.time_ms) * permille / 1000)
                         : Clock::time_point{};
  };
  TS::Limits lim;
  lim.max_nodes = static_cast<std::uint64_t>(std::max(1, o.threat_nodes));
  lim.interrupt = o.interrupt;
  lim.deadline = by(200);
  Turn win;
  int depth = 0;
  if (ts.solve(b, me, o.threat_depth, lim, &win, &depth) == TS::Result::Win && legal_turn(b, win)) {
    out.best = win;
    out.forced = true;
    out.score = kWin;
    out.depth = depth;
    nodes += ts.nodes();
    return true;
  }
  lim.deadline = by(300);
  Turn threat;
  int their_depth = 0;
  if (ts.solve(b, them, o.threat_depth, lim, &threat, &their_depth) != TS::Result::Win) {
    nodes += ts.nodes();
    return false;
  }
  // The defence: the usual turns and the pairs of the cells around the opponent's threats, each kept
  // unless the opponent still wins after it — within two turns more than its win took (a turn that
  // only delays the win by more is rare, and searching every candidate to full depth costs most).
  std::vector<int> zone;
  ts.zone(b, them, 12, zone);
  for (int c : {threat.a, threat.b})
    if (c >= 0 && b.at(c) == Empty && std::find(zone.begin(), zone.end(), c) == zone.end()) zone.push_back(c);
  std::vector<Turn> tried = turns;
  const auto known = [&](int x, int y) {
    for (const Turn& t : tried)
      if ((t.a == x && t.b == y) || (t.a == y && t.b == x)) return true;
    return false;
  };
  for (std::size_t i = 0; i < zone.size(); ++i)
    for (std::size_t j = i + 1; j < zone.size(); ++j)
      if (!known(zone[i], zone[j])) tried.push_back({zone[i], zone[j]});
  lim.deadline = by(550);
  lim.max_nodes = std::max<std::uint64_t>(1, lim.max_nodes / 8);
  const int check_depth = std::min(o.threat_depth, their_depth + 2);
  std::vector<Turn> kept;
  std::size_t next = 0;
  for (; next < tried.size(); ++next) {
    const Turn& t = tried[next];
    if (!legal_turn(b, t)) continue;
    b.place(t.a, me);
    if (t.b >= 0) b.place(t.b, me);
    const TS::Result r = b.winner() == me ? TS::Result::NoWin : ts.solve(b, them, check_depth, lim, nullptr);
    b.undo(t);
    if (r != TS::Result::Win) kept.push_back(t);
    if (lim.deadline != Clock::time_point{} && Clock::now() >= lim.deadline) break;
    if (o.interrupt && o.interrupt->load(std::memory_order_relaxed)) break;
  }
  nodes += ts.nodes();
  if (next < tried.size())  // out of time: the usual turns not yet tried stay
    for (std::size_t i = next + 1; i < turns.size(); ++i) kept.push_back(turns[i]);
  if (kept.empty()) return false;  // lost whatever we do: the usual turns
  turns = kept;
  if (kept.size() == 1) {
    out.best = kept[0];
    out.forced = true;
    return true;
  }
  return false;
}

}  // namespace

void candidate_turns(const Board& b, int width, std::vector<Turn>& out) {
  out.clear();
  if (b.over()) return;
  Scratch sc;
  bool forced = false;
  candidate_turns(b, width, sc, forced);
  out.swap(sc.turns);
}

int Connect6Game::terminal(const Board& b, int ply) {
  if (b.winner() == Empty) return 0;  // a full board
  return b.winner() == b.to_move() ? kWin - ply : -(kWin - ply);
}

SearchOutcome search(const Board& root, const SearchOptions& o) {
  SearchOutcome out;
  Ctx ctx{o, std::vector<Scratch>(static_cast<std::size_t>(std::max(1, o.depth)) + 1), Clock::now()};
  std::unique_ptr<tss::ThreatSearch> tree_threats;
  if (o.tree_threat_depth > 0) ctx.threats = (tree_threats = std::make_unique<tss::ThreatSearch>(16)).get();
  Board b = root;
  Scratch root_scratch;
  bool forced = false;
  candidate_turns(b, o.width, root_scratch, forced);
  std::vector<Turn>& turns = root_scratch.turns;
  if (turns.empty()) return out;
  out.best = turns[0];
  const bool win_now = forced && b.windows()[b.to_move()][4] + b.windows()[b.to_move()][5] > 0;
  const bool threats = o.threat_depth > 0 && b.stones() > 0 && !win_now && !root_scratch.hopeless;
  if (forced && turns.size() == 1 && !threats) {
    out.forced = true;
    return out;
  }
  if (threats) {
    if (threat_root(b, o, ctx.start, turns, out, ctx.nodes)) {
      out.nodes = ctx.nodes;
      return out;
    }
    out.best = turns[0];
  } else if (!forced && o.vcf_depth > 0) {  // a forced win through threats, before the full search
    std::vector<Scratch> scratch(static_cast<std::size_t>(2 * o.vcf_depth) + 1);
    Turn win;
    if (vcf(b, o.vcf_depth, ctx, scratch, &win)) {
      out.best = win;
      out.forced = true;
      out.score = kWin;
      out.nodes = ctx.nodes;
      return out;
    }
  }
  const int threads = std::max(1, o.threads);
  std::atomic<bool> stop{false};
  std::vector<int> values(turns.size());
  for (int d = 1; d <= std::max(1, o.depth); ++d) {
    int alpha = -kWin - 1;
    Turn best = turns[0];
    if (threads == 1) {
      for (const Turn& t : turns) {
        const Stone me = b.to_move();
        b.place(t.a, me);
        if (t.b >= 0) b.place(t.b, me);
        const int v = -negamax(b, d - 1, -kWin - 1, -alpha, ctx);
        b.undo(t);
        if (ctx.stopped && d > 1) break;
        if (v > alpha) {
          alpha = v;
          best = t;
        }
      }
    } else {
      // Root splitting: every root turn searched with the full window on some thread (exact values),
      // then the first best in turn order — the same choice as the serial loop.
      std::vector<std::thread> pool;
      std::vector<std::uint64_t> counts(static_cast<std::size_t>(threads), 0);
      for (int w = 0; w < threads; ++w)
        pool.emplace_back([&, w] {
          Ctx mine{o, std::vector<Scratch>(static_cast<std::size_t>(std::max(1, o.depth)) + 1), ctx.start, &stop};
          std::unique_ptr<tss::ThreatSearch> own_threats;
          if (o.tree_threat_depth > 0) mine.threats = (own_threats = std::make_unique<tss::ThreatSearch>(16)).get();
          Board own = b;
          for (std::size_t i = static_cast<std::size_t>(w); i < turns.size(); i += static_cast<std::size_t>(threads)) {
            const Stone me = own.to_move();
            own.place(turns[i].a, me);
            if (turns[i].b >= 0) own.place(turns[i].b, me);
            values[i] = -negamax(own, d - 1, -kWin - 1, kWin + 1, mine);
            own.undo(turns[i]);
          }
          counts[static_cast<std::size_t>(w)] = mine.nodes;
        });
      for (std::thread& t : pool) t.join();
      for (std::uint64_t c : counts) ctx.nodes += c;
      ctx.stopped = stop.load();
      if (!(ctx.stopped && d > 1))
        for (std::size_t i = 0; i < turns.size(); ++i)
          if (values[i] > alpha) {
            alpha = values[i];
            best = turns[i];
          }
    }
    if (ctx.stopped && d > 1) break;
    out.best = best;
    out.score = alpha;
    out.depth = d;
    if (o.on_depth) {
      SearchOutcome so_far = out;
      so_far.nodes = ctx.nodes;
      o.on_depth(so_far);
    }
    // Search the best turn first next time.
    std::stable_partition(turns.begin(), turns.end(), [&](const Turn& t) { return t == best; });
    if (alpha >= kWin / 2 || ctx.stopped) break;
  }
  out.nodes = ctx.nodes;
  return out;
}

// ---- [SECTION] game records ----------------------------------------------------------------------

namespace {
bool is_record_result(std::string_view w) { return w == "black" || w == "white" || w == "draw" || w == "*"; }
}  // namespace

Status read_record(std::string_view text, Record& out) {
  Record r;
  Board board;
  std::size_t i = 0;
  const auto fail = [&](std::size_t at, const std::string& why) {
    return Status::Invalid("line " + std::to_string(detail::line_of(text, at)) + ": " + why);
  };
  bool turns_started = false;
  while (i < text.size()) {
    const char c = text[i];
    const bool line_start = i == 0 || text[i - 1] == '\n';
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == ';' || (c == '%' && line_start)) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '[') {
      const std::size_t at = i;
      if (turns_started) return fail(at, "tags come before the turns");
      const Status st = detail::read_tag(text, i, r.tags);
      if (!st.ok()) return fail(at, st.message());
    } else {
      const std::size_t at = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) && text[i] != ';' && text[i] != '[')
        ++i;
      std::string_view word = text.substr(at, i - at);
      turns_started = true;
      if (is_record_result(word)) {
        r.result = std::string(word);
        break;
      }
      std::size_t k = 0;
      while (k < word.size() && std::isdigit(static_cast<unsigned char>(word[k]))) ++k;
      if (k > 0 && k < word.size() && word[k] == '.') {
        while (k < word.size() && word[k] == '.') ++k;
        word.remove_prefix(k);
        if (word.empty()) continue;
      }
      Turn t;
      Status st = parse_turn(word, t);
      if (st.ok()) st = board.play(t);
      if (!st.ok()) return fail(at, "turn " + std::to_string(r.turns.size() + 1) + ": " + st.message());
      r.turns.push_back(t);
    }
  }
  out = std::move(r);
  return Status::Ok();
}

Status write_record(const Record& r, std::string& out) {
  if (!is_record_result(r.result)) return Status::Invalid("result '" + r.result + "': black, white, draw or *");
  Board board;
  std::string text;
  for (const auto& [name, value] : r.tags)
    if (name != "Result") text += detail::tag_line(name, value);
  text += detail::tag_line("Result", r.result) + "\n";
  for (std::size_t k = 0; k < r.turns.size(); ++k) {
    const Status st = board.play(r.turns[k]);
    if (!st.ok()) return Status::Invalid("turn " + std::to_string(k + 1) + ": " + st.message());
    text += std::to_string(k + 1) + ". " + turn_name(r.turns[k], Notation::Letters) + "\n";
  }
  out = text + r.result + "\n";
  return Status::Ok();
}

}  // namespace warpmind::search::connect6
