// What a bot of warpmind-bots is and what it records of a run: the commands it sent, the States and
// Events it received, and what the first Welcome said about the world. Read by the check
// (bots_check.h) after the run.
#pragma once

#include <enet/enet.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "warpmind/aoi/aoi.h"

namespace warpmind::bots {

using Clock = std::chrono::steady_clock;

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
  std::int32_t spawn_hp = 0;
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

// What the first Welcome said about the world (the same for every client of one server).
struct World {
  std::atomic<bool> known{false};  // set once, by the first Welcome (any thread), under Run::world_mutex
  aoi::AoiConfig cfg;
  float map = 0, max_move = 0;
  int tick_hz = 20;
};

}  // namespace warpmind::bots
