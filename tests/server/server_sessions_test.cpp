// Sessions over a server's life, as players have them: bots churning (leaving and joining again,
// restarting and resuming with their tokens) against one server, a client that restarts taking its
// player back, a resume asked for too late or with a wrong token, and a new connection from an old one's
// address and port. Loopback only; every loop is bounded in time.
#include <poll.h>

#include <set>

#include "server/server_harness.h"

namespace {

using namespace warpmind::server_test;
using namespace warpmind::net;

// The metrics' value of one sample line ("NAME VALUE"), or -1.
double sample(const std::string& page, const std::string& name) {
  const std::size_t at = page.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::atof(page.c_str() + at + name.size() + 2);
}

// Waits (at most `seconds`) until the metric reaches `value`; whether it did.
bool wait_metric(int port, const std::string& name, double value, double seconds) {
  for (const auto until = Clock::now() + std::chrono::duration<double>(seconds); Clock::now() < until;) {
    if (sample(scrape(port), name) == value) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// A Hello asking for (player, token)'s session back.
void resume_hello(flatbuffers::FlatBufferBuilder& b, std::uint32_t player, std::uint64_t token) {
  b.Clear();
  FinishMessageBuffer(
      b, CreateMessage(b, Body_Hello,
                       CreateHello(b, kProtocolVersion, b.CreateString("restarted"), player, token).Union()));
}

// Players who leave and others who join in their places, as on a server that has been up for a while:
// three sessions of bots in a row against one server, with attacks, each checked whole. A new session's
// player starts from nothing of the one that had its id before: its last applied command (each session's
// seqs count from 1) and its HP (a reused id is healed back to the Welcome's 100 in its join tick; before
// that, own_errors 120 in every later session). Each session starts once the server has let the previous
// one's players go, but not their connections: ENet may still be closing them when the next bots bind
// their ports, and a new connection from an old one's address must not be cut off by it.
TEST(Server, SessionsInARowStartFromNothingOfTheirPredecessors) {
  ServerProcess server({"--map", "200", "--aoi", "20", "--tick-hz", "20", "--metrics-port", "0"}, "sessions");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  const int metrics = metrics_port(server);
  ASSERT_GT(metrics, 0) << slurp(server.err);
  for (int session = 1; session <= 3; ++session) {
    ASSERT_TRUE(wait_metric(metrics, "warpmind_server_clients", 0, 10))
        << "session " << session << ": the previous players were not let go";
    json bots;
    const int rc = run_bots(server.port, "--bots 60 --seconds 2 --attack-share 0.3 --seed " + std::to_string(session),
                            bots, "session" + std::to_string(session));
    ASSERT_FALSE(bots.is_discarded()) << "session " << session;
    EXPECT_EQ(rc, 0) << "session " << session << ": " << bots.dump();
    EXPECT_EQ(bots["joined"], 60) << "session " << session;
    EXPECT_EQ(bots["own_errors"], 0) << "session " << session << ": " << bots.dump();
    EXPECT_EQ(bots["inconsistencies"], 0) << "session " << session << ": " << bots.dump();
    EXPECT_EQ(bots["players_lost"], 0) << "session " << session << ": " << bots.dump();
    EXPECT_GE(bots["ticks_checked"], 20) << "session " << session << ": " << bots.dump();
  }
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["clients"]["joined"], 180) << sv.dump();
}

// Two races a client meets on any busy server, each answered so that a client waiting on it is not kept
// waiting. A Leave right after the Welcome, before the join's tick has run, gets the Goodbye of that tick
// (in the disconnect's data too): the player was never in the game (before, a disconnect with no tick: a
// churning bot waited for its session's end until it gave up). An Attack on a player that has left since
// is applied to no one, and the attacker's next State says it was applied (before, one zone dropped it
// as `bad_value` and a bot waiting for its last command to be applied gave up).
TEST(Server, ALeaveBeforeTheJoinTickAndAnAttackOnAPlayerWhoLeftAreAnswered) {
  ASSERT_EQ(enet_initialize(), 0);
  // 2 Hz: half a second between ticks, so the Leave below comes long before the join's tick.
  ServerProcess server({"--map", "50", "--aoi", "25", "--tick-hz", "2"}, "races");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  flatbuffers::FlatBufferBuilder b;
  {
    Client quick(server.port, nullptr, 1);
    ASSERT_TRUE(quick.keys.ready());
    const Message* w = join(quick, b);
    ASSERT_NE(w, nullptr);
    const std::uint64_t join_tick = w->body_as_Welcome()->tick();
    b.Clear();
    FinishMessageBuffer(b, CreateMessage(b, Body_Leave, CreateLeave(b, w->body_as_Welcome()->token()).Union()));
    quick.send(b, kReliableChannel);
    quick.pump([&] { return quick.disconnected; }, 3.0);
    ASSERT_TRUE(quick.disconnected);
    EXPECT_EQ(quick.disconnect_data, join_tick);
    if (const Message* g = quick.find(Body_Goodbye)) EXPECT_EQ(g->body_as_Goodbye()->tick(), join_tick);
  }
  Client attacker(server.port, nullptr, 2), target(server.port, nullptr, 3);
  const Message* wa = join(attacker, b);
  const Message* wt = join(target, b);
  ASSERT_TRUE(wa && wt);
  const std::uint64_t token = wa->body_as_Welcome()->token();
  const std::uint32_t gone = wt->body_as_Welcome()->player();
  // The target plays a tick, then leaves; once it is out of the game, the attacker attacks it.
  target.pump([&] { return newest_state(target) != nullptr; }, 3.0);
  ASSERT_NE(newest_state(target), nullptr);
  b.Clear();
  FinishMessageBuffer(b, CreateMessage(b, Body_Leave, CreateLeave(b, wt->body_as_Welcome()->token()).Union()));
  target.send(b, kReliableChannel);
  target.pump([&] { return target.disconnected; }, 3.0);
  ASSERT_TRUE(target.disconnected);
  const std::uint64_t left_in = target.disconnect_data;
  attacker.pump([&] { return newest_state(attacker) && newest_state(attacker)->tick() >= left_in; }, 3.0);
  b.Clear();
  FinishMessageBuffer(b, CreateMessage(b, Body_Attack, CreateAttack(b, token, 7, gone, 0).Union()));
  attacker.send(b, kStreamChannel);
  attacker.pump([&] { return newest_state(attacker) && newest_state(attacker)->last_seq() == 7; }, 3.0);
  ASSERT_NE(newest_state(attacker), nullptr);
  EXPECT_EQ(newest_state(attacker)->last_seq(), 7u);
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["drops"]["bad_value"], 0) << sv.dump();
  EXPECT_EQ(sv["clients"]["joined"], 3) << sv.dump();
  enet_deinitialize();
}

// Churn at 5% a second: bots leave and join again (new sessions, new ids or reused ones) and restart
// and take their players back with their tokens, while the others play on. Every session is checked on
// its own: joins (HP 100, position, last_seq 0), each resumed Welcome against what its client left (the
// position of its last State, its last applied command, its seq counter), every tick every bot heard
// against the AOI rule, and no id held by two sessions at once.
TEST(Server, ChurnAtFivePercentASecondLosesAndDuplicatesNoOne) {
  ServerProcess server({"--map", "300", "--aoi", "20", "--tick-hz", "20"}, "churn_server");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  json bots;
  const int rc =
      run_bots(server.port, "--bots 100 --seconds 12 --churn 0.05 --attack-share 0.2 --seed 7", bots, "churn");
  ASSERT_FALSE(bots.is_discarded());
  EXPECT_EQ(rc, 0) << bots.dump();
  EXPECT_EQ(bots["inconsistencies"], 0) << bots.dump();
  EXPECT_EQ(bots["players_lost"], 0) << bots.dump();
  EXPECT_EQ(bots["players_duplicated"], 0) << bots.dump();
  EXPECT_EQ(bots["shared_ids"], 0) << bots.dump();
  // 100 bots, 5% a second for the 7 s before the last 5: about 35 churns, half of each kind.
  EXPECT_GE(bots["churn"]["leaves"], 5) << bots.dump();
  EXPECT_GE(bots["churn"]["restarts"], 5) << bots.dump();
  EXPECT_EQ(bots["churn"]["resumed"], bots["churn"]["restarts"]) << bots.dump();
  EXPECT_EQ(bots["resumes_checked"], bots["churn"]["restarts"]) << bots.dump();
  EXPECT_EQ(bots["sessions"], 100 + bots["churn"]["leaves"].get<int>() + bots["churn"]["restarts"].get<int>())
      << bots.dump();
  EXPECT_GE(bots["ticks_checked"], 40) << bots.dump();
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["clients"]["resumed"], bots["churn"]["restarts"]) << sv.dump();
  EXPECT_EQ(sv["clients"]["resume_failed"], 0) << sv.dump();
  EXPECT_EQ(sv["clients"]["joined"], 100 + bots["churn"]["leaves"].get<int>()) << sv.dump();
}

// The same churn with a fifth of every bot's commands lost on the way (--lose-commands): a bot that
// restarts waits until its last command is applied, and when that one was lost it sends one more after a
// second of States without it, so every restart ends, and no session is counted lost twice.
TEST(Server, ChurnWithCommandsLostOnTheWayLosesNoOne) {
  ServerProcess server({"--map", "300", "--aoi", "20", "--tick-hz", "20"}, "churn_lossy_server");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  json bots;
  const int rc =
      run_bots(server.port, "--bots 100 --seconds 12 --churn 0.05 --lose-commands 0.2 --seed 9", bots, "churn_lossy");
  ASSERT_FALSE(bots.is_discarded());
  EXPECT_EQ(rc, 0) << bots.dump();
  EXPECT_EQ(bots["inconsistencies"], 0) << bots.dump();
  EXPECT_EQ(bots["players_lost"], 0) << bots.dump();
  EXPECT_EQ(bots["churn"]["timeouts"], 0) << bots.dump();
  EXPECT_GE(bots["churn"]["restarts"], 5) << bots.dump();
  EXPECT_EQ(bots["churn"]["resumed"], bots["churn"]["restarts"]) << bots.dump();
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["clients"]["resume_failed"], 0) << sv.dump();
}

// A client that restarts (its socket gone without a word) and comes back with its token after the
// server noticed the loss: the same player, where it was, with its HP, its last applied command and its
// seq counter; an Events of the tick before naming everyone it sees, then States from the Welcome's
// tick on, the first a snapshot. Its next command is applied.
TEST(Server, AClientThatRestartsGetsItsPlayerBack) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "50", "--metrics-port", "0"}, "resume");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  const int metrics = metrics_port(server);
  flatbuffers::FlatBufferBuilder b(256);
  Client other(server.port);
  ASSERT_NE(join(other, b), nullptr);
  const std::uint32_t other_id = other.find(Body_Welcome)->body_as_Welcome()->player();
  std::uint32_t player = 0;
  std::uint64_t token = 0;
  float x = 0, y = 0;
  std::int32_t hp = 0;
  {
    auto first = std::make_unique<Client>(server.port);
    const Message* w = join(*first, b);
    ASSERT_NE(w, nullptr);
    player = w->body_as_Welcome()->player();
    token = w->body_as_Welcome()->token();
    for (std::uint32_t seq = 1; seq <= 3; ++seq) {  // three moves, then wait for the last applied
      move(b, token, seq, 50, 50);
      first->send(b, kStreamChannel);
      first->pump([] { return false; }, 0.06);
    }
    first->pump([&] { return newest_state(*first) && newest_state(*first)->last_seq() == 3; }, 2.0);
    const State* s = newest_state(*first);
    ASSERT_TRUE(s && s->last_seq() == 3);
    x = s->x(), y = s->y(), hp = s->hp();
    enet_host_destroy(first->host);  // the restart: no Leave, no disconnect
    first->host = nullptr;
  }
  // The server notices within ENet's timeout (at most 5 s) and keeps the player.
  for (const auto until = Clock::now() + std::chrono::seconds(8);
       Clock::now() < until && sample(scrape(metrics), "warpmind_server_detached_total") != 1;)
    other.pump([] { return false; }, 0.05);
  ASSERT_EQ(sample(scrape(metrics), "warpmind_server_detached_total"), 1) << scrape(metrics);
  EXPECT_EQ(sample(scrape(metrics), "warpmind_server_clients"), 2);  // still in the game
  Client again(server.port);
  ASSERT_TRUE(again.connected);
  resume_hello(b, player, token);
  again.send(b, kReliableChannel);
  again.pump([&] { return again.find(Body_Welcome) && again.find(Body_Events) && newest_state(again); }, 3.0);
  const Message* m = again.find(Body_Welcome);
  ASSERT_NE(m, nullptr);
  const Welcome* w = m->body_as_Welcome();
  EXPECT_TRUE(w->resumed());
  EXPECT_EQ(w->player(), player);
  EXPECT_EQ(w->token(), token);
  EXPECT_EQ(w->x(), x);
  EXPECT_EQ(w->y(), y);
  EXPECT_EQ(w->hp(), hp);
  EXPECT_EQ(w->last_seq(), 3u);
  EXPECT_EQ(w->seq(), 3u);
  const Message* e = again.find(Body_Events);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->body_as_Events()->tick(), w->tick() - 1);
  ASSERT_TRUE(e->body_as_Events()->entered());
  EXPECT_EQ(std::vector<std::uint32_t>(e->body_as_Events()->entered()->begin(), e->body_as_Events()->entered()->end()),
            std::vector<std::uint32_t>{other_id});  // the AOI of 50 holds the whole 100 map
  const State* s = newest_state(again);
  ASSERT_NE(s, nullptr);
  EXPECT_GE(s->tick(), w->tick());
  // Its seq counter goes on: 4 is applied (a stale 3 would not be).
  move(b, token, 4, 0, 0);
  again.send(b, kStreamChannel);
  again.pump([&] { return newest_state(again) && newest_state(again)->last_seq() == 4; }, 2.0);
  ASSERT_NE(newest_state(again), nullptr);
  EXPECT_EQ(newest_state(again)->last_seq(), 4u);
  EXPECT_LT(newest_state(again)->x(), x);
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["clients"]["resumed"], 1) << sv.dump();
  EXPECT_EQ(sv["clients"]["detached"], 1) << sv.dump();
  EXPECT_EQ(sv["clients"]["joined"], 2) << sv.dump();
  enet_deinitialize();
}

// A client that restarts right after its Welcome, before the tick its player joins in, gets its player
// back too: a resumed Welcome of the join's tick with the spawn point and nothing applied, and the join
// tick's State; the connection it gave up is dropped then and there (it would otherwise time out later and
// leave the player Detached). At one tick a second the restart comes well before the join tick; should a
// tick fall in between, the round is tried again. Seen to fail before: a new session (resume_failed).
TEST(Server, ARestartBeforeTheJoinTickGetsItsPlayerBack) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "10", "--tick-hz", "1"}, "early-resume");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  flatbuffers::FlatBufferBuilder b(256);
  int rounds = 0;
  bool in_time = false;
  for (; !in_time && rounds < 3; ++rounds) {
    auto first = std::make_unique<Client>(server.port);
    const Message* m0 = join(*first, b);
    ASSERT_NE(m0, nullptr);
    const Welcome* w0 = m0->body_as_Welcome();
    const std::uint32_t player = w0->player();
    const std::uint64_t token = w0->token(), tick = w0->tick();
    const float x = w0->x(), y = w0->y();
    enet_host_destroy(first->host);  // the restart: no Leave, no disconnect
    first->host = nullptr;
    Client again(server.port);
    ASSERT_TRUE(again.connected);
    resume_hello(b, player, token);
    again.send(b, kReliableChannel);
    again.pump([&] { return again.find(Body_Welcome) && newest_state(again); }, 3.0);
    const Message* m = again.find(Body_Welcome);
    ASSERT_NE(m, nullptr);
    const Welcome* w = m->body_as_Welcome();
    EXPECT_TRUE(w->resumed());
    EXPECT_EQ(w->player(), player);
    EXPECT_EQ(w->token(), token);
    in_time = w->tick() == tick;
    if (!in_time) continue;  // the join tick came first: an ordinary resume
    EXPECT_EQ(w->x(), x);
    EXPECT_EQ(w->y(), y);
    EXPECT_EQ(w->hp(), 100);
    EXPECT_EQ(w->last_seq(), 0u);
    EXPECT_EQ(w->seq(), 0u);
    EXPECT_EQ(again.find(Body_Events), nullptr);  // no one seen before the join
    const State* s = newest_state(again);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->tick(), tick);  // the join's
    EXPECT_EQ(s->last_seq(), 0u);
    EXPECT_NEAR(s->x(), x, 1e-3);
    EXPECT_NEAR(s->y(), y, 1e-3);
  }
  EXPECT_TRUE(in_time) << "every round's join tick came before its resume";
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["clients"]["resumed"], rounds) << sv.dump();
  EXPECT_EQ(sv["clients"]["resume_failed"], 0) << sv.dump();
  EXPECT_EQ(sv["clients"]["detached"], 0) << sv.dump();
  enet_deinitialize();
}

// A resume asked for with a wrong token, or after --resume-seconds, gets a new session instead (a new
// player at a spawn point, counted as resume_failed); the expired player has left the game.
TEST(Server, ALateOrForgedResumeGetsANewSession) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "10", "--resume-seconds", "0.5", "--metrics-port", "0"}, "late");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  const int metrics = metrics_port(server);
  flatbuffers::FlatBufferBuilder b(256);
  auto first = std::make_unique<Client>(server.port);
  const Message* w0 = join(*first, b);
  ASSERT_NE(w0, nullptr);
  const std::uint32_t player = w0->body_as_Welcome()->player();
  const std::uint64_t token = w0->body_as_Welcome()->token();
  first->pump([&] { return newest_state(*first) != nullptr; }, 2.0);  // in the game (not only welcomed)
  ASSERT_NE(newest_state(*first), nullptr);
  enet_peer_disconnect_now(first->peer, 0);  // lost: kept 0.5 s for a resume
  enet_host_flush(first->host);
  first.reset();
  ASSERT_TRUE(wait_metric(metrics, "warpmind_server_detached_total", 1, 5));
  {  // the right player, a wrong token
    Client forger(server.port);
    resume_hello(b, player, token ^ 1);
    forger.send(b, kReliableChannel);
    forger.pump([&] { return forger.find(Body_Welcome) != nullptr; }, 3.0);
    const Message* m = forger.find(Body_Welcome);
    ASSERT_NE(m, nullptr);
    EXPECT_FALSE(m->body_as_Welcome()->resumed());
    EXPECT_NE(m->body_as_Welcome()->player(), player);
    EXPECT_EQ(m->body_as_Welcome()->hp(), 100);
  }
  ASSERT_TRUE(wait_metric(metrics, "warpmind_server_expired_total", 1, 5));
  Client late(server.port);
  resume_hello(b, player, token);
  late.send(b, kReliableChannel);
  late.pump([&] { return late.find(Body_Welcome) != nullptr; }, 3.0);
  const Message* m = late.find(Body_Welcome);
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->body_as_Welcome()->resumed());
  EXPECT_NE(m->body_as_Welcome()->token(), token);
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["clients"]["resume_failed"], 2) << sv.dump();
  EXPECT_EQ(sv["clients"]["expired"], 1) << sv.dump();
  EXPECT_EQ(sv["clients"]["resumed"], 0) << sv.dump();
  enet_deinitialize();
}

// A client's new socket on the port its old one had (as after a restart, or a NAT giving the port to
// someone else): the server's old connection to that address is dropped at once, before it can send the
// new one anything (its retransmissions and disconnect would otherwise reach the new connection and can
// cut it off), and its player kept for a resume.
TEST(Server, ANewConnectionFromAnOldOnesAddressSupersedesIt) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "10", "--metrics-port", "0"}, "supersede");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  const int metrics = metrics_port(server);
  // A local port of our own choosing, found free by binding to 0 first.
  ENetAddress local{ENET_HOST_ANY, 0};
  ENetHost* probe = enet_host_create(&local, 1, kChannels, 0, 0);
  ASSERT_NE(probe, nullptr);
  enet_socket_get_address(probe->socket, &local);
  enet_host_destroy(probe);
  local.host = ENET_HOST_ANY;
  ASSERT_NE(local.port, 0);
  flatbuffers::FlatBufferBuilder b(256);
  for (int round = 0; round < 2; ++round) {
    // A process that restarts draws a new connection id; in this one the new host must be told to (an
    // id equal to the old connection's would make the server take its connect for a repeat).
    Client c(server.port, &local, static_cast<std::uint32_t>(round + 1));
    ASSERT_TRUE(c.connected) << "round " << round;
    ASSERT_NE(join(c, b), nullptr) << "round " << round;
    c.pump([&] { return newest_state(c) != nullptr; }, 2.0);
    EXPECT_NE(newest_state(c), nullptr) << "round " << round;
    EXPECT_FALSE(c.disconnected) << "round " << round;
    enet_host_destroy(c.host);  // gone without a word; the next round binds the same port
    c.host = nullptr;
  }
  EXPECT_TRUE(wait_metric(metrics, "warpmind_server_superseded_total", 1, 2)) << scrape(metrics);
  EXPECT_EQ(sample(scrape(metrics), "warpmind_server_detached_total"), 1) << scrape(metrics);
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["clients"]["superseded"], 1) << sv.dump();
  EXPECT_EQ(sv["clients"]["joined"], 2) << sv.dump();
  enet_deinitialize();
}

// --sockets 3: three UDP sockets on one port (SO_REUSEPORT), so that a server takes more connections than
// one ENet host's 4,095. 150 bots connect to the one port and the kernel shares them among the sockets:
// every socket takes some, and the bots see exactly what the AOI rule says, as with one socket. More
// players than 4,000 a socket is a clear error.
TEST(Server, SeveralSocketsOnOnePortShareTheClients) {
  ServerProcess server({"--map", "300", "--aoi", "20", "--sockets", "3", "--max-clients", "200"}, "sockets");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  json bots;
  const int rc = run_bots(server.port, "--bots 150 --seconds 3 --seed 5", bots, "sockets_bots");
  ASSERT_FALSE(bots.is_discarded());
  EXPECT_EQ(rc, 0) << bots.dump();
  EXPECT_EQ(bots["joined"], 150) << bots.dump();
  EXPECT_EQ(bots["inconsistencies"], 0) << bots.dump();
  EXPECT_EQ(bots["players_lost"], 0) << bots.dump();
  EXPECT_GE(bots["ticks_checked"], 30) << bots.dump();
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_EQ(sv["connects_by_socket"].size(), 3u) << sv.dump();
  int all = 0;
  for (const json& n : sv["connects_by_socket"]) {
    EXPECT_GT(n.get<int>(), 0) << sv.dump();
    all += n.get<int>();
  }
  EXPECT_EQ(all, 150) << sv.dump();
  const auto status = [](const std::string& args) {
    const int raw = std::system(
        (warpmind::test::bin_dir() + "/warpmind-server --port 0 --seconds 1 " + args + " > /dev/null 2>&1").c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  EXPECT_EQ(status("--max-clients 4001"), 2);
  EXPECT_EQ(status("--max-clients 8001 --sockets 2"), 2);
  EXPECT_EQ(status("--sockets 9"), 2);
}

// --bind: the bots' sockets are bound to the given local addresses, bot i to the (i mod count)-th, so a
// server sees its players come from many addresses (as they do; its per-address rules key on them). A
// plain UDP socket on 127.0.0.1 stands for the server and records where the connects come from: a /29
// block gives its six host addresses, a single address only itself. A prefix out of range, something that
// is no IPv4 address and an address that is not this machine's are exit status 2.
TEST(Server, BotsBoundToSeveralAddressesConnectFromEachOfThem) {
  const int fake = ::socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fake, 0);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fake, reinterpret_cast<sockaddr*>(&at), sizeof at), 0);
  socklen_t len = sizeof at;
  ASSERT_EQ(::getsockname(fake, reinterpret_cast<sockaddr*>(&at), &len), 0);
  const int port = ntohs(at.sin_port);
  const auto sources = [&](const std::string& bind) {
    json bots;
    // Nobody answers: joined 0, exit status 1; what counts is the connects' source addresses.
    EXPECT_EQ(run_bots(port, "--bots 12 --seconds 0.5 --bind " + bind, bots, "bind_bots"), 1);
    std::set<std::string> from;
    char buffer[2048];
    for (;;) {
      pollfd p{fake, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) break;
      sockaddr_in src{};
      socklen_t n = sizeof src;
      if (::recvfrom(fake, buffer, sizeof buffer, 0, reinterpret_cast<sockaddr*>(&src), &n) < 0) break;
      char text[INET_ADDRSTRLEN] = {};
      inet_ntop(AF_INET, &src.sin_addr, text, sizeof text);
      from.insert(text);
    }
    return from;
  };
  EXPECT_EQ(sources("127.0.1.0/29"),
            (std::set<std::string>{"127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.1.4", "127.0.1.5", "127.0.1.6"}));
  EXPECT_EQ(sources("127.0.2.9"), (std::set<std::string>{"127.0.2.9"}));
  ::close(fake);
  const auto status = [](const std::string& args) {
    const int raw = std::system((warpmind::test::bin_dir() +
                                 "/warpmind-bots --server 127.0.0.1:9 --bots 2 --seconds "
                                 "0.2 " +
                                 args + " > /dev/null 2>&1")
                                    .c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  EXPECT_EQ(status("--bind 127.0.1.0/8"), 2);
  EXPECT_EQ(status("--bind 127.0.1.0/33"), 2);
  EXPECT_EQ(status("--bind bots.example"), 2);
  EXPECT_EQ(status("--bind 192.0.2.1"), 2);  // TEST-NET-1: no machine's own address
}

// Bots spread over several processes (as a run of 40,000 bots must be: one process meets the host's limit
// of open files): each writes what it received (--record), and one check reads every record
// (--check-records), as if one process had run every bot. Together: 0 inconsistencies. One process's
// record alone: the other's players look like extras — why the check needs them all. A damaged or missing
// record is a clear error (exit status 2).
TEST(Server, BotsInSeveralProcessesAreCheckedTogether) {
  ServerProcess server({"--map", "200", "--aoi", "20", "--tick-hz", "20"}, "records");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  const std::string r1 = scratch("bots1.rec").string(), r2 = scratch("bots2.rec").string();
  json j1, j2;
  int rc1 = -1, rc2 = -1;
  std::thread a([&] { rc1 = run_bots(server.port, "--bots 50 --seconds 3 --seed 11 --record " + r1, j1, "rec1"); });
  std::thread b([&] { rc2 = run_bots(server.port, "--bots 50 --seconds 3 --seed 12 --record " + r2, j2, "rec2"); });
  a.join();
  b.join();
  ASSERT_FALSE(j1.is_discarded() || j2.is_discarded());
  EXPECT_EQ(rc1, 0) << j1.dump();
  EXPECT_EQ(rc2, 0) << j2.dump();
  EXPECT_EQ(j1["checked"], false);
  EXPECT_EQ(j1["joined"], 50);
  EXPECT_EQ(j2["joined"], 50);
  const auto check = [](const std::string& files, json& out, std::string& err) {
    const fs::path o = scratch("check.out"), e = scratch("check.err");
    const int raw = std::system((warpmind::test::bin_dir() + "/warpmind-bots --check-records " + files + " > " +
                                 o.string() + " 2> " + e.string())
                                    .c_str());
    out = json::parse(last_line(slurp(o)), nullptr, false);
    err = slurp(e);
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  json all;
  std::string err;
  EXPECT_EQ(check(r1 + "," + r2, all, err), 0) << all.dump() << err;
  ASSERT_FALSE(all.is_discarded()) << err;
  EXPECT_EQ(all["bots"], 100);
  EXPECT_EQ(all["inconsistencies"], 0) << all.dump();
  EXPECT_GE(all["ticks_checked"], 20) << all.dump();
  EXPECT_GT(all["states_checked"], 1000) << all.dump();
  json one;
  EXPECT_EQ(check(r1, one, err), 1) << one.dump();
  EXPECT_GT(one["extra"], 0) << one.dump();
  std::string bytes = slurp(r1);
  ASSERT_GT(bytes.size(), 100u);
  const std::string cut = scratch("cut.rec").string();
  {
    std::ofstream f(cut, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  json none;
  EXPECT_EQ(check(r1 + "," + cut, none, err), 2);
  EXPECT_NE(err.find("damaged or cut short"), std::string::npos) << err;
  EXPECT_EQ(check(scratch("no-such.rec").string(), none, err), 2);
  EXPECT_NE(err.find("cannot be read"), std::string::npos) << err;
}

}  // namespace
