// Connect6 threat-space search (internal; the public knobs are SearchOptions::threat_* in connect6.h).
//
// Threats are counted by the stones the defender needs to stop them: after the attacker's turn, the
// windows it holds with four or five stones (each completes six next turn) need 1 or 2 defending stones
// to be hit all — or 3 and more, and then the attacker has won (a double threat: two stones cannot
// block). `solve` answers "can `attacker`, to move on `b`, force six within `turns` of its turns?":
//   VCF  every attacking turn makes a threat (1 or 2 defending stones); the defender's answers are all
//        its turns that block every threat window, its free stone (when one block is enough) taken in
//        the relevance zone — the cells where the attacker's threes and twos grow and where the
//        defender's own threes become fours; a defender with a four of its own wins first, and an
//        attacker facing one must block it in the same turn;
//   VCT  up to two quiet attacking turns per line (no threat now, but a double threat next turn if
//        ignored), the defender then answering with any pair of its zone's best cells.
// Iterative deepening over the attacker's turns (VCF first, then VCT), a transposition table keyed by
// the board's Zobrist key, the attacker and the quiet turns left, holding proven wins (with the turn)
// and proven failures at a depth. The defender's free stones are limited to the zone, so a win is
// proven against those answers only; the engine plays the line out with its full search.
// Budget: nodes and a deadline; past either, `solve` answers Unknown (never a wrong Win). No allocation
// per node once the per-ply buffers have grown.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "warpmind/search/connect6.h"

namespace warpmind::search::connect6::tss {

class ThreatSearch {
 public:
  enum class Result { Win, NoWin, Unknown };
  struct Limits {
    std::uint64_t max_nodes = 100000;                  // per solve() call
    std::chrono::steady_clock::time_point deadline{};  // default (epoch): none
    const std::atomic<bool>* interrupt = nullptr;
    int quiet_turns = 2;  // VCT: quiet attacking turns per line (0: VCF only)
  };
  explicit ThreatSearch(int table_bits = 18);
  // `b` is restored before returning. `first` gets the winning turn when the answer is Win; `depth`
  // the attacker's turns of the proof.
  Result solve(Board& b, Stone attacker, int turns, const Limits& lim, Turn* first, int* depth = nullptr);
  std::uint64_t nodes() const { return total_nodes_; }
  // The defending cells most relevant against `attacker`'s threats on `b`, best first (at most `max`):
  // the empty cells of its fours, threes and twos, and the defender's own threes (counter-fours).
  void zone(const Board& b, Stone attacker, int max, std::vector<int>& out) const;
  // A turn that completes six for `s` (which holds a window of four or five on `b`), else {-1, -1}.
  static Turn completion(const Board& b, Stone s);
  // The learned evaluation whose cell scores order the attacking turns of a kind (null: the counts of
  // the attacker's threes and twos through their cells). Not owned; it must outlive the searches.
  void set_network(const Network* n) { net_ = n; }

 private:
  struct Move {
    int a, b, need;
    std::int64_t key;  // need, then the cells' scores
  };
  struct Ply {
    std::vector<Move> moves;
    std::vector<int> threats, cells, zone;
  };
  struct Entry {
    std::uint64_t key = 0;
    std::int8_t win = 0;    // smallest depth proven won (0: none)
    std::int8_t fail = -1;  // largest depth proven not won within the limits of the search (-1: none)
    std::int16_t a = -1, b = -1;
  };
  Result attack(Board& b, Stone me, int turns, int quiet, int ply, Turn* first);
  Result defend(Board& b, Stone me, int a, int c, int turns, int quiet, int ply);  // after me's turn (a, c)
  // Attacking turns of `me` (need >= 1; with quiet, also quiet turns that set up a double threat), best
  // first, into plies_[ply].moves; returns true at once (moves = {the winner}) on a double threat.
  bool attacks(Board& b, Stone me, int ply, bool quiet);
  // The fewest defending stones that hit every window of `threats`, cells a and c taken as occupied.
  int need(const Board& b, int a, int c, const std::vector<int>& threats) const;
  void threats_of(const Board& b, Stone s, std::vector<int>& out) const;
  void threats_through(const Board& b, Stone s, int c1, int c2, std::vector<int>& out) const;
  bool out_of_budget();
  Ply& at(int ply);
  std::uint64_t key(const Board& b, Stone me, int quiet) const;

  std::vector<Entry> table_;
  std::uint64_t mask_;
  std::vector<Ply> plies_;
  Limits lim_;
  std::vector<int> tmp_;            // threat windows of a trial turn, used at once
  std::vector<std::int8_t> count_;  // the attacker's stones per window (-1: the defender's too), per call
  std::uint64_t nodes_ = 0, total_nodes_ = 0;
  bool aborted_ = false;
  const Network* net_ = nullptr;
};

}  // namespace warpmind::search::connect6::tss
