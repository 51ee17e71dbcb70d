// Suite "aoi": Sung's experiment grid — 512 .. 524,288 clients (powers of two) on maps 2500² and 5000²
// with AOI 10 and 20, one command per client per tick — plus 1M and 4M clients on 2500² with AOI 10.
// Every variant ticks the same world on the same commands; every tick's updates and notifications are
// compared with the first variant's. Enter/leave tracking is off (the thesis has none); the columns are
// the tick's stages (logic with the conflict merge, range query).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "../common/args.h"
#include "results.h"
#include "suites.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/core/context.h"

namespace warpmind::bench {

namespace {

constexpr const char* kHelp =
    "usage: warpmind-bench aoi [options]\n"
    "  --out FILE.json       write the results\n"
    "  --quick               two small worlds (a smoke test)\n"
    "  --backend B           cpu | cuda | auto (default auto)\n"
    "  --threads N           CPU threads (default: all)\n"
    "  --ticks N             ticks per world (default 5)\n"
    "  --max-clients N       skip larger worlds (default 4194304)\n"
    "  --no-scale            skip 1M and 4M clients\n";

struct Case {
  std::size_t clients;
  float map, aoi;
};

}  // namespace

int aoi_suite(int argc, char** argv) {
  demos::Args args(argc, argv, 1, {"out", "backend", "threads", "ticks", "max-clients"}, {"quick", "no-scale", "help"});
  if (args.has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const int ticks = static_cast<int>(args.integer("ticks", 5, 1, 10000));
  const auto max_clients = static_cast<std::size_t>(args.integer("max-clients", 4194304, 1, 1ll << 30));
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(args, "aoi", ctx)) return rc;
  std::vector<Case> cases;
  if (args.has("quick")) {
    cases = {{2048, 2500, 10}, {16384, 5000, 20}};
  } else {
    for (float map : {2500.0f, 5000.0f})
      for (float aoi : {10.0f, 20.0f})
        for (std::size_t n = 512; n <= 524288; n *= 2) cases.push_back({n, map, aoi});
    if (!args.has("no-scale")) {
      cases.push_back({1u << 20, 2500, 10});
      cases.push_back({4u << 20, 2500, 10});
    }
  }
  cases.erase(std::remove_if(cases.begin(), cases.end(), [&](const Case& c) { return c.clients > max_clients; }),
              cases.end());
  const std::vector<aoi::AoiVariant> variants = {aoi::AoiVariant::CpuFast, aoi::AoiVariant::CpuGrid};
  Results results("aoi", ctx->cuda() ? ctx->device().name : "cpu");
  int failures = 0;
  std::printf("%8s %5s %4s | %10s %10s %10s | %10s %9s | %12s   (ms per tick, medians)\n", "clients", "map", "aoi",
              "cpu-fast", " logic", " query", "cpu-grid", "fast x", "notifications");
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& cs = cases[ci];
    std::fprintf(stderr, "[%zu/%zu] %zu clients, map %g, AOI %g\n", ci + 1, cases.size(), cs.clients, cs.map, cs.aoi);
    aoi::AoiConfig cfg;
    cfg.world = {0, 0, cs.map, cs.map};
    cfg.aoi = cfg.max_move = cfg.attack_range = cs.aoi;
    cfg.track_visibility = false;
    const std::vector<aoi::Player> players = aoi::generate_players(cs.clients, cfg.world, 0, 17 + ci);
    std::vector<std::unique_ptr<aoi::AoiWorld>> worlds;
    for (aoi::AoiVariant v : variants) {
      cfg.variant = v;
      std::unique_ptr<aoi::AoiWorld> w;
      Status st = aoi::AoiWorld::create(*ctx, cfg, w);
      if (st.ok()) st = w->reset(players);
      if (!st.ok()) {
        std::fprintf(stderr, "  %s: %s\n", aoi::variant_name(v), st.message().c_str());
        return 1;
      }
      worlds.push_back(std::move(w));
    }
    std::vector<aoi::TickResult> out(variants.size());
    std::vector<std::vector<double>> total(variants.size()), logic(variants.size()), query(variants.size());
    std::vector<long long> mismatches(variants.size(), 0);
    std::vector<aoi::Command> cmds;
    aoi::CommandSpec spec;
    spec.seed = 5 + ci;
    std::size_t notes = 0;
    for (int t = 0; t < ticks; ++t) {
      aoi::make_commands(spec, cfg, ctx->pool(), cs.clients, static_cast<std::uint64_t>(t), cmds);
      for (std::size_t v = 0; v < variants.size(); ++v) {
        const auto t0 = std::chrono::steady_clock::now();
        const Status st = worlds[v]->tick(cmds, out[v]);
        total[v].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (!st.ok()) {
          std::fprintf(stderr, "  %s: %s\n", aoi::variant_name(variants[v]), st.message().c_str());
          return 1;
        }
        logic[v].push_back(out[v].ms_logic);
        query[v].push_back(out[v].ms_query);
        if (v > 0) mismatches[v] += !(out[v].updates == out[0].updates && out[v].notifications == out[0].notifications);
      }
      notes += out[0].notifications.size();
    }
    std::vector<double> med(variants.size());
    for (std::size_t v = 0; v < variants.size(); ++v) {
      Record r;
      r.timing.ms = total[v];
      std::sort(r.timing.ms.begin(), r.timing.ms.end());
      r.variant = aoi::variant_name(variants[v]);
      r.backend = "cpu";
      char buf[256];
      std::snprintf(buf, sizeof buf, "{\"clients\": %zu, \"map\": %g, \"aoi\": %g, \"shape\": \"square\", \"ticks\": %d}",
                    cs.clients, cs.map, cs.aoi, ticks);
      r.params_json = buf;
      r.checked = mismatches[v] == 0;
      std::sort(logic[v].begin(), logic[v].end());
      std::sort(query[v].begin(), query[v].end());
      std::snprintf(buf, sizeof buf, "\"logic_ms\": %.6f, \"query_ms\": %.6f, \"notifications_per_tick\": %.1f",
                    logic[v][logic[v].size() / 2], query[v][query[v].size() / 2], static_cast<double>(notes) / ticks);
      r.extra_json = buf;
      med[v] = r.timing.median();
      if (mismatches[v]) {
        std::fprintf(stderr, "  MISMATCH: %s differs from %s in %lld ticks\n", r.variant.c_str(),
                     aoi::variant_name(variants[0]), mismatches[v]);
        ++failures;
      }
      results.add(r);
    }
    std::printf("%8zu %5g %4g | %10.3f %10.3f %10.3f | %10.3f %8.1fx | %12.0f\n", cs.clients, cs.map, cs.aoi, med[0],
                logic[0][logic[0].size() / 2], query[0][query[0].size() / 2], med[1], med[0] > 0 ? med[1] / med[0] : 0.0,
                static_cast<double>(notes) / ticks);
    std::fflush(stdout);
    if (args.has("out")) {
      const std::string err = demos::write_file(args.str("out"), results.to_json());
      if (!err.empty()) {
        std::fprintf(stderr, "warpmind-bench aoi: %s\n", err.c_str());
        return 1;
      }
    }
  }
  if (args.has("out")) std::printf("wrote %s (%zu records)\n", args.str("out").c_str(), results.records().size());
  return failures ? 1 : 0;
}

}  // namespace warpmind::bench
