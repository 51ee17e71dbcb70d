// Connect6 threat-space search (contract in connect6_threats.h).
// [SECTION] helpers   [SECTION] threats and their need   [SECTION] move generation   [SECTION] search
#include "search/connect6/connect6_threats.h"

#include "warpmind/search/connect6_network.h"
#include "search/connect6/geometry.h"

#include <algorithm>

namespace warpmind::search::connect6::tss {

// ---- [SECTION] helpers ---------------------------------------------------------------------------

namespace {

Stone other(Stone s) { return s == BlackStone ? WhiteStone : BlackStone; }

// The geometry, fetched once.
const std::vector<std::array<int, 6>>& W() {
  static const std::vector<std::array<int, 6>>& w = detail::window_cells();
  return w;
}
const std::vector<std::vector<int>>& Through() {
  static const std::vector<std::vector<int>>& t = detail::windows_through();
  return t;
}

// Stones of `s` in window `w` (0..6), or -1 when the other colour is in it too.
int own(const Board& b, int w, Stone s) {
  int n = 0;
  for (int c : W()[static_cast<std::size_t>(w)]) {
    const Stone x = b.at(c);
    if (x == s)
      ++n;
    else if (x != Empty)
      return -1;
  }
  return n;
}

bool in_window(int w, int c) {
  const auto& cells = W()[static_cast<std::size_t>(w)];
  return std::find(cells.begin(), cells.end(), c) != cells.end();
}

int fours(const Board& b, Stone s) { return b.windows()[s][4] + b.windows()[s][5]; }

// Cells with a positive score, best first (ties: the lower cell), at most `max`.
void top_cells(const std::array<int, kCells>& score, int max, std::vector<int>& out) {
  out.clear();
  for (int c = 0; c < kCells; ++c)
    if (score[static_cast<std::size_t>(c)] > 0) out.push_back(c);
  const auto better = [&](int x, int y) {
    const int sx = score[static_cast<std::size_t>(x)], sy = score[static_cast<std::size_t>(y)];
    return sx != sy ? sx > sy : x < y;
  };
  if (static_cast<int>(out.size()) > max) {
    std::partial_sort(out.begin(), out.begin() + max, out.end(), better);
    out.resize(static_cast<std::size_t>(max));
  } else {
    std::sort(out.begin(), out.end(), better);
  }
}

void place2(Board& b, int a, int c, Stone s) {
  b.place(a, s);
  b.place(c, s);
}
void remove2(Board& b, int a, int c) {
  b.remove(c);
  b.remove(a);
}

constexpr int kAttackCells = 14;  // cells paired for the attacking turns
constexpr int kAttackTurns = 16;  // attacking turns followed per node
constexpr int kQuietTried = 6;    // quiet turns tested for a double threat next turn
constexpr int kFreeStones = 8;    // the defender's free stone, when one stone blocks
constexpr int kQuietZone = 9;     // cells paired for the defender's answers to a quiet turn

}  // namespace

ThreatSearch::ThreatSearch(int table_bits)
    : table_(std::size_t{1} << table_bits), mask_((std::uint64_t{1} << table_bits) - 1) {}

ThreatSearch::Ply& ThreatSearch::at(int ply) { return plies_[static_cast<std::size_t>(ply)]; }

std::uint64_t ThreatSearch::key(const Board& b, Stone me, int quiet) const {
  std::uint64_t z = static_cast<std::uint64_t>(me * 8 + quiet + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
  return b.key() ^ z ^ (z >> 29);
}

bool ThreatSearch::out_of_budget() {
  if (aborted_) return true;
  if (nodes_ >= lim_.max_nodes) aborted_ = true;
  if ((nodes_ & 31) == 0) {
    if (lim_.deadline != std::chrono::steady_clock::time_point{} && std::chrono::steady_clock::now() >= lim_.deadline)
      aborted_ = true;
    if (lim_.interrupt && lim_.interrupt->load(std::memory_order_relaxed)) aborted_ = true;
  }
  return aborted_;
}

// ---- [SECTION] threats and their need ------------------------------------------------------------

void ThreatSearch::threats_of(const Board& b, Stone s, std::vector<int>& out) const {
  out.clear();
  if (fours(b, s) == 0) return;
  const int n = static_cast<int>(W().size());
  for (int w = 0; w < n; ++w)
    if (own(b, w, s) >= 4) out.push_back(w);
}

void ThreatSearch::threats_through(const Board& b, Stone s, int c1, int c2, std::vector<int>& out) const {
  out.clear();
  for (int w : Through()[static_cast<std::size_t>(c1)])
    if (own(b, w, s) >= 4) out.push_back(w);
  if (c2 < 0) return;
  for (int w : Through()[static_cast<std::size_t>(c2)])
    if (!in_window(w, c1) && own(b, w, s) >= 4) out.push_back(w);
}

// The fewest stones that hit every window of `threats` (0, 1, 2, or 3 meaning three or more). Every
// hitting set holds an empty cell of the first window, so trying those (and, for two, the empty cells of
// the first window the one misses) is exhaustive.
int ThreatSearch::need(const Board& b, int a, int c, const std::vector<int>& threats) const {
  if (threats.empty()) return 0;
  const auto empty = [&](int x) { return b.at(x) == Empty && x != a && x != c; };
  const auto& first = W()[static_cast<std::size_t>(threats[0])];
  int missed_by[6];
  for (int i = 0; i < 6; ++i) {
    missed_by[i] = -1;
    const int x = first[static_cast<std::size_t>(i)];
    if (!empty(x)) continue;
    for (int w : threats)
      if (!in_window(w, x)) {
        missed_by[i] = w;
        break;
      }
    if (missed_by[i] < 0) return 1;
  }
  for (int i = 0; i < 6; ++i) {
    const int x = first[static_cast<std::size_t>(i)];
    if (!empty(x)) continue;
    for (int y : W()[static_cast<std::size_t>(missed_by[i])]) {
      if (!empty(y)) continue;
      bool all = true;
      for (int w : threats)
        if (!in_window(w, x) && !in_window(w, y)) {
          all = false;
          break;
        }
      if (all) return 2;
    }
  }
  return 3;
}

Turn ThreatSearch::completion(const Board& b, Stone s) {
  const int n = static_cast<int>(W().size());
  for (int w = 0; w < n; ++w) {
    if (own(b, w, s) < 4) continue;
    Turn t;
    for (int c : W()[static_cast<std::size_t>(w)])
      if (b.at(c) == Empty) (t.a < 0 ? t.a : t.b) = c;
    if (b.stones_this_turn() == 1) {
      t.b = -1;
      return t;
    }
    for (int c = 0; c < kCells && t.b < 0; ++c)
      if (b.at(c) == Empty && c != t.a) t.b = c;
    return t;
  }
  return {};
}

void ThreatSearch::zone(const Board& b, Stone attacker, int max, std::vector<int>& out) const {
  std::array<int, kCells> score{};
  const Stone defender = other(attacker);
  const int n = static_cast<int>(W().size());
  for (int w = 0; w < n; ++w) {
    const int na = own(b, w, attacker), nd = own(b, w, defender);
    int weight = 0;
    if (na >= 2) weight = na >= 4 ? 400 : na == 3 ? 16 : 3;  // the attacker's fours, threes, twos
    if (nd >= 2) weight = nd >= 3 ? 10 : 1;                  // the defender's counter-fours
    if (weight == 0) continue;
    for (int c : W()[static_cast<std::size_t>(w)])
      if (b.at(c) == Empty) score[static_cast<std::size_t>(c)] += weight;
  }
  top_cells(score, max, out);
}

// ---- [SECTION] move generation -------------------------------------------------------------------

bool ThreatSearch::attacks(Board& b, Stone me, int ply, bool quiet) {
  Ply& p = at(ply);
  p.moves.clear();
  const Stone them = other(me);
  const bool must_block = fours(b, them) > 0;
  threats_of(b, them, p.threats);
  std::array<int, kCells> score{};
  const int n = static_cast<int>(W().size());
  if (count_.size() != static_cast<std::size_t>(n)) count_.resize(static_cast<std::size_t>(n));
  for (int w = 0; w < n; ++w) {
    const int na = own(b, w, me);
    count_[static_cast<std::size_t>(w)] = static_cast<std::int8_t>(na);
    if (na < 2 || na > 3) continue;
    for (int c : W()[static_cast<std::size_t>(w)])
      if (b.at(c) == Empty) score[static_cast<std::size_t>(c)] += na == 3 ? 24 : 4;
  }
  for (int w : p.threats)  // the cells that block the defender's fours are paired too
    for (int c : W()[static_cast<std::size_t>(w)])
      if (b.at(c) == Empty) score[static_cast<std::size_t>(c)] += 1000;
  top_cells(score, kAttackCells + (must_block ? 4 : 0), p.cells);
  const std::size_t m = p.cells.size();
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = i + 1; j < m; ++j) {
      const int a = p.cells[i], c = p.cells[j];
      bool blocks = true;  // every four of the defender's gets a stone
      for (int w : p.threats) blocks = blocks && (in_window(w, a) || in_window(w, c));
      if (!blocks) continue;
      // A four of ours appears only in a window through a or c (the counts before the turn are
      // count_), so the turn is scored without placing its stones.
      tmp_.clear();
      for (int w : Through()[static_cast<std::size_t>(a)]) {
        const int k = count_[static_cast<std::size_t>(w)];
        if (k >= 0 && k + 1 + (in_window(w, c) ? 1 : 0) >= 4) tmp_.push_back(w);
      }
      for (int w : Through()[static_cast<std::size_t>(c)])
        if (count_[static_cast<std::size_t>(w)] >= 3 && !in_window(w, a)) tmp_.push_back(w);
      const int nd = need(b, a, c, tmp_);
      const std::int64_t k = net_ ? std::int64_t{net_->cell_score(b, a, me)} + net_->cell_score(b, c, me)
                                  : score[static_cast<std::size_t>(a)] + score[static_cast<std::size_t>(c)];
      if (nd >= 3) {
        p.moves.clear();
        p.moves.push_back({a, c, nd, k});
        return true;
      }
      if (nd == 0 && !quiet) continue;
      p.moves.push_back({a, c, nd, (std::int64_t{nd} << 32) + k});
    }
  std::stable_sort(p.moves.begin(), p.moves.end(), [](const Move& x, const Move& y) { return x.key > y.key; });
  // The threats first (up to kAttackTurns), then the quiet turns that leave a double threat for next
  // turn should the defender ignore them.
  std::size_t threats = 0;
  while (threats < p.moves.size() && p.moves[threats].need > 0) ++threats;
  std::size_t kept = std::min<std::size_t>(threats, kAttackTurns);
  if (quiet && !must_block) {
    int tried = 0;
    for (std::size_t i = threats; i < p.moves.size() && tried < kQuietTried; ++i, ++tried) {
      const Move mv = p.moves[i];
      place2(b, mv.a, mv.b, me);
      const bool sets_up = fours(b, them) == 0 && attacks(b, me, ply + 1, false);
      remove2(b, mv.a, mv.b);
      if (sets_up) p.moves[kept++] = mv;
    }
  }
  p.moves.resize(kept);
  return false;
}

// ---- [SECTION] search ----------------------------------------------------------------------------

ThreatSearch::Result ThreatSearch::attack(Board& b, Stone me, int turns, int quiet, int ply, Turn* first) {
  ++nodes_;
  if (b.winner() != Empty) return b.winner() == me ? Result::Win : Result::NoWin;
  if (fours(b, me) > 0) {  // six now
    if (first) *first = completion(b, me);
    return Result::Win;
  }
  if (turns <= 0) return Result::NoWin;
  if (out_of_budget()) return Result::Unknown;
  const std::uint64_t k = key(b, me, quiet);
  Entry& e = table_[k & mask_];
  if (e.key == k) {
    if (e.win > 0 && e.win <= turns) {
      if (first) *first = {e.a, e.b};
      return Result::Win;
    }
    if (e.fail >= turns) return Result::NoWin;
  }
  const auto store = [&](bool won, int a, int c) {
    Entry& s = table_[k & mask_];
    if (s.key != k) s = Entry{k};
    if (won && (s.win == 0 || turns < s.win)) {
      s.win = static_cast<std::int8_t>(turns);
      s.a = static_cast<std::int16_t>(a);
      s.b = static_cast<std::int16_t>(c);
    }
    if (!won && turns > s.fail) s.fail = static_cast<std::int8_t>(turns);
  };
  if (attacks(b, me, ply, quiet > 0 && turns >= 2)) {  // a double threat: three stones to block
    const Move& mv = at(ply).moves[0];
    store(true, mv.a, mv.b);
    if (first) *first = {mv.a, mv.b};
    return Result::Win;
  }
  for (std::size_t i = 0; i < at(ply).moves.size(); ++i) {
    const Move mv = at(ply).moves[i];
    place2(b, mv.a, mv.b, me);
    const Result r = defend(b, me, mv.a, mv.b, turns - 1, mv.need == 0 ? quiet - 1 : quiet, ply + 1);
    remove2(b, mv.a, mv.b);
    if (r == Result::Win) {
      store(true, mv.a, mv.b);
      if (first) *first = {mv.a, mv.b};
      return Result::Win;
    }
    if (aborted_) return Result::Unknown;
  }
  store(false, -1, -1);
  return Result::NoWin;
}

ThreatSearch::Result ThreatSearch::defend(Board& b, Stone me, int a, int c, int turns, int quiet, int ply) {
  ++nodes_;
  const Stone them = other(me);
  if (fours(b, them) > 0) return Result::NoWin;  // the defender completes six first
  Ply& p = at(ply);
  threats_through(b, me, a, c, p.threats);  // the attacker had no four before its turn (a, c)
  const int n = need(b, -1, -1, p.threats);
  if (n >= 3) return Result::Win;
  if (turns <= 0) return Result::NoWin;
  if (out_of_budget()) return Result::Unknown;
  p.moves.clear();
  if (n >= 1) {
    // Every pair of threat cells that blocks all the windows; with one block enough, that block and
    // a free stone of the zone.
    p.cells.clear();
    for (int w : p.threats)
      for (int c : W()[static_cast<std::size_t>(w)])
        if (b.at(c) == Empty && std::find(p.cells.begin(), p.cells.end(), c) == p.cells.end()) p.cells.push_back(c);
    const auto hits_all = [&](int x, int y) {
      for (int w : p.threats)
        if (!in_window(w, x) && (y < 0 || !in_window(w, y))) return false;
      return true;
    };
    for (std::size_t i = 0; i < p.cells.size(); ++i)
      for (std::size_t j = i + 1; j < p.cells.size(); ++j)
        if (hits_all(p.cells[i], p.cells[j])) p.moves.push_back({p.cells[i], p.cells[j], 0, 0});
    if (n == 1) {
      zone(b, me, kFreeStones + static_cast<int>(p.cells.size()), p.zone);
      for (int x : p.cells) {
        if (!hits_all(x, -1)) continue;
        int added = 0;
        for (int f : p.zone) {
          if (added == kFreeStones) break;
          if (std::find(p.cells.begin(), p.cells.end(), f) != p.cells.end()) continue;
          p.moves.push_back({x, f, 0, 0});
          ++added;
        }
      }
    }
  } else {  // a quiet turn: any pair of the zone's best cells
    zone(b, me, kQuietZone, p.zone);
    for (std::size_t i = 0; i < p.zone.size(); ++i)
      for (std::size_t j = i + 1; j < p.zone.size(); ++j) p.moves.push_back({p.zone[i], p.zone[j], 0, 0});
  }
  for (std::size_t i = 0; i < at(ply).moves.size(); ++i) {
    const Move mv = at(ply).moves[i];
    place2(b, mv.a, mv.b, them);
    const Result r = attack(b, me, turns, quiet, ply + 1, nullptr);
    remove2(b, mv.a, mv.b);
    if (r == Result::NoWin) return Result::NoWin;
    if (aborted_) return Result::Unknown;
  }
  return Result::Win;
}

ThreatSearch::Result ThreatSearch::solve(Board& b, Stone attacker, int turns, const Limits& lim, Turn* first,
                                         int* depth) {
  lim_ = lim;
  nodes_ = 0;
  aborted_ = false;
  turns = std::clamp(turns, 1, 32);
  if (plies_.size() < static_cast<std::size_t>(2 * turns + 4)) plies_.resize(static_cast<std::size_t>(2 * turns + 4));
  Result r = Result::NoWin;
  for (int quiet : {0, std::max(0, lim.quiet_turns)}) {
    for (int d = quiet > 0 ? 2 : 1; d <= turns; ++d) {
      Turn t;
      r = attack(b, attacker, d, quiet, 0, &t);
      if (r == Result::Win) {
        if (first) *first = t;
        if (depth) *depth = d;
        total_nodes_ += nodes_;
        return r;
      }
      if (r == Result::Unknown) break;
    }
    if (r == Result::Unknown || lim.quiet_turns <= 0) break;
  }
  total_nodes_ += nodes_;
  return r == Result::Unknown ? Result::Unknown : Result::NoWin;
}

}  // namespace warpmind::search::connect6::tss
