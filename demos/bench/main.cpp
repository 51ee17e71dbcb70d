// warpmind-bench — reproduces each source paper's experiment grid: CPU baselines and every GPU variant
// in the same run, times, speedups and physical floors, results as JSON (docs/benchmarks.md).
#include <cstdio>

#include "flags.h"
#include "suites.h"

int main(int argc, char** argv) {
  using namespace warpmind;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line at a time, also into a file: a killed run keeps its rows
  CLI::App app(
      "Reproduces each source paper's experiment grid: CPU baselines and every GPU variant in the same run, "
      "times, speedups and physical floors, results as JSON (docs/benchmarks.md).",
      "warpmind-bench");
  demos::configure(app, "suite");
  const std::vector<demos::Subcommand> suites = {
      bench::field_suite(app),    bench::crowd_suite(app),  bench::aoi_suite(app),
      bench::ddm_suite(app),      bench::hybrid_suite(app), bench::chess_suite(app),
      bench::connect6_suite(app), bench::tables_suite(app), bench::nav_suite(app)};
  app.require_subcommand(1);
  app.footer("Run 'warpmind-bench SUITE --help' for a suite's options and what it checks.");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;
  return demos::run_chosen(suites);
}
