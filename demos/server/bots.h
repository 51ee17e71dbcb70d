// What a bot of warpmind-bots is and what it records of a run: the commands it sent, the States and
// Events it received, and what the first Welcome said about the world. Read by the check
// (bots_check.h) after the run.
#pragma once

#include <enet/enet.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "session_keys.h"
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

// One session of a bot, the check's unit: from its Welcome — a new player, or (resumed) the player of its
// session before — to its Goodbye, its client's restart, or the end of the run.
struct Session {
  std::uint32_t player = 0;
  std::uint64_t token = 0, first_tick = 0;
  // The first tick it is no longer in the game for: its Goodbye's tick, or (a restart) the resumed
  // session's first tick; UINT64_MAX: in the game to the end of the run.
  std::uint64_t end_tick = UINT64_MAX;
  bool resumed = false;  // the Welcome gave back the player of the session before
  // Resumed before its join tick came (the session before had no State, and the Welcome names its first
  // tick): the join carried over, so the first State is the join's.
  bool joins = false;
  // Resumed after the server went silent (--resume-after-ms), not at a moment the bot chose: what it
  // sent last may or may not have been applied (see the check).
  bool after_crash = false;
  float spawn_x = 0, spawn_y = 0;  // the Welcome's position and HP (resumed: where the player is)
  std::int32_t spawn_hp = 0;
  std::uint32_t welcome_last_seq = 0, welcome_seq = 0;  // resumed: the Welcome's last_seq and seq
  // Resumed: what the client knew when it restarted — its last State's position and last_seq, and the
  // seq of its last command (it restarted only once every command it sent was applied).
  float before_x = 0, before_y = 0;
  std::uint32_t before_last_seq = 0, before_seq = 0;
  // Whether before_x, before_y are exact: from a State, or a resumed Welcome; not a new session's spawn
  // point, which the join reaches only to float rounding.
  bool before_exact = true;
  bool gone = false;  // cut off by the server (not by its own Leave)
  // Its end is unknown: cut off, or its bot gave up on it (a churn step past its bound). The check
  // takes it as out of the game after its last State, and what others hear of its player after that
  // as unknown (neither expected nor counted against them).
  bool lost = false;
  std::vector<Sent> sent;  // by seq - 1 (resumed: the session before's, continued)
  std::vector<StateRecord> states;
  std::vector<EventRecord> events;
};

// What a bot is doing about its connection (--churn): playing; waiting for the Goodbye and the server's
// disconnect after a Leave (then it joins again, a new session); waiting until its commands are all
// applied before it "restarts" (a new socket, and a Hello with its token); connecting again.
enum class Phase { Playing, Leaving, Settling, Connecting };
// The most one churn step may take (ENet's own connect and disconnect give up after about 5 s).
constexpr auto kChurnStep = std::chrono::seconds(5);

// What a bot is doing about its connection (its Phase), since when, and what its next connection asks for.
struct Step {
  Phase phase = Phase::Playing;
  Clock::time_point since{};
  bool resume_next = false;       // Connecting: the Hello asks for the current session's player back
  bool crash_next = false;        // ... because the server went silent (--resume-after-ms)
  Clock::time_point resent_at{};  // Settling: when it last sent one more command (its last one not applied)
  int connects = 0;               // connections made in the current churn step (WARPMIND_BOTS_DEBUG's report)
  bool waiting = false;           // --ramp-seconds: not connected yet; it connects connect_after into the run
  Clock::duration connect_after{};
};

// What a bot counts and measures for the summary.
struct BotCounts {
  std::vector<double> rtt_ms, latency_ms;  // a command's round trip; a State's age when it came
  double longest_gap_ms = 0;               // the longest time between two States: the outage it saw
  // bad_in: packets that did not open with the connection's keys, were no Message, or came when they could not.
  std::uint64_t packets_out = 0, bytes_out = 0, packets_in = 0, bytes_in = 0, bad_in = 0, duplicate_states = 0;
  std::uint64_t leaves = 0, restarts = 0, resume_failures = 0, churn_timeouts = 0, crash_resumes = 0;
  std::uint64_t reconnects = 0;  // connection attempts tried again before their Welcome (retry_connect)
  // Churn steps that ran past their bound, by step: waiting for the Goodbye and the disconnect, waiting for
  // the last command to be applied, connecting to join again, connecting to resume.
  std::uint64_t timed_out[4] = {};

  // o's counts added to these (the longest gap: the longer; the samples: appended).
  void add(const BotCounts& o) {
    rtt_ms.insert(rtt_ms.end(), o.rtt_ms.begin(), o.rtt_ms.end());
    latency_ms.insert(latency_ms.end(), o.latency_ms.begin(), o.latency_ms.end());
    longest_gap_ms = std::max(longest_gap_ms, o.longest_gap_ms);
    packets_out += o.packets_out, bytes_out += o.bytes_out, packets_in += o.packets_in, bytes_in += o.bytes_in;
    bad_in += o.bad_in, duplicate_states += o.duplicate_states;
    leaves += o.leaves, restarts += o.restarts, resume_failures += o.resume_failures;
    churn_timeouts += o.churn_timeouts, crash_resumes += o.crash_resumes, reconnects += o.reconnects;
    for (int k = 0; k < 4; ++k) timed_out[k] += o.timed_out[k];
  }
};

struct Bot {
  ENetHost* host = nullptr;
  ENetPeer* peer = nullptr;
  ENetAddress server{};
  ENetAddress local{};  // --bind: the address its sockets are bound to (host 0: none given, the system picks)
  bool welcomed = false, refused = false, gone = false;  // the current connection's
  net::KeyPair pair;                                     // the current connection's key pair (fresh for each) and keys
  net::SessionKeys keys;
  Step step;                           // what it is doing about its connection, and since when
  Clock::time_point heard_at{};        // when its server last sent it anything (this connection)
  Clock::time_point last_state_at{};   // when its last State came (this session, or the one a crash resumed)
  std::vector<Session> sessions;       // the last one is the current one (once welcomed)
  float x = 0, y = 0, wx = 0, wy = 0;  // known position, waypoint
  std::uint32_t seq = 0, acked = 0;
  std::uint64_t acked_tick = 0;     // the newest State tick it acknowledges
  std::set<std::uint32_t> visible;  // live, from the events: what to attack
  std::mt19937_64 rng;
  BotCounts counts;
  Session& session() { return sessions.back(); }
};

// What the first Welcome said about the world (the same for every client of one server).
struct World {
  std::atomic<bool> known{false};  // set once, by the first Welcome (any thread), under SharedWorld's mutex
  aoi::AoiConfig cfg;
  float map = 0, max_move = 0;
  int tick_hz = 20;
};

}  // namespace warpmind::bots
