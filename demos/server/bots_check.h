// warpmind-bots' check: after the run (so it costs the run nothing), every State the bots received
// against their commands and the AOI rule (docs/server.md, "What the bots check").
#pragma once

#include <cstdint>
#include <vector>

#include "bots.h"

namespace warpmind::bots {

struct Check {
  std::uint64_t ticks_checked = 0, states_checked = 0, missing = 0, extra = 0, wrong_value = 0, own_errors = 0,
                visibility_errors = 0, states_expected = 0, states_received = 0;
  // Catch-ups (State.since, State.catch_up) checked against the ticks they cover, and those skipped
  // because some tick they cover was not heard by every bot.
  std::uint64_t catch_ups_checked = 0, catch_ups_skipped = 0, catch_up_errors = 0, snapshots = 0, catch_ups_behind = 0;
  // Sessions checked; resumed ones whose Welcome did not give the player back as its client left it;
  // players that two sessions held at once (an id given out while still in the game).
  std::uint64_t sessions = 0, resumes_checked = 0, resume_errors = 0, shared_ids = 0;
  std::uint64_t inconsistencies() const {
    return missing + extra + wrong_value + own_errors + visibility_errors + catch_up_errors + resume_errors +
           shared_ids;
  }
};

// Because every bot is in one process, the check knows, for each tick that every bot heard, where every
// player was after it (each State carries its receiver's own position) and which players changed (a
// player is always in its own area of interest, so its own updates are in its own State). From those
// it computes the exact notification list each bot should have received — the subjects inside its AOI
// by the module's rule (warpmind_oracles' aoi_sees, written from docs/aoi.md), with their values — the
// exact set of players it should see after applying its enter/leave events, and each State's catch-up.
// `world` is what the first Welcome said. Each session of each bot is checked on its own (a player
// rejoined, a new one, or resumed after a restart); sessions never welcomed are left out.
Check check(const World& world, const std::vector<Bot>& bots);

}  // namespace warpmind::bots
