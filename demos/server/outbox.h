// What warpmind-server sends its clients after a tick (server_states.cpp): each receiver's State — its
// mailbox, its own player, its last applied command, and the catch-up that delta-encodes it against the
// newest State its client acknowledged (docs/protocol.md, "Deltas") — its Events when its visibility
// changed, and the observers' Snapshot.
//
// Called on the tick thread, from the AOI module's notification sink: begin() before the tick's first
// chunk, deliver_chunk() for each chunk, send_snapshots() after the last. The free functions are the
// catch-up's rules, shared with the virtual clients' workers (any thread).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "protocol.h"
#include "warpmind/aoi/aoi.h"

namespace warpmind::server {

struct Server;
struct View;

// Receiver i's events of a sorted list, from the cursor `at` on (which it moves past them).
std::span<const aoi::VisibilityEvent> events_of(const std::vector<aoi::VisibilityEvent>& list, std::uint32_t i,
                                                std::size_t& at);
// Receiver i's mailbox in a chunk.
std::span<const aoi::MailboxEntry> box_of(const aoi::NotificationChunk& c, std::uint32_t i);
// The keys of all three fields of subject s.
void all_fields(std::vector<std::uint32_t>& keys, std::uint32_t s);
// keys (subject | field << 30; any order and repeats allowed unless `ordered`: already in (subject,
// field) order without repeats) into `out`: (subject, field) order, without receiver i's own and
// without those in `box`, each with its value after this tick.
void finish_catch_up(std::uint32_t i, std::vector<std::uint32_t>& keys, std::span<const aoi::MailboxEntry> box,
                     std::span<const aoi::Player> now, std::vector<aoi::MailboxEntry>& out, bool ordered = false);

class Outbox {
 public:
  explicit Outbox(Server& sv) : sv_(sv) {}

  // A tick's notifications begin (the event cursors back to the start).
  void begin() { out_in_ = out_left_ = 0; }
  // One chunk of the tick's mailboxes: every receiver's State and Events, to its client (one zone: the
  // slot's client; a cluster: the players in this zone's area after the tick, wherever their clients are).
  void deliver_chunk(const aoi::NotificationChunk& c, const aoi::TickResult& r, std::uint64_t time_us);
  // The Snapshot of this tick for the observers: the players in the game (a cluster: in this zone's area).
  void send_snapshots(std::uint64_t time_us);
  // Receiver i's State after this tick into b: its mailbox, its catch-up, its own player, its last applied command.
  void build_state(flatbuffers::FlatBufferBuilder& b, std::uint32_t i, std::span<const aoi::MailboxEntry> box,
                   std::span<const aoi::MailboxEntry> catch_up, std::uint64_t since, std::uint64_t time_us,
                   const aoi::Player& me) const;
  // Its Events into b, when its visibility changed (false otherwise).
  bool build_events(flatbuffers::FlatBufferBuilder& b, std::span<const aoi::VisibilityEvent> in,
                    std::span<const aoi::VisibilityEvent> out) const;
  std::uint64_t notifications() const { return notifications_; }  // sent, mailbox and catch-up entries
  std::uint64_t views_missing() const { return views_missing_; }  // States built without the client's view

 private:
  std::uint64_t catch_up_of(std::uint32_t i, View& v, std::uint64_t a, std::span<const aoi::VisibilityEvent> entered,
                            std::span<const aoi::VisibilityEvent> gone, std::span<const aoi::MailboxEntry> box,
                            std::span<const aoi::Player> now, std::vector<aoi::MailboxEntry>& out);

  Server& sv_;
  flatbuffers::FlatBufferBuilder builder_{1024};
  std::size_t out_in_ = 0, out_left_ = 0;  // the tick's event cursors (entered, left)
  std::vector<aoi::MailboxEntry> catch_up_;
  std::vector<std::uint32_t> keys_;
  std::vector<net::PlayerState> snapshot_;
  std::uint64_t notifications_ = 0;
  std::uint64_t views_missing_ = 0;  // none by design: counted
};

}  // namespace warpmind::server
