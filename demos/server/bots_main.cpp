// warpmind-bots: N simulated clients of warpmind-server in one process (one ENet host, so one UDP
// port, per bot) that join, walk between scripted waypoints and attack what they see, then check every
// State they received against their commands and the AOI rule (docs/server.md, "What the bots check").
//
// Because every bot is in this process, the checker knows, for each tick that every bot heard, where
// every player was after it (each State carries its receiver's own position) and which players changed
// (a player is always in its own area of interest, so its own updates are in its own State). From
// those it computes the exact notification list each bot should have received — the subjects inside
// its AOI by the module's rule (warpmind_oracles' aoi_sees, written from docs/aoi.md), with their
// values — and the exact set of players it should see after applying its enter/leave events.
#include <enet/enet.h>
#include <poll.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <mutex>
#include <set>
#include <span>
#include <thread>
#include <string>
#include <vector>

#include "aoi_oracle.h"
#include "flags.h"
#include "protocol.h"
#include "warpmind/aoi/aoi.h"

namespace {

using namespace warpmind;
using Clock = std::chrono::steady_clock;

int bad(const std::string& why) {
  std::fprintf(stderr, "warpmind-bots: %s\n", why.c_str());
  return 2;
}

std::int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

struct Sent {
  bool attack = false;
  float x = 0, y = 0;
  Clock::time_point at;
};

struct StateRecord {
  std::uint64_t tick = 0, since = 0;
  std::uint32_t last_seq = 0;
  float x = 0, y = 0;
  std::int32_t hp = 0;
  std::vector<aoi::MailboxEntry> entries, catch_up;
};

struct EventRecord {
  std::uint64_t tick = 0;
  std::vector<std::uint32_t> entered, left;
};

struct Bot {
  ENetHost* host = nullptr;
  ENetPeer* peer = nullptr;
  bool welcomed = false, refused = false, gone = false;
  std::uint32_t player = 0;
  std::uint64_t token = 0, first_tick = 0;
  float spawn_x = 0, spawn_y = 0;
  float x = 0, y = 0, wx = 0, wy = 0;  // known position, waypoint
  std::uint32_t seq = 0, acked = 0;
  std::uint64_t acked_tick = 0;  // the newest State tick it acknowledges
  std::vector<double> rtt_ms, latency_ms;
  std::vector<Sent> sent;  // by seq - 1
  std::vector<StateRecord> states;
  std::vector<EventRecord> events;
  std::set<std::uint32_t> visible;  // live, from the events: what to attack
  std::mt19937_64 rng;
  std::uint64_t packets_out = 0, bytes_out = 0, packets_in = 0, bytes_in = 0, bad_in = 0, duplicate_states = 0;
};

struct Flags {
  std::string server;
  int bots = 10;
  double seconds = 5, attack_share = 0.1, lose_share = 0;
  int threads = 1;
  std::uint64_t seed = 1;
  bool json = false;
};

// What the first Welcome said about the world (the same for every client of one server).
struct World {
  std::atomic<bool> known{false};  // set once, by the first Welcome (any thread), under Run::world_mutex
  aoi::AoiConfig cfg;
  float map = 0, max_move = 0;
  int tick_hz = 20;
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

void send(Bot& b, std::uint8_t channel, flatbuffers::FlatBufferBuilder& fb) {
  const std::uint32_t flags = channel == net::kReliableChannel ? ENET_PACKET_FLAG_RELIABLE : 0;
  ENetPacket* p = enet_packet_create(fb.GetBufferPointer(), fb.GetSize(), flags);
  if (p == nullptr) return;
  if (enet_peer_send(b.peer, channel, p) != 0) {
    enet_packet_destroy(p);
    return;
  }
  ++b.packets_out;
  b.bytes_out += fb.GetSize();
}

struct Run {
  Flags f;
  World world;
  std::mutex world_mutex;
  std::vector<Bot> bots;
  std::vector<double> rtt_ms, latency_ms;  // all bots' samples, gathered after the run

  void pick_waypoint(Bot& b) {
    std::uniform_real_distribution<float> u(0.0f, world.map);
    b.wx = u(b.rng);
    b.wy = u(b.rng);
  }

  void on_message(Bot& b, const ENetPacket* packet) {
    ++b.packets_in;
    b.bytes_in += packet->dataLength;
    const net::Message* m = net::read_message(packet->data, packet->dataLength);
    if (m == nullptr) return void(++b.bad_in);
    if (const net::Welcome* w = m->body_as_Welcome()) {
      b.welcomed = true;
      b.player = w->player();
      b.token = w->token();
      b.first_tick = w->tick();
      b.x = b.spawn_x = w->x();
      b.y = b.spawn_y = w->y();
      if (const std::lock_guard<std::mutex> lock(world_mutex); !world.known.load()) {
        world.cfg.world = {w->world_x0(), w->world_y0(), w->world_width(), w->world_height()};
        world.cfg.aoi = w->aoi();
        world.cfg.shape = w->shape() == net::Shape_Circle ? aoi::AoiShape::Circle : aoi::AoiShape::Square;
        world.map = w->map();
        world.max_move = w->max_move();
        world.tick_hz = static_cast<int>(std::max(1u, w->tick_hz()));
        world.known.store(true);
      }
      pick_waypoint(b);
    } else if (m->body_as_Refused()) {
      b.refused = true;
    } else if (const net::State* s = m->body_as_State()) {
      StateRecord r;
      r.tick = s->tick();
      r.last_seq = s->last_seq();
      r.x = s->x();
      r.y = s->y();
      r.hp = s->hp();
      if (s->notifications())
        for (const net::Entry* e : *s->notifications()) r.entries.push_back({e->subject_field(), e->value()});
      r.since = s->since();
      if (s->catch_up())
        for (const net::Entry* e : *s->catch_up()) r.catch_up.push_back({e->subject_field(), e->value()});
      if (!b.states.empty() && r.tick <= b.states.back().tick) {  // a second State of a tick: two zones sent it
        ++b.duplicate_states;
        return;
      }
      b.x = r.x;
      b.y = r.y;
      if (r.last_seq > b.acked && r.last_seq <= b.sent.size()) {
        b.rtt_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - b.sent[r.last_seq - 1].at).count());
        b.acked = r.last_seq;
      }
      b.latency_ms.push_back(static_cast<double>(wall_us() - static_cast<std::int64_t>(s->time_us())) / 1000.0);
      // --lose-share: the State is kept for the check but the bot acts as if it never came: it does not
      // acknowledge it, so the server's next States must make up for it.
      if (std::uniform_real_distribution<double>(0.0, 1.0)(b.rng) >= f.lose_share) b.acked_tick = r.tick;
      b.states.push_back(std::move(r));
    } else if (const net::Events* e = m->body_as_Events()) {
      EventRecord r;
      r.tick = e->tick();
      if (e->entered()) r.entered.assign(e->entered()->begin(), e->entered()->end());
      if (e->left()) r.left.assign(e->left()->begin(), e->left()->end());
      for (std::uint32_t o : r.entered) b.visible.insert(o);
      for (std::uint32_t o : r.left) b.visible.erase(o);
      b.events.push_back(std::move(r));
    } else {
      ++b.bad_in;
    }
  }

  // Drains a bot's host: handles what arrived, sends acknowledgements and what is queued.
  void service(Bot& b, bool record) {
    ENetEvent ev;
    while (b.host && enet_host_service(b.host, &ev, 0) > 0) {
      if (ev.type == ENET_EVENT_TYPE_CONNECT) {
        flatbuffers::FlatBufferBuilder fb(64);
        const auto hello = net::CreateHello(fb, net::kProtocolVersion, fb.CreateString("bot"));
        net::FinishMessageBuffer(fb, net::CreateMessage(fb, net::Body_Hello, hello.Union()));
        send(b, net::kReliableChannel, fb);
      } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
        if (record) on_message(b, ev.packet);
        enet_packet_destroy(ev.packet);
      } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
        b.gone = true;
      }
    }
  }

  // The script: one command a tick, an attack on a random visible player (attack_share of the time),
  // else a step towards the waypoint (a new one when there).
  void command(Bot& b) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    flatbuffers::FlatBufferBuilder fb(64);
    Sent s;
    s.at = Clock::now();
    const std::uint32_t seq = ++b.seq;
    const std::uint64_t ack = b.acked_tick;  // the newest State taken (see --lose-share)
    if (!b.visible.empty() && u(b.rng) < f.attack_share) {
      auto it = b.visible.begin();
      std::advance(it, static_cast<long>(b.rng() % b.visible.size()));
      s.attack = true;
      net::FinishMessageBuffer(
          fb, net::CreateMessage(fb, net::Body_Attack, net::CreateAttack(fb, b.token, seq, *it, ack).Union()));
    } else {
      if (std::fabs(b.x - b.wx) < 0.5f && std::fabs(b.y - b.wy) < 0.5f) pick_waypoint(b);
      s.x = b.wx;
      s.y = b.wy;
      net::FinishMessageBuffer(
          fb, net::CreateMessage(fb, net::Body_Move, net::CreateMove(fb, b.token, seq, s.x, s.y, ack).Union()));
    }
    b.sent.push_back(s);
    send(b, net::kStreamChannel, fb);
  }
};

// ---- The check (after the run, so it costs the run nothing).
struct Check {
  std::uint64_t ticks_checked = 0, states_checked = 0, missing = 0, extra = 0, wrong_value = 0, own_errors = 0,
                visibility_errors = 0, states_expected = 0, states_received = 0;
  // Catch-ups (State.since, State.catch_up) checked against the ticks they cover, and those skipped
  // because some tick they cover was not heard by every bot.
  std::uint64_t catch_ups_checked = 0, catch_ups_skipped = 0, catch_up_errors = 0, snapshots = 0, catch_ups_behind = 0;
  std::uint64_t inconsistencies() const {
    return missing + extra + wrong_value + own_errors + visibility_errors + catch_up_errors;
  }
};

// The position the server gives a player at (x, y) walking towards (tx, ty): the target clamped into
// the map, the step clamped to max_move per axis, the result clamped into the world (docs/protocol.md).
float step(float from, float target, float map, float max_move, float lo, float hi) {
  const float t = std::clamp(target, 0.0f, map);
  const float d = std::clamp(t - from, -max_move, max_move);
  return std::min(std::max(from + d, lo), std::nextafter(hi, lo));
}

// What the checker knows of one tick every bot heard: positions, visible sets and updates by player.
struct TickData {
  std::map<std::uint32_t, aoi::Player> pos;
  std::map<std::uint32_t, std::set<std::uint32_t>> vis;
  std::map<std::uint32_t, std::vector<aoi::MailboxEntry>> updates;
};

Check check(const Run& run) {
  Check c;
  std::map<std::uint64_t, TickData> ticks;
  const World& w = run.world;
  std::vector<const Bot*> in;
  for (const Bot& b : run.bots)
    if (b.welcomed) in.push_back(&b);
  if (in.empty()) return c;
  // Up to the last tick every bot heard of (a bot in the world that heard nothing ends it before it came).
  std::uint64_t begin = UINT64_MAX, end = UINT64_MAX;
  for (const Bot* b : in) {
    begin = std::min(begin, b->first_tick);
    end = std::min(end, b->states.empty() ? b->first_tick - 1 : b->states.back().tick);
  }
  if (end == UINT64_MAX || end < begin) return c;
  // By bot, by tick: its State (nullptr when not received).
  std::vector<std::map<std::uint64_t, const StateRecord*>> by_tick(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    for (const StateRecord& s : in[i]->states) by_tick[i].emplace(s.tick, &s);
  std::vector<std::size_t> next_event(in.size(), 0);
  // Events in tick order: from a cluster, a tick's Events relayed from another zone can arrive after
  // the next tick's (docs/protocol.md).
  std::vector<std::vector<EventRecord>> events(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    events[i] = in[i]->events;
    std::stable_sort(events[i].begin(), events[i].end(),
                     [](const EventRecord& a, const EventRecord& b) { return a.tick < b.tick; });
  }
  std::vector<std::set<std::uint32_t>> visible(in.size());
  const float x1 = w.cfg.world.x0 + w.cfg.world.width, y1 = w.cfg.world.y0 + w.cfg.world.height;

  for (std::size_t i = 0; i < in.size(); ++i) {
    const Bot& b = *in[i];
    for (std::uint64_t t = b.first_tick; t <= end; ++t) {
      ++c.states_expected;
      c.states_received += by_tick[i].count(t);
    }
    // Its own updates against its commands, wherever two consecutive States (or the Welcome and the
    // first State) say what the tick started from.
    for (const auto& [t, s] : by_tick[i]) {
      if (t > end) break;
      float px, py;
      std::uint32_t prev_seq;
      if (t == b.first_tick) {
        // The join: the server moves the player from its parking place to the spawn point of the
        // Welcome (to float rounding); its new position must be in its own notifications.
        std::vector<aoi::MailboxEntry> own;
        for (const aoi::MailboxEntry& e : s->entries)
          if (e.subject() == b.player && e.field() != aoi::Field::Hp) own.push_back(e);
        const std::vector<aoi::MailboxEntry> want = {{b.player, bits(s->x)}, {b.player | (1u << 30), bits(s->y)}};
        const float tolerance = 1e-3f * std::max(1.0f, w.cfg.world.width + w.cfg.world.height);
        if (own != want || s->last_seq != 0 || std::fabs(s->x - b.spawn_x) > tolerance ||
            std::fabs(s->y - b.spawn_y) > tolerance)
          ++c.own_errors;
        continue;
      }
      if (auto p = by_tick[i].find(t - 1); p != by_tick[i].end()) {
        px = p->second->x, py = p->second->y, prev_seq = p->second->last_seq;
      } else {
        continue;
      }
      bool moved = false;
      float ex = px, ey = py;
      if (s->last_seq != prev_seq) {
        if (s->last_seq == 0 || s->last_seq > b.sent.size() || s->last_seq < prev_seq) {
          ++c.own_errors;
          continue;
        }
        const Sent& k = b.sent[s->last_seq - 1];
        if (!k.attack) {
          moved = true;
          ex = step(px, k.x, w.map, w.max_move, w.cfg.world.x0, x1);
          ey = step(py, k.y, w.map, w.max_move, w.cfg.world.y0, y1);
        }
      }
      std::vector<aoi::MailboxEntry> own, want;
      for (const aoi::MailboxEntry& e : s->entries)
        if (e.subject() == b.player && e.field() != aoi::Field::Hp) own.push_back(e);
      if (moved) {
        want.push_back({b.player | (0u << 30), bits(ex)});
        want.push_back({b.player | (1u << 30), bits(ey)});
      }
      if (own != want || bits(s->x) != bits(ex) || bits(s->y) != bits(ey)) ++c.own_errors;
    }
  }

  // Every tick every bot heard: the exact notification lists and visible sets.
  for (std::uint64_t t = begin; t <= end; ++t) {
    std::vector<std::size_t> present;
    bool all = true;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (in[i]->first_tick > t) continue;
      if (!by_tick[i].count(t)) all = false;
      present.push_back(i);
    }
    // Visible sets follow the events up to t whether or not t can be checked.
    for (std::size_t i : present) {
      const std::vector<EventRecord>& ev = events[i];
      while (next_event[i] < ev.size() && ev[next_event[i]].tick <= t) {
        for (std::uint32_t o : ev[next_event[i]].entered) visible[i].insert(o);
        for (std::uint32_t o : ev[next_event[i]].left) visible[i].erase(o);
        ++next_event[i];
      }
    }
    if (!all || present.empty()) continue;
    ++c.ticks_checked;
    // subject -> its updates this tick (from its own State), and the players' positions after the tick.
    std::map<std::uint32_t, std::vector<aoi::MailboxEntry>> updates;
    std::vector<aoi::Player> pos(present.size());
    for (std::size_t k = 0; k < present.size(); ++k) {
      const Bot& b = *in[present[k]];
      const StateRecord& s = *by_tick[present[k]].at(t);
      pos[k] = {s.x, s.y, s.hp};
      for (const aoi::MailboxEntry& e : s.entries)
        if (e.subject() == b.player) updates[b.player].push_back(e);
    }
    TickData& td = ticks[t];
    // Candidates by a grid of cells 2 AOI wide: whoever the rule lets one player see (adjacent
    // buckets, or the circle) is in its own or a neighbouring cell; the rule itself decides.
    const float cell = 2.0f * w.cfg.aoi;
    const auto cell_of = [&](const aoi::Player& p) {
      return std::pair(static_cast<long>(std::floor(p.x / cell)), static_cast<long>(std::floor(p.y / cell)));
    };
    std::map<std::pair<long, long>, std::vector<std::size_t>> grid;
    for (std::size_t k = 0; k < present.size(); ++k) grid[cell_of(pos[k])].push_back(k);
    std::vector<std::size_t> near;
    for (std::size_t k = 0; k < present.size(); ++k) {
      const std::size_t i = present[k];
      const Bot& r = *in[i];
      const StateRecord& s = *by_tick[i].at(t);
      ++c.states_checked;
      near.clear();
      const auto [cx, cy] = cell_of(pos[k]);
      for (long dx = -1; dx <= 1; ++dx)
        for (long dy = -1; dy <= 1; ++dy)
          if (auto g = grid.find({cx + dx, cy + dy}); g != grid.end())
            near.insert(near.end(), g->second.begin(), g->second.end());
      std::map<std::uint32_t, std::uint32_t> want, got;  // subject_field -> value
      std::set<std::uint32_t> sees;
      for (std::size_t o : near) {
        if (!oracle::aoi_sees(w.cfg, pos[k], pos[o])) continue;
        const std::uint32_t subject = in[present[o]]->player;
        if (o != k) sees.insert(subject);
        if (auto u = updates.find(subject); u != updates.end())
          for (const aoi::MailboxEntry& e : u->second) want[e.subject_field] = e.value;
      }
      for (const aoi::MailboxEntry& e : s.entries) got[e.subject_field] = e.value;
      for (const auto& [key, value] : want) {
        auto g = got.find(key);
        if (g == got.end())
          ++c.missing;
        else if (g->second != value)
          ++c.wrong_value;
      }
      for (const auto& [key, value] : got)
        if (!want.count(key)) ++c.extra;
      if (sees != visible[i]) ++c.visibility_errors;
      td.pos[r.player] = pos[k];
      td.vis[r.player] = std::move(sees);
    }
    for (const auto& [subject, list] : updates) td.updates[subject] = list;
  }

  // Every State's catch-up, where every tick it covers was heard by every bot: the players in view
  // now whole (since 0), or those that came into view since `since` whole and the fields that changed
  // in the ticks after `since` and before this one — of the players in view now, without the keys of
  // the notifications, with their values after this tick (docs/protocol.md, "Deltas").
  const auto key_less = [](std::uint32_t a, std::uint32_t b) {
    return std::pair(a & 0x3fffffffu, a >> 30) < std::pair(b & 0x3fffffffu, b >> 30);
  };
  const std::set<std::uint32_t> none;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Bot& b = *in[i];
    for (const auto& [t, s] : by_tick[i]) {
      if (t > end) break;
      const std::uint64_t from = s->since == 0 ? t : std::max(s->since, b.first_tick);
      bool known = s->since < t && ticks.count(t);
      for (std::uint64_t u = from; known && u <= t; ++u) known = ticks.count(u) > 0;
      if (!known) {
        ++c.catch_ups_skipped;
        continue;
      }
      const TickData& now = ticks.at(t);
      const std::set<std::uint32_t>& vis = now.vis.at(b.player);
      const auto vis_at = [&](std::uint64_t u) -> const std::set<std::uint32_t>& {
        if (u < b.first_tick) return none;  // not in the game yet
        return ticks.at(u).vis.at(b.player);
      };
      std::set<std::uint32_t, decltype(key_less)> keys(key_less);
      const auto whole = [&keys](std::uint32_t o) {
        for (std::uint32_t f = 0; f < 3; ++f) keys.insert(o | f << 30);
      };
      if (s->since == 0) {
        ++c.snapshots;
        for (std::uint32_t o : vis) whole(o);
      } else {
        for (std::uint64_t u = s->since + 1; u <= t; ++u) {
          const std::set<std::uint32_t>& before = vis_at(u - 1);
          for (std::uint32_t o : vis_at(u))
            if (!before.count(o)) whole(o);
          if (u == t) break;
          for (std::uint32_t o : vis_at(u))
            if (auto up = ticks.at(u).updates.find(o); up != ticks.at(u).updates.end())
              for (const aoi::MailboxEntry& e : up->second) keys.insert(e.subject_field);
        }
      }
      std::vector<aoi::MailboxEntry> want;
      for (std::uint32_t k : keys) {
        const std::uint32_t o = k & 0x3fffffffu;
        if (!vis.count(o)) continue;
        if (std::any_of(s->entries.begin(), s->entries.end(),
                        [k](const aoi::MailboxEntry& e) { return e.subject_field == k; }))
          continue;
        const aoi::Player& p = now.pos.at(o);
        want.push_back({k, (k >> 30) == 0 ? bits(p.x) : (k >> 30) == 1 ? bits(p.y) : static_cast<std::uint32_t>(p.hp)});
      }
      ++c.catch_ups_checked;
      c.catch_ups_behind += s->since != 0 && s->since + 1 < t;
      if (want != s->catch_up) {
        if (++c.catch_up_errors <= 5 && std::getenv("WARPMIND_BOTS_DEBUG")) {
          std::fprintf(stderr, "catch-up of %u at tick %llu since %llu: want", b.player,
                       static_cast<unsigned long long>(t), static_cast<unsigned long long>(s->since));
          for (const auto& e : want) std::fprintf(stderr, " %u.%u=%08x", e.subject(), e.subject_field >> 30, e.value);
          std::fprintf(stderr, "; got");
          for (const auto& e : s->catch_up)
            std::fprintf(stderr, " %u.%u=%08x", e.subject(), e.subject_field >> 30, e.value);
          std::fprintf(stderr, "\n");
        }
      }
    }
  }
  return c;
}

int run(Run& run) {
  Flags& f = run.f;
  if (enet_initialize() != 0) return bad("cannot initialise ENet");
  // HOST:PORT[,HOST:PORT...]: bot i connects to the (i mod count)-th (the zones of a cluster).
  std::vector<ENetAddress> servers;
  for (std::size_t from = 0; from <= f.server.size();) {
    std::size_t to = f.server.find(',', from);
    if (to == std::string::npos) to = f.server.size();
    const std::string one = f.server.substr(from, to - from);
    from = to + 1;
    const std::size_t colon = one.rfind(':');
    if (colon == std::string::npos) return bad("--server: expected HOST:PORT, got '" + one + "'");
    const std::string host_name = one.substr(0, colon);
    char* end = nullptr;
    const long port = std::strtol(one.c_str() + colon + 1, &end, 10);
    if (*end != '\0' || port < 1 || port > 65535) return bad("--server: bad port in '" + one + "'");
    ENetAddress address;
    if (enet_address_set_host(&address, host_name.c_str()) != 0)
      return bad("--server: unknown host '" + host_name + "'");
    address.port = static_cast<enet_uint16>(port);
    servers.push_back(address);
  }

  // One socket per bot: raise the open-file limit as far as allowed.
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  run.bots.resize(static_cast<std::size_t>(f.bots));
  for (int i = 0; i < f.bots; ++i) {
    Bot& b = run.bots[i];
    b.rng.seed(f.seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(i));
    b.host = enet_host_create(nullptr, 1, net::kChannels, 0, 0);
    if (b.host == nullptr) return bad("cannot open a UDP socket for bot " + std::to_string(i));
    b.peer = enet_host_connect(b.host, &servers[static_cast<std::size_t>(i) % servers.size()], net::kChannels, 0);
    if (b.peer == nullptr) return bad("cannot connect bot " + std::to_string(i));
  }

  const Clock::time_point start = Clock::now();
  const Clock::time_point stop =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(f.seconds));
  // The run, then a short drain that records what is still on its way (no commands); --threads
  // threads, each with its own share of the bots (an ENet host is used by one thread only).
  const Clock::time_point drain_end = stop + std::chrono::milliseconds(300);
  const auto play = [&run, start, stop, drain_end](std::span<Bot> group) {
    std::vector<pollfd> fds(group.size());
    for (std::size_t i = 0; i < group.size(); ++i) fds[i] = {group[i].host->socket, POLLIN, 0};
    Clock::time_point next_send = start, next_all = start;
    for (Clock::time_point now = Clock::now(); now < drain_end; now = Clock::now()) {
      const int wait = static_cast<int>(
          std::clamp<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(next_send - now).count(), 0, 5));
      poll(fds.data(), fds.size(), wait);
      now = Clock::now();
      const bool all = now >= next_all;
      for (std::size_t i = 0; i < group.size(); ++i)
        if (all || (fds[i].revents & POLLIN)) run.service(group[i], true);
      if (all) next_all = now + std::chrono::milliseconds(10);
      if (now >= next_send && now < stop) {
        for (Bot& b : group)
          if (b.welcomed && !b.gone) {
            run.command(b);
            enet_host_flush(b.host);
          }
        const auto period = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(1.0 / (run.world.known.load() ? run.world.tick_hz : 20)));
        next_send += period;
        if (next_send < now) next_send = now + period;
      }
    }
  };
  {
    const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(f.threads), run.bots.size());
    std::vector<std::thread> pool;
    for (std::size_t k = 1; k < threads; ++k)
      pool.emplace_back(
          play, std::span<Bot>(run.bots).subspan(run.bots.size() * k / threads,
                                                 run.bots.size() * (k + 1) / threads - run.bots.size() * k / threads));
    play(std::span<Bot>(run.bots).first(run.bots.size() / threads));
    for (std::thread& t : pool) t.join();
  }
  for (const Bot& b : run.bots) {
    run.rtt_ms.insert(run.rtt_ms.end(), b.rtt_ms.begin(), b.rtt_ms.end());
    run.latency_ms.insert(run.latency_ms.end(), b.latency_ms.begin(), b.latency_ms.end());
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Players lost: joined, then cut off by the server or no State in the last second of the run.
  // Players duplicated: a bot that got two States of one tick (two zones thought it theirs).
  std::uint64_t last_heard = 0, lost = 0, duplicated = 0, duplicate_states = 0;
  for (const Bot& b : run.bots)
    if (!b.states.empty()) last_heard = std::max(last_heard, b.states.back().tick);
  for (const Bot& b : run.bots) {
    if (!b.welcomed) continue;
    lost +=
        b.gone || b.states.empty() || b.states.back().tick + static_cast<std::uint64_t>(run.world.tick_hz) < last_heard;
    duplicated += b.duplicate_states > 0;
    duplicate_states += b.duplicate_states;
  }
  // Leave, and wait (boundedly) for the server to let go.
  for (Bot& b : run.bots) {
    if (b.welcomed && !b.gone) {
      flatbuffers::FlatBufferBuilder fb(64);
      net::FinishMessageBuffer(fb, net::CreateMessage(fb, net::Body_Leave, net::CreateLeave(fb, b.token).Union()));
      send(b, net::kReliableChannel, fb);
    }
    if (!b.gone) enet_peer_disconnect_later(b.peer, 0);
    enet_host_flush(b.host);
  }
  const Clock::time_point leave_end = Clock::now() + std::chrono::seconds(1);
  for (bool waiting = true; waiting && Clock::now() < leave_end;) {
    waiting = false;
    for (Bot& b : run.bots) {
      run.service(b, false);
      waiting |= !b.gone;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::uint64_t sent = 0, received = 0, bytes_out = 0, bytes_in = 0, bad_in = 0, joined = 0, refused = 0;
  for (Bot& b : run.bots) {
    sent += b.packets_out;
    received += b.packets_in;
    bytes_out += b.bytes_out;
    bytes_in += b.bytes_in;
    bad_in += b.bad_in;
    joined += b.welcomed;
    refused += b.refused;
    enet_host_destroy(b.host);
    b.host = nullptr;
  }
  enet_deinitialize();

  const Check c = check(run);
  const double per = static_cast<double>(std::max(1, f.bots)) * std::max(seconds, 1e-9);
  const std::uint64_t inconsistencies = c.inconsistencies() + bad_in;
  if (f.json) {
    std::printf(
        "{\"program\":\"warpmind-bots\",\"bots\":%d,\"joined\":%llu,\"refused\":%llu,\"seconds\":%.3f,\"sent\":%llu,"
        "\"received\":%llu,\"states_received\":%llu,\"states_expected\":%llu,\"ticks_checked\":%llu,"
        "\"states_checked\":%llu,\"inconsistencies\":%llu,\"missing\":%llu,\"extra\":%llu,\"wrong_value\":%llu,"
        "\"own_errors\":%llu,\"visibility_errors\":%llu,\"catch_up_errors\":%llu,\"catch_ups_checked\":%llu,"
        "\"catch_ups_skipped\":%llu,\"catch_ups_behind\":%llu,\"snapshots\":%llu,\"bad_messages\":%llu,\"players_"
        "lost\":%llu,"
        "\"players_duplicated\":%llu,\"duplicate_states\":%llu,"
        "\"rtt_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"samples\":%zu},"
        "\"tick_latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f},"
        "\"bytes_per_client_per_second\":{\"in\":%.1f,\"out\":%.1f}}\n",
        f.bots, static_cast<unsigned long long>(joined), static_cast<unsigned long long>(refused), seconds,
        static_cast<unsigned long long>(sent), static_cast<unsigned long long>(received),
        static_cast<unsigned long long>(c.states_received), static_cast<unsigned long long>(c.states_expected),
        static_cast<unsigned long long>(c.ticks_checked), static_cast<unsigned long long>(c.states_checked),
        static_cast<unsigned long long>(inconsistencies), static_cast<unsigned long long>(c.missing),
        static_cast<unsigned long long>(c.extra), static_cast<unsigned long long>(c.wrong_value),
        static_cast<unsigned long long>(c.own_errors), static_cast<unsigned long long>(c.visibility_errors),
        static_cast<unsigned long long>(c.catch_up_errors), static_cast<unsigned long long>(c.catch_ups_checked),
        static_cast<unsigned long long>(c.catch_ups_skipped), static_cast<unsigned long long>(c.catch_ups_behind),
        static_cast<unsigned long long>(c.snapshots), static_cast<unsigned long long>(bad_in),
        static_cast<unsigned long long>(lost), static_cast<unsigned long long>(duplicated),
        static_cast<unsigned long long>(duplicate_states), percentile(run.rtt_ms, 0.5), percentile(run.rtt_ms, 0.9),
        percentile(run.rtt_ms, 0.99), run.rtt_ms.size(), percentile(run.latency_ms, 0.5),
        percentile(run.latency_ms, 0.9), percentile(run.latency_ms, 0.99), static_cast<double>(bytes_in) / per,
        static_cast<double>(bytes_out) / per);
  } else {
    std::printf("warpmind-bots: %d bots, %llu joined, %.1f s: sent %llu, received %llu messages\n", f.bots,
                static_cast<unsigned long long>(joined), seconds, static_cast<unsigned long long>(sent),
                static_cast<unsigned long long>(received));
    std::printf(
        "checked %llu ticks, %llu states: %llu inconsistencies (missing %llu, extra %llu, wrong value %llu, "
        "own %llu, visibility %llu, bad messages %llu)\n",
        static_cast<unsigned long long>(c.ticks_checked), static_cast<unsigned long long>(c.states_checked),
        static_cast<unsigned long long>(inconsistencies), static_cast<unsigned long long>(c.missing),
        static_cast<unsigned long long>(c.extra), static_cast<unsigned long long>(c.wrong_value),
        static_cast<unsigned long long>(c.own_errors), static_cast<unsigned long long>(c.visibility_errors),
        static_cast<unsigned long long>(bad_in));
    std::printf("players lost %llu, duplicated %llu\n", static_cast<unsigned long long>(lost),
                static_cast<unsigned long long>(duplicated));
    std::printf(
        "rtt ms p50 %.2f p99 %.2f; tick latency ms p50 %.2f p99 %.2f; bytes per client per second in %.0f "
        "out %.0f\n",
        percentile(run.rtt_ms, 0.5), percentile(run.rtt_ms, 0.99), percentile(run.latency_ms, 0.5),
        percentile(run.latency_ms, 0.99), static_cast<double>(bytes_in) / per, static_cast<double>(bytes_out) / per);
  }
  return joined == 0 || inconsistencies > 0 || lost > 0 || duplicated > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Runs N simulated clients of warpmind-server in one process: they join, walk and attack by script, and every "
      "notification they receive is checked against their commands and the AOI rule (docs/server.md). Exit status 0 "
      "when at least one bot joined and nothing was inconsistent, lost or duplicated, 1 otherwise.",
      "warpmind-bots");
  demos::configure(app);
  auto r = std::make_unique<Run>();
  Flags& f = r->f;
  demos::add_text(app, "--server", f.server, "HOST:PORT[,...]",
                  "the server, or the zones of a cluster (bot i connects to the (i mod count)-th)")
      ->required();
  demos::add_integer(app, "--bots", f.bots, 1, 16000, "N", "clients (one UDP socket each)");
  demos::add_integer(app, "--threads", f.threads, 1, 64, "N", "threads the bots are shared among");
  demos::add_number(app, "--seconds", f.seconds, 0.1, 1e6, "S", "how long the bots play");
  demos::add_number(app, "--attack-share", f.attack_share, 0.0, 1.0, "F",
                    "share of commands that attack a visible player");
  demos::add_number(app, "--lose-share", f.lose_share, 0.0, 1.0, "F",
                    "share of States a bot acts as if it lost: checked, but not acknowledged");
  demos::add_integer(app, "--seed", f.seed, 0, INT64_MAX, "N", "the bots' scripts");
  demos::add_flag(app, "--json", f.json, "one JSON summary object on stdout (its last line)");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;
  return run(*r);
}
