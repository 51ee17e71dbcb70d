// search_many on the CPU (contract in warpmind/search/search_many.h): search/alphabeta.h's root search
// over each game's one-thread rules (DeviceGame<G>::Search, the rules the GPU runs), a position a task.
#include "warpmind/search/search_many.h"

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "search/alphabeta.h"
#include "search/chess/chess_device.h"
#include "search/connect6/connect6_device.h"

namespace warpmind::search {

template <Game G>
Status search_many(ThreadPool& pool, const G& game, std::span<const typename G::State> positions, int depth,
                   std::span<TableMove<typename G::Move>> out, SearchManyStats* stats) {
  using D = DeviceGame<G>;
  using S = typename D::Search;
  if (depth < 1 || depth > kSearchManyMaxDepth)
    return Status::Invalid("search_many: depth must be 1.." + std::to_string(kSearchManyMaxDepth) + ", got " +
                           std::to_string(depth));
  if (out.size() != positions.size())
    return Status::Invalid("search_many: " + std::to_string(out.size()) + " results for " +
                           std::to_string(positions.size()) + " positions");
  WM_RETURN_IF_ERROR(D::check(game));
  const auto t0 = std::chrono::steady_clock::now();
  const S rules = D::search_rules(game);
  std::atomic<std::uint64_t> nodes{0};
  pool.parallel_for(positions.size(), [&](std::size_t b, std::size_t e, unsigned) {
    std::vector<typename S::Move> moves(S::kMaxMoves);
    std::uint64_t visited = 0;
    for (std::size_t i = b; i < e; ++i) {
      int best = -1;
      ++visited;  // the position itself
      TableMove<typename G::Move>& r = out[i];
      r.value = root_search<kSearchManyMaxDepth - 1>(rules, D::pack(positions[i]), depth, moves.data(), best, visited);
      r.has_move = best >= 0;
      r.best = r.has_move ? D::unpack(moves[static_cast<std::size_t>(best)]) : typename G::Move{};
    }
    nodes += visited;
  });
  if (stats) {
    stats->nodes = nodes.load();
    stats->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    stats->device_ms = 0;
  }
  return Status::Ok();
}

template Status search_many(ThreadPool&, const chess::ChessGame&, std::span<const chess::Position>, int,
                            std::span<TableMove<chess::Move>>, SearchManyStats*);
template Status search_many(ThreadPool&, const connect6::Connect6Game&, std::span<const connect6::Board>, int,
                            std::span<TableMove<connect6::Turn>>, SearchManyStats*);

}  // namespace warpmind::search
