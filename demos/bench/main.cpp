// warpmind-bench — reproduces each source paper's experiment grid: CPU baselines and every GPU variant
// in the same run, times, speedups and physical floors, results as JSON (docs/benchmarks.md).
#include <cstdio>
#include <cstring>

#include "suites.h"

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line at a time, also into a file: a killed run keeps its rows
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(
        "usage: warpmind-bench SUITE [--out FILE.json] [--quick] [options]\n"
        "suites:\n"
        "  field    the potential-field grid of Elmir (2013) plus a 100,000-entity scale case\n"
        "  crowd    collision-checked movement, 10,000 to 16,000,000 agents (Viguera et al.)\n"
        "  aoi      MMO server ticks, 512 to 4,194,304 clients (Sung)\n"
        "  ddm      region matching, 2,048 to 1,000,000 regions (Lo, Chung, Pai)\n"
        "  hybrid   the node-based hybrid search's pruning loss, N_hybrid / N_serial (Li et al.)\n"
        "  chess    perft, leaf / branch batches and the hybrid search on CPU and GPU (Li et al.)\n"
        "  connect6 leaf / branch batches and the hybrid search at w = 48 on CPU and GPU (Li et al.)\n"
        "Run 'warpmind-bench SUITE --help' for a suite's options.\n",
        argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "field")) return warpmind::bench::field_suite(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "crowd")) return warpmind::bench::crowd_suite(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "aoi")) return warpmind::bench::aoi_suite(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "ddm")) return warpmind::bench::ddm_suite(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "hybrid")) return warpmind::bench::hybrid_suite(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "chess")) return warpmind::bench::chess_suite(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "connect6")) return warpmind::bench::connect6_suite(argc - 1, argv + 1);
  std::fprintf(stderr, "warpmind-bench: unknown suite '%s'\n", argv[1]);
  return 2;
}
