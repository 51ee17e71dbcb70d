// warpmind-bench suites, one per module. Each returns the process exit status.
#pragma once

namespace warpmind::bench {

int field_suite(int argc, char** argv);     // argv[0] is "field"
int crowd_suite(int argc, char** argv);     // argv[0] is "crowd"
int aoi_suite(int argc, char** argv);       // argv[0] is "aoi"
int ddm_suite(int argc, char** argv);       // argv[0] is "ddm"
int hybrid_suite(int argc, char** argv);    // argv[0] is "hybrid"
int chess_suite(int argc, char** argv);     // argv[0] is "chess"
int connect6_suite(int argc, char** argv);  // argv[0] is "connect6"

}  // namespace warpmind::bench
