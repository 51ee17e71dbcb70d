// What a cluster's gateway passes on to one client (demos/server/sent_filter.h): the States it builds
// itself and those relayed from other zones through one filter, so that a client never gets a State older
// than one it has, nor any message twice.
#include <gtest/gtest.h>

#include "sent_filter.h"

namespace {

using namespace warpmind::net;
using warpmind::server::SentFilter;

enum class Kind { State, Events, Welcome, Goodbye };

// Whether a message of `kind` and `tick` passes the filter (and is marked passed on).
bool passes(SentFilter& f, Kind kind, std::uint64_t tick) {
  flatbuffers::FlatBufferBuilder b(128);
  flatbuffers::Offset<void> body;
  Body type = Body_State;
  switch (kind) {
    case Kind::State:
      body = CreateState(b, tick).Union();
      break;
    case Kind::Events:
      body = CreateEvents(b, tick).Union(), type = Body_Events;
      break;
    case Kind::Welcome: {
      WelcomeBuilder w(b);
      w.add_tick(tick);
      body = w.Finish().Union(), type = Body_Welcome;
      break;
    }
    case Kind::Goodbye:
      body = CreateGoodbye(b, tick).Union(), type = Body_Goodbye;
      break;
  }
  FinishMessageBuffer(b, CreateMessage(b, type, body));
  const Message* m = read_message(b.GetBufferPointer(), b.GetSize());
  EXPECT_NE(m, nullptr);
  return m != nullptr && f.first(*m);
}

// A player crossing into its gateway's area while the zones run late: the gateway's own State of tick 11
// goes out, then tick 10 relayed from the zone it left arrives and must not follow it; nor may tick 11
// relayed again by a zone replaying it after a crash.
TEST(SentFilter, AStateNeverFollowsANewerOneWhicheverPathItTakes) {
  SentFilter f;
  EXPECT_TRUE(passes(f, Kind::State, 9));    // relayed
  EXPECT_TRUE(passes(f, Kind::State, 11));   // the gateway's own
  EXPECT_FALSE(passes(f, Kind::State, 10));  // relayed late
  EXPECT_FALSE(passes(f, Kind::State, 11));  // relayed again
  EXPECT_TRUE(passes(f, Kind::State, 12));
  // The other kinds keep their own counts: a State's tick does not refuse Events or a Welcome.
  EXPECT_TRUE(passes(f, Kind::Events, 5));
  EXPECT_TRUE(passes(f, Kind::Welcome, 5));
  EXPECT_FALSE(passes(f, Kind::Welcome, 5));
  EXPECT_FALSE(passes(f, Kind::Welcome, 4));
  EXPECT_TRUE(passes(f, Kind::Welcome, 6));
}

// Events of two zones may come out of order: each tick once, the newest and the 64 before it remembered.
TEST(SentFilter, EventsPassOncePerTickInAnyOrderWithinSixtyFourTicks) {
  SentFilter f;
  EXPECT_TRUE(passes(f, Kind::Events, 100));
  EXPECT_FALSE(passes(f, Kind::Events, 100));
  EXPECT_TRUE(passes(f, Kind::Events, 98));
  EXPECT_TRUE(passes(f, Kind::Events, 99));
  EXPECT_FALSE(passes(f, Kind::Events, 98));
  EXPECT_TRUE(passes(f, Kind::Events, 36));   // 64 before the newest: still remembered
  EXPECT_FALSE(passes(f, Kind::Events, 35));  // 65 before: refused
  EXPECT_TRUE(passes(f, Kind::Events, 101));  // the mask shifts with the newest
  EXPECT_FALSE(passes(f, Kind::Events, 99));
  EXPECT_FALSE(passes(f, Kind::Events, 36));   // now 65 before the newest
  EXPECT_TRUE(passes(f, Kind::Events, 1000));  // a jump of more than 64 forgets the mask
  EXPECT_FALSE(passes(f, Kind::Events, 999 - 64));
  EXPECT_TRUE(passes(f, Kind::Events, 999));
  EXPECT_FALSE(passes(f, Kind::Events, 999));
}

// A zone sends a client nothing but States, Events and resumed Welcomes; a new connection starts afresh.
TEST(SentFilter, RefusesOtherBodiesAndStartsAfreshForANewConnection) {
  SentFilter f;
  EXPECT_FALSE(passes(f, Kind::Goodbye, 7));
  EXPECT_TRUE(passes(f, Kind::State, 50));
  f = {};
  EXPECT_TRUE(passes(f, Kind::State, 50));
}

}  // namespace
