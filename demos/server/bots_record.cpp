// warpmind-bots' record files (bots_record.h). One description of the fields, walked by a writer and by a
// reader, so the two cannot drift apart.
#include "bots_record.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <type_traits>

namespace warpmind::bots {
namespace {

constexpr char kMagic[8] = {'W', 'M', 'B', 'O', 'T', 'R', 'E', 'C'};
constexpr std::uint32_t kFormat = 1;

struct Writer {
  std::vector<std::uint8_t> out;  // written to the file a bot at a time
  void word(std::uint64_t v, int bytes) {
    for (int b = 0; b < bytes; ++b) out.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
  }
  template <class T>
  void operator()(const T& v) {
    if constexpr (std::is_same_v<T, float>) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, 4);
      word(bits, 4);
    } else if constexpr (std::is_same_v<T, bool>) {
      word(v ? 1 : 0, 1);
    } else {
      word(static_cast<std::uint64_t>(v), sizeof(T));
    }
  }
  // A list: its length, then each element by `each`.
  template <class T, class F>
  void list(const std::vector<T>& v, F each) {
    (*this)(static_cast<std::uint64_t>(v.size()));
    for (const T& e : v) each(e);
  }
};

struct Reader {
  const std::vector<std::uint8_t>& in;
  std::size_t at = 0;
  bool ok = true;
  std::uint64_t word(int bytes) {
    if (!ok || in.size() - at < static_cast<std::size_t>(bytes)) {
      ok = false;
      return 0;
    }
    std::uint64_t v = 0;
    for (int b = 0; b < bytes; ++b) v |= static_cast<std::uint64_t>(in[at + b]) << (8 * b);
    at += static_cast<std::size_t>(bytes);
    return v;
  }
  template <class T>
  void operator()(T& v) {
    if constexpr (std::is_same_v<T, float>) {
      const auto bits = static_cast<std::uint32_t>(word(4));
      std::memcpy(&v, &bits, 4);
    } else if constexpr (std::is_same_v<T, bool>) {
      const std::uint64_t b = word(1);
      ok = ok && b <= 1;
      v = b == 1;
    } else {
      v = static_cast<T>(word(sizeof(T)));
    }
  }
  template <class T, class F>
  void list(std::vector<T>& v, F each) {
    std::uint64_t n = 0;
    (*this)(n);
    // Every element takes at least one byte: a count beyond what is left cannot be true.
    if (!ok || n > in.size() - at) {
      ok = false;
      return;
    }
    v.resize(n);
    for (T& e : v) {
      each(e);
      if (!ok) return;
    }
  }
};

// The walks below serve both directions: IO is the Writer (W, S const) or the Reader.
template <class IO, class W>
void world_fields(IO& io, W& w) {
  io(w.cfg.world.x0), io(w.cfg.world.y0), io(w.cfg.world.width), io(w.cfg.world.height), io(w.cfg.aoi);
  io(w.map), io(w.max_move);
  auto shape = static_cast<std::uint32_t>(w.cfg.shape);
  auto hz = static_cast<std::uint32_t>(w.tick_hz);
  io(shape), io(hz);
  if constexpr (!std::is_const_v<W>) {
    w.cfg.shape = static_cast<aoi::AoiShape>(shape);
    w.tick_hz = static_cast<int>(hz);
  }
}

template <class IO, class S>
void session_fields(IO& io, S& s) {
  io(s.player), io(s.token), io(s.first_tick), io(s.end_tick), io(s.resumed), io(s.joins), io(s.after_crash);
  io(s.spawn_x), io(s.spawn_y), io(s.spawn_hp), io(s.welcome_last_seq), io(s.welcome_seq);
  io(s.before_x), io(s.before_y), io(s.before_last_seq), io(s.before_seq), io(s.before_exact), io(s.gone);
  io(s.lost);
  io.list(s.sent, [&](auto& k) { io(k.attack), io(k.x), io(k.y); });
  const auto entry = [&](auto& e) { io(e.subject_field), io(e.value); };
  io.list(s.states, [&](auto& r) {
    io(r.tick), io(r.since), io(r.last_seq), io(r.x), io(r.y), io(r.hp);
    io.list(r.entries, entry);
    io.list(r.catch_up, entry);
  });
  const auto id = [&](auto& p) { io(p); };
  io.list(s.events, [&](auto& e) {
    io(e.tick);
    io.list(e.entered, id);
    io.list(e.left, id);
  });
}

}  // namespace

std::string write_record(const std::string& path, const World& world, const std::vector<Bot>& bots) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return path + ": cannot be written";
  Writer w;
  const auto flush = [&] {
    f.write(reinterpret_cast<const char*>(w.out.data()), static_cast<std::streamsize>(w.out.size()));
    w.out.clear();
  };
  w.out.insert(w.out.end(), std::begin(kMagic), std::end(kMagic));
  w(kFormat);
  world_fields(w, world);
  w(static_cast<std::uint64_t>(bots.size()));
  for (const Bot& b : bots) {
    w.list(b.sessions, [&](const Session& s) { session_fields(w, s); });
    flush();
  }
  flush();
  f.close();
  return f ? "" : path + ": write failed";
}

std::string read_records(const std::vector<std::string>& paths, World& world, std::vector<Bot>& bots) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    std::ifstream f(path, std::ios::binary);
    if (!f) return path + ": cannot be read";
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
      return path + ": not a warpmind-bots record";
    Reader r{bytes, sizeof kMagic};
    std::uint32_t format = 0;
    r(format);
    if (r.ok && format != kFormat)
      return path + ": record format " + std::to_string(format) + " (this program reads " + std::to_string(kFormat) +
             ")";
    World w;
    world_fields(r, w);
    if (r.ok && w.cfg.shape != aoi::AoiShape::Square && w.cfg.shape != aoi::AoiShape::Circle)
      return path + ": unknown AOI shape " + std::to_string(static_cast<unsigned>(w.cfg.shape));
    if (r.ok && i > 0 &&
        (std::memcmp(&w.cfg.world, &world.cfg.world, sizeof w.cfg.world) != 0 || w.cfg.aoi != world.cfg.aoi ||
         w.cfg.shape != world.cfg.shape || w.map != world.map || w.max_move != world.max_move ||
         w.tick_hz != world.tick_hz))
      return path + ": another world than " + paths[0] + "'s (not the same server or cluster)";
    if (i == 0 && r.ok) {
      world.cfg = w.cfg;
      world.map = w.map, world.max_move = w.max_move, world.tick_hz = w.tick_hz;
      world.known = true;
    }
    std::uint64_t n = 0;
    r(n);
    for (std::uint64_t b = 0; r.ok && b < n; ++b) {
      bots.emplace_back();
      r.list(bots.back().sessions, [&](Session& s) { session_fields(r, s); });
    }
    if (!r.ok || r.at != bytes.size())
      return path + ": damaged or cut short at byte " + std::to_string(r.at) + " of " + std::to_string(bytes.size());
  }
  return "";
}

}  // namespace warpmind::bots
