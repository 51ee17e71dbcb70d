// The store of peers' early tick messages (early_ticks.h): one per zone per tick, a bounded look-ahead,
// and a cap on the memory the decoded messages hold, which their wire size understates.
#include "early_ticks.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using warpmind::server::EarlyTicks;
namespace net = warpmind::net;

// A zone's message for `tick` with `views` players' views, each with two past ticks of one key: small on
// the wire, several allocations each once decoded.
net::TickMessage message(std::uint32_t zone, std::uint64_t tick, std::size_t views) {
  net::TickMessage m;
  m.zone = zone;
  m.tick = tick;
  for (std::size_t i = 0; i < views; ++i) {
    net::PlayerView v;
    v.player = static_cast<std::uint32_t>(i);
    v.visible = {1, 2};
    v.past = {net::ViewTick{tick - 1, {7}, {}}, net::ViewTick{tick, {8}, {9}}};
    m.views.push_back(std::move(v));
  }
  return m;
}

TEST(EarlyTicks, KeepsOnePerZoneAndTickWithinTheLookAheadAndHandsThemOver) {
  EarlyTicks early;
  EXPECT_EQ(early.keep(10, message(1, 9, 1)), EarlyTicks::Kept::NotAhead);
  EXPECT_EQ(early.keep(10, message(1, 10 + EarlyTicks::kTicks + 1, 1)), EarlyTicks::Kept::TooFar);
  EXPECT_EQ(early.keep(10, message(1, 12, 1)), EarlyTicks::Kept::Yes);
  EXPECT_EQ(early.keep(10, message(1, 12, 3)), EarlyTicks::Kept::Repeat);
  EXPECT_EQ(early.keep(10, message(2, 12, 1)), EarlyTicks::Kept::Yes);
  EXPECT_EQ(early.keep(10, message(2, 11, 1)), EarlyTicks::Kept::Yes);
  EXPECT_EQ(early.keep(10, message(3, 10, 1)), EarlyTicks::Kept::Yes);
  EXPECT_GT(early.bytes(), 0u);
  std::vector<net::TickMessage> out(5);
  early.take(10, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].zone, 3u);
  early.take(12, out);  // tick 11's is dropped on the way: that tick was not run here
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].zone + out[1].zone, 3u);
  EXPECT_EQ(out[0].views.size(), 1u);  // the first of zone 1, not the repeat
  EXPECT_EQ(early.bytes(), 0u);
  early.take(13, out);
  EXPECT_TRUE(out.empty());
}

// Messages whose wire bytes come to a fifth of the cap fill it: what they hold decoded is counted.
TEST(EarlyTicks, TheCapCountsTheMemoryOfTheDecodedMessages) {
  constexpr std::size_t kCap = 1 << 20;
  EarlyTicks early(kCap);
  std::vector<std::uint8_t> wire;
  std::size_t wire_bytes = 0, kept = 0;
  for (std::uint32_t zone = 1; zone < 60; ++zone) {
    net::TickMessage m = message(zone, 5, 500);
    wire.clear();
    net::encode_tick(m, wire);
    const std::size_t held = EarlyTicks::held_bytes(m);
    EXPECT_GT(held, 2 * wire.size());
    const std::size_t before = early.bytes();
    const EarlyTicks::Kept k = early.keep(1, std::move(m));
    if (k == EarlyTicks::Kept::Full) {
      EXPECT_GT(before + held, kCap);
      continue;
    }
    ASSERT_EQ(k, EarlyTicks::Kept::Yes);
    EXPECT_GE(early.bytes(), before + held);
    wire_bytes += wire.size();
    ++kept;
    EXPECT_LE(early.bytes(), kCap);
  }
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, 59u);  // the cap was reached
  EXPECT_LT(wire_bytes * 2, kCap);
}

}  // namespace
