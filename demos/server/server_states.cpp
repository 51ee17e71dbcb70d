// What warpmind-server sends its clients after a tick (outbox.h).
#include <cstring>

#include "outbox.h"

#include "server.h"

namespace warpmind::server {

namespace {

// Keys (subject | field << 30) in (subject, field) order.
bool key_less(std::uint32_t a, std::uint32_t b) {
  return std::pair(a & 0x3fffffffu, a >> 30) < std::pair(b & 0x3fffffffu, b >> 30);
}

}  // namespace

static_assert(sizeof(net::Entry) == sizeof(aoi::MailboxEntry));

// One chunk of the tick's mailboxes: every receiver's State and Events, to its client (one zone: the
// slot's client; a cluster: the players in this zone's area after the tick, wherever their clients are).
void Outbox::deliver_chunk(const aoi::NotificationChunk& c, const aoi::TickResult& r, std::uint64_t time_us) {
  const std::span<const aoi::Player> after = sv_.world->players();
  for (std::uint32_t i = c.first_receiver; i < c.end_receiver; ++i) {
    const auto entered = events_of(r.entered, i, out_in_), gone = events_of(r.left, i, out_left_);
    // One zone: a player in the game — Detached ones too, whose views are kept up for their clients'
    // resume, though nothing is sent.
    const bool mine_now = sv_.f.zones == 1 ? playing(sv_.sessions.slot(i).state) : sv_.in_zone(after[i]);
    if (!mine_now) continue;
    const std::span<const aoi::MailboxEntry> box = box_of(c, i);
    const std::uint64_t since =
        catch_up_of(i, sv_.clients.view(i), sv_.f.zones == 1 ? sv_.sessions.slot(i).acked : sv_.clients.acked(i),
                    entered, gone, box, after, catch_up_);
    if (sv_.f.zones == 1 && sv_.sessions.slot(i).peer == nullptr) continue;
    notifications_ += box.size() + catch_up_.size();
    build_state(builder_, i, box, catch_up_, since, time_us, after[i]);
    sv_.zones.deliver(i, net::kStreamChannel, {builder_.GetBufferPointer(), builder_.GetSize()});
    if (build_events(builder_, entered, gone))
      sv_.zones.deliver(i, net::kReliableChannel, {builder_.GetBufferPointer(), builder_.GetSize()});
  }
}

// Receiver i's mailbox in a chunk.
std::span<const aoi::MailboxEntry> box_of(const aoi::NotificationChunk& c, std::uint32_t i) {
  const std::size_t k = i - c.first_receiver;
  return c.mailbox.subspan(c.mailbox_start[k], c.mailbox_start[k + 1] - c.mailbox_start[k]);
}

// Receiver i's events of a sorted list, from the cursor `at` on (which it moves past them).
std::span<const aoi::VisibilityEvent> events_of(const std::vector<aoi::VisibilityEvent>& list, std::uint32_t i,
                                                std::size_t& at) {
  while (at < list.size() && list[at].receiver < i) ++at;
  const std::size_t from = at;
  while (at < list.size() && list[at].receiver == i) ++at;
  return {list.data() + from, at - from};
}

// Receiver i's State after this tick: its mailbox, its own player, its last applied command.
void Outbox::build_state(flatbuffers::FlatBufferBuilder& b, std::uint32_t i, std::span<const aoi::MailboxEntry> box,
                         std::span<const aoi::MailboxEntry> catch_up, std::uint64_t since, std::uint64_t time_us,
                         const aoi::Player& me) const {
  b.Clear();
  const auto entries = b.CreateVectorOfStructs(reinterpret_cast<const net::Entry*>(box.data()), box.size());
  const auto extra = b.CreateVectorOfStructs(reinterpret_cast<const net::Entry*>(catch_up.data()), catch_up.size());
  const auto state =
      net::CreateState(b, sv_.tick, time_us, sv_.clients.last_applied(i), me.x, me.y, me.hp, entries, since, extra);
  net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_State, state.Union()));
}

// The keys of all three fields of subject s.
void all_fields(std::vector<std::uint32_t>& keys, std::uint32_t s) {
  keys.insert(keys.end(), {s, s | 1u << 30, s | 2u << 30});
}

// keys (subject | field << 30; any order and repeats allowed unless `ordered`: already in (subject,
// field) order without repeats) into `out`: (subject, field) order, without receiver i's own and
// without those in `box`, each with its value after this tick.
void finish_catch_up(std::uint32_t i, std::vector<std::uint32_t>& keys, std::span<const aoi::MailboxEntry> box,
                     std::span<const aoi::Player> now, std::vector<aoi::MailboxEntry>& out, bool ordered) {
  if (!ordered) {
    std::sort(keys.begin(), keys.end(), key_less);
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  }
  out.clear();
  std::size_t b = 0;
  for (const std::uint32_t k : keys) {
    const std::uint32_t subject = k & 0x3fffffffu;
    if (subject == i) continue;
    while (b < box.size() && key_less(box[b].subject_field, k)) ++b;
    if (b < box.size() && box[b].subject_field == k) continue;
    const aoi::Player& p = now[subject];
    std::uint32_t v;
    if ((k >> 30) == 0)
      std::memcpy(&v, &p.x, 4);
    else if ((k >> 30) == 1)
      std::memcpy(&v, &p.y, 4);
    else
      std::memcpy(&v, &p.hp, 4);
    out.push_back({k, v});
  }
}

// One zone, over the network: brings slot i's visible set and history up to this tick and makes its
// catch-up; returns `since`. Caught up (acknowledged the previous tick): the players that came into
// view, whole. Behind by at most kHistory ticks: what changed in the ticks it missed and who came into
// view since, of the players in view now. Otherwise (no acknowledgement yet, or too old): a snapshot
// of every player in view.
std::uint64_t Outbox::catch_up_of(std::uint32_t i, View& v, std::uint64_t a,
                                  std::span<const aoi::VisibilityEvent> entered,
                                  std::span<const aoi::VisibilityEvent> gone, std::span<const aoi::MailboxEntry> box,
                                  std::span<const aoi::Player> now, std::vector<aoi::MailboxEntry>& out) {
  const std::uint64_t t = sv_.tick;
  if (v.history.size() != kHistory) {
    v.history.resize(kHistory);
    for (net::ViewTick& h : v.history) h.tick = UINT64_MAX;
  }
  if (v.tick + 1 != t) {  // no view of the previous tick here: this tick's events are all there is
    ++views_missing_;
    v.start(t - 1);
    a = t - 1;
  }
  std::vector<std::uint32_t>& vis = v.visible;
  for (const aoi::VisibilityEvent& e : gone)
    if (auto it = std::lower_bound(vis.begin(), vis.end(), e.other); it != vis.end() && *it == e.other) vis.erase(it);
  for (const aoi::VisibilityEvent& e : entered)
    if (auto it = std::lower_bound(vis.begin(), vis.end(), e.other); it == vis.end() || *it != e.other)
      vis.insert(it, e.other);
  std::uint64_t since = 0;
  keys_.clear();
  bool behind = a != 0 && a + 1 < t && t - a <= kHistory;
  for (std::uint64_t u = a + 1; behind && u < t; ++u) behind = v.history[u % kHistory].tick == u;
  bool ordered = false;
  if (a != 0 && a + 1 == t) {
    since = a;
    for (const aoi::VisibilityEvent& e : entered) all_fields(keys_, e.other);
    ordered = true;  // events come in ascending `other`
  } else if (behind) {
    since = a;
    for (std::uint64_t u = a + 1; u < t; ++u) {
      const net::ViewTick& p = v.history[u % kHistory];
      keys_.insert(keys_.end(), p.keys.begin(), p.keys.end());
      for (std::uint32_t o : p.entered) all_fields(keys_, o);
    }
    for (const aoi::VisibilityEvent& e : entered) all_fields(keys_, e.other);
    std::erase_if(keys_,
                  [&vis](std::uint32_t k) { return !std::binary_search(vis.begin(), vis.end(), k & 0x3fffffffu); });
  } else {
    for (std::uint32_t o : vis) all_fields(keys_, o);
    ordered = true;
  }
  finish_catch_up(i, keys_, box, now, out, ordered);
  net::ViewTick& p = v.history[t % kHistory];
  p.tick = t;
  p.keys.clear();
  for (const aoi::MailboxEntry& e : box) p.keys.push_back(e.subject_field);
  p.entered.clear();
  for (const aoi::VisibilityEvent& e : entered) p.entered.push_back(e.other);
  v.tick = t;
  return since;
}

// Its Events, when its visibility changed (false otherwise).
bool Outbox::build_events(flatbuffers::FlatBufferBuilder& b, std::span<const aoi::VisibilityEvent> in,
                          std::span<const aoi::VisibilityEvent> out) const {
  if (in.empty() && out.empty()) return false;
  b.Clear();
  const auto ids = [&b](std::span<const aoi::VisibilityEvent> e) {
    std::uint32_t* p = nullptr;
    const auto v = b.CreateUninitializedVector(e.size(), &p);
    for (std::size_t k = 0; k < e.size(); ++k) p[k] = e[k].other;
    return v;
  };
  const auto entered = ids(in);
  const auto gone = ids(out);
  const auto ev = net::CreateEvents(b, sv_.tick, entered, gone);
  net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Events, ev.Union()));
  return true;
}

// The Snapshot of this tick for the observers: the players in the game (a cluster: in this zone's area).
void Outbox::send_snapshots(std::uint64_t time_us) {
  if (sv_.sessions.observers().empty()) return;
  const std::span<const aoi::Player> now = sv_.world->players();
  snapshot_.clear();
  for (std::uint32_t i = 0; i < sv_.total; ++i)
    if (sv_.f.zones == 1 ? playing(sv_.sessions.slot(i).state) : sv_.in_zone(now[i]))
      snapshot_.emplace_back(i, now[i].x, now[i].y, now[i].hp);
  flatbuffers::FlatBufferBuilder& b = builder_;
  b.Clear();
  const auto list = b.CreateVectorOfStructs(snapshot_);
  net::FinishMessageBuffer(
      b, net::CreateMessage(b, net::Body_Snapshot, net::CreateSnapshot(b, sv_.tick, time_us, list).Union()));
  for (ENetPeer* p : sv_.sessions.observers()) sv_.sockets.send(p, net::kStreamChannel, b);
}

}  // namespace warpmind::server
