// warpmind-bots: N simulated clients of warpmind-server in one process (one ENet host, so one UDP
// port, per bot) that join, walk between scripted waypoints and attack what they see, then check every
// State they received against their commands and the AOI rule (docs/server.md, "What the bots check").
// The check is bots_check.cpp; what a bot records, bots.h.
#include <enet/enet.h>
#include <poll.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bots.h"
#include "bots_addresses.h"
#include "bots_check.h"
#include "bots_record.h"
#include "enet_send.h"
#include "flags.h"
#include "protocol.h"
#include "warpmind/aoi/aoi.h"
#include "stats.h"

namespace {

using namespace warpmind;
using namespace warpmind::bots;
using demos::percentile;

constexpr demos::Refusal bad{"warpmind-bots"};

std::int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Flags {
  std::string server, server_key, record, check_records, bind, tokens_out;
  std::string cipher = "auto";  // "auto": offer AES-256-GCM where this processor has AES-NI
  int bots = 10;
  double seconds = 5, attack_share = 0.1, lose_share = 0, lose_commands = 0, churn = 0, ramp_seconds = 0;
  int threads = 1, resume_after_ms = 0;
  std::uint64_t seed = 1;
  bool json = false;
};

// A new UDP socket for a bot, bound to its --bind address when it has one.
ENetHost* open_socket(const Bot& b) {
  return enet_host_create(b.local.host != 0 ? &b.local : nullptr, 1, net::kChannels, 0, 0);
}

// A Message to the bot's server: sealed with the connection's keys, or (the Connect) in clear before them.
void send(Bot& b, std::uint8_t channel, flatbuffers::FlatBufferBuilder& fb) {
  const std::size_t bytes = net::send_packet(b.peer, channel, fb.GetBufferPointer(), fb.GetSize(), &b.keys);
  if (bytes == 0) return;
  ++b.counts.packets_out;
  b.counts.bytes_out += bytes;
}

// The servers' key and the ciphers the bots offer (--server-key, --cipher): each connection's Connect,
// and the server's Keys taken or refused. Set up once, before the bots' threads start; read by all of them.
class Handshake {
 public:
  // Empty string or what is wrong with --server-key.
  std::string configure(const Flags& f) {
    if (!f.server_key.empty()) {
      if (!net::parse_hex32(f.server_key, pinned_)) return "--server-key: 64 hexadecimal digits expected";
      pin_ = true;
    }
    offer_aes_ = f.cipher == "auto" && net::aes256gcm_available();
    return {};
  }

  // A new connection's first packet: a fresh key pair's public key, in clear.
  void send_connect(Bot& b) const {
    b.keys = net::SessionKeys{};
    if (!b.pair.make()) return void(b.gone = true);
    flatbuffers::FlatBufferBuilder fb(96);
    const auto key = fb.CreateVector(b.pair.pk.data(), b.pair.pk.size());
    net::FinishMessageBuffer(
        fb, net::CreateMessage(fb, net::Body_Connect,
                               net::CreateConnect(fb, net::kProtocolVersion, key, offer_aes_).Union()));
    send(b, net::kReliableChannel, fb);
  }

  // The server's Keys: the connection's keys made (true: its Hello may go), or the connection refused or
  // the Keys counted bad (false).
  bool take_keys(Bot& b, const net::Keys& k) const {
    // The cipher must be one the Connect offered (use() refuses AES-256-GCM where the processor lacks it);
    // with --server-key, another key is not the server's (a host in the middle): no Hello, the connection
    // dropped.
    if ((k.cipher() == net::Cipher_Aes256Gcm && !offer_aes_) || !b.keys.use(k.cipher()) ||
        (pin_ && std::memcmp(k.key()->data(), pinned_.data(), pinned_.size()) != 0)) {
      ++b.counts.bad_in;
      b.refused = true;
      enet_peer_disconnect_now(b.peer, 0);
      return false;
    }
    if (!b.keys.derive_client(b.pair, k.key()->data())) return void(++b.counts.bad_in), false;
    return true;
  }

 private:
  net::Key32 pinned_{};  // --server-key: the public key every server's Keys must carry
  bool pin_ = false;
  bool offer_aes_ = false;  // --cipher auto where AES-256-GCM is available: the Connect offers it
};

// What the world is, as the first Welcome says (whichever bot's thread has it first); read once `known`.
class SharedWorld {
 public:
  void learn(const net::Welcome& w) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (world_.known.load()) return;
    world_.cfg.world = {w.world_x0(), w.world_y0(), w.world_width(), w.world_height()};
    world_.cfg.aoi = w.aoi();
    world_.cfg.shape = w.shape() == net::Shape_Circle ? aoi::AoiShape::Circle : aoi::AoiShape::Square;
    world_.map = w.map();
    world_.max_move = w.max_move();
    world_.tick_hz = static_cast<int>(std::max(1u, w.tick_hz()));
    world_.known.store(true);
  }
  const World& get() const { return world_; }

 private:
  World world_;
  std::mutex mutex_;
};

// One bot's connection and what it receives: the handshake, the Welcome, States and Events recorded for
// the check, and new connections (a leave's new session, a restart's resume, a retry). Shared by the bots'
// threads; each bot is served by one thread only.
struct Client {
  const Flags& f;
  const Handshake& handshake;
  SharedWorld& world;

  void pick_waypoint(Bot& b) {
    std::uniform_real_distribution<float> u(0.0f, world.get().map);
    b.wx = u(b.rng);
    b.wy = u(b.rng);
  }

  void on_message(Bot& b, std::uint8_t channel, const ENetPacket* packet, std::vector<std::uint8_t>& plain) {
    ++b.counts.packets_in;
    b.heard_at = Clock::now();
    b.counts.bytes_in += packet->dataLength;
    if (!b.keys.ready()) return on_clear(b, packet);
    if (packet->dataLength < net::kSealOverhead) return void(++b.counts.bad_in);
    plain.resize(packet->dataLength - net::kSealOverhead);
    std::size_t size = 0;
    if (b.keys.open(channel, packet->data, packet->dataLength, plain.data(), size) != net::OpenError::None)
      return void(++b.counts.bad_in);
    const net::Message* m = net::read_message(plain.data(), size);
    if (m == nullptr) return void(++b.counts.bad_in);
    if (const net::Welcome* w = m->body_as_Welcome())
      on_welcome(b, *w);
    else if (m->body_as_Refused())
      b.refused = true;
    else if (const net::State* s = m->body_as_State())
      on_state(b, *s);
    else if (const net::Events* e = m->body_as_Events())
      on_events(b, *e);
    else if (const net::Goodbye* g = m->body_as_Goodbye())
      on_goodbye(b, *g);
    else
      ++b.counts.bad_in;
  }

  // Before the keys: the server's Keys (then the Hello, sealed), or a Refused (another protocol version).
  void on_clear(Bot& b, const ENetPacket* packet) {
    const net::Message* m = net::read_message(packet->data, packet->dataLength);
    if (m == nullptr) return void(++b.counts.bad_in);
    if (m->body_as_Refused()) return void(b.refused = true);
    const net::Keys* k = m->body_as_Keys();
    if (k == nullptr || k->key() == nullptr || k->key()->size() != net::kPublicKeyBytes) return void(++b.counts.bad_in);
    if (handshake.take_keys(b, *k)) hello(b);
  }

  // The answer to a Leave: the tick in which the player leaves, the end of the session.
  void on_goodbye(Bot& b, const net::Goodbye& g) {
    if (b.welcomed && b.step.phase == Phase::Leaving) b.session().end_tick = g.tick();
  }

  // A session begins: a new player, or (a Hello that asked for it) the player of the session before back
  // — which ends that one. And the first Welcome says what the world is.
  void on_welcome(Bot& b, const net::Welcome& w) {
    if (b.welcomed) return void(++b.counts.bad_in);  // a second Welcome on one connection
    const bool asked = b.step.resume_next && !b.sessions.empty();
    Session s;
    s.player = w.player();
    s.token = w.token();
    s.first_tick = w.tick();
    s.resumed = w.resumed();
    s.spawn_x = w.x();
    s.spawn_y = w.y();
    s.spawn_hp = w.hp();
    s.welcome_last_seq = w.last_seq();
    s.welcome_seq = w.seq();
    if (asked) {
      s.after_crash = b.step.crash_next;
      Session& before = b.session();
      if (!before.states.empty()) {
        s.before_x = before.states.back().x;
        s.before_y = before.states.back().y;
        s.before_last_seq = before.states.back().last_seq;
      } else {
        s.before_x = before.spawn_x;
        s.before_y = before.spawn_y;
        s.before_last_seq = before.welcome_last_seq;
        s.before_exact = before.resumed;
      }
      s.before_seq = b.seq;
      if (s.resumed) {  // the player is the new session's from its first tick
        before.end_tick = w.tick();
        s.sent = before.sent;
        s.joins = before.states.empty() && w.tick() == before.first_tick;
      } else {  // the server had let the player go, when is not known: the session before is lost
        if (before.end_tick == UINT64_MAX) before.lost = true;
        ++b.counts.resume_failures;
      }
    }
    if (asked != s.resumed) s.resumed = false;  // a resume it did not ask for is not one
    // After a crash the commands the server never received are gone: the seqs go on from its counter.
    if (s.resumed && s.after_crash && s.welcome_seq <= b.seq) {
      b.seq = s.welcome_seq;
      if (s.sent.size() > b.seq) s.sent.resize(b.seq);
    }
    if (!s.resumed) {  // a new session: its seqs count from 1 again
      b.seq = 0;
      b.acked = 0;
    }
    b.acked_tick = 0;
    b.visible.clear();
    b.step.resume_next = b.step.crash_next = false;
    b.welcomed = true;
    b.step.connects = 0;
    b.step.phase = Phase::Playing;
    b.x = s.spawn_x;
    b.y = s.spawn_y;
    b.sessions.push_back(std::move(s));
    world.learn(w);
    pick_waypoint(b);
  }

  // A State recorded for the check (a second State of a tick counted instead), its round trip and
  // latency measured, and (see --lose-share) acknowledged.
  void on_state(Bot& b, const net::State& s) {
    if (!b.welcomed) return void(++b.counts.bad_in);
    Session& ses = b.session();
    StateRecord r;
    r.tick = s.tick();
    r.last_seq = s.last_seq();
    r.x = s.x();
    r.y = s.y();
    r.hp = s.hp();
    if (s.notifications())
      for (const net::Entry* e : *s.notifications()) r.entries.push_back({e->subject_field(), e->value()});
    r.since = s.since();
    if (s.catch_up())
      for (const net::Entry* e : *s.catch_up()) r.catch_up.push_back({e->subject_field(), e->value()});
    if (!ses.states.empty() && r.tick <= ses.states.back().tick) {  // a second State of a tick: two zones sent it
      ++b.counts.duplicate_states;
      return;
    }
    const Clock::time_point now = Clock::now();
    if (b.last_state_at != Clock::time_point{})
      b.counts.longest_gap_ms =
          std::max(b.counts.longest_gap_ms, std::chrono::duration<double, std::milli>(now - b.last_state_at).count());
    b.last_state_at = now;
    b.x = r.x;
    b.y = r.y;
    if (r.last_seq > b.acked && r.last_seq <= ses.sent.size()) {
      b.counts.rtt_ms.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - ses.sent[r.last_seq - 1].at).count());
      b.acked = r.last_seq;
    }
    b.counts.latency_ms.push_back(static_cast<double>(wall_us() - static_cast<std::int64_t>(s.time_us())) / 1000.0);
    // --lose-share: the State is kept for the check but the bot acts as if it never came: it does not
    // acknowledge it, so the server's next States must make up for it.
    if (std::uniform_real_distribution<double>(0.0, 1.0)(b.rng) >= f.lose_share) b.acked_tick = r.tick;
    ses.states.push_back(std::move(r));
  }

  // Events recorded for the check, and the live visible set (what to attack) updated.
  void on_events(Bot& b, const net::Events& e) {
    if (!b.welcomed) return void(++b.counts.bad_in);
    EventRecord r;
    r.tick = e.tick();
    if (e.entered()) r.entered.assign(e.entered()->begin(), e.entered()->end());
    if (e.left()) r.left.assign(e.left()->begin(), e.left()->end());
    for (std::uint32_t o : r.entered) b.visible.insert(o);
    for (std::uint32_t o : r.left) b.visible.erase(o);
    b.session().events.push_back(std::move(r));
  }

  // The Hello of a connection: a new session, or (a restart) the current session's player asked back.
  void hello(Bot& b) {
    flatbuffers::FlatBufferBuilder fb(64);
    const bool resume = b.step.resume_next && !b.sessions.empty();
    const auto hello = net::CreateHello(fb, net::kProtocolVersion, fb.CreateString("bot"),
                                        resume ? b.session().player : 0, resume ? b.session().token : 0);
    net::FinishMessageBuffer(fb, net::CreateMessage(fb, net::Body_Hello, hello.Union()));
    send(b, net::kReliableChannel, fb);
  }

  // Drains a bot's host: handles what arrived, sends acknowledgements and what is queued. A disconnect
  // after a Leave is the churn's cue to join again; any other one cuts the session off.
  void service(Bot& b, bool record) {
    thread_local std::vector<std::uint8_t> plain;  // a packet opened (bots are served by several threads)
    ENetEvent ev;
    while (b.host && enet_host_service(b.host, &ev, 0) > 0) {
      if (ev.type == ENET_EVENT_TYPE_CONNECT) {
        handshake.send_connect(b);
      } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
        if (record) on_message(b, ev.channelID, ev.packet, plain);
        enet_packet_destroy(ev.packet);
      } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
        // A bot that gave up (a churn step past its bound) plays no more: the server dropping its silent
        // connection later is no news, and its session is counted lost once, by that step.
        const bool gave_up = b.gone;
        b.gone = true;
        if (gave_up) continue;
        // After a Leave the disconnect's data is the Goodbye's tick (docs/protocol.md): the end of the
        // session even where the Goodbye itself did not reach the bot.
        if (record && b.welcomed && b.step.phase == Phase::Leaving && b.session().end_tick == UINT64_MAX &&
            ev.data != 0)
          b.session().end_tick = ev.data;
        if (record && b.step.phase == Phase::Leaving && b.session().end_tick != UINT64_MAX) {
          // A new connection and session, from a new socket: from the old one, the server's packets of the
          // connection just ended (a disconnect it sends again) can end the new one's handshake.
          if (!connect(b, false)) b.step.phase = Phase::Playing, b.gone = true;
          return;
        } else if (record && b.step.phase == Phase::Connecting && !b.welcomed && !b.refused &&
                   Clock::now() - b.step.since < kChurnStep) {
          return retry_connect(b);  // the handshake ended before the Welcome: once more within the step
        } else if (record && b.welcomed && b.step.phase != Phase::Connecting && f.resume_after_ms > 0) {
          crash_resume(b);  // the server went away: take the player back from it (or from its successor)
          return;
        } else if (record && b.welcomed && b.step.phase != Phase::Leaving) {
          b.session().gone = b.session().lost = true;
        }
      }
    }
  }

  // A connection attempt that ended or went silent before its Welcome, tried again from a new socket
  // within the same churn step (its bound unchanged), asking for what the attempt asked for.
  void retry_connect(Bot& b) {
    const Clock::time_point since = b.step.since;
    if (!connect(b, b.step.resume_next)) return void(b.gone = true);
    b.step.since = since;
    ++b.counts.reconnects;
  }

  // A new connection from a new socket (the old one closed as a crash would: no Leave, no disconnect);
  // its Hello resumes the last session when `resume`, else asks for a new one.
  bool connect(Bot& b, bool resume) {
    enet_host_destroy(b.host);
    b.host = open_socket(b);
    if (b.host == nullptr) return false;
    b.peer = enet_host_connect(b.host, &b.server, net::kChannels, 0);
    if (b.peer == nullptr) return false;
    b.keys = net::SessionKeys{};  // its packets are in clear until the new connection's Keys
    b.welcomed = b.gone = false;
    b.step.resume_next = resume;
    ++b.step.connects;
    b.heard_at = Clock::now();
    if (!b.step.crash_next) b.last_state_at = {};  // a leave or restart it chose: no outage
    b.step.phase = Phase::Connecting;
    b.step.since = Clock::now();
    return true;
  }

  // --resume-after-ms: a bot that heard nothing that long (or whose connection ended) restarts and resumes
  // its session, as a client does when its server crashed; the resumed Welcome is checked by the crash rule.
  void crash_resume(Bot& b) {
    b.step.since = Clock::now();
    if (b.step.phase == Phase::Leaving && b.session().end_tick != UINT64_MAX) {  // it had left: it joins anew
      if (!connect(b, false)) b.step.phase = Phase::Playing, b.gone = true;
      return;
    }
    ++b.counts.crash_resumes;
    b.step.crash_next = true;
    if (!connect(b, true)) b.step.phase = Phase::Playing, b.gone = true;
  }
};

// The bots' script: one command a tick, and --churn's leaves and restarts moved on step by step.
struct Script {
  const Flags& f;
  const SharedWorld& world;
  Client& client;

  // --churn: once a tick, with probability churn / tick_hz, a playing bot leaves and joins again (a new
  // session) or restarts and resumes its session, one or the other by a coin toss.
  void churn(Bot& b) {
    if (f.churn <= 0 || b.step.phase != Phase::Playing || !b.welcomed || b.gone) return;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    if (u(b.rng) >= f.churn / std::max(1, world.get().tick_hz)) return;
    b.step.since = Clock::now();
    if (u(b.rng) < 0.5) {
      ++b.counts.leaves;
      flatbuffers::FlatBufferBuilder fb(64);
      net::FinishMessageBuffer(
          fb, net::CreateMessage(fb, net::Body_Leave, net::CreateLeave(fb, b.session().token).Union()));
      send(b, net::kReliableChannel, fb);
      b.step.phase = Phase::Leaving;
    } else {
      ++b.counts.restarts;
      b.step.phase = Phase::Settling;
    }
  }

  // Moves a churning bot on: a restart once all it sent is applied (so the check knows exactly what the
  // resumed Welcome must say), and a bound of kChurnStep on every step (then the bot stops: counted by step).
  void advance(Bot& b) {
    // Silence in any step: a wait that cannot end. Connecting, it tries again from a new socket (within
    // the step's bound: a server that died while it connected), else it resumes.
    if (f.resume_after_ms > 0 && !b.gone && Clock::now() - b.heard_at > std::chrono::milliseconds(f.resume_after_ms)) {
      if (b.step.phase == Phase::Connecting) return client.retry_connect(b);
      if (b.welcomed) return client.crash_resume(b);
    }
    if (b.step.phase == Phase::Playing) return;
    if (b.step.phase == Phase::Settling && b.welcomed) {
      const Session& s = b.session();
      const std::uint32_t applied = s.states.empty() ? s.welcome_last_seq : s.states.back().last_seq;
      if (applied == b.seq) {
        if (!client.connect(b, true)) b.step.phase = Phase::Playing, b.gone = true;
        return;
      }
      // A second of States without its last command applied: that command was lost on the way (the
      // stream channel is unreliable), so one more is sent, which the restart then waits for.
      const Clock::time_point from = std::max(b.step.since, b.step.resent_at);
      if (!b.gone && b.last_state_at > from + std::chrono::seconds(1)) {
        command(b);
        enet_host_flush(b.host);
        b.step.resent_at = Clock::now();
      }
    }
    if (Clock::now() - b.step.since > kChurnStep) {
      if (std::getenv("WARPMIND_BOTS_DEBUG") && !b.sessions.empty()) {
        const Session& s = b.session();
        std::fprintf(
            stderr,
            "churn step timed out: phase %d (%d connections), player %u, seq %u, applied %u, %zu states (last tick "
            "%llu), welcomed %d\n",
            static_cast<int>(b.step.phase), b.step.connects, s.player, b.seq,
            s.states.empty() ? s.welcome_last_seq : s.states.back().last_seq, s.states.size(),
            static_cast<unsigned long long>(s.states.empty() ? 0 : s.states.back().tick), b.welcomed);
        for (const Session& x : b.sessions)
          std::fprintf(stderr, "  session from %llu to %llu%s%s, welcome last_seq %u seq %u, %zu sent\n",
                       static_cast<unsigned long long>(x.first_tick), static_cast<unsigned long long>(x.end_tick),
                       x.resumed ? " resumed" : "", x.after_crash ? " after a crash" : "", x.welcome_last_seq,
                       x.welcome_seq, x.sent.size());
      }
      // A session the server cut off is counted lost once, as cut off, not again by the step it was in.
      const bool cut_off = !b.sessions.empty() && b.session().gone;
      b.counts.churn_timeouts += !cut_off;
      b.counts.timed_out[b.step.phase == Phase::Leaving    ? 0
                         : b.step.phase == Phase::Settling ? 1
                         : b.step.resume_next              ? 3
                                                           : 2] += !cut_off;
      b.step.phase = Phase::Playing;
      b.gone = true;  // it plays no more
      if (!b.sessions.empty() && b.session().end_tick == UINT64_MAX) b.session().lost = true;
    }
  }

  // The script: one command a tick, an attack on a random visible player (attack_share of the time),
  // else a step towards the waypoint (a new one when there).
  void command(Bot& b) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    flatbuffers::FlatBufferBuilder fb(64);
    Session& ses = b.session();
    Sent s;
    s.at = Clock::now();
    const std::uint32_t seq = ++b.seq;
    const std::uint64_t ack = b.acked_tick;  // the newest State taken (see --lose-share)
    if (!b.visible.empty() && u(b.rng) < f.attack_share) {
      auto it = b.visible.begin();
      std::advance(it, static_cast<long>(b.rng() % b.visible.size()));
      s.attack = true;
      net::FinishMessageBuffer(
          fb, net::CreateMessage(fb, net::Body_Attack, net::CreateAttack(fb, ses.token, seq, *it, ack).Union()));
    } else {
      if (std::fabs(b.x - b.wx) < 0.5f && std::fabs(b.y - b.wy) < 0.5f) client.pick_waypoint(b);
      s.x = b.wx;
      s.y = b.wy;
      net::FinishMessageBuffer(
          fb, net::CreateMessage(fb, net::Body_Move, net::CreateMove(fb, ses.token, seq, s.x, s.y, ack).Union()));
    }
    ses.sent.push_back(s);
    if (f.lose_commands > 0 && u(b.rng) < f.lose_commands) return;  // lost on the way: recorded, never sent
    send(b, net::kStreamChannel, fb);
  }
};

// A run of the bots: its flags, its handshake, the world, the bots and their client and script.
struct Run {
  Flags f;
  Handshake handshake;
  SharedWorld world;
  std::vector<Bot> bots;
  Client client{f, handshake, world};
  Script script{f, world, client};
};

// One ENet host per bot, connecting to its server; empty string or the reason it cannot.
std::string open_bots(Run& run, const std::vector<ENetAddress>& servers, const std::vector<enet_uint32>& locals) {
  // One socket per bot: raise the open-file limit as far as allowed.
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  run.bots.resize(static_cast<std::size_t>(run.f.bots));
  for (int i = 0; i < run.f.bots; ++i) {
    Bot& b = run.bots[i];
    b.rng.seed(run.f.seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(i));
    b.server = servers[static_cast<std::size_t>(i) % servers.size()];
    if (!locals.empty()) b.local.host = locals[static_cast<std::size_t>(i) % locals.size()];
    b.host = open_socket(b);
    if (b.host == nullptr)
      return "cannot open a UDP socket for bot " + std::to_string(i) +
             (locals.empty() ? std::string() : " (is its --bind address one of this machine's?)");
    if (run.f.ramp_seconds > 0) {  // bot i connects i / bots of the ramp into the run
      b.step.waiting = true;
      b.step.connect_after = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(run.f.ramp_seconds * i / run.f.bots));
      continue;
    }
    b.peer = enet_host_connect(b.host, &b.server, net::kChannels, 0);
    if (b.peer == nullptr) return "cannot connect bot " + std::to_string(i);
  }
  return {};
}

// One thread's share of the bots (an ENet host is used by one thread only): their commands once a
// tick until `stop`, and what arrives handled until `drain_end`. --churn starts only until kChurnStep
// before `stop`, so that every leave and restart is done by then.
void play(Run& run, std::span<Bot> group, Clock::time_point start, Clock::time_point stop,
          Clock::time_point drain_end) {
  std::vector<pollfd> fds(group.size());
  Clock::time_point next_send = start, next_all = start;
  const Clock::time_point churn_end = stop - kChurnStep;
  std::size_t waiting = 0;
  for (const Bot& b : group) waiting += b.step.waiting;
  for (Clock::time_point now = Clock::now(); now < drain_end; now = Clock::now()) {
    for (Bot& b : group) {  // --ramp-seconds: the bots whose time has come connect
      if (waiting == 0) break;
      if (!b.step.waiting || now < start + b.step.connect_after) continue;
      b.step.waiting = false;
      --waiting;
      b.peer = now < stop ? enet_host_connect(b.host, &b.server, net::kChannels, 0) : nullptr;
      b.gone = b.peer == nullptr;
      b.heard_at = now;
    }
    for (std::size_t i = 0; i < group.size(); ++i) fds[i] = {group[i].host ? group[i].host->socket : -1, POLLIN, 0};
    const int wait = static_cast<int>(
        std::clamp<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(next_send - now).count(), 0, 5));
    poll(fds.data(), fds.size(), wait);
    now = Clock::now();
    const bool all = now >= next_all;
    for (std::size_t i = 0; i < group.size(); ++i)
      if (all || (fds[i].revents & POLLIN)) run.client.service(group[i], true);
    if (all) next_all = now + std::chrono::milliseconds(10);
    if (now >= next_send && now < stop) {
      for (Bot& b : group) {
        run.script.advance(b);
        if (!b.welcomed || b.gone || b.step.phase != Phase::Playing) continue;
        if (now < churn_end) run.script.churn(b);
        if (b.step.phase == Phase::Playing) run.script.command(b);
        enet_host_flush(b.host);
      }
      const auto period = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / (run.world.get().known.load() ? run.world.get().tick_hz : 20)));
      next_send += period;
      if (next_send < now) next_send = now + period;
    }
  }
}

// The run, then a short drain that records what is still on its way (no commands); --threads
// threads, each with its own share of the bots.
void play_all(Run& run, Clock::time_point start, Clock::time_point stop) {
  const Clock::time_point drain_end = stop + std::chrono::milliseconds(300);
  const auto one = [&run, start, stop, drain_end](std::span<Bot> group) { play(run, group, start, stop, drain_end); };
  const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(run.f.threads), run.bots.size());
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < threads; ++k)
    pool.emplace_back(
        one, std::span<Bot>(run.bots).subspan(run.bots.size() * k / threads,
                                              run.bots.size() * (k + 1) / threads - run.bots.size() * k / threads));
  one(std::span<Bot>(run.bots).first(run.bots.size() / threads));
  for (std::thread& t : pool) t.join();
}

// What the summary counts of the bots: every bot's counts added up, and what is counted per bot or
// session here.
struct Totals {
  BotCounts all;
  std::uint64_t lost = 0, duplicated = 0, joined = 0, refused = 0, sessions = 0, resumed = 0;
};

// Players lost and duplicated.
void count_lost(const Run& run, Totals& t) {
  // Players lost: a session cut off by the server, a bot that could not join again or take its player
  // back (a churn step that timed out, a resume refused), or a session still in the game at the end that
  // had no State in the last second of the run.
  // Players duplicated: a bot that got two States of one tick (two zones thought it theirs).
  std::uint64_t last_heard = 0;
  for (const Bot& b : run.bots)
    for (const Session& s : b.sessions)
      if (!s.states.empty()) last_heard = std::max(last_heard, s.states.back().tick);
  for (const Bot& b : run.bots) {
    if (b.sessions.empty()) continue;
    for (const Session& s : b.sessions) t.lost += s.gone;
    // A session whose end is unknown (`lost`: cut off, or given up by a churn step past its bound) was
    // counted where that happened, once.
    const Session& s = b.sessions.back();
    const bool open = s.end_tick == UINT64_MAX && !s.lost;
    t.lost += open && (!b.welcomed || s.states.empty() ||
                       s.states.back().tick + static_cast<std::uint64_t>(run.world.get().tick_hz) < last_heard);
    t.lost += b.counts.churn_timeouts + b.counts.resume_failures;
    t.duplicated += b.counts.duplicate_states > 0;
  }
}

// Leave, and wait (boundedly) for the server to let go.
void leave(Run& run) {
  for (Bot& b : run.bots) {
    if (!b.host) continue;
    if (b.welcomed && !b.gone) {
      flatbuffers::FlatBufferBuilder fb(64);
      net::FinishMessageBuffer(
          fb, net::CreateMessage(fb, net::Body_Leave, net::CreateLeave(fb, b.session().token).Union()));
      send(b, net::kReliableChannel, fb);
    }
    if (!b.gone && b.peer) enet_peer_disconnect_later(b.peer, 0);
    enet_host_flush(b.host);
  }
  const Clock::time_point leave_end = Clock::now() + std::chrono::seconds(2);
  for (bool waiting = true; waiting && Clock::now() < leave_end;) {
    waiting = false;
    for (Bot& b : run.bots) {
      run.client.service(b, false);
      waiting |= !b.gone && b.peer != nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// The bots' joins, refusals and sessions counted, their hosts closed.
void close_bots(Run& run, Totals& t) {
  for (Bot& b : run.bots) {
    t.joined += !b.sessions.empty();
    t.refused += b.refused;
    t.sessions += b.sessions.size();
    for (const Session& s : b.sessions) t.resumed += s.resumed;
    enet_host_destroy(b.host);
    b.host = nullptr;
  }
  enet_deinitialize();
}

// The summary on stdout: one JSON object (--json) or a few lines of text.
void print_summary(const Run& run, const Check& c, const Totals& t, double seconds) {
  const double per = static_cast<double>(std::max(1, run.f.bots)) * std::max(seconds, 1e-9);
  const std::uint64_t inconsistencies = c.inconsistencies() + t.all.bad_in;
  if (run.f.json) {
    std::printf(
        "{\"program\":\"warpmind-bots\",\"checked\":%s,\"bots\":%d,\"joined\":%llu,\"refused\":%llu,\"seconds\":%.3f,"
        "\"sent\":%llu,"
        "\"received\":%llu,\"states_received\":%llu,\"states_expected\":%llu,\"ticks_checked\":%llu,"
        "\"states_checked\":%llu,\"inconsistencies\":%llu,\"missing\":%llu,\"extra\":%llu,\"wrong_value\":%llu,"
        "\"own_errors\":%llu,\"visibility_errors\":%llu,\"catch_up_errors\":%llu,\"catch_ups_checked\":%llu,"
        "\"catch_ups_skipped\":%llu,\"catch_ups_behind\":%llu,\"snapshots\":%llu,\"bad_messages\":%llu,\"players_"
        "lost\":%llu,"
        "\"players_duplicated\":%llu,\"duplicate_states\":%llu,\"sessions\":%llu,\"churn\":{\"leaves\":%llu,"
        "\"restarts\":%llu,\"resumed\":%llu,\"resume_failures\":%llu,\"timeouts\":%llu,\"timed_out\":{\"leaving\":%llu,"
        "\"settling\":%llu,\"rejoining\":%llu,\"resuming\":%llu}},\"crash_resumes\":%llu,\"reconnects\":%llu,"
        "\"longest_state_gap_ms\":%.1f,\"resumes_checked\":%llu,"
        "\"resume_errors\":%llu,\"shared_ids\":%llu,"
        "\"rtt_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"samples\":%zu},"
        "\"tick_latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f},"
        "\"bytes_per_client_per_second\":{\"in\":%.1f,\"out\":%.1f}}\n",
        run.f.record.empty() ? "true" : "false", run.f.bots, static_cast<unsigned long long>(t.joined),
        static_cast<unsigned long long>(t.refused), seconds, static_cast<unsigned long long>(t.all.packets_out),
        static_cast<unsigned long long>(t.all.packets_in), static_cast<unsigned long long>(c.states_received),
        static_cast<unsigned long long>(c.states_expected), static_cast<unsigned long long>(c.ticks_checked),
        static_cast<unsigned long long>(c.states_checked), static_cast<unsigned long long>(inconsistencies),
        static_cast<unsigned long long>(c.missing), static_cast<unsigned long long>(c.extra),
        static_cast<unsigned long long>(c.wrong_value), static_cast<unsigned long long>(c.own_errors),
        static_cast<unsigned long long>(c.visibility_errors), static_cast<unsigned long long>(c.catch_up_errors),
        static_cast<unsigned long long>(c.catch_ups_checked), static_cast<unsigned long long>(c.catch_ups_skipped),
        static_cast<unsigned long long>(c.catch_ups_behind), static_cast<unsigned long long>(c.snapshots),
        static_cast<unsigned long long>(t.all.bad_in), static_cast<unsigned long long>(t.lost),
        static_cast<unsigned long long>(t.duplicated), static_cast<unsigned long long>(t.all.duplicate_states),
        static_cast<unsigned long long>(t.sessions), static_cast<unsigned long long>(t.all.leaves),
        static_cast<unsigned long long>(t.all.restarts), static_cast<unsigned long long>(t.resumed),
        static_cast<unsigned long long>(t.all.resume_failures), static_cast<unsigned long long>(t.all.churn_timeouts),
        static_cast<unsigned long long>(t.all.timed_out[0]), static_cast<unsigned long long>(t.all.timed_out[1]),
        static_cast<unsigned long long>(t.all.timed_out[2]), static_cast<unsigned long long>(t.all.timed_out[3]),
        static_cast<unsigned long long>(t.all.crash_resumes), static_cast<unsigned long long>(t.all.reconnects),
        t.all.longest_gap_ms, static_cast<unsigned long long>(c.resumes_checked),
        static_cast<unsigned long long>(c.resume_errors), static_cast<unsigned long long>(c.shared_ids),
        percentile(t.all.rtt_ms, 0.5), percentile(t.all.rtt_ms, 0.9), percentile(t.all.rtt_ms, 0.99),
        t.all.rtt_ms.size(), percentile(t.all.latency_ms, 0.5), percentile(t.all.latency_ms, 0.9),
        percentile(t.all.latency_ms, 0.99), static_cast<double>(t.all.bytes_in) / per,
        static_cast<double>(t.all.bytes_out) / per);
  } else {
    std::printf("warpmind-bots: %d bots, %llu joined, %.1f s: sent %llu, received %llu messages\n", run.f.bots,
                static_cast<unsigned long long>(t.joined), seconds, static_cast<unsigned long long>(t.all.packets_out),
                static_cast<unsigned long long>(t.all.packets_in));
    std::printf(
        "checked %llu ticks, %llu states: %llu inconsistencies (missing %llu, extra %llu, wrong value %llu, "
        "own %llu, visibility %llu, bad messages %llu)\n",
        static_cast<unsigned long long>(c.ticks_checked), static_cast<unsigned long long>(c.states_checked),
        static_cast<unsigned long long>(inconsistencies), static_cast<unsigned long long>(c.missing),
        static_cast<unsigned long long>(c.extra), static_cast<unsigned long long>(c.wrong_value),
        static_cast<unsigned long long>(c.own_errors), static_cast<unsigned long long>(c.visibility_errors),
        static_cast<unsigned long long>(t.all.bad_in));
    std::printf("players lost %llu, duplicated %llu; %llu sessions (%llu leaves, %llu restarts, %llu resumed)\n",
                static_cast<unsigned long long>(t.lost), static_cast<unsigned long long>(t.duplicated),
                static_cast<unsigned long long>(t.sessions), static_cast<unsigned long long>(t.all.leaves),
                static_cast<unsigned long long>(t.all.restarts), static_cast<unsigned long long>(t.resumed));
    std::printf(
        "rtt ms p50 %.2f p99 %.2f; tick latency ms p50 %.2f p99 %.2f; bytes per client per second in %.0f "
        "out %.0f\n",
        percentile(t.all.rtt_ms, 0.5), percentile(t.all.rtt_ms, 0.99), percentile(t.all.latency_ms, 0.5),
        percentile(t.all.latency_ms, 0.99), static_cast<double>(t.all.bytes_in) / per,
        static_cast<double>(t.all.bytes_out) / per);
  }
}

// --tokens-out: every session token the bots were given, one a line (16 hexadecimal digits, the
// number's value), for a check that a recording of a cluster's bus holds none of them.
std::string write_tokens(const std::string& path, const std::vector<Bot>& bots) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) return "--tokens-out: cannot write " + path;
  for (const Bot& b : bots)
    for (const Session& s : b.sessions) std::fprintf(out, "%016llx\n", static_cast<unsigned long long>(s.token));
  return std::fclose(out) == 0 ? std::string{} : "--tokens-out: cannot write " + path;
}

int run(Run& run) {
  if (enet_initialize() != 0) return bad("cannot initialise ENet");
  std::vector<ENetAddress> servers;
  if (const std::string err = parse_servers(run.f.server, servers); !err.empty()) return bad(err);
  if (const std::string err = run.handshake.configure(run.f); !err.empty()) return bad(err);
  std::vector<enet_uint32> locals;
  if (!run.f.bind.empty()) parse_bind(run.f.bind, locals);  // checked when the flags were read
  if (const std::string err = open_bots(run, servers, locals); !err.empty()) return bad(err);
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(run.f.seconds));
  play_all(run, start, stop);
  Totals t;
  for (const Bot& b : run.bots) t.all.add(b.counts);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  count_lost(run, t);
  leave(run);
  close_bots(run, t);
  if (!run.f.tokens_out.empty())
    if (const std::string err = write_tokens(run.f.tokens_out, run.bots); !err.empty()) return bad(err);
  Check c;  // --record: the check is left to --check-records over every process's record
  if (!run.f.record.empty()) {
    if (const std::string err = write_record(run.f.record, run.world.get(), run.bots); !err.empty()) return bad(err);
  } else {
    c = check(run.world.get(), run.bots);
  }
  print_summary(run, c, t, seconds);
  return t.joined == 0 || c.inconsistencies() + t.all.bad_in > 0 || t.lost > 0 || t.duplicated > 0 ? 1 : 0;
}

// --check-records: the check over the records of several bot processes, as if one process had run every bot.
int check_records(const Flags& f) {
  std::vector<std::string> paths;
  for (std::size_t at = 0; at <= f.check_records.size();) {
    const std::size_t comma = std::min(f.check_records.find(',', at), f.check_records.size());
    if (comma > at) paths.push_back(f.check_records.substr(at, comma - at));
    at = comma + 1;
  }
  if (paths.empty()) return bad("--check-records: no files");
  World world;
  std::vector<Bot> bots;
  if (const std::string err = read_records(paths, world, bots); !err.empty()) return bad(err);
  const Check c = check(world, bots);
  std::uint64_t sessions = 0;
  for (const Bot& b : bots) sessions += b.sessions.size();
  std::printf(
      "{\"program\":\"warpmind-bots\",\"records\":%zu,\"bots\":%zu,\"sessions\":%llu,\"ticks_checked\":%llu,"
      "\"states_checked\":%llu,\"states_received\":%llu,\"states_expected\":%llu,\"inconsistencies\":%llu,"
      "\"missing\":%llu,\"extra\":%llu,\"wrong_value\":%llu,\"own_errors\":%llu,\"visibility_errors\":%llu,"
      "\"catch_up_errors\":%llu,\"catch_ups_checked\":%llu,\"resumes_checked\":%llu,\"resume_errors\":%llu,"
      "\"shared_ids\":%llu}\n",
      paths.size(), bots.size(), static_cast<unsigned long long>(sessions),
      static_cast<unsigned long long>(c.ticks_checked), static_cast<unsigned long long>(c.states_checked),
      static_cast<unsigned long long>(c.states_received), static_cast<unsigned long long>(c.states_expected),
      static_cast<unsigned long long>(c.inconsistencies()), static_cast<unsigned long long>(c.missing),
      static_cast<unsigned long long>(c.extra), static_cast<unsigned long long>(c.wrong_value),
      static_cast<unsigned long long>(c.own_errors), static_cast<unsigned long long>(c.visibility_errors),
      static_cast<unsigned long long>(c.catch_up_errors), static_cast<unsigned long long>(c.catch_ups_checked),
      static_cast<unsigned long long>(c.resumes_checked), static_cast<unsigned long long>(c.resume_errors),
      static_cast<unsigned long long>(c.shared_ids));
  return c.ticks_checked == 0 || c.inconsistencies() > 0 ? 1 : 0;
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
                  "the server, or the zones of a cluster (bot i connects to the (i mod count)-th); required unless "
                  "--check-records");
  demos::add_text(app, "--server-key", f.server_key, "HEX",
                  "the servers' public key (64 hexadecimal digits, as warpmind-server prints it): a connection whose "
                  "Keys carry another is dropped before its Hello (counted as refused and a bad message)",
                  {}, "none: any server's key is taken");
  demos::add_choice(app, "--cipher", f.cipher, {"auto", "chacha20-poly1305"},
                    "the ciphers the bots' Connect offers: auto, AES-256-GCM too where this processor has AES-NI (the "
                    "server picks); chacha20-poly1305: only that");
  demos::add_text(
      app, "--bind", f.bind, "ADDR[/PREFIX][,...]",
      "bind the bots' sockets to these local IPv4 addresses, bot i to the (i mod count)-th; ADDR/PREFIX "
      "(PREFIX 16 to 32) stands for the block's addresses (without its network and broadcast addresses "
      "up to /30), e.g. 127.0.1.0/26 for 62 loopback addresses: players from many addresses, as a "
      "server sees them",
      [](const std::string& v) {
        std::vector<enet_uint32> locals;
        return parse_bind(v, locals);
      },
      "none: the system picks");
  demos::add_integer(app, "--bots", f.bots, 1, 100000, "N", "clients (one UDP socket each)");
  demos::add_integer(app, "--threads", f.threads, 1, 64, "N", "threads the bots are shared among");
  demos::add_number(app, "--seconds", f.seconds, 0.1, 1e6, "S", "how long the bots play");
  demos::add_number(app, "--attack-share", f.attack_share, 0.0, 1.0, "F",
                    "share of commands that attack a visible player");
  demos::add_number(app, "--lose-share", f.lose_share, 0.0, 1.0, "F",
                    "share of States a bot acts as if it lost: checked, but not acknowledged");
  demos::add_number(app, "--lose-commands", f.lose_commands, 0.0, 1.0, "F",
                    "share of commands a bot records as sent and never sends, as if lost on the way");
  demos::add_number(app, "--churn", f.churn, 0.0, 10.0, "F",
                    "each second a share F of the bots leaves and joins again (a new session) or restarts and "
                    "takes its session back with its token, half and half; none in the last 5 s of the run");
  demos::add_number(app, "--ramp-seconds", f.ramp_seconds, 0.0, 600.0, "S",
                    "the bots connect one after another over the first S seconds of the run (bot i at S * i / bots), "
                    "as players arrive; 0: all at once");
  demos::add_integer(app, "--resume-after-ms", f.resume_after_ms, 0, 60000, "MS",
                     "a bot that gets no State for MS milliseconds, or whose connection ends, restarts and resumes "
                     "its session (its server crashed); 0: never");
  demos::add_integer(app, "--seed", f.seed, 0, INT64_MAX, "N", "the bots' scripts");
  demos::add_flag(app, "--json", f.json, "one JSON summary object on stdout (its last line)");
  demos::add_text(app, "--record", f.record, "FILE",
                  "write what the bots sent and received to FILE instead of checking it here: for bots spread over "
                  "several processes, whose records --check-records checks together (the summary says \"checked\": "
                  "false)");
  demos::add_text(app, "--tokens-out", f.tokens_out, "FILE",
                  "write every session token the bots were given to FILE, one a line in hexadecimal (to check "
                  "that a recording of a cluster's bus holds none)");
  demos::add_text(app, "--check-records", f.check_records, "FILE[,...]",
                  "run no bots: check the records of every process of one run together, as if one process had run "
                  "every bot; one JSON object on stdout; exit status 0 when ticks were checked and nothing was "
                  "inconsistent");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;
  if (!f.check_records.empty()) return check_records(f);
  if (f.server.empty()) return bad("--server is required (unless --check-records)");
  return run(*r);
}
