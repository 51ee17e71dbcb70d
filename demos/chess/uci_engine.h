// warpmind::demos::UciEngine — the UCI engine of warpmind-chess, on the search module: any UCI GUI or
// tournament manager can run it. Commands: uci, isready, ucinewgame, setoption, position startpos|fen ... [moves ...], go (wtime btime
// winc binc movestogo movetime depth nodes infinite, or perft N), stop, quit, and bench (a node-count
// signature over fixed positions). Malformed input is answered with "info string error: ..." and
// changes nothing; the engine never plays an illegal move or loses on time by its own clock keeping.
// Output lines (without their newline) go to `out`, from the calling thread or the search's (one at a
// time); handle() takes one input line and returns false on quit. The destructor stops a running search.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace warpmind::demos {

class UciEngine {
 public:
  using Output = std::function<void(const std::string&)>;
  // hash_mb: the transposition table until "setoption name Hash" changes it (1..65536).
  explicit UciEngine(Output out, int hash_mb = 64);
  ~UciEngine();
  bool handle(const std::string& line);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::demos
