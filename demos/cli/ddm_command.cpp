// warpmind ddm: match publication and subscription regions, then keep the match current for K steps in
// which every region moves by half its size in a random compass direction (the seed's set-up).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "flags.h"
#include "output.h"
#include "stats.h"
#include "warpmind/core/context.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/ddm/scenario.h"

namespace warpmind::cli {

namespace {

constexpr demos::Refusal bad{"warpmind ddm"};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

template <int D>
int run(Context& ctx, ddm::DdmVariant variant, const ddm::DdmScenario& sc, bool json, const std::string& pairs_path) {
  std::vector<ddm::Region<D>> regions = ddm::to_regions<D>(sc.regions);
  std::unique_ptr<ddm::RegionMatcher<D>> m;
  Status st = ddm::RegionMatcher<D>::create(ctx, {variant}, m);
  if (!st.ok()) return bad(st.message());
  for (std::size_t i = 0; i < regions.size(); ++i) {
    ddm::RegionId id;
    st = m->add(regions[i].kind, regions[i].box, id);
    if (!st.ok()) return bad("region " + std::to_string(i) + ": " + st.message());
  }
  std::vector<ddm::Pair> pairs, appeared, disappeared;
  auto t0 = Clock::now();
  st = m->match(pairs);
  const double full_ms = ms_since(t0);
  if (!st.ok()) return bad(st.message());
  std::vector<double> step_ms;
  std::size_t in = 0, out = 0;
  // A step: every region's new box in one batch update, then the changes.
  std::vector<ddm::RegionId> ids(regions.size());
  std::vector<ddm::Box<D>> boxes(regions.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<ddm::RegionId>(i);
  for (int step = 0; step < sc.steps; ++step) {
    ddm::move_regions<D>(regions, sc.seed, step);
    for (std::size_t i = 0; i < regions.size(); ++i) boxes[i] = regions[i].box;
    t0 = Clock::now();
    st = m->update(ids, boxes);
    if (st.ok()) st = m->match_changes(appeared, disappeared);
    step_ms.push_back(ms_since(t0));
    if (!st.ok()) return bad(st.message());
    in += appeared.size();
    out += disappeared.size();
  }
  if (!pairs_path.empty()) {
    std::vector<ddm::Pair> final_pairs;
    st = m->match(final_pairs);
    if (!st.ok()) return bad(st.message());
    std::string text;
    text.reserve(final_pairs.size() * 16);
    for (const ddm::Pair& q : final_pairs) {
      char line[32];
      std::snprintf(line, sizeof line, "%u %u\n", q.publication, q.subscription);
      text += line;
    }
    if (const std::string err = demos::write_file(pairs_path, text); !err.empty()) return bad(err);
  }
  const double step_median = demos::median(step_ms);
  const std::size_t now = pairs.size() + in - out;
  if (json) {
    std::printf(
        "{\"command\":\"ddm\",\"dimensions\":%d,\"regions\":%zu,\"publications\":%zu,\"subscriptions\":%zu,"
        "\"variant\":\"%s\",\"backend\":\"%s\",\"threads\":%u,\"pairs\":%zu,\"ms_match\":%.6f,\"steps\":%d,"
        "\"appeared\":%zu,"
        "\"disappeared\":%zu,\"pairs_after\":%zu,\"ms_per_step\":%.6f}\n",
        D, regions.size(), m->publications(), m->subscriptions(), ddm::variant_name(m->variant()),
        backend_name(ctx.backend()), ctx.pool().size(), pairs.size(), full_ms, sc.steps, in, out, now, step_median);
  } else {
    std::printf("ddm: %zu regions (%zu publications, %zu subscriptions) in %dD, variant %s on %s\n", regions.size(),
                m->publications(), m->subscriptions(), D, ddm::variant_name(m->variant()), backend_name(ctx.backend()));
    std::printf("match: %zu pairs in %.3f ms\n", pairs.size(), full_ms);
    if (sc.steps)
      std::printf("%d steps of moves: %zu pairs appeared, %zu disappeared (%zu now), median %.3f ms per step\n",
                  sc.steps, in, out, now, step_median);
  }
  return 0;
}

// The flags of `warpmind ddm`.
struct Flags {
  std::string scenario, distribution = "uniform", variant, pairs;
  ddm::GenerateSpec gen;
  int dimensions = 2, steps = 30;
  demos::ContextFlags context;
  bool json = false;
};

int run(const Flags& f, const CLI::App& app) {
  const auto given = [&app](const char* flag) { return app.count(flag) != 0; };
  ddm::DdmScenario sc;
  if (given("--scenario")) {
    for (const char* flag : {"--regions", "--alpha", "--size", "--space", "--distribution", "--dimensions", "--seed"})
      if (given(flag)) return bad(std::string(flag) + " cannot be combined with --scenario");
    Status st = ddm::load_ddm_scenario(f.scenario, sc);
    if (!st.ok()) return bad(st.message());
  } else {
    ddm::GenerateSpec g = f.gen;
    g.hotspot = f.distribution == "hotspot";
    sc.dimensions = f.dimensions;
    sc.seed = g.seed;
    const auto to_spec = [&](const auto& regions) {
      for (const auto& q : regions) {
        ddm::RegionSpec spec;
        spec.kind = q.kind;
        for (std::size_t k = 0; k < q.box.lo.size(); ++k) spec.lo[k] = q.box.lo[k], spec.hi[k] = q.box.hi[k];
        sc.regions.push_back(spec);
      }
    };
    if (sc.dimensions == 2)
      to_spec(ddm::generate_regions<2>(g));
    else
      to_spec(ddm::generate_regions<3>(g));
  }
  if (given("--steps")) sc.steps = f.steps;
  ddm::DdmVariant variant = ddm::DdmVariant::Auto;
  if (given("--variant")) (void)ddm::parse_variant(f.variant, variant);  // checked when parsed
  const bool json = f.json;
  std::unique_ptr<Context> ctx;
  if (const std::string err = demos::open_context(f.context, json, ctx); !err.empty()) return bad(err);
  const std::string pairs = given("--pairs") ? f.pairs : std::string();
  return sc.dimensions == 2 ? run<2>(*ctx, variant, sc, json, pairs) : run<3>(*ctx, variant, sc, json, pairs);
}

}  // namespace

demos::Subcommand ddm_command(CLI::App& parent) {
  CLI::App* app = demos::add_subcommand(
      parent, "ddm",
      "match publication and subscription regions and keep the match current as they move\n"
      "Matches publication and subscription regions (half-open boxes), then runs K steps of moves and reports the "
      "pairs that appeared and disappeared (docs/ddm.md).");
  auto f = std::make_shared<Flags>();
  demos::add_text(*app, "--scenario", f->scenario, "FILE",
                  "regions (or how to generate them), dimensions and steps from JSON (docs/ddm.md)");
  demos::add_integer(*app, "--regions", f->gen.regions, 0, 1ll << 28, "N",
                     "generated: regions, half publications, half subscriptions");
  demos::add_number(*app, "--alpha", f->gen.alpha, 0.0, 1e9, "A",
                    "generated: overlap degree, total region volume / space volume");
  demos::add_number(*app, "--size", f->gen.size, 0.0, 1e9, "S",
                    "generated: fixed side instead of --alpha (the seed's 10 and 100); 0: none", "");
  demos::add_number(*app, "--space", f->gen.space, 1e-3, 1e9, "L", "generated: the space [0, L)^D");
  demos::add_choice(*app, "--distribution", f->distribution, {"uniform", "hotspot"}, "where regions are placed");
  demos::add_integer(*app, "--dimensions", f->dimensions, 2, 3, "D", "2 or 3");
  demos::add_integer(*app, "--steps", f->steps, 0, 1000000, "K",
                     "moves after the first match; overrides the scenario's \"steps\"");
  demos::add_context_flags(*app, f->context);
  demos::add_text(*app, "--variant", f->variant, "V", "auto, cpu-brute, cpu-sort, gpu-region, gpu-grid",
                  [](const std::string& s) {
                    ddm::DdmVariant v;
                    return ddm::parse_variant(s, v) ? std::string() : "unknown variant '" + s + "'";
                  });
  demos::add_integer(*app, "--seed", f->gen.seed, 0, INT64_MAX, "N",
                     "generated: region and move seed; a scenario has its own");
  demos::add_text(*app, "--pairs", f->pairs, "FILE",
                  "the match after the last step, one 'PUBLICATION SUBSCRIPTION' line per pair, sorted; ids are "
                  "the regions' positions in the scenario (generated: even ids publications, odd ids subscriptions)");
  demos::add_flag(*app, "--json", f->json, "one JSON summary object on stdout");
  return {app, [f, app] { return run(*f, *app); }};
}

}  // namespace warpmind::cli
