// An area-of-interest server's loop on warpmind, without the network: 4,000 players on a 1000 x 1000
// map, each sending one command a tick (mostly moves, some attacks), 20 ticks at a fixed rate. Every tick
// the AOI world validates and merges the commands and hands out one mailbox per player — the list of
// changes inside its area of interest — which a real server would encode and send; here each mailbox is
// checked against the AOI rule and its bytes counted. Runs on the GPU when one is usable, else on the CPU
// threads. Exits 1 if a mailbox breaks the rule.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <thread>
#include <memory>
#include <vector>

#include "warpmind/aoi/aoi.h"
#include "warpmind/core/context.h"
#include "warpmind/core/random.h"

using namespace warpmind;

int main() {
  std::unique_ptr<Context> ctx;
  if (Status st = Context::create(ContextOptions{}, ctx); !st.ok())
    return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;

  aoi::AoiConfig config;
  config.world = {0.0f, 0.0f, 1000.0f, 1000.0f};
  config.aoi = 25.0f;  // a circle of radius 25 around each player
  config.shape = aoi::AoiShape::Circle;
  config.max_move = 5.0f;
  config.attack_range = 25.0f;
  config.format = aoi::NotificationFormat::Mailboxes;  // what the server sends from: one list per player
  std::unique_ptr<aoi::AoiWorld> world;
  if (Status st = aoi::AoiWorld::create(*ctx, config, world); !st.ok())
    return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;

  SplitMix64 rng(42);
  const auto uniform = [&](float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(rng.next() >> 40) / static_cast<float>(1u << 24);
  };
  const std::uint32_t players = 4000;
  std::vector<aoi::Player> start(players);
  for (aoi::Player& p : start) p = {uniform(0, 999), uniform(0, 999), 100};
  if (Status st = world->reset(start); !st.ok()) return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;

  std::vector<aoi::Command> commands(players);
  aoi::TickResult result;                             // reused: no allocation per tick once its buffers have grown
  const auto period = std::chrono::milliseconds(50);  // 20 ticks a second
  auto next = std::chrono::steady_clock::now();
  std::size_t bytes = 0, violations = 0;
  for (int tick = 1; tick <= 20; ++tick) {
    // What the clients sent since the last tick: a move, or (one in ten) an attack on a random player
    // (out of range ones are rejected and counted by the tick).
    for (std::uint32_t i = 0; i < players; ++i) {
      aoi::Command& c = commands[i];
      c = {};
      c.player = i;
      if (rng.next() % 10 == 0) {
        c.type = aoi::CommandType::Attack;
        c.target = static_cast<std::uint32_t>(rng.next() % players);
        c.damage = 5;
      } else {
        c.dx = uniform(-5, 5);
        c.dy = uniform(-5, 5);
      }
    }
    if (Status st = world->tick(commands, result); !st.ok())
      return std::fprintf(stderr, "tick %d: %s\n", tick, st.message().c_str()), 2;

    // "Send" each player its mailbox: the changes of the players inside its AOI. Check the rule.
    const std::span<const aoi::Player> now = world->players();
    std::size_t sent = 0;
    for (std::uint32_t r = 0; r < players; ++r) {
      const std::uint64_t b = result.mailbox_start[r], e = result.mailbox_start[r + 1];
      for (std::uint64_t k = b; k < e; ++k) {
        const aoi::Player& s = now[result.mailbox[k].subject()];
        const float dx = now[r].x - s.x, dy = now[r].y - s.y;
        if (!(dx * dx + dy * dy <= config.aoi * config.aoi)) ++violations;
      }
      sent += static_cast<std::size_t>(e - b) * sizeof(aoi::MailboxEntry);
    }
    bytes += sent;
    std::size_t rejected = 0;
    for (std::size_t n : result.rejected) rejected += n;
    if (tick % 5 == 0)
      std::printf(
          "tick %2d: %zu commands accepted, %zu rejected, %zu updates, %zu notifications (%.1f KiB), "
          "%zu entered and %zu left an AOI, query %.2f ms\n",
          tick, result.accepted, rejected, result.updates.size(), result.mailbox.size(), sent / 1024.0,
          result.entered.size(), result.left.size(), result.ms_query);
    next += period;
    std::this_thread::sleep_until(next);
  }
  std::printf("%s: %.1f KiB of notifications a second for %u players, %zu outside an AOI\n",
              ctx->cuda() ? "gpu" : "cpu", bytes / 1024.0, players, violations);
  return violations == 0 ? 0 : 1;
}
