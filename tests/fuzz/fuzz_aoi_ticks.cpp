// libFuzzer target: AOI command batches through the public API (warpmind::aoi::AoiWorld), on both CPU
// variants, against the brute-force oracle written from the contract (tests/oracles/aoi_oracle.h).
// Input: a 32-byte header (flags, player count, tick count, then world x0 y0 width height, aoi,
// max_move, attack_range as raw float bits), 12 bytes per player (x, y as float bits, hp), then 24-byte
// commands exactly as a client batch arrives, split evenly over the ticks. Checked: a rejected
// configuration or reset leaves nothing changed; every tick's updates, notifications (records, or
// mailboxes expanded), entered / left, rejected counts and players equal the oracle's bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "aoi_oracle.h"
#include "fuzz_context.h"
#include "warpmind/aoi/aoi.h"

namespace {

using namespace warpmind;

template <class T>
T take(const std::uint8_t*& p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return v;
}

bool same_bits(const aoi::Player& a, const aoi::Player& b) {
  return std::memcmp(&a.x, &b.x, 4) == 0 && std::memcmp(&a.y, &b.y, 4) == 0 && a.hp == b.hp;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 32) return 0;
  Context* ctx = &warpmind::fuzz::cpu_context(2);
  const std::uint8_t* p = data;
  const std::uint8_t flags = take<std::uint8_t>(p), n_players = take<std::uint8_t>(p);
  const int ticks = 1 + take<std::uint8_t>(p) % 3;
  p += 1;
  aoi::AoiConfig c;
  c.world.x0 = take<float>(p);
  c.world.y0 = take<float>(p);
  c.world.width = take<float>(p);
  c.world.height = take<float>(p);
  c.aoi = take<float>(p);
  c.max_move = take<float>(p);
  c.attack_range = take<float>(p);
  c.shape = flags & 1 ? aoi::AoiShape::Circle : aoi::AoiShape::Square;
  c.format = flags & 2 ? aoi::NotificationFormat::Mailboxes : aoi::NotificationFormat::Records;
  c.track_visibility = (flags & 4) != 0;
  c.variant = flags & 8 ? aoi::AoiVariant::CpuGrid : aoi::AoiVariant::CpuFast;
  // Valid but heavy for a fuzz iteration: more than 2^16 buckets, counted as the contract does (at least
  // one per axis), so a world 100 wide and 3e15 high is one column of 6.5e7 buckets, not 137 (the 10^8
  // limit is unit-tested). Such inputs allocate gigabytes of bucket lists per tick on cpu-grid.
  const auto per_axis = [&](float extent) { return std::max(1.0, std::ceil(static_cast<double>(extent) / c.aoi)); };
  if (per_axis(c.world.width) * per_axis(c.world.height) > 65536.0) return 0;
  std::unique_ptr<aoi::AoiWorld> world;
  if (!aoi::AoiWorld::create(*ctx, c, world).ok()) {
    FUZZ_CHECK(world == nullptr);
    return 0;
  }
  std::vector<aoi::Player> players;
  for (int i = 0; i < n_players && p + 12 <= data + size; ++i) {
    aoi::Player q;
    q.x = take<float>(p);
    q.y = take<float>(p);
    q.hp = take<std::int32_t>(p);
    players.push_back(q);
  }
  std::vector<aoi::Player> state;  // the oracle's players: none until a reset is accepted
  if (world->reset(players).ok()) {
    state = players;
  } else {
    FUZZ_CHECK(world->players().empty());
  }
  FUZZ_CHECK(world->players().size() == state.size());
  std::vector<aoi::Command> commands((data + size - p) / sizeof(aoi::Command));
  if (!commands.empty()) std::memcpy(commands.data(), p, commands.size() * sizeof(aoi::Command));
  oracle::AoiVisible visible = c.track_visibility ? oracle::aoi_visibility(c, state) : oracle::AoiVisible{};
  aoi::TickResult got;
  const std::size_t per_tick = (commands.size() + ticks - 1) / ticks;
  for (int t = 0; t < ticks; ++t) {
    const std::size_t from = std::min(commands.size(), t * per_tick), to = std::min(commands.size(), from + per_tick);
    const std::span<const aoi::Command> batch(commands.data() + from, to - from);
    FUZZ_CHECK(world->tick(batch, got).ok());
    const aoi::TickResult want = oracle::aoi_tick(c, state, batch, visible);
    FUZZ_CHECK(got.accepted == want.accepted && got.rejected == want.rejected);
    FUZZ_CHECK(got.updates == want.updates);
    if (c.format == aoi::NotificationFormat::Records) {
      FUZZ_CHECK(got.notifications == want.notifications);
    } else {
      FUZZ_CHECK(got.mailbox_start.size() == state.size() + 1);
      std::vector<aoi::Notification> expanded;
      for (std::uint32_t r = 0; r < state.size(); ++r)
        for (std::uint64_t k = got.mailbox_start[r]; k < got.mailbox_start[r + 1]; ++k)
          expanded.push_back({r, got.mailbox[k].subject(), got.mailbox[k].field(), got.mailbox[k].value});
      FUZZ_CHECK(got.mailbox_start.back() == got.mailbox.size() && expanded == want.notifications);
    }
    if (c.track_visibility) {
      FUZZ_CHECK(got.entered == want.entered && got.left == want.left);
    } else {
      FUZZ_CHECK(got.entered.empty() && got.left.empty());
    }
    FUZZ_CHECK(world->players().size() == state.size());
    for (std::size_t i = 0; i < state.size(); ++i) FUZZ_CHECK(same_bits(world->players()[i], state[i]));
  }
  return 0;
}
