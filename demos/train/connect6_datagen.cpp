// warpmind-datagen's Connect6 (datagen.h): games of warpmind's own search labelled by it, their check, the
// trainer's records and a network's values and cell scores of them.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "connect6_games.h"
#include "connect6_records.h"
#include "datagen.h"
#include "output.h"
#include "warpmind/core/random.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/connect6_network.h"

namespace warpmind::train {

namespace c6 = search::connect6;

namespace {

constexpr int kWin = 1000000;  // connect6_eval.h's: a six; half of it, a six next turn

Status network_of(const std::string& name, std::shared_ptr<const c6::Network>& out) {
  if (name.empty()) return Status::Ok();
  if (name == "builtin") {
    out = c6::Network::builtin();
    return Status::Ok();
  }
  return c6::Network::load(name, out);
}

// One game: the centre stone and random_turns - 1 random turns among the 16 best candidates, then the
// search on both sides.
int play(const Connect6Options& o, const std::shared_ptr<const c6::Network>& net, std::uint32_t index,
         std::vector<std::uint8_t>& bytes) {
  SplitMix64 rng(o.run.seed + index);
  c6::Board b;
  Connect6GameRecord game;
  game.index = index;
  game.random_turns = o.random_turns;
  std::vector<c6::Turn> candidates;
  for (int k = 0; k < o.random_turns && !b.over(); ++k) {
    c6::candidate_turns(b, 16, candidates);
    const c6::Turn t =
        k == 0 ? candidates.front() : candidates[rng.below(static_cast<std::uint32_t>(candidates.size()))];
    (void)b.play(t);
    game.turns.push_back({t, kNoScore});
  }
  if (b.over()) return -1;
  c6::SearchOptions so;
  so.depth = o.depth;
  so.width = o.width;
  so.threat_depth = o.threats;
  so.network = net;
  int labelled = 0;
  while (!b.over()) {
    const c6::SearchOutcome r = c6::search(b, so);
    const bool scored = !r.forced && std::abs(r.score) < kWin / 2;
    game.turns.push_back({r.best, scored ? static_cast<std::int16_t>(std::clamp(r.score, -30000, 30000)) : kNoScore});
    labelled += scored;
    if (!b.play(r.best).ok()) return -1;
  }
  game.result = b.winner() == c6::BlackStone ? 2 : b.winner() == c6::WhiteStone ? 0 : 1;
  append_game(game, bytes);
  return labelled;
}

}  // namespace

int run_connect6(const Connect6Options& o) {
  std::shared_ptr<const c6::Network> net;
  if (const Status s = network_of(o.network, net); !s.ok()) {
    std::fprintf(stderr, "warpmind-datagen connect6: %s\n", s.message().c_str());
    return 2;
  }
  const std::string info = "warpmind-datagen connect6: labels by warpmind " + demos::build_commit() + " at depth " +
                           std::to_string(o.depth) + ", width " + std::to_string(o.width) + ", threats " +
                           std::to_string(o.threats) + ", evaluation " + (o.network.empty() ? "windows" : o.network) +
                           "; random turns " + std::to_string(o.random_turns) + "; seed " + std::to_string(o.run.seed) +
                           "; started " + demos::utc_now();
  return generate("connect6", o.run, connect6_games_header(info), [&](std::string&) -> Player {
    return [&o, net](std::uint32_t index, std::vector<std::uint8_t>& bytes) { return play(o, net, index, bytes); };
  });
}

int connect6_info(const std::vector<std::string>& files) {
  int rc = 0;
  for (const std::string& path : files) {
    std::string info;
    std::vector<Connect6GameRecord> games;
    if (const Status s = read_connect6_games(path, info, games); !s.ok()) {
      std::fprintf(stderr, "warpmind-datagen connect6-info: %s\n", s.message().c_str());
      rc = 2;
      continue;
    }
    long long turns = 0, labelled = 0;
    int results[3] = {};
    for (const Connect6GameRecord& g : games) {
      turns += static_cast<long long>(g.turns.size());
      for (const Connect6TurnRecord& t : g.turns) labelled += t.score != kNoScore;
      ++results[g.result];
    }
    std::printf("%s: %zu games (Black won %d, drawn %d, White won %d), %lld turns, %lld labelled; %s\n", path.c_str(),
                games.size(), results[2], results[1], results[0], turns, labelled, info.c_str());
  }
  return rc;
}

int connect6_expand(const std::vector<std::string>& files, const std::string& out, int max_score) {
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "warpmind-datagen connect6-expand: cannot write %s\n", out.c_str());
    return 2;
  }
  const std::vector<std::uint8_t> header = connect6_records_header();
  std::fwrite(header.data(), 1, header.size(), f);
  std::uint32_t next = 0;
  long long records = 0;
  std::vector<std::uint8_t> bytes;
  for (const std::string& path : files) {
    std::string info;
    std::vector<Connect6GameRecord> games;
    if (const Status s = read_connect6_games(path, info, games); !s.ok()) {
      std::fprintf(stderr, "warpmind-datagen connect6-expand: %s\n", s.message().c_str());
      std::fclose(f);
      return 2;
    }
    // In the order of the games' own numbers (a run writes them as they end), so that the records are the
    // same for the same files.
    std::sort(games.begin(), games.end(),
              [](const Connect6GameRecord& x, const Connect6GameRecord& y) { return x.index < y.index; });
    for (const Connect6GameRecord& g : games) {
      bytes.clear();
      records += append_records(g, max_score, next++, bytes);
      std::fwrite(bytes.data(), 1, bytes.size(), f);
    }
  }
  std::fclose(f);
  std::fprintf(stderr, "warpmind-datagen connect6-expand: %u games, %lld records\n", next, records);
  return 0;
}

int connect6_score(const std::string& network, const std::string& path) {
  std::shared_ptr<const c6::Network> net = c6::Network::builtin();
  if (const Status s = network_of(network, net); !s.ok()) {
    std::fprintf(stderr, "warpmind-datagen connect6-score: %s\n", s.message().c_str());
    return 2;
  }
  std::string bytes;
  if (const std::string err = demos::read_file(path, bytes, std::size_t{1} << 34); !err.empty()) {
    std::fprintf(stderr, "warpmind-datagen connect6-score: %s\n", err.c_str());
    return 2;
  }
  const std::vector<std::uint8_t> header = connect6_records_header();
  const std::size_t head = header.size();
  if (bytes.size() < head || (bytes.size() - head) % kConnect6RecordBytes ||
      bytes.compare(0, head, std::string(header.begin(), header.end())) != 0) {
    std::fprintf(stderr, "warpmind-datagen connect6-score: %s: not a Connect6 records file of this build\n",
                 path.c_str());
    return 2;
  }
  // Each record: its value, then the cell scores of its empty cells for the side to move (cell:score).
  std::string text;
  for (std::size_t at = head; at < bytes.size(); at += kConnect6RecordBytes) {
    const auto* r = reinterpret_cast<const std::uint8_t*>(bytes.data() + at);
    c6::Board b;
    for (int c = 0; c < c6::kCells; ++c) {
      const int s = r[c / 4] >> (2 * (c % 4)) & 3;
      if (s == 1 || s == 2) (void)b.setup(static_cast<c6::Stone>(s), c);
    }
    if (b.to_move() != r[91]) {
      std::fprintf(stderr, "warpmind-datagen connect6-score: record %zu: the side to move does not fit its stones\n",
                   (at - head) / kConnect6RecordBytes);
      return 2;
    }
    text += std::to_string(net->evaluate(b));
    for (int c = 0; c < c6::kCells; ++c)
      if (b.at(c) == c6::Empty) {
        text += ' ';
        text += std::to_string(net->cell_score(b, c, b.to_move()));
      }
    text += "\n";
  }
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace warpmind::train
