// libFuzzer target: an AOI world's saved state (AoiWorld::restore). Bytes that are refused leave the world
// as it was (its own save() unchanged); bytes that are accepted give valid players (finite, inside the
// world, HP >= 0), a tick then runs, and saving and restoring into a second world gives the same bytes.
#include <cmath>
#include <vector>

#include "fuzz_context.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/core/context.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind;
  using namespace warpmind::aoi;
  Context* ctx = &fuzz::cpu_context(1);
  // The config the corpus was saved under: a 64 x 64 world, AOI 8 (square), visibility tracked.
  AoiConfig c;
  c.world = {0, 0, 64, 64};
  c.aoi = 8;
  c.max_move = 4;
  c.attack_range = 8;
  c.variant = AoiVariant::CpuFast;
  std::unique_ptr<AoiWorld> w, v;
  FUZZ_CHECK(AoiWorld::create(*ctx, c, w).ok() && AoiWorld::create(*ctx, c, v).ok());
  FUZZ_CHECK(w->reset(std::vector<Player>{{1, 1, 100}, {60, 60, 5}}).ok());
  std::vector<std::uint8_t> before, after;
  FUZZ_CHECK(w->save(before).ok());
  if (!w->restore(std::span<const std::uint8_t>(data, size)).ok()) {
    FUZZ_CHECK(w->save(after).ok() && after == before);
    return 0;
  }
  for (const Player& p : w->players())
    FUZZ_CHECK(std::isfinite(p.x) && std::isfinite(p.y) && p.x >= 0 && p.x < 64 && p.y >= 0 && p.y < 64 && p.hp >= 0);
  FUZZ_CHECK(w->save(after).ok());
  std::vector<std::uint8_t> again;
  FUZZ_CHECK(v->restore(after).ok() && v->save(again).ok() && again == after);
  std::vector<Command> moves;
  for (std::uint32_t i = 0; i < w->players().size() && i < 64; ++i)
    moves.push_back({i, CommandType::Move, 1, -1, 0, 0});
  TickResult r1, r2;
  FUZZ_CHECK(w->tick(moves, r1).ok() && v->tick(moves, r2).ok());
  FUZZ_CHECK(r1.notification_count == r2.notification_count && r1.entered.size() == r2.entered.size());
  return 0;
}
