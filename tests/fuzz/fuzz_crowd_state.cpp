// libFuzzer target: a crowd's saved state (CrowdSolver::restore), under a one-size config and one with
// per-agent radii. Bytes that are refused leave the solver as it was (its own save() unchanged); bytes
// that are accepted give a valid crowd (no overlaps, every agent inside and in no wall, ids increasing,
// radii in range), and saving it and restoring that into a second solver gives the same bytes again.
#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include "fuzz_context.h"
#include "warpmind/core/context.h"
#include "warpmind/crowd/crowd_solver.h"

namespace {

using namespace warpmind;
using namespace warpmind::crowd;

// One config: bytes refused leave the solver as it was; bytes accepted give a valid crowd (no two agents
// closer than the sum of their radii, every agent inside and in no wall, ids increasing, radii in
// [min_radius, R]) whose save restores into a second solver as the same bytes.
void check(const CrowdConfig& c, std::span<const std::uint8_t> bytes) {
  Context* ctx = &fuzz::cpu_context(1);
  std::unique_ptr<CrowdSolver> s, t;
  FUZZ_CHECK(CrowdSolver::create(*ctx, c, s).ok() && CrowdSolver::create(*ctx, c, t).ok());
  FUZZ_CHECK(s->reset(std::vector<Vec2>{{1, 1}, {7, 7}}).ok());
  std::vector<std::uint8_t> before, after;
  FUZZ_CHECK(s->save(before).ok());
  if (!s->restore(bytes).ok()) {
    FUZZ_CHECK(s->save(after).ok() && after == before);
    return;
  }
  std::vector<Vec2> pos(s->size());
  std::vector<float> radii(s->size());
  std::vector<std::uint32_t> ids(s->size());
  FUZZ_CHECK(s->read_positions(pos).ok() && s->read_radii(radii).ok() && s->read_ids(ids).ok());
  FUZZ_CHECK(count_overlaps(pos, radii) == 0);
  const float lo = c.min_radius > 0 ? c.min_radius : c.radius;
  for (std::size_t i = 0; i < pos.size(); ++i) {
    FUZZ_CHECK(std::isfinite(pos[i].x) && pos[i].x >= 0 && pos[i].x < 8 && pos[i].y >= 0 && pos[i].y < 8);
    FUZZ_CHECK(!(static_cast<int>(pos[i].x / 2) == 1 && static_cast<int>(pos[i].y / 2) == 1));
    FUZZ_CHECK(i == 0 || ids[i] > ids[i - 1]);
    FUZZ_CHECK(radii[i] >= lo && radii[i] <= c.radius);
  }
  FUZZ_CHECK(s->save(after).ok());
  std::vector<std::uint8_t> again;
  FUZZ_CHECK(t->restore(after).ok() && t->save(again).ok() && again == after);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The configs the corpus was saved under: an 8 x 8 world, a wall cell, radius 0.5, accept/reject; one
  // size of agent, and agents of radii 0.25 to 0.5.
  CrowdConfig c;
  c.world = {0, 0, 8, 8};
  c.radius = 0.5f;
  c.obstacles.width = c.obstacles.height = 4;
  c.obstacles.blocked.assign(16, 0);
  c.obstacles.blocked[5] = 1;
  c.variant = CrowdVariant::CpuReference;
  const std::span<const std::uint8_t> bytes(data, size);
  check(c, bytes);
  c.min_radius = 0.25f;
  check(c, bytes);
  return 0;
}
