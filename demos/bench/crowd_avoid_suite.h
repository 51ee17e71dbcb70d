// The crowd suite's Avoid part (crowd_avoid_suite.cpp), run by crowd_suite.cpp into the same results.
#pragma once

#include "results.h"
#include "warpmind/core/context.h"

namespace warpmind::bench {

// Returns the number of failed checks (0: all matched); appends its records to `results` and writes them.
int run_avoid_suite(Context& ctx, bool quick, int ticks, double copy_bytes_per_s, Results& results, ResultsFile& file);

}  // namespace warpmind::bench
