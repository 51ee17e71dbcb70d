// AOI ticks: every variant against a brute-force oracle written straight from the contract in aoi.h,
// on uniform, clustered, one-bucket, border and AOI-larger-than-world worlds, both AOI shapes, several
// ticks (enter/leave events), conflict merges and bad commands.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <span>

#include "aoi_oracle.h"
#include "gpu_helpers.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/core/random.h"
#include "aoi/aoi_rules.h"

namespace warpmind::aoi {
namespace {

using ::warpmind::oracle::aoi_bits;
std::uint32_t bits(float v) { return aoi_bits(v); }

// Every player's x and y bit for bit and hp; the first difference is reported.
void expect_same_players(std::span<const Player> got, std::span<const Player> want, const char* against) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if ((bits(got[i].x) != bits(want[i].x) || bits(got[i].y) != bits(want[i].y) || got[i].hp != want[i].hp) &&
        bad++ == 0)
      first = i;
  EXPECT_EQ(bad, 0u) << "players differing from " << against << "; the first, " << first << ": got (" << got[first].x
                     << ", " << got[first].y << ", hp " << got[first].hp << "), want (" << want[first].x << ", "
                     << want[first].y << ", hp " << want[first].hp << ")";
}

struct Expected {
  std::vector<Player> players;
  TickResult result;
};

// The contract, naively (tests/oracles/aoi_oracle.h): O(N^2) range queries.
Expected oracle(const AoiConfig& c, std::vector<Player> p, const std::vector<Command>& cmds,
                ::warpmind::oracle::AoiVisible& visible) {
  Expected e;
  e.result = ::warpmind::oracle::aoi_tick(c, p, cmds, visible);
  e.players = p;
  return e;
}

oracle::AoiVisible visibility(const AoiConfig& c, const std::vector<Player>& p) {
  return ::warpmind::oracle::aoi_visibility(c, p);
}

struct World {
  std::string name;
  AoiConfig config;
  std::vector<Player> players;
};

std::vector<World> worlds() {
  std::vector<World> w;
  SplitMix64 rng(3);
  AoiConfig base;
  base.world = {0, 0, 300, 200};
  base.aoi = 10.0f;
  base.max_move = 6.0f;
  base.attack_range = 12.0f;
  const auto uniform = [&](std::size_t n, const AoiConfig& c) {
    std::vector<Player> p(n);
    for (Player& q : p)
      q = {c.world.x0 + rng.uniform() * c.world.width * 0.999f, c.world.y0 + rng.uniform() * c.world.height * 0.999f,
           100};
    return p;
  };
  w.push_back({"uniform", base, uniform(900, base)});
  {
    std::vector<Player> p;  // three hot spots
    const float cx[3] = {30, 150, 270}, cy[3] = {30, 100, 170};
    for (int i = 0; i < 900; ++i) {
      const int h = i % 3;
      p.push_back({std::clamp(cx[h] + rng.uniform(-8, 8), 0.0f, 299.0f),
                   std::clamp(cy[h] + rng.uniform(-8, 8), 0.0f, 199.0f), 80});
    }
    w.push_back({"hot_spots", base, p});
  }
  {
    std::vector<Player> p;  // everyone in one bucket
    for (int i = 0; i < 300; ++i) p.push_back({rng.uniform() * 9.9f, rng.uniform() * 9.9f, 50});
    w.push_back({"one_bucket", base, p});
  }
  {
    std::vector<Player> p;  // on the borders, pushed out by their moves
    for (int i = 0; i < 400; ++i) {
      const float t = rng.uniform();
      p.push_back(i % 4 == 0   ? Player{0.0f, t * 199.0f, 100}
                  : i % 4 == 1 ? Player{299.99f, t * 199.0f, 100}
                  : i % 4 == 2 ? Player{t * 299.0f, 0.0f, 100}
                               : Player{t * 299.0f, 199.99f, 100});
    }
    w.push_back({"borders", base, p});
  }
  {
    AoiConfig big = base;  // the AOI is larger than the world: everyone sees everyone
    big.world = {-50, -50, 60, 40};
    big.aoi = 500.0f;
    w.push_back({"aoi_larger_than_world", big, uniform(150, big)});
  }
  return w;
}

std::vector<Command> commands(const std::vector<Player>& p, const AoiConfig& c, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<Command> cmds;
  const std::uint32_t n = static_cast<std::uint32_t>(p.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    Command k;
    k.player = i;
    if (rng.uniform() < 0.7f) {
      k.type = CommandType::Move;
      k.dx = rng.uniform(-c.max_move, c.max_move);
      k.dy = rng.uniform(-c.max_move, c.max_move);
    } else {
      k.type = CommandType::Attack;
      k.target = static_cast<std::uint32_t>(rng.next() % n);
      k.damage = static_cast<std::int32_t>(rng.next() % 30);
    }
    cmds.push_back(k);
  }
  SplitMix64 heal_rng(seed ^ 0x5bd1e995u);  // heals of every 7th player, a few huge (HP clamped at 2^31 - 1)
  for (std::uint32_t i = 0; i < n; i += 7)
    cmds.push_back({i, CommandType::Heal, 0, 0, 0,
                    heal_rng.uniform() < 0.1f ? INT32_MAX : static_cast<std::int32_t>(heal_rng.next() % 50)});
  if (n > 3) {  // conflicts: several moves for one player, many attackers on one target
    cmds.push_back({1, CommandType::Move, 1.5f, -2.5f, 0, 0});
    for (std::uint32_t i = 0; i < n; ++i) cmds.push_back({i, CommandType::Attack, 0, 0, 2, 7});
  }
  // Bad commands, one per reason.
  cmds.push_back({n + 5, CommandType::Move, 1, 1, 0, 0});
  cmds.push_back({0, static_cast<CommandType>(9), 0, 0, 0, 0});
  cmds.push_back({0, CommandType::Move, NAN, 0, 0, 0});
  cmds.push_back({0, CommandType::Move, c.max_move * 2, 0, 0, 0});
  cmds.push_back({0, CommandType::Attack, 0, 0, n + 1, 5});
  cmds.push_back({0, CommandType::Attack, 0, 0, 0, 5});
  cmds.push_back({0, CommandType::Attack, 0, 0, n > 1 ? 1u : 0u, -4});
  cmds.push_back({0, CommandType::Heal, 0, 0, 0, -1});
  return cmds;
}

bool is_gpu(AoiVariant v) { return v == AoiVariant::GpuSorted || v == AoiVariant::GpuFast; }

Context* context_for(AoiVariant v) {
  return is_gpu(v) ? warpmind::test::cuda_context() : &warpmind::test::cpu_context();
}

class AoiVariantTest : public testing::TestWithParam<std::tuple<AoiVariant, AoiShape>> {};

TEST_P(AoiVariantTest, MatchesTheOracleTickByTick) {
  const auto [variant, shape] = GetParam();
  if (is_gpu(variant)) WM_REQUIRE_GPU();
  std::array<std::size_t, kRejectReasons> rejected{};
  for (const World& wd : worlds()) {
    SCOPED_TRACE(wd.name);
    AoiConfig c = wd.config;
    c.variant = variant;
    c.shape = shape;
    std::unique_ptr<AoiWorld> world;
    ASSERT_TRUE(AoiWorld::create(*context_for(variant), c, world).ok());
    ASSERT_TRUE(world->reset(wd.players).ok());
    std::vector<Player> p = wd.players;
    auto visible = visibility(c, p);
    TickResult got;
    std::size_t entered = 0, left = 0, notes = 0;
    for (int t = 0; t < 4; ++t) {
      SCOPED_TRACE("tick " + std::to_string(t));
      const std::vector<Command> cmds = commands(p, c, 100 + t);
      const Expected e = oracle(c, p, cmds, visible);
      ASSERT_TRUE(world->tick(cmds, got).ok());
      EXPECT_EQ(got.rejected, e.result.rejected);
      EXPECT_EQ(got.accepted, e.result.accepted);
      EXPECT_EQ(got.updates, e.result.updates);
      ASSERT_EQ(got.notifications.size(), e.result.notifications.size());
      EXPECT_TRUE(got.notifications == e.result.notifications);
      EXPECT_TRUE(got.entered == e.result.entered);
      EXPECT_TRUE(got.left == e.result.left);
      expect_same_players(world->players(), e.players, "the oracle");
      p = e.players;
      entered += got.entered.size();
      left += got.left.size();
      notes += got.notifications.size();
      for (int r = 0; r < kRejectReasons; ++r) rejected[r] += got.rejected[r];
    }
    EXPECT_GT(notes, 0u);
    if (wd.name != "aoi_larger_than_world") {
      EXPECT_GT(entered, 0u);  // the worlds move enough for views to change
      EXPECT_GT(left, 0u);
    }
  }
  for (int r = 0; r < kRejectReasons; ++r) EXPECT_GE(rejected[r], 1u) << reason_name(static_cast<RejectReason>(r));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, AoiVariantTest,
                         testing::Combine(testing::Values(AoiVariant::CpuGrid, AoiVariant::CpuFast,
                                                          AoiVariant::GpuSorted, AoiVariant::GpuFast),
                                          testing::Values(AoiShape::Square, AoiShape::Circle)),
                         [](const auto& i) {
                           std::string n =
                               std::string(variant_name(std::get<0>(i.param))) + "_" + shape_name(std::get<1>(i.param));
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// The GPU variants held against cpu-fast on larger worlds: hot spots, players with several moves in one
// tick (the ordered float merge), thousands of attackers on one target, both shapes, many ticks.
TEST(AoiGpu, EqualsCpuFastOnLargeWorlds) {
  WM_REQUIRE_GPU();
  for (const AoiShape shape : {AoiShape::Square, AoiShape::Circle}) {
    AoiConfig c;
    c.world = {-100, 50, 2000, 1500};
    c.aoi = 12.0f;
    c.shape = shape;
    c.max_move = 5.0f;
    c.attack_range = 15.0f;
    SplitMix64 rng(17);
    std::vector<Player> players(60000);
    for (std::size_t i = 0; i < players.size(); ++i) {
      const bool hot = i % 40 == 0;  // one player in 40 crowds into a corner (a hot spot of 1,500)
      players[i] = {hot ? -100 + rng.uniform() * 60 : -100 + rng.uniform() * 1999.9f,
                    hot ? 50 + rng.uniform() * 60 : 50 + rng.uniform() * 1499.9f, 1000};
    }
    std::unique_ptr<AoiWorld> ref, seed, fast, chunked;
    AoiConfig cc = c;
    cc.variant = AoiVariant::CpuFast;
    ASSERT_TRUE(AoiWorld::create(warpmind::test::cpu_context(), cc, ref).ok());
    cc.variant = AoiVariant::GpuSorted;
    ASSERT_TRUE(AoiWorld::create(*warpmind::test::cuda_context(), cc, seed).ok());
    cc.variant = AoiVariant::GpuFast;
    ASSERT_TRUE(AoiWorld::create(*warpmind::test::cuda_context(), cc, fast).ok());
    cc.chunk_notifications = 40000;  // written and copied in dozens of chunks, stored whole
    ASSERT_TRUE(AoiWorld::create(*warpmind::test::cuda_context(), cc, chunked).ok());
    for (AoiWorld* w : {ref.get(), seed.get(), fast.get(), chunked.get()}) ASSERT_TRUE(w->reset(players).ok());
    TickResult a, b, d, e;
    for (int t = 0; t < 6; ++t) {
      SCOPED_TRACE(std::string(shape_name(shape)) + " tick " + std::to_string(t));
      const std::vector<Command> base =
          commands(std::vector<Player>(ref->players().begin(), ref->players().end()), c, 500 + t);
      std::vector<Command> cmds;
      for (std::size_t i = 0; i < base.size(); ++i) {  // second and third moves for some players, in between
        cmds.push_back(base[i]);
        if (i % 20 == 0)
          cmds.push_back({static_cast<std::uint32_t>((i * 13) % 60000), CommandType::Move, rng.uniform(-5, 5),
                          rng.uniform(-5, 5), 0, 0});
      }
      ASSERT_TRUE(ref->tick(cmds, a).ok());
      ASSERT_TRUE(seed->tick(cmds, b).ok());
      ASSERT_TRUE(fast->tick(cmds, d).ok());
      ASSERT_TRUE(chunked->tick(cmds, e).ok());
      for (const TickResult* g : {&b, &d, &e}) {
        EXPECT_EQ(g->notification_count, a.notifications.size());
        EXPECT_EQ(g->rejected, a.rejected);
        EXPECT_EQ(g->accepted, a.accepted);
        EXPECT_TRUE(g->updates == a.updates);
        ASSERT_EQ(g->notifications.size(), a.notifications.size());
        EXPECT_TRUE(g->notifications == a.notifications);
        EXPECT_TRUE(g->entered == a.entered);
        EXPECT_TRUE(g->left == a.left);
      }
      expect_same_players(seed->players(), ref->players(), "cpu-fast (gpu-sorted)");
      expect_same_players(fast->players(), ref->players(), "cpu-fast (gpu-fast)");
      expect_same_players(chunked->players(), ref->players(), "cpu-fast (gpu-fast in chunks)");
      EXPECT_GT(a.notifications.size(), 100000u);
    }
  }
}

// Mailboxes hold exactly the records' notifications, regrouped by receiver; on every variant.
TEST(Aoi, MailboxesAreTheRecordsByReceiver) {
  for (const AoiVariant v : {AoiVariant::CpuGrid, AoiVariant::CpuFast, AoiVariant::GpuSorted, AoiVariant::GpuFast}) {
    if (is_gpu(v) && !warpmind::test::cuda_context()) continue;  // the GPU variants on a GPU only
    SCOPED_TRACE(variant_name(v));
    const World wd = worlds()[1];  // hot spots
    AoiConfig records = wd.config, boxes = wd.config;
    records.variant = AoiVariant::CpuFast;
    boxes.variant = v;
    boxes.format = NotificationFormat::Mailboxes;
    std::unique_ptr<AoiWorld> a, b;
    ASSERT_TRUE(AoiWorld::create(warpmind::test::cpu_context(), records, a).ok());
    ASSERT_TRUE(AoiWorld::create(*context_for(v), boxes, b).ok());
    ASSERT_TRUE(a->reset(wd.players).ok());
    ASSERT_TRUE(b->reset(wd.players).ok());
    TickResult ra, rb;
    for (int t = 0; t < 3; ++t) {
      const auto cmds = commands(std::vector<Player>(a->players().begin(), a->players().end()), wd.config, 700 + t);
      ASSERT_TRUE(a->tick(cmds, ra).ok());
      ASSERT_TRUE(b->tick(cmds, rb).ok());
      EXPECT_TRUE(rb.notifications.empty());
      ASSERT_EQ(rb.mailbox_start.size(), wd.players.size() + 1);
      ASSERT_EQ(rb.mailbox_start.front(), 0u);
      ASSERT_EQ(rb.mailbox_start.back(), rb.mailbox.size());
      // The records rebuilt from the mailboxes are the records.
      std::vector<Notification> rebuilt;
      for (std::uint32_t r = 0; r < wd.players.size(); ++r) {
        ASSERT_LE(rb.mailbox_start[r], rb.mailbox_start[r + 1]);
        for (std::uint64_t k = rb.mailbox_start[r]; k < rb.mailbox_start[r + 1]; ++k)
          rebuilt.push_back({r, rb.mailbox[k].subject(), rb.mailbox[k].field(), rb.mailbox[k].value});
      }
      ASSERT_EQ(rebuilt.size(), ra.notifications.size());
      EXPECT_TRUE(rebuilt == ra.notifications);
      EXPECT_TRUE(rb.updates == ra.updates);
      EXPECT_TRUE(rb.entered == ra.entered);
      EXPECT_TRUE(rb.left == ra.left);
      expect_same_players(b->players(), a->players(), "cpu-fast with records");
    }
    EXPECT_GT(ra.notifications.size(), 1000u);
  }
}

// A sink gets the list in chunks of whole receivers cut by the documented rule, in order, every
// receiver once, each chunk within its bound (or one receiver alone); put together they are the stored
// list, as records and as mailboxes, on every variant, for chunks of 1 notification up to unbounded.
TEST(AoiGpu, ASinkGetsTheListInChunksOfWholeReceivers) {
  for (const AoiVariant v : {AoiVariant::CpuGrid, AoiVariant::CpuFast, AoiVariant::GpuSorted, AoiVariant::GpuFast}) {
    if (is_gpu(v) && !warpmind::test::cuda_context()) continue;
    for (const NotificationFormat format : {NotificationFormat::Records, NotificationFormat::Mailboxes})
      for (const std::uint64_t chunk : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{5000}, ~std::uint64_t{0}}) {
        const bool boxes = format == NotificationFormat::Mailboxes;
        SCOPED_TRACE(std::string(variant_name(v)) + (boxes ? " mailboxes" : " records") + " chunk " +
                     std::to_string(chunk));
        const World wd = worlds()[1];  // hot spots: receivers with hundreds of notifications
        const std::uint32_t n = static_cast<std::uint32_t>(wd.players.size());
        AoiConfig c = wd.config;
        c.variant = v;
        c.format = format;
        c.chunk_notifications = chunk;
        std::unique_ptr<AoiWorld> stored, sunk;
        ASSERT_TRUE(AoiWorld::create(*context_for(v), c, stored).ok());
        ASSERT_TRUE(AoiWorld::create(*context_for(v), c, sunk).ok());
        ASSERT_TRUE(stored->reset(wd.players).ok());
        ASSERT_TRUE(sunk->reset(wd.players).ok());
        TickResult want, got;
        for (int t = 0; t < 2; ++t) {
          const auto cmds =
              commands(std::vector<Player>(stored->players().begin(), stored->players().end()), wd.config, 900 + t);
          ASSERT_TRUE(stored->tick(cmds, want).ok());
          // What the chunks must be, from the stored list's offsets.
          std::vector<std::uint64_t> off(n + 1, 0);
          if (boxes) {
            off = want.mailbox_start;
          } else {
            for (const Notification& q : want.notifications) ++off[q.receiver + 1];
            for (std::uint32_t r = 0; r < n; ++r) off[r + 1] += off[r];
          }
          std::vector<std::pair<std::uint32_t, std::uint32_t>> expect;
          rules::for_each_chunk(off.data(), n, chunk, [&](std::size_t r0, std::size_t r1) {
            expect.push_back({static_cast<std::uint32_t>(r0), static_cast<std::uint32_t>(r1)});
          });
          std::vector<std::pair<std::uint32_t, std::uint32_t>> seen;
          std::vector<Notification> records;
          std::vector<MailboxEntry> entries;
          std::vector<std::uint64_t> starts = {0};
          std::uint64_t next = 0;
          bool bounded = true;
          const NotificationSink sink = [&](const NotificationChunk& k) {
            seen.push_back({k.first_receiver, k.end_receiver});
            EXPECT_EQ(k.first_notification, next);
            const std::uint64_t size = boxes ? k.mailbox.size() : k.notifications.size();
            bounded &= size <= chunk || k.end_receiver - k.first_receiver == 1;
            next += size;
            if (boxes) {
              EXPECT_TRUE(k.notifications.empty());
              ASSERT_EQ(k.mailbox_start.size(), k.end_receiver - k.first_receiver + std::size_t{1});
              EXPECT_EQ(k.mailbox_start.front(), 0u);
              EXPECT_EQ(k.mailbox_start.back(), size);
              for (std::size_t r = 1; r < k.mailbox_start.size(); ++r)
                starts.push_back(k.first_notification + k.mailbox_start[r]);
              entries.insert(entries.end(), k.mailbox.begin(), k.mailbox.end());
            } else {
              EXPECT_TRUE(k.mailbox.empty());
              for (const Notification& q : k.notifications) {
                EXPECT_GE(q.receiver, k.first_receiver);
                EXPECT_LT(q.receiver, k.end_receiver);
              }
              records.insert(records.end(), k.notifications.begin(), k.notifications.end());
            }
          };
          ASSERT_TRUE(sunk->tick(cmds, got, sink).ok());
          EXPECT_TRUE(seen == expect);
          EXPECT_TRUE(bounded);
          EXPECT_TRUE(got.notifications.empty());
          EXPECT_TRUE(got.mailbox.empty());
          EXPECT_TRUE(got.mailbox_start.empty());
          EXPECT_EQ(got.notification_count, want.notification_count);
          if (boxes) {
            EXPECT_TRUE(entries == want.mailbox);
            EXPECT_TRUE(starts == want.mailbox_start);
          } else {
            EXPECT_TRUE(records == want.notifications);
          }
          EXPECT_TRUE(got.updates == want.updates);
          EXPECT_TRUE(got.entered == want.entered);
          EXPECT_TRUE(got.left == want.left);
          expect_same_players(sunk->players(), stored->players(), "the world without a sink");
          if (chunk == 7) EXPECT_GT(seen.size(), 100u);
          if (chunk == ~std::uint64_t{0}) EXPECT_EQ(seen.size(), 1u);
        }
      }
  }
  AoiConfig c;
  c.chunk_notifications = 0;
  std::unique_ptr<AoiWorld> w;
  EXPECT_FALSE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  c.chunk_notifications = 1;
  ASSERT_TRUE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  TickResult r;
  EXPECT_FALSE(w->tick({}, r, NotificationSink{}).ok());  // an empty sink
}

// The chunk rule itself: greedy, at most `chunk` notifications unless one receiver alone has more,
// receivers without notifications join the chunk before them when it has room.
TEST(Aoi, ChunkRuleCutsAtTheDocumentedReceivers) {
  const auto cut = [](std::vector<std::uint64_t> off, std::uint64_t chunk) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    rules::for_each_chunk(off.data(), off.size() - 1, chunk, [&](std::size_t a, std::size_t b) {
      out.push_back({a, b});
    });
    return out;
  };
  using P = std::vector<std::pair<std::size_t, std::size_t>>;
  // counts 3, 0, 4, 1, 0, 10, 0: offsets 0 3 3 7 8 8 18 18
  EXPECT_EQ(cut({0, 3, 3, 7, 8, 8, 18, 18}, 4), (P{{0, 2}, {2, 3}, {3, 5}, {5, 6}, {6, 7}}));
  EXPECT_EQ(cut({0, 3, 3, 7, 8, 8, 18, 18}, 100), (P{{0, 7}}));
  EXPECT_EQ(cut({0, 3, 3, 7, 8, 8, 18, 18}, 1), (P{{0, 1}, {1, 2}, {2, 3}, {3, 5}, {5, 6}, {6, 7}}));
  EXPECT_EQ(cut({0, 3, 3, 7, 8, 8, 18, 18}, ~std::uint64_t{0}), (P{{0, 7}}));
  EXPECT_EQ(cut({0, 0, 0}, 5), (P{{0, 2}}));  // no notifications: one chunk of every receiver
  EXPECT_EQ(cut({0}, 5), P{});                // no receivers: no chunk
}

// On every variant (the GPU ones on a GPU only; the suite name keeps it in the sanitizer runs' filter).
TEST(AoiGpu, EmptyWorldsAndEmptyBatches) {
  for (const AoiVariant v : {AoiVariant::CpuGrid, AoiVariant::CpuFast, AoiVariant::GpuSorted, AoiVariant::GpuFast}) {
    if (is_gpu(v) && !warpmind::test::cuda_context()) continue;
    SCOPED_TRACE(variant_name(v));
    AoiConfig c;
    c.variant = v;
    std::unique_ptr<AoiWorld> w;
    ASSERT_TRUE(AoiWorld::create(*context_for(v), c, w).ok());
    ASSERT_TRUE(w->reset({}).ok());
    TickResult r;
    const std::vector<Command> bad = {{3, CommandType::Move, 1, 1, 0, 0}};
    ASSERT_TRUE(w->tick(bad, r).ok());
    EXPECT_EQ(r.rejected[static_cast<int>(RejectReason::UnknownPlayer)], 1u);
    EXPECT_EQ(r.accepted, 0u);
    EXPECT_TRUE(r.notifications.empty());
    EXPECT_TRUE(r.updates.empty());
    ASSERT_TRUE(w->tick({}, r).ok());  // an empty batch on an empty world
    EXPECT_TRUE(r.notifications.empty());
    EXPECT_TRUE(w->players().empty());
    ASSERT_TRUE(w->reset(std::vector<Player>{{5, 5, 10}}).ok());
    ASSERT_TRUE(w->tick({}, r).ok());
    EXPECT_TRUE(r.updates.empty());
    EXPECT_TRUE(r.entered.empty());
    EXPECT_TRUE(r.left.empty());
    EXPECT_TRUE(r.notifications.empty());
    ASSERT_EQ(w->players().size(), 1u);
    EXPECT_EQ(w->players()[0].x, 5.0f);
    EXPECT_EQ(w->players()[0].y, 5.0f);
    EXPECT_EQ(w->players()[0].hp, 10);
  }
}

TEST(AoiGpu, GpuVariantsNeedTheCudaBackend) {
  AoiConfig c;
  c.variant = AoiVariant::GpuFast;
  std::unique_ptr<AoiWorld> w;
  const Status st = AoiWorld::create(warpmind::test::cpu_context(), c, w);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("CUDA"), std::string::npos) << st.message();
  AoiVariant v;
  EXPECT_TRUE(parse_variant("gpu-sorted", v));
  EXPECT_EQ(v, AoiVariant::GpuSorted);
  EXPECT_STREQ(variant_name(AoiVariant::GpuSorted), "gpu-sorted");
  // The variant's old name still parses, for one release.
  v = AoiVariant::Auto;
  EXPECT_TRUE(parse_variant("gpu-seed", v));
  EXPECT_EQ(v, AoiVariant::GpuSorted);
}

TEST(Aoi, AutoFollowsTheContextsBackend) {
  AoiConfig c;
  std::unique_ptr<AoiWorld> w;
  ASSERT_TRUE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  EXPECT_EQ(w->variant(), AoiVariant::CpuFast);
  if (Context* g = warpmind::test::cuda_context()) {
    ASSERT_TRUE(AoiWorld::create(*g, c, w).ok());
    EXPECT_EQ(w->variant(), AoiVariant::GpuFast);
  }
}

TEST(Aoi, ConflictMergeSumsEveryAttack) {
  AoiConfig c;
  c.world = {0, 0, 100, 100};
  c.attack_range = 50.0f;
  std::unique_ptr<AoiWorld> w;
  ASSERT_TRUE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  std::vector<Player> p(200, Player{50, 50, 1000});
  ASSERT_TRUE(w->reset(p).ok());
  std::vector<Command> cmds;
  for (std::uint32_t i = 1; i < 200; ++i) cmds.push_back({i, CommandType::Attack, 0, 0, 0, 3});
  TickResult r;
  ASSERT_TRUE(w->tick(cmds, r).ok());
  ASSERT_EQ(r.updates.size(), 1u);  // one merged update
  EXPECT_EQ(r.updates[0].field, Field::Hp);
  EXPECT_EQ(value_as_int(r.updates[0].value), 1000 - 199 * 3);
  EXPECT_EQ(r.notifications.size(), 200u);  // everyone (same bucket) hears it, the target included
  EXPECT_EQ(w->players()[0].hp, 403);
}

TEST(Aoi, BadInputIsAClearErrorAndChangesNothing) {
  std::unique_ptr<AoiWorld> w;
  AoiConfig c;
  c.aoi = 0;
  EXPECT_FALSE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  c.aoi = 10;
  c.world.width = NAN;
  EXPECT_FALSE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  // Found by fuzzing: a long thin world whose bucket product is small but one side has more buckets
  // than an int holds, and a world whose far corner overflows float.
  c.world = {0, 0, 1.5e12f, 1e-3f};
  EXPECT_FALSE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  c.shape = AoiShape::Circle;
  EXPECT_FALSE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  c.shape = AoiShape::Square;
  c.world = {3e38f, 0, 3e38f, 100};
  c.aoi = 1e31f;
  EXPECT_FALSE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  EXPECT_EQ(w, nullptr);
  c.aoi = 10;
  c.world = {0, 0, 100, 100};
  ASSERT_TRUE(AoiWorld::create(warpmind::test::cpu_context(), c, w).ok());
  const std::vector<Player> good = {{1, 1, 10}, {2, 2, 10}};
  ASSERT_TRUE(w->reset(good).ok());
  for (const Player& bad : {Player{NAN, 1, 1}, Player{100, 1, 1}, Player{-1, 1, 1}, Player{1, 1, -5}}) {
    const Status st = w->reset(std::vector<Player>{{5, 5, 1}, bad});
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("player 1"), std::string::npos) << st.message();
    ASSERT_EQ(w->players().size(), 2u);  // unchanged
    expect_same_players(w->players(), good, "the players before the bad reset");
  }
  AoiVariant v;
  EXPECT_FALSE(parse_variant("gpu-nothing", v));
  AoiShape s;
  EXPECT_TRUE(parse_shape("circle", s));
  EXPECT_FALSE(parse_shape("hexagon", s));
}

TEST(AoiScenario, ParsesFilesAndNamesTheBadField) {
  AoiScenario s;
  ASSERT_TRUE(load_aoi_scenario(warpmind::test::source_dir() + "/assets/scenarios/aoi_demo.json", s).ok());
  EXPECT_EQ(s.players.size(), 10000u);
  EXPECT_EQ(s.config.shape, AoiShape::Circle);
  EXPECT_FLOAT_EQ(s.commands.attack_share, 0.25f);
  for (const Player& p : s.players) {
    ASSERT_TRUE(p.x >= 0 && p.x < 1000 && p.y >= 0 && p.y < 1000);
  }
  ASSERT_TRUE(parse_aoi_scenario(R"({"players": [{"x": 1, "y": 2, "hp": 7}], "aoi": 5})", "inline", s).ok());
  ASSERT_EQ(s.players.size(), 1u);
  EXPECT_EQ(s.players[0].hp, 7);
  const auto fails = [](const char* text, const char* field) {
    AoiScenario out;
    out.players = {Player{}};
    const Status st = parse_aoi_scenario(text, "s.json", out);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_NE(st.message().find(field), std::string::npos) << st.message();
    EXPECT_EQ(out.players.size(), 1u);  // unchanged
  };
  fails("{", "not valid JSON");
  fails(R"({"aoi": 5})", "players");
  fails(R"({"players": [], "generate": {"clients": 3}})", "players");
  fails(R"({"players": [{"x": 1}]})", "players[0].y");
  fails(R"({"generate": {"clients": -1}})", "generate.clients");
  fails(R"({"generate": {"clients": 3}, "shape": "hex"})", "shape");
  fails(R"({"generate": {"clients": 3}, "aoi": 0})", "aoi");
  fails(R"({"generate": {"clients": 3}, "commands": {"attack_share": 2}})", "commands.attack_share");
}

TEST(AoiScenario, CommandsAreReproducibleAndMixed) {
  AoiConfig c;
  std::vector<Command> a, b;
  CommandSpec spec;
  spec.attack_share = 0.5f;
  make_commands(spec, c, warpmind::test::cpu_context().pool(), 1000, 3, a);
  make_commands(spec, c, warpmind::test::cpu_context().pool(), 1000, 3, b);
  ASSERT_EQ(a.size(), 1000u);
  std::size_t attacks = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(std::memcmp(&a[i], &b[i], sizeof(Command)), 0);
    EXPECT_EQ(a[i].player, i);
    if (a[i].type == CommandType::Attack) {
      ++attacks;
      EXPECT_NE(a[i].target, a[i].player);
    } else {
      EXPECT_LE(std::fabs(a[i].dx), c.max_move);
    }
  }
  EXPECT_GT(attacks, 400u);
  EXPECT_LT(attacks, 600u);
}

// ---- the contract's edges, pinned ------------------------------------------------------------------

std::vector<AoiVariant> available_variants() {
  std::vector<AoiVariant> v = {AoiVariant::CpuGrid, AoiVariant::CpuFast};
  if (warpmind::test::cuda_context()) v.insert(v.end(), {AoiVariant::GpuSorted, AoiVariant::GpuFast});
  return v;
}

// Who sees whom after one tick in which every player moves by (0, 0): the (receiver, subject) pairs of
// the X notifications.
std::set<std::pair<std::uint32_t, std::uint32_t>> seen_pairs(AoiConfig c, AoiVariant v, const std::vector<Player>& p) {
  c.variant = v;
  std::unique_ptr<AoiWorld> w;
  Status st = AoiWorld::create(*context_for(v), c, w);
  EXPECT_TRUE(st.ok()) << st.message();
  std::set<std::pair<std::uint32_t, std::uint32_t>> out;
  if (!st.ok()) return out;
  EXPECT_TRUE(w->reset(p).ok());
  std::vector<Command> still;
  for (std::uint32_t i = 0; i < p.size(); ++i) still.push_back({i, CommandType::Move, 0, 0, 0, 0});
  TickResult r;
  EXPECT_TRUE(w->tick(still, r).ok());
  for (const Notification& n : r.notifications)
    if (n.field == Field::X) out.insert({n.receiver, n.subject});
  return out;
}

TEST(Aoi, SquareBucketsStartAtTheWorldCornerAndClampAtTheUpperEdge) {
  // x0 = -0.7398, W = 10, aoi = 2.5: 4 columns from the corner, [x0, x0 + 2.5), ... The last float below
  // x0 + W gives (x - x0) / aoi = 4 after rounding: clamped into column 3, so it sees column 2.
  AoiConfig c;
  c.world = {-0.739799976f, 0.0f, 10.0f, 10.0f};
  c.aoi = 2.5f;
  const float x_last = std::nextafter(c.world.x0 + c.world.width, c.world.x0);
  ASSERT_EQ(x_last, 9.26019955f);
  ASSERT_EQ(std::floor((x_last - c.world.x0) / c.aoi), 4.0f);
  const std::vector<Player> p = {
      {x_last, 1.0f, 100},                                   // 0: column 3 (clamped from 4)
      {5.0f, 1.0f, 100},                                     // 1: column 2
      {c.world.x0, 1.0f, 100},                               // 2: column 0 (the corner is in)
      {c.world.x0 + 5.0f, 9.0f, 100},                        // 3: column 2 exactly on its lower boundary, row 3
      {std::nextafter(c.world.x0 + 5.0f, 0.0f), 9.0f, 100},  // 4: column 1, row 3
  };
  ASSERT_EQ(std::floor((p[3].x - c.world.x0) / c.aoi), 2.0f);
  ASSERT_EQ(std::floor((p[4].x - c.world.x0) / c.aoi), 1.0f);
  // Expected: 0-1 (columns 3, 2), 3-4 (2, 1, same row), everyone sees itself; 1-2 are 2 columns apart;
  // rows 0 and 3 are 3 apart.
  std::set<std::pair<std::uint32_t, std::uint32_t>> want;
  for (std::uint32_t i = 0; i < 5; ++i) want.insert({i, i});
  for (auto [a, b] : {std::pair<std::uint32_t, std::uint32_t>{0, 1}, {3, 4}}) {
    want.insert({a, b});
    want.insert({b, a});
  }
  for (std::uint32_t r = 0; r < 5; ++r)  // the oracle agrees
    for (std::uint32_t s = 0; s < 5; ++s)
      EXPECT_EQ(::warpmind::oracle::aoi_sees(c, p[r], p[s]), want.count({r, s}) == 1) << r << " " << s;
  for (AoiVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    EXPECT_EQ(seen_pairs(c, v, p), want);
  }
}

TEST(Aoi, CircleIsTheDistanceAloneWhateverTheBuckets) {
  // A pair a hair under aoi apart whose floor((x - x0) / aoi) are 32 and 34: within the radius, so each
  // sees the other (buckets of side aoi would have missed it).
  AoiConfig c;
  c.world = {-767.651062f, 0.0f, 1500.0f, 100.0f};
  c.aoi = 19.091898f;
  c.shape = AoiShape::Circle;
  const Player a{-137.618454f, 50.0f, 100}, b{-118.526566f, 50.0f, 100};
  ASSERT_EQ(std::floor((a.x - c.world.x0) / c.aoi), 32.0f);
  ASSERT_EQ(std::floor((b.x - c.world.x0) / c.aoi), 34.0f);
  ASSERT_LE((a.x - b.x) * (a.x - b.x), c.aoi * c.aoi);
  // Many more such pairs: x_r just below a bucket boundary, x_s = x_r + aoi give or take a few ulps, one
  // pair per row (rows 3 aoi apart); the expectation is the distance rule alone (the oracle).
  std::vector<Player> p = {a, b};
  c.world.height = 3000.0f;
  SplitMix64 rng(17);
  for (int row = 1; row < 50; ++row) {
    const float y = 60.0f * static_cast<float>(row);
    const int k = 1 + static_cast<int>(rng.next() % 70);
    float xr = c.world.x0 + static_cast<float>(k) * c.aoi;
    for (int j = static_cast<int>(rng.next() % 3); j >= 0; --j) xr = std::nextafter(xr, -1e9f);
    float xs = xr + c.aoi;
    const int m = static_cast<int>(rng.next() % 7) - 3;
    for (int j = 0; j < std::abs(m); ++j) xs = std::nextafter(xs, m < 0 ? -1e9f : 1e9f);
    p.push_back({xr, y, 100});
    p.push_back({xs, y, 100});
  }
  std::set<std::pair<std::uint32_t, std::uint32_t>> want;
  for (std::uint32_t r = 0; r < p.size(); ++r)
    for (std::uint32_t s = 0; s < p.size(); ++s)
      if (::warpmind::oracle::aoi_sees(c, p[r], p[s])) want.insert({r, s});
  EXPECT_TRUE(want.count({0, 1}) && want.count({1, 0}));
  // Exactly at the radius is in, one ulp beyond is out.
  const std::vector<Player> edge = {
      {0.0f, 0.0f, 1}, {3.0f, 4.0f, 1}, {0.0f, 20.0f, 1}, {3.0f, std::nextafter(24.0f, 99.0f), 1}};
  AoiConfig five = c;
  five.world = {0.0f, 0.0f, 100.0f, 100.0f};
  five.aoi = 5.0f;
  for (AoiVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    EXPECT_EQ(seen_pairs(c, v, p), want);
    EXPECT_EQ(seen_pairs(five, v, edge),
              (std::set<std::pair<std::uint32_t, std::uint32_t>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 2}, {3, 3}}));
  }
}

TEST(Aoi, AttackRangeIsInclusiveOnFloatSquaresAndUsesPositionsBeforeTheTick) {
  AoiConfig c;
  c.world = {0, 0, 100, 100};
  c.attack_range = 5.0f;
  c.max_move = 10.0f;
  const std::vector<Player> p = {{10, 10, 50}, {13, 14, 50}, {13, std::nextafter(14.0f, 99.0f), 50}, {30, 10, 50}};
  for (AoiVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    c.variant = v;
    std::unique_ptr<AoiWorld> w;
    ASSERT_TRUE(AoiWorld::create(*context_for(v), c, w).ok());
    ASSERT_TRUE(w->reset(p).ok());
    TickResult r;
    // 0 -> 1 at exactly 5: in range. 0 -> 2 one ulp farther: out. 0 moves next to 3 first, then attacks
    // it: judged on the positions before the tick, out of range. 3 moves away from 1? no: 1 attacks 0
    // while 0 moves away: still in range.
    const std::vector<Command> cmds = {
        {0, CommandType::Attack, 0, 0, 1, 7}, {0, CommandType::Attack, 0, 0, 2, 7}, {0, CommandType::Move, 10, 0, 0, 0},
        {0, CommandType::Attack, 0, 0, 3, 7}, {1, CommandType::Attack, 0, 0, 0, 4},
    };
    ASSERT_TRUE(w->tick(cmds, r).ok());
    EXPECT_EQ(r.accepted, 3u);
    EXPECT_EQ(r.rejected[static_cast<int>(RejectReason::TargetOutOfRange)], 2u);
    EXPECT_EQ(w->players()[0].hp, 46);
    EXPECT_EQ(w->players()[0].x, 20.0f);
    EXPECT_EQ(w->players()[1].hp, 43);
    EXPECT_EQ(w->players()[2].hp, 50);
    EXPECT_EQ(w->players()[3].hp, 50);
  }
}

TEST(Aoi, ACommandWithSeveralFaultsCountsUnderTheFirstCheck) {
  AoiConfig c;
  c.world = {0, 0, 100, 100};
  c.attack_range = 5.0f;
  c.max_move = 2.0f;
  const std::vector<Player> p = {{10, 10, 50}, {50, 50, 50}};
  const auto bad_type = static_cast<CommandType>(7);
  const std::pair<Command, RejectReason> cases[] = {
      {{9, bad_type, NAN, 0, 9, -1}, RejectReason::UnknownPlayer},  // unknown player, before the type
      {{2, CommandType::Move, NAN, 0, 0, 0}, RejectReason::UnknownPlayer},
      {{2, CommandType::Attack, 0, 0, 0, -1}, RejectReason::UnknownPlayer},
      {{0, bad_type, NAN, 0, 9, -1}, RejectReason::UnknownType},
      {{0, CommandType::Move, INFINITY, 3, 0, 0}, RejectReason::BadMove},
      {{0, CommandType::Attack, NAN, 0, 5, -1}, RejectReason::UnknownTarget},  // before self, damage, range
      {{0, CommandType::Attack, 0, 0, 0, -1}, RejectReason::SelfAttack},       // before damage
      {{0, CommandType::Attack, 0, 0, 1, -1}, RejectReason::BadDamage},        // out of range too: damage first
      {{0, CommandType::Attack, 0, 0, 1, 3}, RejectReason::TargetOutOfRange},
      {{0, CommandType::Heal, NAN, 0, 9, -1}, RejectReason::BadDamage},  // only its amount is looked at
      {{2, CommandType::Heal, 0, 0, 0, 5}, RejectReason::UnknownPlayer},
  };
  for (AoiVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    c.variant = v;
    std::unique_ptr<AoiWorld> w;
    ASSERT_TRUE(AoiWorld::create(*context_for(v), c, w).ok());
    ASSERT_TRUE(w->reset(p).ok());
    for (const auto& [cmd, why] : cases) {
      SCOPED_TRACE(reason_name(why));
      TickResult r;
      ASSERT_TRUE(w->tick(std::vector<Command>{cmd}, r).ok());
      EXPECT_EQ(r.accepted, 0u);
      for (int k = 0; k < kRejectReasons; ++k) EXPECT_EQ(r.rejected[k], k == static_cast<int>(why) ? 1u : 0u) << k;
      EXPECT_TRUE(r.updates.empty());
    }
  }
}

// A heal is a negative damage of its own player: a tick's heals and attacks of one player add up exactly
// whatever their order, the sum clamped into [0, 2^31 - 1], one HP update each (a heal of 0 too).
TEST(Aoi, HealsAndAttacksOfOnePlayerAddUpAndClamp) {
  AoiConfig c;
  c.world = {0, 0, 100, 100};
  c.attack_range = 5.0f;
  const std::vector<Player> p = {{10, 10, 50}, {12, 10, 2147483600}, {14, 10, 5}, {90, 90, 7}};
  for (AoiVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    c.variant = v;
    std::unique_ptr<AoiWorld> w;
    ASSERT_TRUE(AoiWorld::create(*context_for(v), c, w).ok());
    ASSERT_TRUE(w->reset(p).ok());
    TickResult r;
    const std::vector<Command> cmds = {
        {0, CommandType::Attack, 0, 0, 1, 7},  {0, CommandType::Heal, 0, 0, 0, 30},
        {1, CommandType::Attack, 0, 0, 0, 60}, {1, CommandType::Heal, 0, 0, 0, 1000},
        {2, CommandType::Heal, 0, 0, 0, 3},    {1, CommandType::Attack, 0, 0, 2, 100},
        {3, CommandType::Heal, 0, 0, 0, 0},    {1, CommandType::Heal, 0, 0, 0, INT32_MAX},
    };
    ASSERT_TRUE(w->tick(cmds, r).ok());
    EXPECT_EQ(r.accepted, cmds.size());
    EXPECT_EQ(w->players()[0].hp, 20);         // 50 + 30 - 60
    EXPECT_EQ(w->players()[1].hp, INT32_MAX);  // 2147483600 - 7 + 1000 + (2^31 - 1), clamped
    EXPECT_EQ(w->players()[2].hp, 0);          // 5 + 3 - 100, clamped
    EXPECT_EQ(w->players()[3].hp, 7);          // a heal of 0
    EXPECT_EQ(r.updates, (std::vector<Update>{{0, Field::Hp, 20},
                                              {1, Field::Hp, static_cast<std::uint32_t>(INT32_MAX)},
                                              {2, Field::Hp, 0},
                                              {3, Field::Hp, 7}}));
  }
}

TEST(Aoi, PlayersWithNoHpStillMoveAttackAndAreAttacked) {
  AoiConfig c;
  c.world = {0, 0, 100, 100};
  const std::vector<Player> p = {{10, 10, 0}, {12, 10, 0}, {14, 10, 30}};
  for (AoiVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    c.variant = v;
    std::unique_ptr<AoiWorld> w;
    ASSERT_TRUE(AoiWorld::create(*context_for(v), c, w).ok());
    ASSERT_TRUE(w->reset(p).ok());
    TickResult r;
    const std::vector<Command> cmds = {
        {0, CommandType::Move, 1, 0, 0, 0}, {0, CommandType::Attack, 0, 0, 2, 5}, {1, CommandType::Attack, 0, 0, 0, 3}};
    ASSERT_TRUE(w->tick(cmds, r).ok());
    EXPECT_EQ(r.accepted, 3u);
    EXPECT_EQ(r.updates,
              (std::vector<Update>{
                  {0, Field::X, bits(11.0f)}, {0, Field::Y, bits(10.0f)}, {0, Field::Hp, 0}, {2, Field::Hp, 25}}));
    EXPECT_EQ(w->players()[0].x, 11.0f);
    EXPECT_EQ(w->players()[0].hp, 0);
    EXPECT_EQ(w->players()[2].hp, 25);
  }
}

TEST(Aoi, FirstTickEventsAreRelativeToTheResetPositions) {
  AoiConfig c;
  c.world = {0, 0, 100, 100};
  c.aoi = 10.0f;
  c.max_move = 50.0f;
  // 0 and 1 see each other at reset; 2 is far away and walks over to 0 in the first tick.
  const std::vector<Player> p = {{5, 5, 10}, {8, 5, 10}, {85, 85, 10}};
  for (AoiVariant v : available_variants()) {
    SCOPED_TRACE(variant_name(v));
    for (bool track : {true, false}) {
      c.variant = v;
      c.track_visibility = track;
      std::unique_ptr<AoiWorld> w;
      ASSERT_TRUE(AoiWorld::create(*context_for(v), c, w).ok());
      ASSERT_TRUE(w->reset(p).ok());
      TickResult r;
      ASSERT_TRUE(
          w->tick(std::vector<Command>{{2, CommandType::Move, -45, -45, 0, 0}, {2, CommandType::Move, -30, -30, 0, 0}},
                  r)
              .ok());
      ASSERT_EQ(w->players()[2].x, 10.0f);
      if (track) {
        EXPECT_EQ(r.entered, (std::vector<VisibilityEvent>{{0, 2}, {1, 2}, {2, 0}, {2, 1}}));  // not (0, 1)
      } else {
        EXPECT_TRUE(r.entered.empty());
      }
      EXPECT_TRUE(r.left.empty());
      // A second reset is the new baseline: nothing entered or left in an empty tick after it.
      ASSERT_TRUE(w->reset(std::vector<Player>{{50, 50, 1}, {95, 95, 1}, {51, 51, 1}}).ok());
      ASSERT_TRUE(w->tick({}, r).ok());
      EXPECT_TRUE(r.entered.empty());
      EXPECT_TRUE(r.left.empty());
      ASSERT_TRUE(w->tick(std::vector<Command>{{1, CommandType::Move, -44, -44, 0, 0}}, r).ok());
      if (track) {
        EXPECT_EQ(r.entered, (std::vector<VisibilityEvent>{{0, 1}, {1, 0}, {1, 2}, {2, 1}}));
      } else {
        EXPECT_TRUE(r.entered.empty());
      }
    }
  }
}

}  // namespace
}  // namespace warpmind::aoi
