// libFuzzer target: the battle demo's map file. The reader takes a path, so each input goes through a
// file; a rejected map leaves the output unchanged, an accepted one has walls inside the 128-unit plan.
#include <unistd.h>

#include <fstream>

#include "battle.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind;
  static const std::string path = "/tmp/warpmind-fuzz-map-" + std::to_string(getpid()) + ".json";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  demos::BattleMap m;
  m.start_row = 99;
  m.walls = {{1, 2, 3, 4}};
  const Status st = demos::load_battle_map(path, m);
  if (!st.ok()) {
    FUZZ_CHECK(m.start_row == 99 && m.walls.size() == 1 && m.walls[0] == (std::array<int, 4>{1, 2, 3, 4}));
    return 0;
  }
  FUZZ_CHECK(m.start_row >= 0 && m.start_row <= 127);
  for (const auto& w : m.walls)
    FUZZ_CHECK(w[0] >= 0 && w[0] <= w[2] && w[2] <= 127 && w[1] >= 0 && w[1] <= w[3] && w[3] <= 127);
  return 0;
}
