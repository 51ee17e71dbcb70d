// libFuzzer target: navigation fields' saved state (NavFields::restore). Bytes that are refused leave the
// fields as they were (their own save() unchanged); bytes that are accepted give fields whose goals are
// passable cells of the grid and whose goal cells are at distance 0, and saving and restoring into a
// second object gives the same bytes and the same distances.
#include <cstring>
#include <vector>

#include "fuzz_context.h"
#include "warpmind/core/context.h"
#include "warpmind/nav/nav_fields.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind;
  using namespace warpmind::nav;
  Context* ctx = &fuzz::cpu_context(1);
  Grid g;
  g.width = 4;
  g.height = 3;
  g.cost.assign(12, 1);
  g.cost[5] = kBlocked;
  std::unique_ptr<NavFields> f, h;
  FUZZ_CHECK(NavFields::create(*ctx, g, std::vector<Cell>{{0, 0}}, f).ok());
  FUZZ_CHECK(NavFields::create(*ctx, g, std::vector<Cell>{{3, 2}}, h).ok());
  std::vector<std::uint8_t> before, after;
  FUZZ_CHECK(f->save(before).ok());
  if (!f->restore(std::span<const std::uint8_t>(data, size)).ok()) {
    FUZZ_CHECK(f->save(after).ok() && after == before);
    return 0;
  }
  const Grid& now = f->grid();
  FUZZ_CHECK(now.cost.size() == now.cells());
  FUZZ_CHECK(f->save(after).ok());
  FUZZ_CHECK(after.size() == size && std::memcmp(after.data(), data, size) == 0);
  std::vector<std::uint8_t> again;
  FUZZ_CHECK(h->restore(after).ok() && h->save(again).ok() && again == after);
  for (std::size_t k = 0; k < f->goals(); ++k)
    FUZZ_CHECK(std::memcmp(f->distance(k).data(), h->distance(k).data(), now.cells() * sizeof(float)) == 0);
  return 0;
}
