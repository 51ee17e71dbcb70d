// warpmind-server against clients that hold slots without playing or send what a client must not: bad
// packets dropped and counted, join storms, a client that stops acknowledging, one that goes quiet,
// handshakes never completed, and the metrics endpoint under silent connections. Loopback only; every
// loop is bounded in time.
#include "server/server_harness.h"

namespace {

using namespace warpmind::server_test;

TEST(Server, DropsAndCountsWhatAClientMustNotSend) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "10", "--peer-rate", "1000"}, "hostile");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  flatbuffers::FlatBufferBuilder b(256);
  {  // An unknown version is refused.
    Client c(server.port);
    ASSERT_TRUE(c.connected);
    hello(b, 99);
    c.send(b, kReliableChannel);
    c.pump([&] { return c.find(Body_Refused) != nullptr; }, 3.0);
    const Message* m = c.find(Body_Refused);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->body_as_Refused()->reason(), RefuseReason_UnknownVersion);
  }
  Client c(server.port);
  ASSERT_TRUE(c.connected);
  move(b, 1, 1, 5, 5);  // before joining
  c.send(b, kStreamChannel);
  const std::uint8_t garbage[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  c.send_raw(garbage, sizeof garbage, kStreamChannel);   // not a Message
  c.send_raw(garbage, 3, kReliableChannel);              // truncated
  const std::vector<std::uint8_t> big(1000, 0x41);       // one datagram (a larger one would be fragments)
  c.send_raw(big.data(), big.size(), kReliableChannel);  // oversized
  const Message* w = join(c, b);
  ASSERT_NE(w, nullptr);
  const std::uint64_t token = w->body_as_Welcome()->token();
  // A truncated copy of a valid Move.
  move(b, token, 1, 5, 5);
  c.send_raw(b.GetBufferPointer(), b.GetSize() - 6, kStreamChannel);
  move(b, token + 1, 2, 5, 5);  // another session's token
  c.send(b, kStreamChannel);
  move(b, token, 10, 5, 5);  // accepted
  c.send(b, kStreamChannel);
  c.pump([] { return false; }, 0.1);
  move(b, token, 10, 6, 6);  // replayed
  c.send(b, kStreamChannel);
  move(b, token, 10 + (1u << 20), 6, 6);  // out of the window
  c.send(b, kStreamChannel);
  move(b, token, 11, NAN, 6);  // not a position
  c.send(b, kStreamChannel);
  c.pump([&] { return c.find(Body_State) != nullptr && c.received.size() > 10; }, 1.0);
  EXPECT_NE(c.find(Body_State), nullptr);
  EXPECT_TRUE(server.alive());
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  const json& d = sv["drops"];
  EXPECT_EQ(d["unknown_version"], 1) << sv.dump();
  EXPECT_EQ(d["not_joined"], 1) << sv.dump();
  EXPECT_EQ(d["bad_packet"], 3) << sv.dump();
  EXPECT_EQ(d["oversized"], 1) << sv.dump();
  EXPECT_EQ(d["wrong_token"], 1) << sv.dump();
  EXPECT_EQ(d["stale_seq"], 1) << sv.dump();
  EXPECT_EQ(d["seq_window"], 1) << sv.dump();
  EXPECT_EQ(d["bad_value"], 1) << sv.dump();
  EXPECT_EQ(sv["commands"], 1) << sv.dump();
  enet_deinitialize();
}

// A client that sends messages too large for one datagram (ENet cuts them into fragments) and a raw
// socket that floods junk for 5 s: the fragments never reach ENet (which would otherwise hold the
// half-built message, up to 256 KiB a connection), the junk is counted, an honest player joins within
// 2 s, and 30 bots playing through the flood lose nothing and see nothing inconsistent.
TEST(Server, RefusesFragmentsAndCountsEveryDatagramItDrops) {
  ASSERT_EQ(enet_initialize(), 0);
  // --resume-seconds 0: the honest player leaves with its connection, before the bots come.
  ServerProcess server({"--map", "200", "--aoi", "15", "--resume-seconds", "0"}, "fragments");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  std::atomic<bool> stop{false};
  std::uint64_t junk = 0;
  std::thread flooding([&] { junk = flood(server.port, 1000000, 5.0, stop); });
  {
    Client f(server.port);
    ASSERT_TRUE(f.connected && f.keys.ready());
    const std::vector<std::uint8_t> big(64 * 1024, 0x41);
    for (int i = 0; i < 20; ++i) {
      f.send_raw(big.data(), big.size(), i % 2 ? kStreamChannel : kReliableChannel);
      f.pump([] { return false; }, 0.02);
    }
    flatbuffers::FlatBufferBuilder b(256);
    const auto asked = Clock::now();
    Client honest(server.port);
    ASSERT_TRUE(honest.connected);
    ASSERT_NE(join(honest, b), nullptr);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - asked).count(), 2.0);
    enet_peer_disconnect_now(honest.peer, 0);  // its player leaves at once (--resume-seconds 0)
    enet_host_flush(honest.host);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  json bots;
  const int bots_rc = run_bots(server.port, "--bots 30 --seconds 3 --seed 5", bots, "fragment_bots");
  stop.store(true);
  flooding.join();
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  const json& d = sv["drops"];
  EXPECT_GT(d["fragment"].get<double>(), 0) << sv.dump();
  EXPECT_EQ(d["oversized"], 0) << sv.dump();  // no fragmented message was put together
  EXPECT_GT(junk, 10000u);
  EXPECT_GT(d["garbage"].get<double>(), 1000) << sv.dump();
  EXPECT_EQ(bots_rc, 0) << bots.dump();
  EXPECT_EQ(bots["joined"], 30) << bots.dump();
  EXPECT_EQ(bots["players_lost"], 0) << bots.dump();
  EXPECT_EQ(bots["inconsistencies"], 0) << bots.dump();
  enet_deinitialize();
}

TEST(Server, SurvivesJoinLeaveStormsAndRefusesWhenFull) {
  ASSERT_EQ(enet_initialize(), 0);
  // Disconnects without a Leave: with --resume-seconds 0 their players leave at once.
  ServerProcess server({"--map", "100", "--aoi", "10", "--max-clients", "20", "--resume-seconds", "0"}, "storm");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  flatbuffers::FlatBufferBuilder b(256);
  int welcomed = 0, full = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < 30; ++i) {
      clients.push_back(std::make_unique<Client>(server.port));
      hello(b, kProtocolVersion);
      if (clients.back()->connected) clients.back()->send(b, kReliableChannel);
    }
    for (auto& c : clients) {
      c->pump([&] { return c->find(Body_Welcome) || c->find(Body_Refused); }, 3.0);
      welcomed += c->find(Body_Welcome) != nullptr;
      if (const Message* m = c->find(Body_Refused)) full += m->body_as_Refused()->reason() == RefuseReason_ServerFull;
    }
    for (auto& c : clients) {
      enet_peer_disconnect_now(c->peer, 0);
      enet_host_flush(c->host);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the slots free at the next tick
    EXPECT_TRUE(server.alive());
  }
  EXPECT_EQ(welcomed, 60);
  EXPECT_EQ(full, 30);
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  EXPECT_EQ(sv["clients"]["joined"], 60) << sv.dump();
  EXPECT_EQ(sv["clients"]["refused"], 30) << sv.dump();
  EXPECT_EQ(sv["clients"]["peak"], 20) << sv.dump();
  enet_deinitialize();
}

TEST(Server, DisconnectsAClientThatStopsAcknowledging) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "10"}, "silent");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  flatbuffers::FlatBufferBuilder b(256);
  Client c(server.port);
  ASSERT_TRUE(c.connected);
  hello(b, kProtocolVersion);
  c.send(b, kReliableChannel);
  c.pump([&] { return c.find(Body_Welcome) && c.find(Body_State); }, 3.0);
  ASSERT_NE(c.find(Body_State), nullptr);
  // Silence: nothing read, nothing acknowledged. ENet gives up on the peer within 5 s.
  std::this_thread::sleep_for(std::chrono::milliseconds(6500));
  EXPECT_TRUE(server.alive());
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  EXPECT_EQ(sv["clients"]["joined"], 1) << sv.dump();
  EXPECT_EQ(sv["clients"]["disconnected"], 1) << sv.dump();
  EXPECT_EQ(sv["clients"]["connected_at_stop"], 0) << sv.dump();
  enet_deinitialize();
}

// A joined client that goes quiet (ENet keeps its connection alive, but it sends nothing with its
// token) loses its player after --idle-seconds, and so does one that sends only a stale seq again and
// again (its own token, a command already received: no sign of a client playing); one that keeps sending
// new seqs keeps it.
TEST(Server, QuietPlayersLeaveAfterIdleSeconds) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "10", "--idle-seconds", "1"}, "idle");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  flatbuffers::FlatBufferBuilder b(256);
  Client quiet(server.port), stale(server.port), busy(server.port);
  ASSERT_TRUE(quiet.connected && stale.connected && busy.connected);
  for (Client* c : {&quiet, &stale, &busy}) ASSERT_NE(join(*c, b), nullptr);
  const std::uint64_t busy_token = busy.find(Body_Welcome)->body_as_Welcome()->token();
  const std::uint64_t stale_token = stale.find(Body_Welcome)->body_as_Welcome()->token();
  // 2.5 s: `busy` sends a Move every 100 ms with a new seq; `stale` the same Move (seq 1) every 100 ms,
  // taken once and stale after; `quiet` only lets ENet answer.
  std::uint32_t seq = 0;
  for (const auto until = Clock::now() + std::chrono::milliseconds(2500); Clock::now() < until;) {
    move(b, busy_token, ++seq, 5, 5);
    busy.send(b, kStreamChannel);
    move(b, stale_token, 1, 5, 5);
    stale.send(b, kStreamChannel);
    busy.pump([] { return false; }, 0.03);
    stale.pump([] { return false; }, 0.03);
    quiet.pump([] { return false; }, 0.03);
  }
  EXPECT_TRUE(quiet.disconnected);
  EXPECT_TRUE(stale.disconnected);
  EXPECT_FALSE(busy.disconnected);
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  EXPECT_EQ(sv["clients"]["idle"], 2) << sv.dump();
  EXPECT_EQ(sv["clients"]["connected_at_stop"], 1) << sv.dump();
  EXPECT_GE(sv["drops"]["stale_seq"], 5) << sv.dump();
  enet_deinitialize();
}

// One address (127.0.0.2) tries to take every slot and every observer place: it keeps
// --max-sessions-per-address players and --max-observers-per-address observers, the rest are refused
// (ServerFull, counted as address_refused), and players and an observer from another address (127.0.0.3)
// still get in. Without the caps the first address would hold all 8 slots and both observer places.
TEST(Server, OneAddressHoldsNoMoreThanItsCapOfPlayersAndObservers) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "10", "--max-clients", "8", "--max-sessions-per-address", "3",
                        "--max-observers", "2", "--max-observers-per-address", "1"},
                       "per_address");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  flatbuffers::FlatBufferBuilder b(256);
  ENetAddress attacker_address{}, honest_address{};
  enet_address_set_host_ip(&attacker_address, "127.0.0.2");
  enet_address_set_host_ip(&honest_address, "127.0.0.3");
  const auto refused_full = [](const Client& c) {
    const Message* m = c.find(Body_Refused);
    return m != nullptr && m->body_as_Refused()->reason() == RefuseReason_ServerFull;
  };
  const auto observe = [&](Client& c) { return warpmind::server_test::observe(c, b); };
  std::vector<std::unique_ptr<Client>> attackers, honest;
  int attacker_players = 0, attacker_full = 0;
  for (std::uint32_t i = 0; i < 10; ++i) {
    attackers.push_back(std::make_unique<Client>(server.port, &attacker_address, 100 + i));
    ASSERT_TRUE(attackers.back()->connected);
    Client& c = *attackers.back();
    hello(b, kProtocolVersion);
    c.send(b, kReliableChannel);
    c.pump([&] { return c.find(Body_Welcome) || c.find(Body_Refused); }, 3.0);
    attacker_players += c.find(Body_Welcome) != nullptr;
    attacker_full += refused_full(c);
  }
  EXPECT_EQ(attacker_players, 3);
  EXPECT_EQ(attacker_full, 7);
  int attacker_observers = 0;
  for (std::uint32_t i = 0; i < 2; ++i) {
    attackers.push_back(std::make_unique<Client>(server.port, &attacker_address, 200 + i));
    ASSERT_TRUE(attackers.back()->connected);
    attacker_observers += observe(*attackers.back());
  }
  EXPECT_EQ(attacker_observers, 1);
  EXPECT_TRUE(refused_full(*attackers.back()));
  int honest_players = 0;
  for (std::uint32_t i = 0; i < 3; ++i) {
    honest.push_back(std::make_unique<Client>(server.port, &honest_address, 300 + i));
    ASSERT_TRUE(honest.back()->connected);
    honest_players += join(*honest.back(), b) != nullptr;
  }
  EXPECT_EQ(honest_players, 3);
  honest.push_back(std::make_unique<Client>(server.port, &honest_address, 400));
  ASSERT_TRUE(honest.back()->connected);
  EXPECT_TRUE(observe(*honest.back()));
  EXPECT_TRUE(server.alive());
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  EXPECT_EQ(sv["clients"]["joined"], 6) << sv.dump();
  EXPECT_EQ(sv["address_refused"], 8) << sv.dump();
  enet_deinitialize();
}

// Connects that never complete the handshake, from one address, more than the host has peers: 250 ms
// on, the oldest beyond --max-half-open are reset at the next sweep and the rest after --half-open-ms,
// so a client from the same address still joins within a couple of its connect retries (without the
// limits the host's peers stay taken for some 30 s), and the server says how many it reset.
// An address that connects, agrees keys and never says Hello, reconnecting whenever a connection is
// dropped, with a host of peers enough for all the server's: while peers are short it keeps at most
// --max-unjoined such connections (the oldest beyond are dropped, new connects refused), so a player
// from another address joins within 2 s; without the cap the attacker held every peer.
TEST(Server, ConnectionsThatNeverJoinDoNotLockPlayersOut) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "10", "--max-clients", "100", "--max-unjoined", "8"}, "unjoined");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  std::atomic<bool> stop{false};
  std::atomic<int> peak{0}, reconnects{0};
  std::thread attack([&] {
    ENetAddress from{}, to{};
    enet_address_set_host_ip(&from, "127.0.0.2");
    enet_address_set_host_ip(&to, "127.0.0.1");
    to.port = static_cast<enet_uint16>(server.port);
    KeyPair pair;
    pair.make();
    flatbuffers::FlatBufferBuilder b(96);
    FinishMessageBuffer(
        b, CreateMessage(b, Body_Connect,
                         CreateConnect(b, kProtocolVersion, b.CreateVector(pair.pk.data(), pair.pk.size())).Union()));
    // One socket (port) a connection: a new connection from an old one's port would supersede it.
    std::vector<ENetHost*> hosts;
    for (int i = 0; i < 300; ++i)
      if (ENetHost* h = enet_host_create(&from, 1, kChannels, 0, 0)) {
        hosts.push_back(h);
        enet_host_connect(h, &to, kChannels, 0);
      }
    int connected = 0;
    ENetEvent ev;
    while (!stop.load()) {
      for (ENetHost* h : hosts)
        while (enet_host_service(h, &ev, 0) > 0) {
          if (ev.type == ENET_EVENT_TYPE_CONNECT) {
            peak.store(std::max(peak.load(), ++connected));
            send_packet(ev.peer, kReliableChannel, b.GetBufferPointer(), b.GetSize(), nullptr);
          } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
            connected = std::max(0, connected - 1);  // (or a connect that never became one)
            ++reconnects;
            enet_host_connect(h, &to, kChannels, 0);
          } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
            enet_packet_destroy(ev.packet);
          }
        }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (ENetHost* h : hosts) enet_host_destroy(h);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  flatbuffers::FlatBufferBuilder b(256);
  ENetAddress honest_address{};
  enet_address_set_host_ip(&honest_address, "127.0.0.3");
  const auto t0 = Clock::now();
  Client c(server.port, &honest_address, 11);
  ASSERT_TRUE(c.connected);
  ASSERT_NE(join(c, b), nullptr);
  const double join_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  stop.store(true);
  attack.join();
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  EXPECT_LT(join_seconds, 2.0);
  EXPECT_GT(peak.load(), 8);  // the attacker had more than its cap before peers ran short
  EXPECT_GT(reconnects.load(), 0);
  EXPECT_GT(sv["clients"]["unjoined_dropped"].get<double>() + sv["drops"]["address_cap"].get<double>(), 0) << sv.dump();
  EXPECT_EQ(sv["clients"]["joined"], 1) << sv.dump();
  enet_deinitialize();
}

TEST(Server, HalfOpenConnectsDoNotLockPlayersOut) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server(
      {"--map", "100", "--aoi", "10", "--max-clients", "100", "--max-half-open", "8", "--half-open-ms", "500"},
      "half_open");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  // 300 connects (the host has 164 peers) sent once and never answered: this host is not serviced again.
  ENetHost* attacker = enet_host_create(nullptr, 300, kChannels, 0, 0);
  ASSERT_NE(attacker, nullptr);
  ENetAddress a;
  enet_address_set_host_ip(&a, "127.0.0.1");
  a.port = static_cast<enet_uint16>(server.port);
  for (int i = 0; i < 300; ++i) ASSERT_NE(enet_host_connect(attacker, &a, kChannels, 0), nullptr);
  enet_host_flush(attacker);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  flatbuffers::FlatBufferBuilder b(256);
  const auto t0 = Clock::now();
  Client c(server.port);
  ASSERT_TRUE(c.connected);
  ASSERT_NE(join(c, b), nullptr);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 2.5);
  std::this_thread::sleep_for(std::chrono::milliseconds(800));  // the rest time out
  enet_host_destroy(attacker);
  EXPECT_TRUE(server.alive());
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  // Every connect the host took a peer for was reset (the ones beyond its peers ENet ignored).
  EXPECT_GE(sv["clients"]["half_open_reset"], 100) << sv.dump();
  EXPECT_EQ(sv["clients"]["joined"], 1) << sv.dump();
  enet_deinitialize();
}

// What a host on the path between a client and the server sees and can do (docs/server.md, "Threat
// model"): every packet after the Connect and Keys is sealed, so the session token never crosses the
// network in clear; packets put into the client's connection in clear, replayed, or changed by one bit do
// not open and are counted; the client plays on. A client of protocol 1 (no keys) is refused in clear.
TEST(Server, AnOnPathHostCanNeitherReadNorTakeASession) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "100", "--aoi", "50", "--peer-rate", "1000"}, "on_path");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  flatbuffers::FlatBufferBuilder b(256);
  Client victim(server.port);
  ASSERT_TRUE(victim.keys.ready());
  const Message* w = join(victim, b);
  ASSERT_NE(w, nullptr);
  const std::uint64_t token = w->body_as_Welcome()->token();
  const auto newest = [&victim] { return newest_state(victim); };
  for (std::uint32_t seq = 1; seq <= 3; ++seq) {
    move(b, token, seq, 50, 50);
    victim.send(b, kStreamChannel);
    victim.pump([] { return false; }, 0.06);
  }
  victim.pump([&] { return newest() && newest()->last_seq() == 3; }, 2.0);
  ASSERT_TRUE(newest() && newest()->last_seq() == 3);
  // What crossed the network: the Connect and the Keys read as Messages, nothing else does, and the
  // token's eight bytes are in no packet either way.
  std::uint8_t t[8];
  std::memcpy(t, &token, 8);
  std::size_t readable = 0;
  for (const auto* dir : {&victim.wire_in, &victim.wire_out})
    for (const auto& pkt : *dir) {
      EXPECT_EQ(std::search(pkt.begin(), pkt.end(), t, t + 8), pkt.end()) << "the token in clear";
      if (const Message* m = read_message(pkt.data(), pkt.size())) {
        ++readable;
        EXPECT_TRUE(m->body_type() == Body_Connect || m->body_type() == Body_Keys) << m->body_type();
      }
    }
  EXPECT_EQ(readable, 2u);
  // Into the victim's own connection: a Move to (0, 0) and a Leave in clear, with the real token
  // (as if the host knew it); a replay of its second Move; its last Move with one bit changed.
  const std::vector<std::uint8_t> second_move = victim.wire_out[victim.wire_out.size() - 2];
  std::vector<std::uint8_t> flipped = victim.wire_out.back();
  flipped[12] ^= 0x10;
  move(b, token, 100, 0, 0);
  victim.send_clear(b.GetBufferPointer(), b.GetSize(), kStreamChannel);
  b.Clear();
  FinishMessageBuffer(b, CreateMessage(b, Body_Leave, CreateLeave(b, token).Union()));
  victim.send_clear(b.GetBufferPointer(), b.GetSize(), kReliableChannel);
  victim.send_clear(second_move.data(), second_move.size(), kStreamChannel);
  victim.send_clear(flipped.data(), flipped.size(), kStreamChannel);
  const std::uint64_t before = newest()->tick();
  victim.pump([] { return false; }, 0.5);
  ASSERT_NE(newest(), nullptr);
  EXPECT_GT(newest()->tick(), before + 5);  // still in the game, States coming
  EXPECT_EQ(newest()->last_seq(), 3u);      // none of them applied
  EXPECT_FALSE(victim.disconnected);
  EXPECT_EQ(victim.unopened, 0u);
  move(b, token, 4, 50, 50);  // its own next command still counts
  victim.send(b, kStreamChannel);
  victim.pump([&] { return newest()->last_seq() == 4; }, 2.0);
  EXPECT_EQ(newest()->last_seq(), 4u);
  // A client of protocol 1 sends its Hello in clear: refused in clear. A Hello of this protocol before
  // the keys is dropped; so is a Connect whose key is not 32 bytes.
  {
    Client old(server.port, nullptr, 0, false);
    ASSERT_TRUE(old.connected);
    hello(b, 1);
    old.send_clear(b.GetBufferPointer(), b.GetSize(), kReliableChannel);
    old.pump([&] { return old.find(Body_Refused) != nullptr; }, 3.0);
    ASSERT_NE(old.find(Body_Refused), nullptr);
    EXPECT_EQ(old.find(Body_Refused)->body_as_Refused()->reason(), RefuseReason_UnknownVersion);
  }
  {
    Client early(server.port, nullptr, 0, false);
    ASSERT_TRUE(early.connected);
    hello(b, kProtocolVersion);
    early.send_clear(b.GetBufferPointer(), b.GetSize(), kReliableChannel);
    const std::uint8_t short_key[31] = {};
    b.Clear();
    FinishMessageBuffer(
        b, CreateMessage(b, Body_Connect, CreateConnect(b, kProtocolVersion, b.CreateVector(short_key, 31)).Union()));
    early.send_clear(b.GetBufferPointer(), b.GetSize(), kReliableChannel);
    early.pump([] { return false; }, 0.3);
    EXPECT_EQ(early.find(Body_Welcome), nullptr);
    EXPECT_EQ(early.find(Body_Keys), nullptr);
  }
  EXPECT_TRUE(server.alive());
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  const json& d = sv["drops"];
  EXPECT_EQ(d["forged"], 3) << sv.dump();
  EXPECT_EQ(d["replayed"], 1) << sv.dump();
  EXPECT_EQ(d["no_keys"], 1) << sv.dump();
  EXPECT_EQ(d["bad_packet"], 1) << sv.dump();
  EXPECT_EQ(d["unknown_version"], 1) << sv.dump();
  EXPECT_EQ(sv["clients"]["left"], 0) << sv.dump();  // the forged Leave removed no one
  EXPECT_EQ(sv["clients"]["joined"], 1) << sv.dump();
  enet_deinitialize();
}

// A server with --key-file has the same key pair at every start, its public key printed; bots told it
// (--server-key) play, bots told another refuse every server's Keys before saying Hello (what a host
// in the middle of the handshake would send), and a key file that is not 64 hexadecimal digits exits 2.
TEST(Server, ClientsThatKnowTheServersKeyTakeNoOther) {
  const fs::path seed = scratch("server.key");
  std::ofstream(seed) << std::string(64, '7') << "\n";
  const auto public_key = [](const ServerProcess& s) {
    const std::string e = slurp(s.err);
    const std::size_t at = e.find("public key ");
    return at == std::string::npos ? std::string() : e.substr(at + 11, 64);
  };
  std::string first;
  {
    ServerProcess once({"--key-file", seed.string()}, "keyed_once");
    ASSERT_GT(once.port, 0) << slurp(once.err);
    first = public_key(once);
  }
  ServerProcess server({"--map", "100", "--aoi", "10", "--key-file", seed.string()}, "keyed");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  const std::string key = public_key(server);
  ASSERT_EQ(key.size(), 64u) << slurp(server.err);
  EXPECT_EQ(key, first);  // the same seed, the same key
  json good, bad;
  EXPECT_EQ(run_bots(server.port, "--bots 10 --seconds 2 --server-key " + key, good, "keyed_bots"), 0) << good.dump();
  EXPECT_EQ(good["joined"], 10) << good.dump();
  std::string other = key;
  other[0] = other[0] == '0' ? '1' : '0';
  EXPECT_EQ(run_bots(server.port, "--bots 10 --seconds 2 --server-key " + other, bad, "wrong_key_bots"), 1)
      << bad.dump();
  EXPECT_EQ(bad["joined"], 0) << bad.dump();
  EXPECT_EQ(bad["refused"], 10) << bad.dump();
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["clients"]["joined"], 10) << sv.dump();
  const fs::path short_seed = scratch("short.server.key");
  std::ofstream(short_seed) << "abcd\n";
  const int raw = std::system((warpmind::test::bin_dir() + "/warpmind-server --port 0 --seconds 1 --key-file " +
                               short_seed.string() + " > /dev/null 2>&1")
                                  .c_str());
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 2);
}

TEST(Server, ServesMetricsInThePrometheusTextFormat) {
  ServerProcess server({"--map", "100", "--aoi", "10", "--metrics-port", "0"}, "metrics");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  const int port = metrics_port(server);
  ASSERT_GT(port, 0) << slurp(server.err);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a few ticks
  const std::string page = scrape(port);
  EXPECT_EQ(page.rfind("HTTP/1.0 200 OK", 0), 0u) << page;
  for (const char* line :
       {"# TYPE warpmind_server_ticks_total counter", "warpmind_server_clients 0",
        "warpmind_server_drops_total{reason=\"flood\"} 0", "warpmind_server_tick_seconds{quantile=\"0.99\"}"})
    EXPECT_NE(page.find(line), std::string::npos) << line << " in " << page;
  const std::size_t ticks = page.find("\nwarpmind_server_ticks_total ");
  ASSERT_NE(ticks, std::string::npos);
  EXPECT_GT(std::atof(page.c_str() + ticks + 29), 0.0);
  json sv;
  EXPECT_EQ(server.stop(sv), 0);
}

// A stream of connections to the metrics port that say nothing (a new one every 10 ms, each held for
// 1.5 s) does not hold up the tick: the endpoint has its own thread. (It used to wait up to 20 ms for
// each request on the tick thread: 103 ticks of 126 in such a run, 11 of them late.) A scrape after
// them is answered, and the server at 60 Hz keeps time.
TEST(Server, IdleMetricsConnectionsDoNotSlowTheTick) {
  ServerProcess server({"--map", "100", "--aoi", "10", "--tick-hz", "60", "--metrics-port", "0"}, "metrics_idle");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  const int port = metrics_port(server);
  ASSERT_GT(port, 0) << slurp(server.err);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<std::pair<int, Clock::time_point>> open;  // (socket, when to close it)
  const auto until = Clock::now() + std::chrono::milliseconds(2000);
  while (Clock::now() < until) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(fd, 0);
    (void)connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to);  // in progress: never waited for
    open.emplace_back(fd, Clock::now() + std::chrono::milliseconds(1500));
    std::erase_if(open, [](const auto& o) {
      if (Clock::now() < o.second) return false;
      close(o.first);
      return true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (const auto& o : open) close(o.first);
  const std::string page = scrape(port);
  EXPECT_EQ(page.rfind("HTTP/1.0 200 OK", 0), 0u) << page;
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  EXPECT_GE(sv["ticks"].get<double>(), 0.9 * 60 * sv["seconds"].get<double>()) << sv.dump();
  EXPECT_LE(sv["late_ticks"], 3) << sv.dump();
}

}  // namespace

// The cipher (docs/protocol.md, "Sealed packets"): AES-256-GCM only with a client that offers it, and only
// where the server may (--cipher auto) and its processor can; ChaCha20-Poly1305 otherwise. Either way the
// session plays: its Welcome and States open with the agreed cipher. Bots offering both and bots offering
// ChaCha20-Poly1305 only play on one server with nothing inconsistent, and the summary counts each.
TEST(Server, SealsWithAesGcmOnlyWhereBothEndsCanAndChaChaOtherwise) {
  ASSERT_EQ(enet_initialize(), 0);
  using namespace warpmind::net;
  const bool aes = aes256gcm_available();
  for (const bool chacha_only : {false, true}) {
    std::vector<std::string> args = {"--map", "100", "--aoi", "50"};
    if (chacha_only) args.insert(args.end(), {"--cipher", "chacha20-poly1305"});
    const std::string name = chacha_only ? "cipher_chacha" : "cipher_auto";
    const int with_aes = aes && !chacha_only;  // 1 for each client that offers AES-256-GCM
    {
      ServerProcess server(args, name);
      ASSERT_GT(server.port, 0) << slurp(server.err);
      flatbuffers::FlatBufferBuilder b(256);
      for (const bool offer : {false, true}) {
        Client c(server.port, nullptr, 0, /*agree_keys=*/false);
        ASSERT_TRUE(c.connected);
        c.offer_aes = offer;
        ASSERT_TRUE(c.agree());
        EXPECT_EQ(c.keys.cipher(), offer && with_aes ? Cipher_Aes256Gcm : Cipher_ChaCha20Poly1305)
            << "offered " << offer << ", server chacha only " << chacha_only;
        const Message* w = join(c, b);
        ASSERT_NE(w, nullptr);
        c.pump([&] { return newest_state(c) != nullptr; }, 2.0);
        EXPECT_NE(newest_state(c), nullptr);
        EXPECT_EQ(c.unopened, 0u);
      }
      json sv;
      ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
      EXPECT_EQ(sv["clients"]["sealed_aes_256_gcm"], with_aes) << sv.dump();
      EXPECT_EQ(sv["clients"]["sealed_chacha20_poly1305"], 2 - with_aes) << sv.dump();
    }
    ServerProcess server(args, name + "_bots");  // the bots check everyone they see: no one else on it
    ASSERT_GT(server.port, 0) << slurp(server.err);
    json bots[2];
    EXPECT_EQ(run_bots(server.port, "--bots 20 --seconds 2 --seed 3", bots[0], name + "_auto"), 0) << bots[0];
    EXPECT_EQ(
        run_bots(server.port, "--bots 20 --seconds 2 --seed 4 --cipher chacha20-poly1305", bots[1], name + "_chacha"),
        0)
        << bots[1];
    for (const json& r : bots) EXPECT_EQ(r["inconsistencies"], 0) << r;
    json sv;
    ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
    EXPECT_EQ(sv["clients"]["sealed_aes_256_gcm"], 20 * with_aes) << sv.dump();
    EXPECT_EQ(sv["clients"]["sealed_chacha20_poly1305"], 40 - 20 * with_aes) << sv.dump();
  }
  enet_deinitialize();
}
