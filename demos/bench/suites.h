// warpmind-bench suites, one per module. Each adds itself to the program's app — its flags, declared
// once there (those every suite takes: results.h) — and returns what runs when the command line chose it
// (returning the exit status).
#pragma once

#include "flags.h"

namespace warpmind::bench {

demos::Subcommand field_suite(CLI::App& app);
demos::Subcommand crowd_suite(CLI::App& app);
demos::Subcommand aoi_suite(CLI::App& app);
demos::Subcommand ddm_suite(CLI::App& app);
demos::Subcommand hybrid_suite(CLI::App& app);
demos::Subcommand chess_suite(CLI::App& app);
demos::Subcommand connect6_suite(CLI::App& app);
demos::Subcommand tables_suite(CLI::App& app);
demos::Subcommand nav_suite(CLI::App& app);

}  // namespace warpmind::bench
