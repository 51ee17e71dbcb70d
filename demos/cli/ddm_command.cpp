// warpmind ddm: match publication and subscription regions, then keep the match current for K steps in
// which every region moves by half its size in a random compass direction (the seed's set-up).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/args.h"
#include "commands.h"
#include "warpmind/core/context.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/ddm/scenario.h"

namespace warpmind::cli {

namespace {

constexpr const char* kHelp =
    "usage: warpmind ddm [options]\n"
    "\n"
    "Matches publication and subscription regions (half-open boxes), then runs K steps of moves and\n"
    "reports the pairs that appeared and disappeared (docs/ddm.md).\n"
    "\n"
    "  --scenario FILE     regions (or how to generate them), dimensions and steps from JSON (docs/ddm.md)\n"
    "  --regions N         generated: regions (default 10000), half publications, half subscriptions\n"
    "  --alpha A           generated: overlap degree, total region volume / space volume (default 1)\n"
    "  --size S            generated: fixed side instead (the seed's 10 and 100)\n"
    "  --space L           generated: the space [0, L)^D (default 10000)\n"
    "  --distribution D    uniform | hotspot (default uniform)\n"
    "  --dimensions D      2 or 3 (default 2)\n"
    "  --steps K           moves after the first match (default 30; overrides the scenario's \"steps\")\n"
    "  --backend B         cpu | cuda | auto (default auto)\n"
    "  --variant V         auto, cpu-brute, cpu-sort, gpu-region, gpu-grid\n"
    "  --threads N         CPU threads, 0..1024; 0 (the default) = one per hardware thread\n"
    "  --seed N            generated: region and move seed (default 1; a scenario has its own)\n"
    "  --pairs FILE        the match after the last step, one 'PUBLICATION SUBSCRIPTION' line per pair,\n"
    "                      sorted; ids are the regions' positions in the scenario (generated: even ids\n"
    "                      publications, odd ids subscriptions)\n"
    "  --json              one JSON summary object on stdout\n";

int bad(const std::string& why) {
  std::fprintf(stderr, "warpmind ddm: %s\n", why.c_str());
  return 2;
}

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
  for (int step = 0; step < sc.steps; ++step) {
    ddm::move_regions<D>(regions, sc.seed, step);
    t0 = Clock::now();
    for (std::size_t i = 0; i < regions.size() && st.ok(); ++i)
      st = m->update(static_cast<ddm::RegionId>(i), regions[i].box);
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
  std::sort(step_ms.begin(), step_ms.end());
  const double step_median = step_ms.empty() ? 0.0 : step_ms[step_ms.size() / 2];
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

}  // namespace

int ddm_command(int argc, char** argv) {
  demos::Args args(argc, argv, 1,
                   {"scenario", "regions", "alpha", "size", "space", "distribution", "dimensions", "steps", "backend",
                    "variant", "threads", "seed", "pairs"},
                   {"json", "help"});
  if (!args.error().empty()) return bad(args.error());
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  ddm::DdmScenario sc;
  if (args.has("scenario")) {
    for (const char* f : {"regions", "alpha", "size", "space", "distribution", "dimensions", "seed"})
      if (args.has(f)) return bad(std::string("--") + f + " cannot be combined with --scenario");
    Status st = ddm::load_ddm_scenario(args.str("scenario"), sc);
    if (!st.ok()) return bad(st.message());
  } else {
    ddm::GenerateSpec g;
    g.regions = static_cast<std::size_t>(args.integer("regions", 10000, 0, 1ll << 28));
    g.alpha = static_cast<float>(args.number("alpha", 1.0, 0.0, 1e9));
    g.size = static_cast<float>(args.number("size", 0.0, 0.0, 1e9));
    g.space = static_cast<float>(args.number("space", 10000.0, 1e-3, 1e9));
    g.seed = static_cast<std::uint64_t>(args.integer("seed", 1, 0, INT64_MAX));
    const std::string dist = args.str("distribution", "uniform");
    if (dist != "uniform" && dist != "hotspot") return bad("--distribution: expected uniform or hotspot");
    g.hotspot = dist == "hotspot";
    sc.dimensions = static_cast<int>(args.integer("dimensions", 2, 2, 3));
    sc.seed = g.seed;
    if (!args.error().empty()) return bad(args.error());
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
  if (args.has("steps")) sc.steps = static_cast<int>(args.integer("steps", 30, 0, 1000000));
  ddm::DdmVariant variant = ddm::DdmVariant::Auto;
  if (args.has("variant") && !ddm::parse_variant(args.str("variant"), variant))
    return bad("--variant: unknown variant '" + args.str("variant") + "'");
  if (!args.error().empty()) return bad(args.error());
  const bool json = args.has("json");
  std::unique_ptr<Context> ctx;
  if (const std::string err = demos::open_context(args, json, ctx); !err.empty()) return bad(err);
  Status st;
  const std::string pairs = args.str("pairs");
  return sc.dimensions == 2 ? run<2>(*ctx, variant, sc, json, pairs) : run<3>(*ctx, variant, sc, json, pairs);
}

}  // namespace warpmind::cli
