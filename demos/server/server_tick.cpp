// warpmind-server's tick: the commands taken since the previous tick (one zone: straight from the
// slots; a cluster: the whole cluster's, see server_zones.cpp) resolved into the AOI module's, the
// module's tick, and its notifications handed out chunk by chunk (server_states.cpp), timed by stage;
// and servicing the network between ticks.
#include <cstring>

#include "server.h"

namespace warpmind::server {

void Server::run_tick(std::vector<aoi::Command>& cmds, aoi::TickResult& r) {
  Clock::time_point t0 = Clock::now();
  if (f.zones == 1)
    local_commands(cmds);
  else if (!zones.gather(cmds, t0))
    return;
  // The module's tick; its mailboxes come chunk by chunk (gpu-fast writes the next while this one's
  // messages are built), the State's time being when the first chunk is ready.
  const Clock::time_point t_module = Clock::now();
  Clock::time_point t_encode{};
  std::uint64_t time_us = 0;
  outbox.begin();
  zones.begin_relays();
  const aoi::NotificationSink sink = [&](const aoi::NotificationChunk& c) {
    if (t_encode == Clock::time_point{}) {
      t_encode = Clock::now();
      time_us = static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count());
    }
    if (virtual_run)
      virtual_run->deliver(c, r, time_us);
    else
      outbox.deliver_chunk(c, r, time_us);
  };
  const Status st = world->tick(cmds, r, sink);
  if (!st.ok()) {
    std::fprintf(stderr, "warpmind-server: tick %llu: %s\n", static_cast<unsigned long long>(tick),
                 st.message().c_str());
    g_stop.store(true);
    return;
  }
  if (t_encode == Clock::time_point{}) t_encode = Clock::now();
  for (std::size_t k : r.rejected) times.add_rejected(k);
  outbox.send_snapshots(time_us);
  zones.flush_relays();
  // With a store: the tick's relays are on the NATS server before its state is stored, and nothing goes
  // to this zone's own clients before that (a crash in between replays the tick: the gateways drop what
  // they passed on already, see drain_relays).
  if (f.store.on) bus.flush();
  if (f.store.crash_at_tick == tick && f.store.crash_point == "relays") std::_Exit(137);  // --crash-point relays
  store.store();
  sockets.flush();
  ++tick;
  const Clock::time_point t1 = Clock::now();
  const auto ms = [](Clock::duration d) { return std::chrono::duration<float, std::milli>(d).count(); };
  times.add(ms(t1 - t0), ms(t_module - t0), ms(t_encode - t_module), ms(t1 - t_encode));
}

// The tick's commands for the AOI module: every raw command whose player (an attack: whose target)
// is in this zone's world, resolved against the positions before the tick, into out[0..1]; how many.
int Server::resolve_one(const net::RawCommand& c, std::span<const aoi::Player> pos, aoi::Command* out) {
  aoi::Command& k = out[0];
  k = {};
  k.player = c.player;
  const aoi::Player& p = pos[c.player];
  switch (c.kind) {
    case net::RawKind::Join:  // a new session: nothing of the id's previous one carries over
      clients.start(c.player, tick - 1);
      if (!in_reach(c.x, c.y)) return 0;
      k.dx = c.x - p.x;
      k.dy = c.y - p.y;
      if (p.hp >= kSpawnHp) return 1;  // (HP never rises above the spawn HP here)
      out[1] = {c.player, aoi::CommandType::Heal, 0, 0, 0, kSpawnHp - p.hp};  // the HP the Welcome gave
      return 2;
    case net::RawKind::Leave:
      if (!in_game(p)) return 0;
      k.dx = parking[c.player].x - p.x;
      k.dy = parking[c.player].y - p.y;
      return 1;
    case net::RawKind::Move: {
      clients.applied(c.player, c.seq);
      if (!in_game(p)) return 0;
      const float tx = std::clamp(c.x, 0.0f, f.map), ty = std::clamp(c.y, 0.0f, f.map);
      k.dx = std::clamp(tx - p.x, -max_move, max_move);
      k.dy = std::clamp(ty - p.y, -max_move, max_move);
      return 1;
    }
    case net::RawKind::Attack:
      clients.applied(c.player, c.seq);
      if (!in_game(pos[c.target])) return 0;
      k.type = aoi::CommandType::Attack;
      k.target = c.target;
      k.damage = f.damage;
      return 1;
    case net::RawKind::Ack:
      clients.ack(c.player, c.target);
      return 0;
    case net::RawKind::Resume:  // its client holds nothing: its next State is a snapshot
      if (in_zone(p)) zones.answer_resume(c, p);
      clients.forget_ack(c.player);
      return 0;
  }
  return 0;
}

// One zone: the slots' commands resolved straight into the module's, in player order, on the pool
// (parts counted, then written at their offsets; a command that no longer applies — an attack on a
// player who left — leaves a gap, closed afterwards).
void Server::local_commands(std::vector<aoi::Command>& cmds) {
  const std::span<const aoi::Player> pos = world->players();
  ThreadPool& pool = ctx->pool();
  const std::size_t parts = std::clamp<std::size_t>(cap / 4096, 1, pool.size() * 4);
  const auto lo = [&](std::size_t p) { return static_cast<std::uint32_t>(std::size_t{cap} * p / parts); };
  part_start.assign(parts + 1, 0);
  part_written.assign(parts, 0);
  pool.parallel_for(parts, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t p = b; p < e; ++p) {
      std::size_t k = 0;
      for (std::uint32_t i = lo(p); i < lo(p + 1); ++i) k += sessions.pending_commands(i);
      part_start[p + 1] = k;
    }
  });
  for (std::size_t p = 0; p < parts; ++p) part_start[p + 1] += part_start[p];
  cmds.resize(part_start[parts]);
  pool.parallel_for(parts, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t p = b; p < e; ++p) {
      std::size_t at = part_start[p];
      net::RawCommand c;
      for (std::uint32_t i = lo(p); i < lo(p + 1); ++i)
        if (sessions.take_pending(i, c)) at += resolve_one(c, pos, cmds.data() + at);
      part_written[p] = at - part_start[p];
    }
  });
  std::size_t to = 0;
  for (std::size_t p = 0; p < parts; ++p) {
    if (to != part_start[p])
      std::memmove(cmds.data() + to, cmds.data() + part_start[p], part_written[p] * sizeof(aoi::Command));
    to += part_written[p];
  }
  cmds.resize(to);
}

// Services the network until `until`, and past it until what has arrived is handled (at most 20 ms
// more): a server running late — a slow tick, or a zone waiting for the others — still takes its
// clients' packets every tick.
void Server::service(Clock::time_point until) {
  const Clock::time_point hard = std::max(until, Clock::now()) + std::chrono::milliseconds(20);
  for (;;) {
    metrics.publish();
    zones.drain_relays();
    const Clock::time_point now = Clock::now();
    if (g_stop.load()) return;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
    const bool busy = pump(static_cast<int>(std::clamp<long long>(wait, 0, 5)));
    if (Clock::now() >= until && (!busy || Clock::now() >= hard)) return;
  }
}

bool Server::pump(int wait_ms) {
  return sockets.pump(wait_ms, [this](ENetEvent& ev) { sessions.handle(ev); });
}

}  // namespace warpmind::server
