// warpmind-server and warpmind-bots as a user runs them, on loopback only: bots checked against the AOI
// rule, a garbage flood from a raw socket while bots play, flags and config files,
// observers, virtual clients, zones, the demo watching a server, SIGINT giving the JSON summary (the
// limits on what clients send and hold: server_limits_test.cpp; sessions, churn and resumes:
// server_sessions_test.cpp). Every loop is bounded in time.
#include "server/server_harness.h"
#include "time_samples.h"

namespace {

using namespace warpmind::server_test;

// Reads every field of a verified message (under the sanitizers, any read outside the buffer fails).
std::uint64_t touch(const warpmind::net::Message& m) {
  using namespace warpmind::net;
  std::uint64_t h = m.body_type();
  if (const Hello* x = m.body_as_Hello()) h += x->version() + (x->name() ? x->name()->size() : 0);
  if (const Welcome* x = m.body_as_Welcome()) h += x->token() + x->player() + x->tick() + static_cast<int>(x->map());
  if (const Move* x = m.body_as_Move()) h += x->token() + x->seq() + static_cast<int>(x->x());
  if (const Attack* x = m.body_as_Attack()) h += x->token() + x->seq() + x->target();
  if (const Leave* x = m.body_as_Leave()) h += x->token();
  if (const State* x = m.body_as_State())
    if (x->notifications())
      for (const Entry* e : *x->notifications()) h += e->subject_field() + e->value();
  if (const Events* x = m.body_as_Events()) {
    if (x->entered())
      for (std::uint32_t o : *x->entered()) h += o;
    if (x->left())
      for (std::uint32_t o : *x->left()) h += o;
  }
  return h;
}

TEST(Protocol, ReadMessageVerifiesTruncatedMutatedAndRandomPackets) {
  using namespace warpmind::net;
  std::vector<std::vector<std::uint8_t>> valid;
  flatbuffers::FlatBufferBuilder b(256);
  const auto keep = [&] { valid.emplace_back(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()); };
  b.Clear();
  FinishMessageBuffer(b, CreateMessage(b, Body_Hello, CreateHello(b, kProtocolVersion, b.CreateString("x")).Union()));
  keep();
  b.Clear();
  FinishMessageBuffer(b, CreateMessage(b, Body_Move, CreateMove(b, 42, 7, 1.5f, 2.5f).Union()));
  keep();
  b.Clear();
  FinishMessageBuffer(b, CreateMessage(b, Body_Attack, CreateAttack(b, 42, 8, 3).Union()));
  keep();
  b.Clear();
  std::vector<Entry> entries = {Entry(1, 2), Entry(3, 4), Entry(5, 6)};
  FinishMessageBuffer(
      b, CreateMessage(b, Body_State, CreateState(b, 9, 10, 11, 1, 2, 3, b.CreateVectorOfStructs(entries)).Union()));
  keep();
  b.Clear();
  std::vector<std::uint32_t> ids = {1, 2, 3};
  FinishMessageBuffer(
      b, CreateMessage(b, Body_Events, CreateEvents(b, 9, b.CreateVector(ids), b.CreateVector(ids)).Union()));
  keep();
  for (const auto& v : valid) {
    std::vector<std::uint8_t> copy = v;  // an exactly sized heap buffer, as ENet hands over
    ASSERT_NE(read_message(copy.data(), copy.size()), nullptr);
    for (std::size_t n = 0; n < v.size(); ++n) {  // every truncation
      std::vector<std::uint8_t> cut(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
      if (const Message* m = read_message(cut.data(), cut.size())) touch(*m);
    }
  }
  std::mt19937 rng(99);
  std::uint64_t accepted = 0, sink = 0;
  for (int i = 0; i < 200000; ++i) {
    std::vector<std::uint8_t> buf;
    if (i % 2 == 0) {  // a valid message with a few bytes changed
      buf = valid[rng() % valid.size()];
      for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k)
        buf[rng() % buf.size()] = static_cast<std::uint8_t>(rng());
    } else {  // random bytes, sometimes with the identifier in place
      buf.resize(rng() % 200);
      for (auto& c : buf) c = static_cast<std::uint8_t>(rng());
      if (buf.size() >= 8 && i % 4 == 1) std::memcpy(buf.data() + 4, "WMP1", 4);
    }
    if (const Message* m = read_message(buf.data(), buf.size())) {
      ++accepted;
      sink += touch(*m);
    }
  }
  EXPECT_GT(accepted, 0u);  // some mutations stay well-formed (a changed value), and those are read safely
  (void)sink;
}

// The summary's tick times in fixed memory (time_samples.h): every sample kept up to 65,536, then a
// uniform sample of them; the maximum and the last 1,000 exact.
TEST(Server, TickTimesKeepFixedMemoryAndTheirQuantiles) {
  using warpmind::server::TimeSamples;
  TimeSamples t;
  EXPECT_EQ(t.count(), 0u);
  EXPECT_TRUE(t.kept().empty());
  EXPECT_EQ(t.max(), 0.0f);
  for (int i = 0; i < 500; ++i) t.add(static_cast<float>(i));
  EXPECT_EQ(t.kept().size(), 500u);
  EXPECT_EQ(t.recent().size(), 500u);
  // 1,000,000 samples, 0..999,999 in a shuffled order: the kept ones stay 65,536, their median near the
  // true one (500,000; a uniform sample of 65,536 puts it within 1% of the range), the maximum exact.
  t.clear();
  std::vector<float> all(1000000);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<float>(i);
  std::shuffle(all.begin(), all.end(), std::mt19937_64(7));
  for (float v : all) t.add(v);
  EXPECT_EQ(t.count(), all.size());
  EXPECT_EQ(t.max(), 999999.0f);
  std::vector<float> kept = t.kept();
  ASSERT_EQ(kept.size(), TimeSamples::kKept);
  std::sort(kept.begin(), kept.end());
  EXPECT_NEAR(kept[kept.size() / 2], 500000.0f, 10000.0f);
  EXPECT_NEAR(kept[kept.size() * 99 / 100], 990000.0f, 10000.0f);
  std::vector<float> recent = t.recent(), last(all.end() - 1000, all.end());
  std::sort(recent.begin(), recent.end());
  std::sort(last.begin(), last.end());
  EXPECT_EQ(recent, last);
}

TEST(Server, TwoHundredBotsSeeExactlyWhatTheAoiRuleSays) {
  ServerProcess server({"--map", "300", "--aoi", "20", "--tick-hz", "20"});
  ASSERT_GT(server.port, 0) << slurp(server.err);
  json bots;
  // A fifth of the States are "lost" by the bots (kept for the check, not acknowledged): the States
  // after them must carry the catch-up since the newest acknowledged one.
  const int rc = run_bots(server.port, "--bots 200 --seconds 3 --seed 7 --lose-share 0.2", bots);
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(bots.is_discarded());
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  EXPECT_EQ(rc, 0) << bots.dump();
  EXPECT_EQ(bots["joined"], 200);
  EXPECT_EQ(bots["inconsistencies"], 0) << bots.dump();
  // Most ticks are checked whole (every bot heard them); on loopback, nearly all.
  EXPECT_GE(bots["ticks_checked"].get<int>(), 40) << bots.dump();
  EXPECT_GE(bots["states_checked"].get<int>(), 40 * 200);
  EXPECT_GT(bots["rtt_ms"]["samples"].get<int>(), 0);
  EXPECT_EQ(bots["catch_up_errors"], 0) << bots.dump();
  EXPECT_GE(bots["catch_ups_checked"].get<int>(), 40 * 200);
  EXPECT_GE(bots["catch_ups_behind"].get<int>(), 100) << bots.dump();  // States made up for
  EXPECT_GE(bots["snapshots"].get<int>(), 200);                        // at least every join
  EXPECT_EQ(sv["clients"]["joined"], 200);
  EXPECT_EQ(sv["clients"]["peak"], 200);
  EXPECT_EQ(sv["dropped"], 0) << sv.dump();
  EXPECT_GT(sv["notifications"].get<double>(), 0);
  // The tick rate held: the ticks it ran against the time it ran.
  EXPECT_GE(sv["ticks"].get<double>(), 0.8 * 20 * sv["seconds"].get<double>()) << sv.dump();
}

TEST(Server, KeepsItsTickRateAndItsBotsUnderAGarbageFlood) {
  ServerProcess server({"--map", "300", "--aoi", "20"});
  ASSERT_GT(server.port, 0) << slurp(server.err);
  std::atomic<bool> stop{false};
  std::uint64_t flooded = 0;
  std::thread t([&] { flooded = flood(server.port, 200000, 4.0, stop); });
  json bots;
  const int rc = run_bots(server.port, "--bots 50 --seconds 3 --seed 3", bots, "flood_bots");
  stop.store(true);
  t.join();
  EXPECT_TRUE(server.alive());
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  ASSERT_FALSE(bots.is_discarded());
  ASSERT_FALSE(sv.is_discarded()) << slurp(server.out);
  EXPECT_GT(flooded, 1000u);
  EXPECT_EQ(rc, 0) << bots.dump();
  EXPECT_EQ(bots["joined"], 50);
  EXPECT_EQ(bots["inconsistencies"], 0) << bots.dump();
  EXPECT_GT(bots["states_received"].get<double>(), 0.8 * bots["states_expected"].get<double>()) << bots.dump();
  EXPECT_GE(sv["ticks"].get<double>(), 0.8 * 20 * sv["seconds"].get<double>()) << sv.dump();
  // The flood came from one address, far above --address-rate: most of it never reached ENet.
  EXPECT_GT(sv["drops"]["flood"].get<double>(), 0) << sv.dump();
  // What passed the rate limit and is not ENet's is dropped before ENet, and counted.
  EXPECT_GT(sv["drops"]["garbage"].get<double>(), 0) << sv.dump();
  EXPECT_GE(sv["datagrams_in"].get<double>() + sv["receive_errors"].get<double>(), 1000) << sv.dump();
}

TEST(Server, BadFlagsExitWithTwoAndAConfigFileSetsFlags) {
  const std::string bin = warpmind::test::bin_dir();
  const auto status = [](const std::string& cmd) {
    const int raw = std::system((cmd + " > /dev/null 2>&1").c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  EXPECT_EQ(status(bin + "/warpmind-server --tick-hz 0"), 2);
  EXPECT_EQ(status(bin + "/warpmind-server --host not-an-ip --seconds 1"), 2);
  EXPECT_EQ(status(bin + "/warpmind-server --variant nope"), 2);
  EXPECT_EQ(status(bin + "/warpmind-server --device -1"), 2);
  // A CUDA device that is not there (no GPU here, or fewer than 64): a clear error, exit 2.
  EXPECT_EQ(status(bin + "/warpmind-server --backend cuda --device 63 --virtual-clients 10 --ticks 1"), 2);
  EXPECT_EQ(status(bin + "/warpmind-server --help"), 0);
  EXPECT_EQ(status(bin + "/warpmind-bots --bots 3"), 2);  // --server is required
  EXPECT_EQ(status(bin + "/warpmind-bots --server localhost"), 2);
  EXPECT_EQ(status(bin + "/warpmind-bots --server 127.0.0.1:0"), 2);
  EXPECT_EQ(status(bin + "/warpmind-bots --help"), 0);
  // --config: a JSON object of flags; the command line wins; an unknown key is an unknown flag.
  const fs::path cfg = scratch("config.json"), wrong = scratch("wrong.json");
  std::ofstream(cfg) << R"({"tick_hz": 10, "map": 200, "shape": "circle", "seconds": 0.5, "json": true})";
  std::ofstream(wrong) << R"({"tickhz": 10})";
  const fs::path out = scratch("config.out");
  const int raw = std::system((bin + "/warpmind-server --port 0 --backend cpu --config " + cfg.string() +
                               " --tick-hz 40 > " + out.string() + " 2>/dev/null")
                                  .c_str());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0);
  const json sv = json::parse(last_line(slurp(out)), nullptr, false);
  ASSERT_FALSE(sv.is_discarded());
  EXPECT_EQ(sv["tick_hz"], 40);
  EXPECT_GE(sv["ticks"].get<int>(), 10);
  EXPECT_EQ(status(bin + "/warpmind-server --config " + wrong.string()), 2);
  EXPECT_EQ(status(bin + "/warpmind-server --config /nonexistent.json"), 2);
}

// An observer: Observe instead of Hello, a Welcome without a player, then every tick a Snapshot of the
// players in the game; more observers than --max-observers are refused.
TEST(Server, ObserversGetASnapshotOfEveryPlayerEachTick) {
  ASSERT_EQ(enet_initialize(), 0);
  ServerProcess server({"--map", "200", "--aoi", "20", "--max-observers", "1"}, "observed");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  flatbuffers::FlatBufferBuilder b(64);
  const auto observe = [&b] {
    b.Clear();
    FinishMessageBuffer(b, CreateMessage(b, Body_Observe, CreateObserve(b, kProtocolVersion).Union()));
  };
  Client watcher(server.port);
  ASSERT_TRUE(watcher.connected);
  observe();
  watcher.send(b, kReliableChannel);
  watcher.pump([&] { return watcher.find(Body_Welcome) != nullptr; }, 3.0);
  const Message* w = watcher.find(Body_Welcome);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->body_as_Welcome()->player(), 0xffffffffu);
  EXPECT_EQ(w->body_as_Welcome()->token(), 0u);
  {  // A second observer is one too many.
    Client other(server.port);
    observe();
    other.send(b, kReliableChannel);
    other.pump([&] { return other.find(Body_Refused) != nullptr; }, 3.0);
    ASSERT_NE(other.find(Body_Refused), nullptr);
    EXPECT_EQ(other.find(Body_Refused)->body_as_Refused()->reason(), RefuseReason_ServerFull);
  }
  json bots;
  std::thread t([&] { run_bots(server.port, "--bots 20 --seconds 2 --seed 4", bots, "observed_bots"); });
  // (This server has no observer key: the watcher is admitted because it is on loopback.)
  // Snapshots while the bots play: the largest one names all 20, in ascending ids, inside the map.
  std::size_t most = 0;
  bool ordered = true, inside = true;
  std::uint64_t last_tick = 0;
  int snapshots = 0;
  watcher.pump(
      [&] {
        for (auto& r : watcher.received)
          if (const Message* m = read_message(r.data(), r.size()); m && m->body_type() == Body_Snapshot) {
            const Snapshot* sn = m->body_as_Snapshot();
            ++snapshots;
            ordered &= sn->tick() > last_tick || last_tick == 0;
            last_tick = sn->tick();
            if (!sn->players()) continue;
            most = std::max<std::size_t>(most, sn->players()->size());
            for (std::size_t k = 1; k < sn->players()->size(); ++k)
              ordered &= sn->players()->Get(k - 1)->player() < sn->players()->Get(k)->player();
            for (const PlayerState* p : *sn->players()) inside &= p->x() >= 0 && p->x() <= 200 && p->y() <= 200;
          }
        watcher.received.clear();
        return false;
      },
      2.5);
  t.join();
  EXPECT_GE(snapshots, 20);
  EXPECT_EQ(most, 20u);
  EXPECT_TRUE(ordered);
  EXPECT_TRUE(inside);
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["observers"], 1) << sv.dump();
  EXPECT_EQ(sv["send_failures"], 0) << sv.dump();
  enet_deinitialize();
}

// --virtual-clients: the same command and notification path with no sockets (the GPU machine's figure).
TEST(Server, VirtualClientsTakeCommandsAndGetStatesEveryTick) {
  const fs::path out = scratch("virtual.out");
  const std::string cmd = warpmind::test::bin_dir() +
                          "/warpmind-server --virtual-clients 3000 --ticks 6 --map 1200 --aoi 20 --backend cpu > " +
                          out.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << slurp(out);
  const json v = json::parse(last_line(slurp(out)), nullptr, false);
  ASSERT_FALSE(v.is_discarded()) << slurp(out);
  EXPECT_EQ(v["mode"], "virtual");
  EXPECT_EQ(v["ticks"], 6);
  EXPECT_EQ(v["commands"], 3000 * 6);  // every client's command taken every tick
  EXPECT_EQ(v["dropped"], 0);
  // Every client gets a State a tick (and Events when its view changed); each State holds at least the
  // client's own X and Y (everyone moves or attacks).
  EXPECT_GE(v["messages_per_tick"].get<double>(), 3000);
  EXPECT_GE(v["notifications_per_tick"].get<double>(), 0.9 * 2 * 3000);
  EXPECT_GT(v["rejected_by_aoi"].get<double>(), 0);  // some attacks on players seen but out of range
  EXPECT_GT(v["tick_ms"]["p50"].get<double>(), 0);
}

// ---- Zones of a cluster.

TEST(Cluster, ZoneMessagesAreReadOnlyWhenEveryRecordIsWellFormed) {
  using namespace warpmind::net;
  TickMessage m;
  m.zone = 1;
  m.tick = 77;
  m.states = {{3, 10.5f, 20.25f, 90}, {9, 0.0f, 300.0f, 0}};
  m.commands = {{3, RawKind::Move, 5, 1.0f, 2.0f, 0},
                {4, RawKind::Attack, 6, 0, 0, 9},
                {8, RawKind::Join, 0, 7, 8, 0},
                {8, RawKind::Ack, 0, 0, 0, 70}};
  m.views = {{3, {4, 9}, {{75, {4u | 1u << 30, 9u | 2u << 30}, {9}}, {76, {}, {}}}}, {5, {}, {}}};
  std::vector<std::uint8_t> w;
  encode_tick(m, w);
  TickMessage got;
  ASSERT_TRUE(decode_tick(w.data(), w.size(), 2, 16, got));
  EXPECT_EQ(got.zone, 1u);
  EXPECT_EQ(got.tick, 77u);
  ASSERT_EQ(got.states.size(), 2u);
  EXPECT_EQ(got.states[1].y, 300.0f);
  ASSERT_EQ(got.commands.size(), 4u);
  EXPECT_EQ(got.commands[1].target, 9u);
  ASSERT_EQ(got.views.size(), 2u);
  ASSERT_EQ(got.views[0].past.size(), 2u);
  EXPECT_EQ(got.views[0].past[0].keys[1], 9u | 2u << 30);
  EXPECT_EQ(got.views[0].past[1].tick, 76u);
  for (std::size_t n = 0; n < w.size(); ++n) EXPECT_FALSE(decode_tick(w.data(), n, 2, 16, got)) << n;  // truncated
  EXPECT_FALSE(decode_tick(w.data(), w.size(), 1, 16, got));  // zone 1 of a cluster of one
  EXPECT_FALSE(decode_tick(w.data(), w.size(), 2, 9, got));   // player 9 of 9
  const auto mutated = [&](auto change) {
    TickMessage x = m;
    change(x);
    std::vector<std::uint8_t> b;
    encode_tick(x, b);
    return decode_tick(b.data(), b.size(), 2, 16, got);
  };
  EXPECT_FALSE(mutated([](TickMessage& x) { x.states[0].x = NAN; }));
  EXPECT_FALSE(mutated([](TickMessage& x) { x.states[0].hp = -1; }));
  EXPECT_FALSE(mutated([](TickMessage& x) { x.commands[0].kind = static_cast<RawKind>(7); }));
  EXPECT_FALSE(mutated([](TickMessage& x) { x.commands[0].y = INFINITY; }));
  EXPECT_FALSE(mutated([](TickMessage& x) { x.commands[1].target = 4; }));   // attacks itself
  EXPECT_FALSE(mutated([](TickMessage& x) { x.commands[1].target = 16; }));  // no such player
  EXPECT_FALSE(mutated([](TickMessage& x) { x.views[0].visible[0] = 16; }));
  EXPECT_FALSE(mutated([](TickMessage& x) { x.views[0].past[0].keys[0] = 4u | 3u << 30; }));  // no field 3
  EXPECT_FALSE(mutated([](TickMessage& x) { x.views[1].past.resize(kMaxViewTicks + 1); }));
  w.push_back(0);
  EXPECT_FALSE(decode_tick(w.data(), w.size(), 2, 16, got));  // a byte too many

  std::vector<std::uint8_t> r;
  begin_relay(r, 0, 5);
  const std::uint8_t a[] = {1, 2, 3}, b[] = {9};
  add_relay(r, 12, 1, a);
  add_relay(r, 13, 0, b);
  std::vector<RelayRecord> recs;
  ASSERT_TRUE(decode_relay(r.data(), r.size(), 2, 16, 2, 64, recs));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].player, 12u);
  EXPECT_EQ(recs[0].message.size(), 3u);
  EXPECT_EQ(recs[1].message[0], 9);
  for (std::size_t n = 0; n < r.size(); ++n) EXPECT_FALSE(decode_relay(r.data(), n, 2, 16, 2, 64, recs)) << n;
  EXPECT_FALSE(decode_relay(r.data(), r.size(), 2, 13, 2, 64, recs));  // player 13 of 13
  EXPECT_FALSE(decode_relay(r.data(), r.size(), 2, 16, 1, 64, recs));  // channel 1 of 1
  EXPECT_FALSE(decode_relay(r.data(), r.size(), 2, 16, 2, 2, recs));   // a message over the limit
  // Random bytes behind a valid header are read safely, whatever they say.
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> x(rng() % 200);
    for (auto& c : x) c = static_cast<std::uint8_t>(rng());
    if (x.size() >= 24 && i % 2) std::memcpy(x.data(), i % 4 == 1 ? w.data() : r.data(), 20);
    decode_tick(x.data(), x.size(), 4, 64, got);
    decode_relay(x.data(), x.size(), 4, 64, 2, 64, recs);
  }
}

// A zone's stored state (what it comes back from after a crash) reads back exactly, and is refused
// whole when it is not this zone's, not of this size, truncated, a byte too long, or holds a bad value.
// It holds no session token: its bytes never contain one (a store reader could resume with it).
TEST(Cluster, StoredZoneStatesReadBackExactlyAndOnlyWhenWellFormed) {
  using namespace warpmind::net;
  StoredZone z;
  z.zone = 1;
  z.tick = 1234;
  z.slots.resize(4);
  z.slots[0] = {2, 17, 100, 120, 1230, 0};
  z.slots[3] = {4, 3, 7, 8, 9, 1200};
  z.last_applied = {0, 1, 2, 3, 4, 5, 6, 7};
  z.own = {{4, 10.5f, 99.25f, 80, {5, 6}}, {7, 150.0f, 0.0f, 0, {}}};
  std::vector<std::uint8_t> w;
  encode_stored(z, w);
  StoredZone got;
  ASSERT_TRUE(decode_stored(w.data(), w.size(), 1, 4, 8, 5, got));
  EXPECT_EQ(got.tick, 1234u);
  EXPECT_EQ(got.slots[0].join_tick, 100u);
  EXPECT_EQ(got.slots[0].first_tick, 120u);
  EXPECT_EQ(w.size(), 24 + 4 * kStoredSlotBytes + 8 * 4 + 4 + (20 + 2 * 4) + 20);  // header, slots, players, own
  EXPECT_EQ(got.slots[3].detached_tick, 1200u);
  EXPECT_EQ(got.last_applied[7], 7u);
  ASSERT_EQ(got.own.size(), 2u);
  EXPECT_EQ(got.own[0].visible, (std::vector<std::uint32_t>{5, 6}));
  EXPECT_EQ(got.own[1].x, 150.0f);
  std::vector<std::uint8_t> again;
  encode_stored(got, again);
  EXPECT_EQ(again, w);
  EXPECT_FALSE(decode_stored(w.data(), w.size(), 0, 4, 8, 5, got));  // another zone's
  EXPECT_FALSE(decode_stored(w.data(), w.size(), 1, 5, 8, 5, got));  // another --max-clients
  EXPECT_FALSE(decode_stored(w.data(), w.size(), 1, 4, 9, 5, got));  // another cluster size
  EXPECT_FALSE(decode_stored(w.data(), w.size(), 1, 4, 8, 4, got));  // slot state 4 of 4
  for (std::size_t n = 0; n < w.size(); ++n) EXPECT_FALSE(decode_stored(w.data(), n, 1, 4, 8, 5, got)) << n;
  const auto mutated = [&](auto change) {
    StoredZone x = z;
    change(x);
    std::vector<std::uint8_t> b;
    encode_stored(x, b);
    return decode_stored(b.data(), b.size(), 1, 4, 8, 5, got);
  };
  EXPECT_FALSE(mutated([](StoredZone& x) { x.own[0].x = NAN; }));
  EXPECT_FALSE(mutated([](StoredZone& x) { x.own[0].hp = -1; }));
  EXPECT_FALSE(mutated([](StoredZone& x) { x.own[1].player = 8; }));
  EXPECT_FALSE(mutated([](StoredZone& x) { x.own[0].visible[1] = 8; }));
  w.push_back(0);
  EXPECT_FALSE(decode_stored(w.data(), w.size(), 1, 4, 8, 5, got));  // a byte too many
  std::mt19937 rng(9);
  for (int i = 0; i < 20000; ++i) {  // random bytes behind a valid header are read safely
    std::vector<std::uint8_t> x(24 + rng() % 400);
    for (auto& c : x) c = static_cast<std::uint8_t>(rng());
    std::memcpy(x.data(), w.data(), 24);
    decode_stored(x.data(), x.size(), 1, 4, 8, 5, got);
  }
}

TEST(Cluster, RefusesZoneSettingsThatCannotWork) {
  const std::string bin = warpmind::test::bin_dir();
  const auto status = [](const std::string& cmd) {
    const int raw = std::system((cmd + " > /dev/null 2>&1").c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  const std::string server = bin + "/warpmind-server --backend cpu --port 0 --seconds 1 ";
  EXPECT_EQ(status(server + "--zones 2 --zone 2"), 2);
  EXPECT_EQ(status(server + "--zone 1"), 2);
  EXPECT_EQ(status(server + "--zones 4 --map 300 --aoi 20"), 2);                 // strips of 75 < 5 AOI
  EXPECT_EQ(status(server + "--zones 4 --zone-rows 3 --map 1000 --aoi 20"), 2);  // rows that do not divide
  EXPECT_EQ(status(server + "--zones 4 --zone-rows 4 --map 300 --aoi 20"), 2);   // rows 75 high < 5 AOI
  EXPECT_EQ(status(server + "--zones 2 --map 300 --aoi 20 --max-move 30"), 2);
  EXPECT_EQ(status(server + "--zones 2 --map 300 --aoi 20 --attack-range 21"), 2);
  // A zone needs the cluster key (64 hexadecimal digits), and its NATS credentials file must say USER:PASSWORD.
  const fs::path key = scratch("cluster.key"), short_key = scratch("short.key"), creds = scratch("bad.credentials");
  std::ofstream(key) << std::string(64, 'a') << "\n";
  std::ofstream(short_key) << "abcd\n";
  std::ofstream(creds) << "no-colon\n";
  const std::string zone = server + "--zones 2 --map 300 --aoi 20 ";
  EXPECT_EQ(status(zone), 2);  // no key
  EXPECT_EQ(status(zone + "--cluster-key-file " + short_key.string()), 2);
  EXPECT_EQ(status(zone + "--cluster-key-file " + scratch("absent.key").string()), 2);
  EXPECT_EQ(status(zone + "--cluster-key-file " + key.string() + " --nats-credentials-file " + creds.string()), 2);
  EXPECT_EQ(status(zone + "--cluster-key-file " + key.string() + " --nats nats://127.0.0.1:1"), 2);  // no NATS there
  EXPECT_EQ(status(server + "--restore"), 2);     // --restore without --zone-store
  EXPECT_EQ(status(server + "--zone-store"), 2);  // a store is a cluster's
}

// scripts/cluster.sh: nats-server, two zones and 100 bots whose waypoints take them across the border
// and who act as if they lost a fifth of their States, then the same bots against one server —
// nothing lost, duplicated or inconsistent (catch-ups included) in either. Each zone is given a GPU of
// its own (CLUSTER_DEVICES=2, --device K), which the CPU backend leaves alone.
TEST(Cluster, TwoZonesWithBotsWalkingAcrossTheBorder) {
  if (std::system("command -v nats-server > /dev/null 2>&1 || test -x /usr/sbin/nats-server") != 0)
    GTEST_SKIP() << "nats-server is not installed (scripts/setup.sh installs it)";
  const fs::path out = scratch("cluster.out"), logs = scratch("cluster-logs");
  const std::string cmd = "WARPMIND_BIN_DIR=" + warpmind::test::bin_dir() +
                          " CLUSTER_LOSE_SHARE=0.2 CLUSTER_DEVICES=2 CLUSTER_LOG=" + logs.string() +
                          " timeout 100 bash " + warpmind::test::source_dir() + "/scripts/cluster.sh 2 100 3 > " +
                          out.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  const json r = json::parse(last_line(slurp(out)), nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << slurp(out);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << slurp(out);
  EXPECT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["devices"], 2) << r.dump();
  for (const char* run : {"cluster", "single"}) {
    const json& k = r[run];
    EXPECT_EQ(k["joined"], 100) << run;
    EXPECT_EQ(k["players_lost"], 0) << run;
    EXPECT_EQ(k["players_duplicated"], 0) << run;
    EXPECT_EQ(k["inconsistencies"], 0) << run;
    EXPECT_GE(k["ticks_checked"].get<int>(), 30) << run;
    // The bots act as if they lost a fifth of their States: the States after make up for them.
    EXPECT_GT(k["catch_ups_behind"].get<int>(), 50) << run;
  }
  EXPECT_EQ(r["zone_timeouts"], 0);
  EXPECT_EQ(r["views_missing"], 0);  // a player's view went along whenever it crossed a border
  EXPECT_EQ(r["bad_zone_messages"], 0);
  // States relayed from the zone a player walked into to the zone its client is connected to: the
  // bots crossed the border.
  EXPECT_GT(r["relayed"].get<int>(), 100) << r.dump();
}

// Zones in a grid (--zone-rows): four zones in 2 rows of 2 columns, 200 bots walking across both
// borders and the corner where the four meet, then the same bots against one server: nothing lost,
// duplicated or inconsistent in either, and States relayed (the bots crossed into other zones). The
// cluster's bots run in two processes (CLUSTER_BOT_PROCESSES), their records checked together.
TEST(Cluster, FourZonesInAGridAgreeWithOneServer) {
  if (std::system("command -v nats-server > /dev/null 2>&1 || test -x /usr/sbin/nats-server") != 0)
    GTEST_SKIP() << "nats-server is not installed (scripts/setup.sh installs it)";
  const fs::path out = scratch("grid.out"), logs = scratch("grid-logs");
  const std::string cmd = "WARPMIND_BIN_DIR=" + warpmind::test::bin_dir() +
                          " CLUSTER_ROWS=2 CLUSTER_BOT_PROCESSES=2 CLUSTER_LOG=" + logs.string() +
                          " timeout 150 bash " + warpmind::test::source_dir() + "/scripts/cluster.sh 4 200 4 > " +
                          out.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  const json r = json::parse(last_line(slurp(out)), nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << slurp(out);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << slurp(out);
  EXPECT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["rows"], 2) << r.dump();
  for (const char* run : {"cluster", "single"}) {
    const json& k = r[run];
    EXPECT_EQ(k["joined"], 200) << run;
    EXPECT_EQ(k["players_lost"], 0) << run;
    EXPECT_EQ(k["players_duplicated"], 0) << run;
    EXPECT_EQ(k["inconsistencies"], 0) << run;
    EXPECT_GE(k["ticks_checked"].get<int>(), 40) << run;
  }
  EXPECT_EQ(r["zone_timeouts"], 0);
  EXPECT_EQ(r["views_missing"], 0);
  EXPECT_GT(r["relayed"].get<int>(), 1000) << r.dump();
}

// The bus keeps no message for a zone that subscribes after it was sent: zone 1 starts 1.5 s after zone 0,
// which has published its first tick message by then and waits. The zones publish their last two tick
// messages again while they wait, so zone 1 gets zone 0's first one and the lockstep starts (before,
// zone 0 ran one tick and zone 1 none: both waited for good).
TEST(Cluster, AZoneThatStartsLateStillJoinsTheLockstep) {
  if (std::system("command -v nats-server > /dev/null 2>&1 || test -x /usr/sbin/nats-server") != 0)
    GTEST_SKIP() << "nats-server is not installed (scripts/setup.sh installs it)";
  const fs::path out = scratch("late.out"), logs = scratch("late-logs");
  const std::string cmd = "WARPMIND_BIN_DIR=" + warpmind::test::bin_dir() +
                          " CLUSTER_STAGGER_MS=1500 CLUSTER_SINGLE=0 CLUSTER_LOG=" + logs.string() +
                          " timeout 150 bash " + warpmind::test::source_dir() + "/scripts/cluster.sh 2 100 3 > " +
                          out.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  const json r = json::parse(last_line(slurp(out)), nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << slurp(out);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << slurp(out);
  EXPECT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["cluster"]["joined"], 100) << r.dump();
  EXPECT_EQ(r["cluster"]["players_lost"], 0) << r.dump();
  EXPECT_GE(r["cluster"]["ticks_checked"].get<int>(), 30) << r.dump();
  EXPECT_EQ(r["zone_timeouts"], 0);
  const json z0 = json::parse(last_line(slurp(logs / "zone0.json")), nullptr, false);
  ASSERT_FALSE(z0.is_discarded());
  EXPECT_GT(z0["cluster"]["resent"].get<int>(), 0) << z0.dump();  // zone 0 waited and published again
}

// Each zone on an address of its own (CLUSTER_NETNS): two zones, each in a network namespace the script
// makes (a veth pair into a bridge that reaches nothing beyond this machine), the NATS server on the
// bridge, the bots outside; the namespaces, the veths and the bridge are gone afterwards. Skipped where
// they cannot be made (not root, no iproute2, a container without the right: the script exits 3).
TEST(Cluster, TwoZonesInNetworkNamespacesOfTheirOwn) {
  if (std::system("command -v nats-server > /dev/null 2>&1 || test -x /usr/sbin/nats-server") != 0)
    GTEST_SKIP() << "nats-server is not installed (scripts/setup.sh installs it)";
  if (::geteuid() != 0 || std::system("command -v ip > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "network namespaces need root and iproute2";
  const fs::path out = scratch("netns.out"), logs = scratch("netns-logs");
  const std::string cmd = "WARPMIND_BIN_DIR=" + warpmind::test::bin_dir() +
                          " CLUSTER_NETNS=1 CLUSTER_SINGLE=0 CLUSTER_LOG=" + logs.string() + " timeout 100 bash " +
                          warpmind::test::source_dir() + "/scripts/cluster.sh 2 100 3 > " + out.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  // Exit 3: this machine would not make the namespaces, the veths or the bridge (a container without
  // the right, say).
  if (WIFEXITED(raw) && WEXITSTATUS(raw) == 3) GTEST_SKIP() << "cannot make the network: " << slurp(out);
  const json r = json::parse(last_line(slurp(out)), nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << slurp(out);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << slurp(out);
  EXPECT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["netns"], true) << r.dump();
  EXPECT_EQ(r["cluster"]["joined"], 100) << r.dump();
  EXPECT_EQ(r["cluster"]["inconsistencies"], 0) << r.dump();
  EXPECT_EQ(r["cluster"]["players_lost"], 0) << r.dump();
  EXPECT_GT(r["relayed"].get<int>(), 100) << r.dump();
  // The zones listened on the namespaces' addresses, not on loopback.
  EXPECT_NE(slurp(out).find("zones (1 x 2) on 10.231."), std::string::npos) << slurp(out);
  // Nothing of the script's network is left (the kernel may take a moment to drop a namespace's veth).
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_NE(std::system("ip netns list | grep -q '^wm[0-9]*z'"), 0);
  EXPECT_NE(std::system("ip link show | grep -q ': wm[0-9]*\\(br\\|v\\)'"), 0);
}

// A zone crash (docs/server.md, "A zone crash"): scripts/cluster.sh kills zone 1 of 2 with SIGKILL two
// seconds into the run and starts it again from its stored state; its bots find their server silent,
// restart and resume. Nobody is lost or duplicated, every State checked (catch-ups, resumed Welcomes by
// the crash rule) is right, the zones never time out, and the bots' longest wait for a State is at most
// 2 s. Then the crashes that make the zone replay a tick: zone 1 exits right after sending its message for
// tick 40 (--crash-at-tick), so the others have run tick 40 with its commands and it must run it again
// with the same ones; and it exits once tick 40 has run and its relays are out, before its state is
// stored, so it sends them again and the gateways must drop the repeats (seen to fail without: 27
// players duplicated). All the while a reader of the whole bus records it (CLUSTER_RECORD): no session
// token the bots were given is in the recording — neither in the stored states nor in the resumed
// Welcomes relayed from the zone whose area the player is in to its gateway (seen to fail when the
// relayed Welcomes carried the token: 29 found, one for each relayed resume).
TEST(Cluster, AZoneKilledComesBackFromItsStoreAndLosesNoOne) {
  if (std::system("command -v nats-server > /dev/null 2>&1 || test -x /usr/sbin/nats-server") != 0)
    GTEST_SKIP() << "nats-server is not installed (scripts/setup.sh installs it)";
  int run = 0;
  for (const char* how :
       {"CLUSTER_KILL_AT=2", "CLUSTER_KILL_TICK=40", "CLUSTER_KILL_TICK=40 CLUSTER_KILL_POINT=relays"}) {
    const fs::path out = scratch("kill.out"), logs = scratch("kill-logs-" + std::to_string(run++));
    const std::string cmd = "WARPMIND_BIN_DIR=" + warpmind::test::bin_dir() + " CLUSTER_KILL_ZONE=1 " + how +
                            " CLUSTER_CHURN=0.05 CLUSTER_SINGLE=0 CLUSTER_RECORD=1 CLUSTER_LOG=" + logs.string() +
                            " timeout 120 bash " + warpmind::test::source_dir() + "/scripts/cluster.sh 2 100 6 > " +
                            out.string() + " 2>&1";
    const int raw = std::system(cmd.c_str());
    const json r = json::parse(last_line(slurp(out)), nullptr, false);
    ASSERT_FALSE(r.is_discarded()) << slurp(out);
    EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << how << ": " << slurp(out);
    EXPECT_EQ(r["ok"], true) << r.dump();
    const json& k = r["cluster"];
    EXPECT_EQ(k["joined"], 100) << how;
    EXPECT_EQ(k["players_lost"], 0) << how;
    EXPECT_EQ(k["players_duplicated"], 0) << how;
    EXPECT_EQ(k["inconsistencies"], 0) << how;
    EXPECT_GE(k["ticks_checked"].get<int>(), 60) << how;
    EXPECT_EQ(r["zone_timeouts"], 0) << how;
    EXPECT_GT(r["kill"]["restored_tick"].get<int>(), 0) << r.dump();
    EXPECT_GE(r["kill"]["crash_resumes"].get<int>(), 40) << r.dump();  // the killed zone's 50 bots, most of them
    EXPECT_LE(r["kill"]["outage_ms"].get<double>(), 2000) << r.dump();
    const json& bus = r["bus"];
    EXPECT_GT(bus["messages"].get<int>(), 100) << r.dump();
    EXPECT_GE(bus["tokens"].get<int>(), 100) << r.dump();
    EXPECT_GT(bus["resumes_relayed"].get<int>(), 0) << r.dump();
    EXPECT_EQ(bus["tokens_found"], 0) << r.dump();
    const std::string err = slurp(logs / "zone1.restarted.err");
    if (std::string(how).find("TICK") != std::string::npos) {
      EXPECT_EQ(r["kill"]["restored_tick"], 40) << r.dump();
      EXPECT_NE(err.find("replaying its own message"), std::string::npos) << err;
    }
  }
}

// With --observer-key-file, an Observe must carry the key: without it, or with another key of the same
// length, it is refused (NotAuthorized, counted), even from loopback; with it, it is welcomed.
TEST(Server, ObserversNeedTheKeyWhenTheServerHasOne) {
  ASSERT_EQ(enet_initialize(), 0);
  const fs::path key_file = scratch("observer.key");
  const std::string key = "0123456789abcdef-observer";
  std::ofstream(key_file) << key << "\n";
  ServerProcess server({"--map", "100", "--aoi", "10", "--observer-key-file", key_file.string()}, "keyed");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  using namespace warpmind::net;
  flatbuffers::FlatBufferBuilder b(128);
  const auto watch = [&](const char* with) {
    Client c(server.port);
    b.Clear();
    FinishMessageBuffer(
        b, CreateMessage(b, Body_Observe, CreateObserve(b, kProtocolVersion, with ? b.CreateString(with) : 0).Union()));
    c.send(b, kReliableChannel);
    c.pump([&] { return c.find(Body_Welcome) || c.find(Body_Refused); }, 3.0);
    if (c.find(Body_Welcome)) return std::string("welcome");
    if (const Message* m = c.find(Body_Refused))
      return std::string(EnumNameRefuseReason(m->body_as_Refused()->reason()));
    return std::string("nothing");
  };
  EXPECT_EQ(watch(nullptr), "NotAuthorized");
  EXPECT_EQ(watch("0123456789abcdef-observeR"), "NotAuthorized");
  EXPECT_EQ(watch("short"), "NotAuthorized");
  EXPECT_EQ(watch(key.c_str()), "welcome");
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["observers_refused"], 3) << sv.dump();
  // Observers that go quiet are let go after --idle-seconds, so that idle ones cannot keep the monitoring
  // tool out: two silent ones fill --max-observers, a third is refused, then both are timed out and one
  // that acknowledges (as warpmind-demo does, once a second) is admitted and kept.
  ServerProcess quiet({"--map", "100", "--aoi", "10", "--max-observers", "2", "--idle-seconds", "1"},
                      "quiet_observers");
  ASSERT_GT(quiet.port, 0) << slurp(quiet.err);
  const auto observe = [&](Client& c) { return warpmind::server_test::observe(c, b); };
  Client silent1(quiet.port), silent2(quiet.port), third(quiet.port);
  EXPECT_TRUE(observe(silent1));
  EXPECT_TRUE(observe(silent2));
  EXPECT_FALSE(observe(third));
  const auto t0 = Clock::now();
  while (Clock::now() - t0 < std::chrono::milliseconds(1800) && !(silent1.disconnected && silent2.disconnected)) {
    silent1.pump([] { return false; }, 0.02);
    silent2.pump([] { return false; }, 0.02);
  }
  EXPECT_TRUE(silent1.disconnected && silent2.disconnected);
  Client watcher(quiet.port);
  ASSERT_TRUE(observe(watcher));
  for (std::uint32_t seq = 1; seq <= 8; ++seq) {  // 2.4 s, an Ack every 0.3 s
    b.Clear();
    FinishMessageBuffer(b, CreateMessage(b, Body_Ack, CreateAck(b, 0, seq, 0).Union()));
    watcher.send(b, kStreamChannel);
    watcher.pump([] { return false; }, 0.3);
  }
  EXPECT_FALSE(watcher.disconnected);
  ASSERT_EQ(quiet.stop(sv), 0) << slurp(quiet.err);
  EXPECT_EQ(sv["observers_idle"], 2) << sv.dump();
  EXPECT_EQ(sv["observers"], 1) << sv.dump();
  EXPECT_EQ(sv["drops"]["not_joined"], 0) << sv.dump();  // an observer's Ack is no drop
  // A key file that cannot hold a key: exit 2.
  const fs::path bad = scratch("short.observer.key");
  std::ofstream(bad) << "short\n";
  const int raw =
      std::system((warpmind::test::bin_dir() + "/warpmind-server --port 0 --seconds 1 --observer-key-file " +
                   bad.string() + " > /dev/null 2>&1")
                      .c_str());
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 2);
  enet_deinitialize();
}

// The zone bus against a stranger (CLUSTER_FORGE): without the cluster's NATS credentials it is refused;
// with them (as if they leaked) its 40 forged messages — random bytes up to 1 MB, on the tick subject and
// on a zone's relay subject — carry no tag made with the cluster key, so every zone drops every one it
// gets before reading it, and the bots playing meanwhile see nothing wrong.
TEST(Cluster, TheBusAdmitsNoStrangerAndDropsForgedMessages) {
  if (std::system("command -v nats-server > /dev/null 2>&1 || test -x /usr/sbin/nats-server") != 0)
    GTEST_SKIP() << "nats-server is not installed (scripts/setup.sh installs it)";
  const fs::path out = scratch("forge.out"), logs = scratch("forge-logs");
  const std::string cmd = "WARPMIND_BIN_DIR=" + warpmind::test::bin_dir() +
                          " CLUSTER_FORGE=40 CLUSTER_SINGLE=0 CLUSTER_LOG=" + logs.string() + " timeout 100 bash " +
                          warpmind::test::source_dir() + "/scripts/cluster.sh 2 60 4 > " + out.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  const json r = json::parse(last_line(slurp(out)), nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << slurp(out);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << slurp(out);
  EXPECT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["forge"]["anonymous"], "refused") << r.dump();
  EXPECT_EQ(r["forge"]["forged"], 40) << r.dump();
  EXPECT_EQ(r["forge"]["bad_tags"], 70) << r.dump();  // 30 tick messages to both zones, 10 relays to zone 0
  // Zone 1's credentials may neither overwrite zone 0's stored state nor delete or purge the store.
  EXPECT_EQ(r["forge"]["store_writes_refused"], 3) << r.dump();
  EXPECT_EQ(r["cluster"]["players_lost"], 0) << r.dump();
  EXPECT_EQ(r["cluster"]["inconsistencies"], 0) << r.dump();
  EXPECT_EQ(r["zone_timeouts"], 0) << r.dump();
}

// The bus over TLS (CLUSTER_TLS=1: a CA made for the run, the NATS server requiring TLS and a client
// certificate): the cluster plays as in clear, and a client in clear gets nothing from the NATS server,
// credentials and all. Then, against a NATS server with the run's configuration: a zone without TLS, and a
// zone with the CA but no client certificate, cannot start (it says why, about --nats); one with the
// cluster's certificate listens; a certificate without its key is refused before anything is tried.
TEST(Cluster, TheBusOverTlsTakesOnlyTheClustersZones) {
  if (std::system("command -v nats-server > /dev/null 2>&1 || test -x /usr/sbin/nats-server") != 0 ||
      std::system("command -v openssl > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "nats-server or openssl is not installed (scripts/setup.sh installs them)";
  const fs::path out = scratch("tls.out"), logs = scratch("tls-logs");
  const std::string cmd = "WARPMIND_BIN_DIR=" + warpmind::test::bin_dir() +
                          " CLUSTER_TLS=1 CLUSTER_SINGLE=0 CLUSTER_LOG=" + logs.string() + " timeout 100 bash " +
                          warpmind::test::source_dir() + "/scripts/cluster.sh 2 60 3 > " + out.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  const json r = json::parse(last_line(slurp(out)), nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << slurp(out);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << slurp(out);
  EXPECT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["tls"]["plain_client"], "refused") << r.dump();
  EXPECT_EQ(r["cluster"]["joined"], 60) << r.dump();
  EXPECT_EQ(r["cluster"]["inconsistencies"], 0) << r.dump();
  EXPECT_GT(r["relayed"].get<int>(), 0) << r.dump();
  const fs::path nats_log = scratch("tls-nats.log"), nats_pid = scratch("tls-nats.pid");
  ASSERT_EQ(
      std::system(("n=$(command -v nats-server || echo /usr/sbin/nats-server); \"$n\" -a 127.0.0.1 -p -1 -c " +
                   (logs / "nats.conf").string() + " > " + nats_log.string() + " 2>&1 & echo $! > " + nats_pid.string())
                      .c_str()),
      0);
  int port = 0;
  for (const auto until = Clock::now() + std::chrono::seconds(10); port == 0 && Clock::now() < until;) {
    const std::string l = slurp(nats_log), said = "client connections on 127.0.0.1:";
    if (const std::size_t at = l.find(said); at != std::string::npos && l.find("Server is ready") != std::string::npos)
      port = std::atoi(l.c_str() + at + said.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(port, 0) << slurp(nats_log);
  const fs::path zone_out = scratch("tls-zone.out");
  std::string prefix = slurp(logs / "nats.prefix");  // zone 0's NATS user may use only the run's subjects
  while (!prefix.empty() && std::isspace(static_cast<unsigned char>(prefix.back()))) prefix.pop_back();
  ASSERT_FALSE(prefix.empty());
  const auto zone = [&](const std::string& tls) {
    const int z = std::system(("timeout 5 " + warpmind::test::bin_dir() +
                               "/warpmind-server --host 127.0.0.1 --port 0 --backend cpu "
                               "--seconds 1 --zones 2 --zone 0 --nats nats://127.0.0.1:" +
                               std::to_string(port) + " --nats-prefix " + prefix + " --cluster-key-file " +
                               (logs / "cluster.key").string() + " --nats-credentials-file " +
                               (logs / "zone0.credentials").string() + " " + tls + " > " + zone_out.string() + " 2>&1")
                                  .c_str());
    return WIFEXITED(z) ? WEXITSTATUS(z) : -1;
  };
  const std::string ca = " --nats-ca-file " + (logs / "ca.pem").string();
  const std::string cert = " --nats-cert-file " + (logs / "zone.pem").string(),
                    key = " --nats-key-file " + (logs / "zone.key").string();
  EXPECT_NE(zone(""), 0) << slurp(zone_out);
  EXPECT_NE(slurp(zone_out).find("--nats "), std::string::npos) << slurp(zone_out);
  EXPECT_NE(zone(ca), 0) << slurp(zone_out);
  EXPECT_NE(slurp(zone_out).find("--nats "), std::string::npos) << slurp(zone_out);
  zone(ca + cert + key + " --nats-tls-name warpmind-nats");  // the name its certificate carries
  EXPECT_NE(slurp(zone_out).find("listening on 127.0.0.1:"), std::string::npos) << slurp(zone_out);
  EXPECT_NE(zone(ca + cert + key + " --nats-tls-name warpmind-zone"), 0);  // a name it does not carry
  EXPECT_NE(slurp(zone_out).find("--nats "), std::string::npos) << slurp(zone_out);
  EXPECT_NE(zone(ca + cert), 0);
  EXPECT_NE(slurp(zone_out).find("give both or neither"), std::string::npos) << slurp(zone_out);
  std::system(("kill $(cat " + nats_pid.string() + ") 2> /dev/null").c_str());
}

// warpmind-demo --scene aoi --connect: the AOI scene headless watches a live server while bots play
// (docs/server.md, "Watching a server"); its stats.json says what it received. A server that refuses the
// observer makes it exit 2 with the reason. Skipped where the demo is not built or no Vulkan device (Mesa's
// lavapipe will do) can render.
TEST(Server, TheDemoWatchesALiveServerHeadless) {
  const std::string demo = warpmind::test::bin_dir() + "/warpmind-demo";
  if (!fs::exists(demo)) GTEST_SKIP() << "warpmind-demo is not built (WARPMIND_ENGINE off)";
  const fs::path log = scratch("watch.log");
  const auto run_demo = [&](const std::string& args) {
    const int raw = std::system(
        (demo + " --headless --backend cpu --size 256x256 " + args + " > " + log.string() + " 2>&1").c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  if (run_demo("--frames 1 --units 10 --out " + scratch("watch-probe").string()) != 0)
    GTEST_SKIP() << "no usable Vulkan device: " << slurp(log);
  const fs::path key_file = scratch("watched.key");  // the demo sends the server's observer key
  std::ofstream(key_file) << "watched-observer-key-0123\n";
  ServerProcess server({"--map", "300", "--aoi", "20", "--observer-key-file", key_file.string()}, "watched");
  ASSERT_GT(server.port, 0) << slurp(server.err);
  json bots;
  std::thread t([&] { run_bots(server.port, "--bots 20 --seconds 3 --seed 5", bots, "watched_bots"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the bots join
  const fs::path dir = scratch("watch");
  // The demo takes only the server's own public key (--server-key), as warpmind-server printed it.
  const std::string err = slurp(server.err), said = "public key ";
  const std::size_t key_at = err.find(said);
  ASSERT_NE(key_at, std::string::npos) << err;
  const std::string server_key = err.substr(key_at + said.size(), 64);
  const int rc = run_demo("--scene aoi --connect 127.0.0.1:" + std::to_string(server.port) + " --observer-key-file " +
                          key_file.string() + " --server-key " + server_key + " --frames 8 --ticks-per-frame 4 --out " +
                          dir.string());
  t.join();
  ASSERT_EQ(rc, 0) << slurp(log);
  const json st = json::parse(slurp(dir / "stats.json"), nullptr, false);
  ASSERT_TRUE(st.is_object() && st.contains("connect")) << slurp(dir / "stats.json");
  const json& c = st["connect"];
  EXPECT_EQ(c["connected"], true) << c.dump();
  EXPECT_EQ(c["welcomed"], true) << c.dump();
  EXPECT_GT(c["snapshots"].get<int>(), 10) << c.dump();  // 8 frames, 4 ticks apart at 20 Hz
  EXPECT_GT(c["last_tick"].get<int>(), 0) << c.dump();
  EXPECT_GT(c["players"].get<int>(), 0) << c.dump();  // the bots still playing
  EXPECT_LE(c["players"].get<int>(), 20) << c.dump();
  EXPECT_EQ(c["bad_packets"], 0) << c.dump();
  EXPECT_GE(st["in_aoi"].get<int>(), 1) << st.dump();  // the selected player sees itself
  EXPECT_GT(fs::file_size(dir / "frame-0007.png"), 1000u);
  EXPECT_EQ(bots["inconsistencies"], 0) << bots.dump();
  json sv;
  ASSERT_EQ(server.stop(sv), 0) << slurp(server.err);
  EXPECT_EQ(sv["observers"], 0) << sv.dump();  // the demo said goodbye when it was done
  EXPECT_EQ(sv["send_failures"], 0) << sv.dump();
  // A server with no room for observers: exit 2, the refusal in stats.json.
  ServerProcess full({"--max-observers", "0"}, "watched_full");
  ASSERT_GT(full.port, 0) << slurp(full.err);
  EXPECT_EQ(run_demo("--connect 127.0.0.1:" + std::to_string(full.port) + " --out " + dir.string()), 2) << slurp(log);
  EXPECT_NE(slurp(log).find("refused"), std::string::npos) << slurp(log);
  const json refused = json::parse(slurp(dir / "stats.json"), nullptr, false);
  ASSERT_TRUE(refused.is_object()) << slurp(dir / "stats.json");
  EXPECT_EQ(refused["connect"]["state"], "refused");
  EXPECT_EQ(refused["connect"]["welcomed"], false);
  // A server whose Keys carry another public key than --server-key: left before the Observe, exit 2.
  EXPECT_EQ(run_demo("--connect 127.0.0.1:" + std::to_string(full.port) + " --server-key " + std::string(64, 'a') +
                     " --out " + dir.string()),
            2)
      << slurp(log);
  EXPECT_NE(slurp(log).find("public key is not the one given"), std::string::npos) << slurp(log);
  const json other = json::parse(slurp(dir / "stats.json"), nullptr, false);
  ASSERT_TRUE(other.is_object()) << slurp(dir / "stats.json");
  EXPECT_EQ(other["connect"]["state"], "failed") << other.dump();
  EXPECT_EQ(run_demo("--connect 127.0.0.1:" + std::to_string(full.port) + " --server-key 12ab --out " + dir.string()),
            2);
  EXPECT_NE(slurp(log).find("64 hexadecimal digits"), std::string::npos) << slurp(log);
  // A server that sends garbage, a message an observer never gets and a Snapshot with ids out of order
  // among good ones: the three are counted and ignored, the good snapshots shown.
  using namespace warpmind::net;
  ASSERT_EQ(enet_initialize(), 0);
  ENetAddress at{};
  enet_address_set_host_ip(&at, "127.0.0.1");
  ENetHost* fake = enet_host_create(&at, 4, kChannels, 0, 0);
  ASSERT_NE(fake, nullptr);
  ENetAddress bound{};
  enet_socket_get_address(fake->socket, &bound);
  std::atomic<bool> finished{false};
  int fake_rc = -1;
  std::thread watcher([&] {
    fake_rc = run_demo("--connect 127.0.0.1:" + std::to_string(bound.port) + " --frames 4 --ticks-per-frame 2 --out " +
                       dir.string());
    finished = true;
  });
  // The fake server agrees keys as a real one does (Connect, Keys) and seals all it sends after them.
  KeyPair identity;
  ASSERT_TRUE(identity.make());
  SessionKeys keys;
  flatbuffers::FlatBufferBuilder b(256);
  const auto send_bytes = [&keys](ENetPeer* to, std::uint8_t channel, const std::uint8_t* data, std::size_t n) {
    warpmind::net::send_packet(to, channel, data, n, &keys);  // sealed: it is used once the keys are agreed
  };
  const auto send = [&](ENetPeer* to, std::uint8_t channel) {
    send_bytes(to, channel, b.GetBufferPointer(), b.GetSize());
  };
  ENetPeer* observer = nullptr;
  std::uint64_t tick = 0;
  auto next = Clock::now();
  std::vector<std::uint8_t> plain(1024);
  for (const auto until = Clock::now() + std::chrono::seconds(20); !finished && Clock::now() < until;) {
    ENetEvent ev;
    if (enet_host_service(fake, &ev, 5) > 0 && ev.type == ENET_EVENT_TYPE_RECEIVE) {
      const Message* m = read_message(ev.packet->data, ev.packet->dataLength);
      std::size_t n = 0;
      if (!keys.ready() && m && m->body_type() == Body_Connect && m->body_as_Connect()->key() &&
          m->body_as_Connect()->key()->size() == kPublicKeyBytes &&
          keys.derive_server(identity, m->body_as_Connect()->key()->data())) {
        b.Clear();
        FinishMessageBuffer(
            b,
            CreateMessage(b, Body_Keys, CreateKeys(b, b.CreateVector(identity.pk.data(), identity.pk.size())).Union()));
        warpmind::net::send_packet(ev.peer, kReliableChannel, b.GetBufferPointer(), b.GetSize(), nullptr);
        m = nullptr;
      } else if (keys.ready() && ev.packet->dataLength >= kSealOverhead &&
                 keys.open(ev.channelID, ev.packet->data, ev.packet->dataLength, plain.data(), n) == OpenError::None) {
        m = read_message(plain.data(), n);
      } else {
        m = nullptr;
      }
      if (m && m->body_type() == Body_Observe && observer == nullptr) {
        observer = ev.peer;
        const std::uint8_t garbage[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        send_bytes(observer, 0, garbage, sizeof garbage);
        b.Clear();
        FinishMessageBuffer(b, CreateMessage(b, Body_Welcome,
                                             CreateWelcome(b, kProtocolVersion, 0xffffffffu, 0, 20, 0, 100, 0, 0, 200,
                                                           100, 10, Shape_Square, 10, 10, 1, 0, 0, 0)
                                                 .Union()));
        send(observer, 0);
        b.Clear();
        FinishMessageBuffer(b, CreateMessage(b, Body_Events, CreateEvents(b, 1).Union()));
        send(observer, 0);
      }
      enet_packet_destroy(ev.packet);
    }
    if (observer != nullptr && Clock::now() >= next) {  // a Snapshot every 50 ms; the third one out of order
      next += std::chrono::milliseconds(50);
      ++tick;
      std::vector<PlayerState> ps = {PlayerState(3, 10, 10, 100), PlayerState(5, 15, 12, 50),
                                     PlayerState(9, 80, 80, 7)};
      if (tick == 3) std::swap(ps[0], ps[1]);
      b.Clear();
      FinishMessageBuffer(
          b, CreateMessage(b, Body_Snapshot, CreateSnapshot(b, tick, 0, b.CreateVectorOfStructs(ps)).Union()));
      send(observer, 1);
      enet_host_flush(fake);
    }
  }
  watcher.join();
  enet_host_destroy(fake);
  enet_deinitialize();
  ASSERT_EQ(fake_rc, 0) << slurp(log);
  const json faked = json::parse(slurp(dir / "stats.json"), nullptr, false);
  ASSERT_TRUE(faked.is_object()) << slurp(dir / "stats.json");
  EXPECT_EQ(faked["connect"]["bad_packets"], 3) << faked.dump();
  EXPECT_EQ(faked["connect"]["players"], 3) << faked.dump();
  EXPECT_GT(faked["connect"]["snapshots"].get<int>(), 2) << faked.dump();
  EXPECT_EQ(faked["selected"], 3) << faked.dump();  // the lowest id
  EXPECT_EQ(faked["in_aoi"], 2) << faked.dump();    // 3 and 5 share a bucket; 9 is far
}

}  // namespace
