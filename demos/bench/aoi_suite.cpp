// Suite "aoi": Sung's experiment grid — 512 .. 524,288 clients (powers of two) on maps 2500² and 5000²
// with AOI 10 and 20, one command per client per tick — plus 1M and 4M clients on 2500² with AOI 10.
// Every variant ticks the same world on the same commands and hands its notifications to a sink chunk
// by chunk (so 4M clients, ~4.6 G notifications a tick, run in bounded memory): the sink counts them,
// hashes them in order and keeps those of 32 sampled receivers. Every tick's updates, players, count and
// hash are compared with the first variant's (cpu-fast), whose sampled receivers are checked against
// the brute-force contract. Enter/leave tracking is off (the thesis has none). The
// columns are the tick's stages as in the thesis's Table 4-8: commands up, logic with the conflict
// merge, bucket sort, range query, results down. A GPU variant's tick is its device time from the
// commands on the device to the complete notification list in device memory (logic + sort + query);
// upload and download are timed apart, the download against the measured host-link bandwidth. The
// floor is the notification list's bytes written once at the measured device copy bandwidth.
#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "results.h"
#include "suites.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/core/context.h"
#include "warpmind/core/device_ceilings.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/core/random.h"
#include "aoi_oracle.h"

namespace warpmind::bench {

namespace {

bool is_gpu(aoi::AoiVariant v) { return v == aoi::AoiVariant::GpuSorted || v == aoi::AoiVariant::GpuFast; }

struct Case {
  std::size_t clients;
  float map, aoi;
};

// The order-sensitive hash of a notification list: a sum over the notifications of a mix of each one
// with its index (the same for records and mailboxes, so either format can be compared).
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
std::uint64_t note_hash(std::uint32_t receiver, std::uint32_t subject, aoi::Field field, std::uint32_t value,
                        std::uint64_t index) {
  const std::uint64_t a = (std::uint64_t{receiver} << 32 | subject) ^ (index * 0x9e3779b97f4a7c15ull);
  const std::uint64_t b = std::uint64_t{static_cast<std::uint32_t>(field)} << 32 | value;
  return mix64(a ^ mix64(b));
}

// What a variant's sink keeps of a tick's notifications.
struct Digest {
  std::uint64_t count = 0, hash = 0, chunks = 0;
  std::vector<std::uint32_t> sampled;                // receivers, ascending
  std::vector<std::vector<aoi::Notification>> kept;  // their notifications
  bool corrupt = false;                              // the --corrupt self-test: every value off by one
  std::vector<std::uint64_t> partial;                // per worker

  void start(const std::vector<std::uint32_t>& receivers) {
    count = hash = chunks = 0;
    sampled = receivers;
    kept.assign(receivers.size(), {});
  }
  void take(const aoi::NotificationChunk& k, ThreadPool& pool) {
    const bool boxes = !k.mailbox_start.empty();
    const std::uint32_t bump = corrupt ? 1 : 0;
    partial.assign(pool.size(), 0);
    if (boxes) {
      pool.parallel_for(
          k.end_receiver - k.first_receiver,
          [&](std::size_t b, std::size_t e, unsigned w) {
            std::uint64_t h = 0;
            for (std::size_t i = b; i < e; ++i)
              for (std::uint64_t j = k.mailbox_start[i]; j < k.mailbox_start[i + 1]; ++j)
                h += note_hash(k.first_receiver + static_cast<std::uint32_t>(i), k.mailbox[j].subject(),
                               k.mailbox[j].field(), k.mailbox[j].value + bump, k.first_notification + j);
            partial[w] += h;
          },
          256);
    } else {
      pool.parallel_for(
          k.notifications.size(),
          [&](std::size_t b, std::size_t e, unsigned w) {
            std::uint64_t h = 0;
            for (std::size_t j = b; j < e; ++j) {
              const aoi::Notification& q = k.notifications[j];
              h += note_hash(q.receiver, q.subject, q.field, q.value + bump, k.first_notification + j);
            }
            partial[w] += h;
          },
          65536);
    }
    for (std::uint64_t h : partial) hash += h;
    count += boxes ? k.mailbox.size() : k.notifications.size();
    ++chunks;
    for (std::size_t i = 0; i < sampled.size(); ++i) {
      const std::uint32_t r = sampled[i];
      if (r < k.first_receiver || r >= k.end_receiver) continue;
      if (boxes) {
        const std::size_t at = r - k.first_receiver;
        for (std::uint64_t j = k.mailbox_start[at]; j < k.mailbox_start[at + 1]; ++j)
          kept[i].push_back({r, k.mailbox[j].subject(), k.mailbox[j].field(), k.mailbox[j].value + bump});
      } else {
        const auto lo = std::lower_bound(k.notifications.begin(), k.notifications.end(), r,
                                         [](const aoi::Notification& a, std::uint32_t v) { return a.receiver < v; });
        for (auto it = lo; it != k.notifications.end() && it->receiver == r; ++it)
          kept[i].push_back({it->receiver, it->subject, it->field, it->value + bump});
      }
    }
  }
};

// The reference's tick against the brute-force contract: every command's validation and merge, the
// updates and the players after the tick in full, and the notifications of the sampled receivers.
// Returns the number of differences found.
long long oracle_check(const aoi::AoiConfig& cfg, std::vector<aoi::Player>& players, std::span<const aoi::Command> cmds,
                       const aoi::TickResult& got, std::span<const aoi::Player> got_players, const Digest& digest,
                       ThreadPool& pool) {
  aoi::TickResult want;
  oracle::aoi_logic(cfg, players, cmds, want);
  long long bad = (want.updates != got.updates) + (want.rejected != got.rejected) + (want.accepted != got.accepted);
  for (std::size_t i = 0; i < players.size(); ++i)
    bad += oracle::aoi_bits(players[i].x) != oracle::aoi_bits(got_players[i].x) ||
           oracle::aoi_bits(players[i].y) != oracle::aoi_bits(got_players[i].y) || players[i].hp != got_players[i].hp;
  std::vector<long long> differs(digest.sampled.size(), 0);
  pool.parallel_for(digest.sampled.size(), [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; ++i)
      differs[i] = oracle::aoi_notifications_of(cfg, players, want.updates, digest.sampled[i]) != digest.kept[i];
  });
  for (long long d : differs) bad += d;
  return bad;
}

// The flags of the aoi suite.
struct Flags {
  SuiteFlags suite;
  int ticks = 5, scale_ticks = 2;
  std::size_t max_clients = 4194304, grid_max_clients = 65536;
  std::uint64_t chunk = std::uint64_t{1} << 25;
  bool no_scale = false, mailboxes = false;
};

int run(const Flags& f) {
  const int ticks = f.ticks;
  const std::size_t max_clients = f.max_clients;
  const std::size_t grid_max = f.grid_max_clients;
  std::unique_ptr<Context> ctx;
  if (int rc = open_context(f.suite, "aoi", ctx)) return rc;
  ResultsFile file;
  if (int rc = file.open(f.suite, "aoi")) return rc;
  std::vector<Case> cases;
  if (f.suite.quick) {
    cases = {{2048, 2500, 10}, {16384, 5000, 20}};
  } else {
    for (float map : {2500.0f, 5000.0f})
      for (float aoi : {10.0f, 20.0f})
        for (std::size_t n = 512; n <= 524288; n *= 2) cases.push_back({n, map, aoi});
    if (!f.no_scale) {
      cases.push_back({1u << 20, 2500, 10});
      cases.push_back({4u << 20, 2500, 10});
    }
  }
  cases.erase(std::remove_if(cases.begin(), cases.end(), [&](const Case& c) { return c.clients > max_clients; }),
              cases.end());
  const bool boxes = f.mailboxes;
  std::vector<aoi::AoiVariant> variants = {aoi::AoiVariant::CpuFast, aoi::AoiVariant::CpuGrid};
  DeviceCeilings ceil;
  if (ctx->cuda()) {
    variants.push_back(aoi::AoiVariant::GpuSorted);
    variants.push_back(aoi::AoiVariant::GpuFast);
    const Status st = measure_ceilings(*ctx, ceil);
    if (!st.ok()) {
      std::fprintf(stderr, "warpmind-bench aoi: %s\n", st.message().c_str());
      return 1;
    }
    std::printf("device %s: copy bandwidth %.0f GB/s, download (pinned) %.1f GB/s; CPU threads %u\n",
                ctx->device().name.c_str(), ceil.copy_bytes_per_s / 1e9, ceil.download_bytes_per_s / 1e9,
                ctx->pool().size());
  } else {
    std::printf("CPU only; CPU threads %u\n", ctx->pool().size());
  }
  if (std::any_of(cases.begin(), cases.end(), [&](const Case& c) { return c.clients > grid_max; }))
    std::printf("cpu-grid (one thread) left out above %zu clients (--grid-max-clients)\n", grid_max);
  Results results("aoi", ctx->cuda() ? ctx->device().name : "cpu");
  int failures = 0;
  std::printf("%8s %5s %4s %-9s | %9s %8s %8s %8s | %8s %9s | %8s %8s | %12s   (ms, medians)\n", "clients", "map",
              "aoi", "variant", "tick", "logic", "sort", "query", "upload", "download", "x cpu", "floor",
              "notifications");
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& cs = cases[ci];
    std::fprintf(stderr, "[%zu/%zu] %zu clients, map %g, AOI %g\n", ci + 1, cases.size(), cs.clients, cs.map, cs.aoi);
    aoi::AoiConfig cfg;
    cfg.world = {0, 0, cs.map, cs.map};
    cfg.aoi = cfg.max_move = cfg.attack_range = cs.aoi;
    cfg.track_visibility = false;
    cfg.chunk_notifications = f.chunk;
    cfg.format = boxes ? aoi::NotificationFormat::Mailboxes : aoi::NotificationFormat::Records;
    const std::vector<aoi::Player> players = aoi::generate_players(cs.clients, cfg.world, 0, 17 + ci);
    // cpu-grid (one thread, the thesis's baseline) only where a tick takes seconds at most.
    std::vector<aoi::AoiVariant> here = variants;
    if (cs.clients > grid_max) here.erase(std::remove(here.begin(), here.end(), aoi::AoiVariant::CpuGrid), here.end());
    std::vector<std::unique_ptr<aoi::AoiWorld>> worlds;
    for (aoi::AoiVariant v : here) {
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
    const std::size_t nv = here.size();
    const int case_ticks = cs.clients > 524288 ? std::min(ticks, f.scale_ticks) : ticks;
    enum { kTick, kLogic, kSort, kQuery, kUpload, kDownload, kWall, kColumns };
    std::vector<std::array<std::vector<double>, kColumns>> col(nv);
    std::vector<aoi::TickResult> out(nv);
    std::vector<Digest> digest(nv);
    std::vector<long long> mismatches(nv, 0);
    std::vector<std::string> refused(nv);  // a variant that refused the world (gpu-sorted above 2^31 - 1)
    for (std::size_t v = 0; v < nv; ++v) digest[v].corrupt = corrupt(aoi::variant_name(here[v]));
    std::vector<aoi::Command> cmds;
    aoi::CommandSpec spec;
    spec.seed = 5 + ci;
    std::size_t sampled = 0;
    std::uint64_t notes = 0, chunks = 0;
    SplitMix64 sampler(41 + ci);
    std::vector<aoi::Player> before;
    std::vector<std::uint32_t> receivers(std::min<std::size_t>(32, cs.clients));
    for (int t = 0; t < case_ticks; ++t) {
      aoi::make_commands(spec, cfg, ctx->pool(), cs.clients, static_cast<std::uint64_t>(t), cmds);
      before.assign(worlds[0]->players().begin(), worlds[0]->players().end());
      for (std::uint32_t& r : receivers) r = static_cast<std::uint32_t>(sampler.next() % cs.clients);
      std::sort(receivers.begin(), receivers.end());
      receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
      for (std::size_t v = 0; v < nv; ++v) {
        if (!refused[v].empty()) continue;
        Digest& d = digest[v];
        d.start(receivers);
        const auto t0 = std::chrono::steady_clock::now();
        const Status st =
            worlds[v]->tick(cmds, out[v], [&](const aoi::NotificationChunk& k) { d.take(k, ctx->pool()); });
        const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!st.ok() && here[v] == aoi::AoiVariant::GpuSorted && st.code() == StatusCode::InvalidArgument) {
          refused[v] = st.message();
          std::printf("%8zu %5g %4g %-9s | not run: %s\n", cs.clients, cs.map, cs.aoi, aoi::variant_name(here[v]),
                      st.message().c_str());
          continue;
        }
        if (!st.ok()) {
          std::fprintf(stderr, "  %s: %s\n", aoi::variant_name(here[v]), st.message().c_str());
          return 1;
        }
        const aoi::TickResult& o = out[v];
        const bool gpu = is_gpu(here[v]);
        // CPU: the tick's wall time less the sink's (its sort is inside the query). GPU: device time until
        // every notification is written (logic, sort, query with the chunks' writes).
        col[v][kTick].push_back(gpu ? o.ms_logic + o.ms_sort + o.ms_query : o.ms_logic + o.ms_query + o.ms_visibility);
        col[v][kLogic].push_back(o.ms_logic);
        col[v][kSort].push_back(o.ms_sort);
        col[v][kQuery].push_back(gpu ? o.ms_query : o.ms_query - o.ms_sort);
        col[v][kUpload].push_back(o.ms_upload);
        col[v][kDownload].push_back(o.ms_download);
        col[v][kWall].push_back(wall);
        if (d.count != o.notification_count) ++mismatches[v];
        if (v == 0) {
          mismatches[v] += oracle_check(cfg, before, cmds, o, worlds[0]->players(), d, ctx->pool());
          sampled += d.sampled.size();
        } else {
          const std::span<const aoi::Player> a = worlds[v]->players(), b = worlds[0]->players();
          bool same_players = a.size() == b.size();
          for (std::size_t i = 0; same_players && i < a.size(); ++i)
            same_players = oracle::aoi_bits(a[i].x) == oracle::aoi_bits(b[i].x) &&
                           oracle::aoi_bits(a[i].y) == oracle::aoi_bits(b[i].y) && a[i].hp == b[i].hp;
          mismatches[v] += !(same_players && o.updates == out[0].updates && o.rejected == out[0].rejected &&
                             o.accepted == out[0].accepted && d.count == digest[0].count && d.hash == digest[0].hash);
        }
      }
      notes += digest[0].count;
      chunks += digest[0].chunks;
    }
    const double notes_per_tick = static_cast<double>(notes) / case_ticks;
    // The list's bytes in device memory and down the link (mailboxes: entries and the receivers' starts).
    const double note_bytes =
        boxes ? notes_per_tick * sizeof(aoi::MailboxEntry) + (cs.clients + 1.0) * sizeof(std::uint64_t)
              : notes_per_tick * sizeof(aoi::Notification);
    std::vector<double> med(nv);
    for (std::size_t v = 0; v < nv; ++v) {
      if (!refused[v].empty()) continue;
      std::array<double, kColumns> m{};
      for (int k = 0; k < kColumns; ++k) {
        std::sort(col[v][k].begin(), col[v][k].end());
        m[k] = col[v][k][col[v][k].size() / 2];
      }
      const bool gpu = is_gpu(here[v]);
      Record r;
      r.timing.ms = col[v][kTick];
      r.variant = aoi::variant_name(here[v]);
      r.backend = gpu ? "cuda" : "cpu";
      char buf[512];
      std::snprintf(
          buf, sizeof buf,
          "{\"clients\": %zu, \"map\": %g, \"aoi\": %g, \"shape\": \"square\", \"ticks\": %d, \"format\": \"%s\", "
          "\"chunk_notifications\": %llu}",
          cs.clients, cs.map, cs.aoi, case_ticks, boxes ? "mailboxes" : "records",
          static_cast<unsigned long long>(f.chunk));
      r.params_json = buf;
      r.compared(v == 0 ? "oracle" : aoi::variant_name(here[0]), mismatches[v] == 0);
      if (gpu) r.floor_ms = note_bytes / ceil.copy_bytes_per_s * 1e3;
      const double link_ms = gpu ? note_bytes / ceil.download_bytes_per_s * 1e3 : 0;
      std::snprintf(
          buf, sizeof buf,
          "\"logic_ms\": %.6f, \"sort_ms\": %.6f, \"query_ms\": %.6f, \"upload_ms\": %.6f, "
          "\"download_ms\": %.6f, \"download_floor_ms\": %.6f, \"wall_ms\": %.6f, \"notifications_per_tick\": %.1f",
          m[kLogic], m[kSort], m[kQuery], m[kUpload], m[kDownload], link_ms, m[kWall], notes_per_tick);
      r.extra_json = buf;
      r.extra_json += ", \"mismatches\": " + std::to_string(mismatches[v]) +
                      ", \"chunks_per_tick\": " + std::to_string(static_cast<double>(chunks) / case_ticks);
      if (v == 0) r.extra_json += ", \"oracle_receivers\": " + std::to_string(sampled);
      med[v] = r.timing.median();
      if (mismatches[v]) {
        std::fprintf(stderr, "  MISMATCH: %s differs from %s (%lld)\n", r.variant.c_str(), r.checked_against.c_str(),
                     mismatches[v]);
        ++failures;
      }
      std::printf("%8zu %5g %4g %-9s | %9.3f %8.3f %8.3f %8.3f | %8.3f %9.3f | %7.1fx %8.4f | %12.0f\n", cs.clients,
                  cs.map, cs.aoi, r.variant.c_str(), med[v], m[kLogic], m[kSort], m[kQuery], m[kUpload], m[kDownload],
                  med[v] > 0 ? med[0] / med[v] : 0.0, gpu ? r.floor_ms : 0.0, notes_per_tick);
      results.add(r);
    }
    std::fflush(stdout);
    if (!file.write(results)) return 1;
  }
  file.finish(results);
  return failures ? 1 : 0;
}

}  // namespace

demos::Subcommand aoi_suite(CLI::App& parent) {
  auto f = std::make_shared<Flags>();
  CLI::App* app = add_suite(
      parent, "aoi",
      "MMO server ticks, 512 to 4,194,304 clients (Sung)\n"
      "MMO server ticks: 512 to 524,288 clients on maps of side 2500 and 5000 with AOI 10 and 20, and 1M and 4M "
      "clients; every variant in one run.",
      "Checks, every tick: cpu-fast against the brute-force contract (validation, merge, updates and players in "
      "full; the notifications of 32 sampled receivers); every other variant's players, updates, counts and "
      "notifications against cpu-fast's.",
      "two small worlds (a smoke test)", f->suite);
  demos::add_integer(*app, "--ticks", f->ticks, 1, 10000, "N", "ticks per world");
  demos::add_integer(*app, "--max-clients", f->max_clients, 1, 1ll << 30, "N", "skip larger worlds");
  demos::add_flag(*app, "--no-scale", f->no_scale, "skip 1M and 4M clients");
  demos::add_integer(*app, "--scale-ticks", f->scale_ticks, 1, 10000, "N",
                     "ticks per world above 524,288 clients (at most --ticks)");
  demos::add_integer(*app, "--chunk", f->chunk, 1, std::numeric_limits<long long>::max(), "N",
                     "notifications per chunk handed to the sink (AoiConfig::chunk_notifications)");
  demos::add_integer(*app, "--grid-max-clients", f->grid_max_clients, 0, 1ll << 30, "N",
                     "run cpu-grid (one thread, seconds per tick at 131,072 clients) only up to N clients; the "
                     "output says where it was left out");
  demos::add_flag(*app, "--mailboxes", f->mailboxes,
                  "notifications as per-receiver mailboxes (8-byte entries) instead of 16-byte records");
  return {app, [f] { return run(*f); }};
}

}  // namespace warpmind::bench
