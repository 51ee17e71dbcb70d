// warpmind-server --virtual-clients (virtual_clients.h).
#include <cmath>
#include <cstdio>
#include <cstring>

#include "virtual_clients.h"

#include "server.h"

namespace warpmind::server {

namespace {

std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

constexpr std::size_t kSlot = 128;  // a Move or an Attack is about 60 bytes, sealed 84

}  // namespace

float VirtualRun::uniform(std::uint64_t& r) const {
  return static_cast<float>(splitmix(r) >> 40) * 0x1p-24f * sv_.f.map;
}

// Every client joins: its slot, token and spawn point, and its first waypoint.
bool VirtualRun::join() {
  const std::uint32_t n = sv_.total;
  clients_.assign(n, Client{});
  client_keys_.assign(n, net::SessionKeys{});
  server_keys_.assign(n, net::SessionKeys{});
  std::uint8_t master[crypto_kdf_KEYBYTES];
  crypto_kdf_keygen(master);
  // The cipher a connected client of this server would get (--cipher; every virtual client offers both).
  const net::Cipher cipher =
      sv_.f.keys.cipher == "auto" && net::aes256gcm_available() ? net::Cipher_Aes256Gcm : net::Cipher_ChaCha20Poly1305;
  bool keyed = true;
  for (std::uint32_t i = 0; i < n && keyed; ++i)
    keyed = net::SessionKeys::derive_pair(master, i, client_keys_[i], server_keys_[i]) && client_keys_[i].use(cipher) &&
            server_keys_[i].use(cipher);
  sv_.sessions.set_sealed(cipher, keyed ? n : 0);
  sodium_memzero(master, sizeof master);
  if (!keyed) return false;
  std::uint64_t seed = sv_.f.seed;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t token = splitmix(seed) | 1;
    const aoi::Player spawn{uniform(seed), uniform(seed), 100};
    sv_.sessions.join_virtual(i, token, spawn);
    clients_[i].rng = splitmix(seed);
    clients_[i].wx = uniform(clients_[i].rng);
    clients_[i].wy = uniform(clients_[i].rng);
  }
  arena_.assign(static_cast<std::size_t>(n) * kSlot, 0);
  length_.assign(n, 0);
  return true;
}

// The clients' side (not timed): each client's Move or Attack of this tick, into the arena.
void VirtualRun::write_commands() {
  const std::span<const aoi::Player> pos = sv_.world->players();
  sv_.ctx->pool().parallel_for(
      sv_.total,
      [&](std::size_t begin, std::size_t end, unsigned w) {
        flatbuffers::FlatBufferBuilder& b = workers_[w].b;
        for (std::size_t i = begin; i < end; ++i) {
          Client& c = clients_[i];
          const std::uint32_t seq = ++c.seq;
          b.Clear();
          if (seen_[i] != UINT32_MAX &&
              static_cast<double>(splitmix(c.rng) >> 11) * 0x1p-53 < sv_.f.virtual_clients.attack_share) {
            net::FinishMessageBuffer(
                b, net::CreateMessage(
                       b, net::Body_Attack,
                       net::CreateAttack(b, sv_.sessions.slot(i).token, seq, seen_[i], sv_.tick - 1).Union()));
          } else {
            if (std::fabs(pos[i].x - c.wx) < 0.5f && std::fabs(pos[i].y - c.wy) < 0.5f) {
              c.wx = uniform(c.rng);
              c.wy = uniform(c.rng);
            }
            net::FinishMessageBuffer(
                b, net::CreateMessage(
                       b, net::Body_Move,
                       net::CreateMove(b, sv_.sessions.slot(i).token, seq, c.wx, c.wy, sv_.tick - 1).Union()));
          }
          const std::size_t n = std::min<std::size_t>(b.GetSize(), kSlot - net::kSealOverhead);
          client_keys_[i].seal(net::kStreamChannel, b.GetBufferPointer(), n, arena_.data() + i * kSlot);
          length_[i] = static_cast<std::uint16_t>(n + net::kSealOverhead);
        }
      },
      1024);
}

// Intake (timed): every message opened, verified and taken, as the server takes a packet.
void VirtualRun::take_commands() {
  const Clock::time_point t0 = Clock::now();
  sv_.ctx->pool().parallel_for(
      sv_.total,
      [&](std::size_t begin, std::size_t end, unsigned w) {
        Worker& k = workers_[w];
        alignas(8) std::uint8_t plain[kSlot];
        for (std::size_t i = begin; i < end; ++i) {
          std::size_t size = 0;
          const net::OpenError e =
              server_keys_[i].open(net::kStreamChannel, arena_.data() + i * kSlot, length_[i], plain, size);
          if (e != net::OpenError::None) {
            ++k.drops[e == net::OpenError::Forged ? Forged : Replayed];
            continue;
          }
          const net::Message* m = net::read_message(plain, size);
          const int d = m ? sv_.sessions.take_command(static_cast<int>(i), *m) : BadPacket;
          if (d >= 0)
            ++k.drops[d];
          else
            ++k.commands;
        }
      },
      1024);
  intake_ms_.push_back(std::chrono::duration<float, std::milli>(Clock::now() - t0).count());
}

// The AOI module's own times of a tick.
void VirtualRun::record(const aoi::TickResult& result) {
  for (std::size_t k : result.rejected) rejected_ += k;
  upload_.push_back(static_cast<float>(result.ms_upload));
  query_.push_back(static_cast<float>(result.ms_query + result.ms_sort + result.ms_logic));
  visibility_.push_back(static_cast<float>(result.ms_visibility));
  download_.push_back(static_cast<float>(result.ms_download));
}

// The run's JSON line on stdout; the exit status (1 when a message was dropped).
int VirtualRun::report() const {
  const Flags& f = sv_.f;
  std::uint64_t packets = 0, bytes = 0, notes = 0, commands = 0, dropped = 0;
  for (const Worker& w : workers_) {
    packets += w.packets, bytes += w.bytes, notes += w.notifications, commands += w.commands;
    for (std::uint64_t d : w.drops) dropped += d;
  }
  const double ticks = std::max<std::uint64_t>(1, sv_.times.tick().count());
  const auto p = [](const std::vector<float>& v, double q) { return percentile(v, q); };
  std::printf(
      "{\"program\":\"warpmind-server\",\"mode\":\"virtual\",\"clients\":%u,\"ticks\":%zu,\"map\":%g,\"aoi\":%g,"
      "\"shape\":\"%s\",\"cipher\":\"%s\",\"attack_share\":%g,\"threads\":%u,\"backend\":\"%s\",\"variant\":\"%s\","
      "\"notifications_per_tick\":%.0f,\"messages_per_tick\":%.0f,\"bytes_per_tick\":%.0f,\"commands\":%llu,"
      "\"dropped\":%llu,\"rejected_by_aoi\":%llu,"
      "\"tick_ms\":{\"p50\":%.4f,\"p90\":%.4f,\"p99\":%.4f,\"max\":%.4f},\"intake_ms\":{\"p50\":%.4f,\"p99\":%.4f},"
      "\"stages_ms\":{\"commands\":%.4f,\"aoi\":%.4f,\"messages\":%.4f,\"aoi_upload\":%.4f,\"aoi_query\":%.4f,"
      "\"aoi_visibility\":%.4f,\"aoi_download\":%.4f}}\n",
      sv_.total, static_cast<std::size_t>(sv_.times.tick().count()), f.map, f.aoi, aoi::shape_name(sv_.cfg.shape),
      sv_.sessions.counts().ciphers[net::Cipher_Aes256Gcm] ? "aes-256-gcm" : "chacha20-poly1305",
      f.virtual_clients.attack_share, sv_.ctx->pool().size(), backend_name(sv_.ctx->backend()),
      aoi::variant_name(sv_.world->variant()), static_cast<double>(notes) / ticks, static_cast<double>(packets) / ticks,
      static_cast<double>(bytes) / ticks, static_cast<unsigned long long>(commands),
      static_cast<unsigned long long>(dropped), static_cast<unsigned long long>(rejected_),
      p(sv_.times.tick().kept(), 0.5), p(sv_.times.tick().kept(), 0.9), p(sv_.times.tick().kept(), 0.99),
      sv_.times.tick().max(), p(intake_ms_, 0.5), p(intake_ms_, 0.99), p(sv_.times.commands().kept(), 0.5),
      p(sv_.times.module().kept(), 0.5), p(sv_.times.encode().kept(), 0.5), p(upload_, 0.5), p(query_, 0.5),
      p(visibility_, 0.5), p(download_, 0.5));
  return dropped == 0 ? 0 : 1;
}

// Virtual clients acknowledge every State, so each State's catch-up is the players that came into view.
void VirtualRun::deliver(const aoi::NotificationChunk& c, const aoi::TickResult& r, std::uint64_t time_us) {
  const std::span<const aoi::Player> after = sv_.world->players();
  const auto first_of = [](const std::vector<aoi::VisibilityEvent>& list, std::size_t i) {
    return static_cast<std::size_t>(
        std::lower_bound(list.begin(), list.end(), i,
                         [](const aoi::VisibilityEvent& e, std::size_t x) { return e.receiver < x; }) -
        list.begin());
  };
  sv_.ctx->pool().parallel_for(
      c.end_receiver - c.first_receiver,
      [&](std::size_t begin, std::size_t end, unsigned w) {
        Worker& k = workers_[w];
        std::size_t e_in = first_of(r.entered, c.first_receiver + begin);
        std::size_t e_out = first_of(r.left, c.first_receiver + begin);
        for (std::size_t n = begin; n < end; ++n) {
          const std::uint32_t i = static_cast<std::uint32_t>(c.first_receiver + n);
          const auto entered = events_of(r.entered, i, e_in), gone = events_of(r.left, i, e_out);
          if (sv_.sessions.slot(i).state != SlotState::Active) continue;
          const std::span<const aoi::MailboxEntry> box = box_of(c, i);
          k.notifications += box.size();
          seen_[i] = UINT32_MAX;
          for (const aoi::MailboxEntry& e : box)
            if (e.subject() != i) {
              seen_[i] = e.subject();
              break;
            }
          // Virtual clients acknowledge every State: the catch-up is the players that came into view.
          k.keys.clear();
          for (const aoi::VisibilityEvent& e : entered) all_fields(k.keys, e.other);
          finish_catch_up(i, k.keys, box, after, k.catch_up, true);
          k.notifications += k.catch_up.size();
          // Each message sealed, as for a connected client (and counted at its size on the wire).
          const auto seal = [&](std::uint8_t channel) {
            k.sealed.resize(k.b.GetSize() + net::kSealOverhead);
            server_keys_[i].seal(channel, k.b.GetBufferPointer(), k.b.GetSize(), k.sealed.data());
            ++k.packets;
            k.bytes += k.sealed.size();
          };
          sv_.outbox.build_state(k.b, i, box, k.catch_up, sv_.tick - 1, time_us, after[i]);
          seal(net::kStreamChannel);
          if (sv_.outbox.build_events(k.b, entered, gone)) seal(net::kReliableChannel);
        }
      },
      256);
}

int VirtualRun::run() {
  workers_.resize(sv_.ctx->pool().size());
  seen_.assign(sv_.total, UINT32_MAX);
  if (!join()) {
    std::fprintf(stderr, "warpmind-server: cannot start libsodium for the virtual clients' keys\n");
    return 1;
  }
  std::vector<aoi::Command> cmds;
  aoi::TickResult result;
  sv_.run_tick(cmds, result);  // the joins
  if (g_stop.load()) return 1;
  sv_.times.clear_stages();
  for (Worker& w : workers_) w = {};
  for (int t = 0; t < sv_.f.virtual_clients.ticks && !g_stop.load(); ++t) {
    write_commands();
    take_commands();
    sv_.run_tick(cmds, result);
    if (g_stop.load()) return 1;
    record(result);
  }
  return report();
}

int run_virtual(Server& sv) {
  sv.virtual_run = std::make_unique<VirtualRun>(sv);
  return sv.virtual_run->run();
}

}  // namespace warpmind::server
