// warpmind::demos::Connect6Engine — the engine of warpmind-connect6, one command per line, in the common text
// protocol of Connect6 programs: name; new black | new white; black XXXX / white XXXX (set up stones);
// next (play the side to move); move XXXX (the opponent's turn, then ours); depth d; time ms; threads n;
// threats t (the threat-space search's attacking turns, 0..32, 12 by default; 0 turns it off);
// treethreats t (the VCF inside the alpha-beta's tree, SearchOptions::tree_threat_depth: 0..32, 0 by
// default: off);
// evaluation network|windows (the alpha-beta's and threat searches' learned evaluation, connect6_network.h,
// or the window counts: the default); evalfile FILE|<builtin> (the network: a file, or the built-in one; a
// bad file is an error and changes nothing);
// search alphabeta|hybrid (the engine's own search, or the node-based hybrid search of search/hybrid.h);
// backend cpu|cuda|auto (where the hybrid's batches run: the GPU when one is usable under auto);
// bench [depth] (a node-count signature: fixed openings searched on one thread, on stderr); quit.
// `warpmind-connect6 bench [depth]` prints the same signature on stdout and exits.
// Moves are answered as "move XXXX" in the letters-only notation (JJ is the centre); both notations are
// read. Everything that is not a move goes to stderr, so a referee reading stdout sees only moves and
// the name. The engine never plays an illegal move.
// Protocol lines (moves, the name) go to `out`, everything else (errors, search info, results) to
// `notes`, both from the calling thread; handle() takes one line and returns false on quit.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace warpmind::demos {

class Connect6Engine {
 public:
  using Output = std::function<void(const std::string&)>;
  Connect6Engine(Output out, Output notes);
  ~Connect6Engine();
  bool handle(const std::string& line);
  // The bench signature ("bench [depth]") to `to`.
  void bench(const std::string& depth, const Output& to);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::demos
