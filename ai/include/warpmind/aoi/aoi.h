// warpmind::aoi::AoiWorld — an MMO server's tick: client commands applied to player state, conflicting
// updates merged, and every update delivered to the players whose area of interest (AOI) holds its
// subject. After Sung's thesis on a GPU co-processor for MMOG servers (count/scan/store logic,
// sort-and-segment conflict merge, range query over bucket-sorted players).
//
// Contract of one tick (identical on every variant, so results compare exactly):
//  1. Commands are validated in order; an invalid one is dropped and counted under its reason
//     (RejectReason). The tick never fails because of a client. The checks run in this order and a
//     command with several faults counts once, under the first that fails:
//       player >= players                               -> UnknownPlayer (whatever the type)
//       Move:   dx or dy not finite, |dx| or |dy| > max_move    -> BadMove
//       Attack: target >= players                       -> UnknownTarget
//               target == player                        -> SelfAttack
//               damage < 0                              -> BadDamage
//               not (dx*dx + dy*dy <= attack_range * attack_range)  -> TargetOutOfRange
//       Heal:   damage < 0 (the amount given)           -> BadDamage
//       any other type                                  -> UnknownType
//     "Within attack range" is `<=` on the squared distance in float: dx = x_attacker - x_target (and
//     dy), each square, the sum and attack_range^2 rounded to float, no fused multiply-add — a target at
//     exactly attack_range is in range. Positions are those before the tick: a Move earlier in the same
//     batch does not bring a target into (or out of) range.
//     HP 0 is not special: a player with HP 0 still moves and attacks, and can be attacked (its HP stays
//     0, and it still gets an HP update).
//  2. Each valid command makes update vectors (player, field, offset): Move -> (X, dx) and (Y, dy) for its
//     player; Attack -> (Hp, -damage) for its target; Heal -> (Hp, +damage) for its own player (a server
//     gives a new or respawned player its starting HP by healing it by start - HP before the tick).
//     Conflicting vectors (same player and field) are merged by summing their offsets in command order
//     (floats) or exactly (HP, in 64 bits: a tick's attacks and heals of one player add up, whatever their
//     order).
//  3. The merged offsets are applied: positions clamped into the world [x0, x0 + W) x [y0, y0 + H)
//     (x0 + W in float; the largest position kept is the float just below it), HP clamped into
//     [0, 2^31 - 1]. Each (player, field) touched yields one Update carrying the new value (a Move of
//     (0, 0) and a Heal of 0 too).
//  4. Range query on the new positions: every update of subject s is delivered to every receiver r with
//     s in r's AOI — s itself included. Notifications are sorted by (receiver, subject, field).
//       Square (the thesis): buckets of side aoi laid from the world's corner (x0, y0),
//         cols = max(1, ceil(W / aoi)) by rows = max(1, ceil(H / aoi)) (float quotients); a position's
//         bucket is (floor((x - x0) / aoi), floor((y - y0) / aoi)) in float, each index clamped into
//         [0, cols - 1] / [0, rows - 1] (positions are inside the world, so the clamp only catches a
//         quotient rounded up at the upper edge; the last bucket may be narrower than aoi). s is in r's
//         AOI iff their buckets are equal or adjacent (both indices differ by at most 1).
//       Circle: s is in r's AOI iff dx*dx + dy*dy <= aoi * aoi, in float without fused multiply-add —
//         the distance alone, at any bucket. (The variants gather candidates from buckets a little wider
//         than aoi, so that rounding in the bucket index never loses a pair at the edge.)
//  5. Visibility (when track_visibility): the pairs (r, o), o != r, with o in r's AOI after the tick;
//     `entered` / `left` are the pairs that appeared / disappeared since the previous tick or, for the
//     first tick after reset(), since the reset positions (reset() records their visibility): a pair
//     visible at reset and still visible is in neither. Sorted by (receiver, other). Without
//     track_visibility both lists stay empty.
//
// Delivery in chunks: tick(commands, out, sink) hands the notifications to `sink` in chunks of whole
// receivers instead of storing them in `out`, so a tick of any size runs in bounded memory (see
// NotificationChunk and AoiConfig::chunk_notifications). Without a sink the whole list is stored in out.
//
// Variants: cpu-grid (the thesis's CPU baseline: bucket lists, one thread, subject-centric delivery then
// a sort; holds the whole list whatever the chunk), cpu-fast (multi-threaded: counting sort into
// buckets, receiver-centric two-phase count and store, a chunk at a time), and with the CUDA backend
// gpu-sorted (the thesis pipeline: sorted update vectors and segmented sums, subject-centric query by
// binary search, notifications sorted by receiver; the whole list in device memory, at most 2^31 - 1
// notifications a tick) and gpu-fast (atomic merge; per bucket one list of its 3 x 3 buckets' players
// in id order, then one warp per receiver counting and writing its notifications in output order, a
// chunk at a time: device memory bounded by the chunk, no limit on the total); their players stay on
// the device and only commands go up and results come down (gpu/src/aoi/). Auto: gpu-fast on a CUDA
// context, cpu-fast on a CPU one. Errors are returned as Status, never thrown; nothing changes on error.
// Output buffers are kept by the world and reused (no allocation per tick once they have grown).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"

namespace warpmind::aoi {

// GpuSeed is GpuSorted's name before 2026-12-07 (and "gpu-seed" still parses): kept for one release.
enum class AoiVariant {
  Auto,
  CpuGrid,
  CpuFast,
  GpuSorted,
  GpuFast,
  GpuSeed [[deprecated("use GpuSorted")]] = GpuSorted
};
const char* variant_name(AoiVariant v);
bool parse_variant(std::string_view name, AoiVariant& out);

enum class AoiShape { Square, Circle };
const char* shape_name(AoiShape s);
bool parse_shape(std::string_view name, AoiShape& out);

enum class Field : std::uint32_t { X = 0, Y = 1, Hp = 2 };

struct Player {
  float x = 0.0f, y = 0.0f;
  std::int32_t hp = 100;
};

enum class CommandType : std::uint32_t { Move = 0, Attack = 1, Heal = 2 };

struct Command {  // 24 bytes, as a client batch arrives
  std::uint32_t player = 0;
  CommandType type = CommandType::Move;
  float dx = 0.0f, dy = 0.0f;  // Move
  std::uint32_t target = 0;    // Attack
  std::int32_t damage = 0;     // Attack: HP taken from the target; Heal: HP given to the player (>= 0 both)
};

enum class RejectReason : int {
  UnknownPlayer = 0,
  UnknownType,
  BadMove,
  UnknownTarget,
  SelfAttack,
  TargetOutOfRange,
  BadDamage
};
constexpr int kRejectReasons = 7;
const char* reason_name(RejectReason r);

// A field's new value: X and Y as float bits, HP as int32 bits.
struct Update {
  std::uint32_t player = 0;
  Field field = Field::X;
  std::uint32_t value = 0;
  bool operator==(const Update&) const = default;
};

struct Notification {  // 16 bytes
  std::uint32_t receiver = 0, subject = 0;
  Field field = Field::X;
  std::uint32_t value = 0;
  bool operator==(const Notification&) const = default;
};

struct VisibilityEvent {
  std::uint32_t receiver = 0, other = 0;
  bool operator==(const VisibilityEvent&) const = default;
};

// Mailbox entry: a notification without its receiver (8 bytes). subject_field = subject | field << 30.
struct MailboxEntry {
  std::uint32_t subject_field = 0, value = 0;
  std::uint32_t subject() const { return subject_field & 0x3fffffffu; }
  Field field() const { return static_cast<Field>(subject_field >> 30); }
  bool operator==(const MailboxEntry&) const = default;
};

// How a tick hands out its notifications:
//  Records:   TickResult::notifications, 16-byte records sorted by (receiver, subject, field).
//  Mailboxes: the same list as one mailbox per receiver, the compact form a server sends from:
//             receiver r's entries are mailbox[mailbox_start[r] .. mailbox_start[r + 1]), in (subject,
//             field) order; 8 bytes a notification plus 8 a player to download instead of 16 a
//             notification. Needs fewer than 2^30 players.
enum class NotificationFormat { Records, Mailboxes };

struct AoiConfig {
  WorldRect world{0, 0, 2500, 2500};  // x0, y0, width, height, x0 + width, y0 + height finite; width, height > 0
  float aoi = 10.0f;                  // bucket side (square) or radius (circle) [Limit: > 0, finite, at most 10^8
                                      // buckets: max(1, ceil(W / aoi)) * max(1, ceil(H / aoi)) <= 10^8; memory
                                      // grows with them: cpu-grid keeps a list per bucket (24 bytes each),
                                      // cpu-fast and the GPU variants a few words per bucket]
  AoiShape shape = AoiShape::Square;
  float max_move = 10.0f;  // per axis per command
  float attack_range = 10.0f;
  bool track_visibility = true;
  NotificationFormat format = NotificationFormat::Records;
  AoiVariant variant = AoiVariant::Auto;
  // Notifications per chunk [Limit: >= 1]: the most a sink is handed at once (unless one receiver alone
  // has more: its chunk holds it whole), and on cpu-fast and gpu-fast the most held in memory at once
  // on the way (gpu-fast: twice over in device memory and in page-locked host memory, 16 bytes a record
  // or 8 a mailbox entry). Every variant cuts the chunks by one rule: greedy from receiver 0, a chunk
  // takes whole receivers while its notifications stay within the bound; a receiver with more than the
  // bound is a chunk alone, and receivers without notifications join the chunk before them when it has
  // room. Without a sink the whole list is stored in the TickResult regardless.
  std::uint64_t chunk_notifications = std::uint64_t{1} << 25;
};

struct TickResult {
  std::vector<Update> updates;               // sorted by (player, field)
  std::vector<Notification> notifications;   // sorted by (receiver, subject, field) (format Records)
  std::vector<std::uint64_t> mailbox_start;  // players + 1 offsets into mailbox (format Mailboxes)
  std::vector<MailboxEntry> mailbox;
  std::vector<VisibilityEvent> entered, left;
  std::uint64_t notification_count = 0;  // the tick's notifications, stored here or handed to a sink
  std::array<std::size_t, kRejectReasons> rejected{};
  std::size_t accepted = 0;
  // Where the tick's time went. CPU: wall time; ms_sort (the bucket sort) is part of ms_query. GPU: device time per
  // stage (ms_sort includes the neighbourhood lists; ms_query: the range query until every notification
  // is written in device memory — gpu-fast's chunk writes included —, ms_visibility the visibility lists
  // and their changes), and ms_download the device time of the transfers of the results and players to
  // the host (pinned staging), apart from the tick. The time spent in a sink is in none of them.
  double ms_logic = 0, ms_query = 0, ms_visibility = 0;
  double ms_upload = 0, ms_sort = 0, ms_download = 0;
};

// A slice of one tick's notifications handed to a NotificationSink: the receivers [first_receiver,
// end_receiver) and all of their notifications, the tick's first_notification-th onwards, in the tick's
// order. Records: `notifications`. Mailboxes: `mailbox`, and mailbox_start with end_receiver -
// first_receiver + 1 offsets into it (the first 0): receiver r's entries are mailbox[mailbox_start[r -
// first_receiver] .. mailbox_start[r - first_receiver + 1]). The spans point into the world's buffers
// and are valid during the call only.
struct NotificationChunk {
  std::uint32_t first_receiver = 0, end_receiver = 0;
  std::uint64_t first_notification = 0;
  std::span<const Notification> notifications;
  std::span<const std::uint64_t> mailbox_start;
  std::span<const MailboxEntry> mailbox;
};
// Called once per chunk, in receiver order, on the thread that called tick() and before tick() returns;
// every receiver is in exactly one chunk (no chunk when there are no players; a chunk may hold
// receivers without notifications). It must not call the world. While it runs, gpu-fast writes and
// copies the next chunk.
using NotificationSink = std::function<void(const NotificationChunk&)>;

// Blocking: every call returns when its results are in host memory (on a GPU variant the players stay on
// the device between ticks; the tick's outputs are downloaded before it returns). Not thread-safe: one
// thread at a time per world. The Context must outlive the world. `players()` and the TickResult's
// vectors are the caller's to keep until the next reset() / tick() overwrites them.
class AoiWorld {
 public:
  static Status create(Context& ctx, const AoiConfig& config, std::unique_ptr<AoiWorld>& out);
  ~AoiWorld();

  // Sets the players (ids 0..n-1) and, with track_visibility, the visibility the next tick's entered /
  // left compare with. Rejects, naming the first offender, a non-finite position or one outside the
  // world, or a negative HP; nothing changes then.
  Status reset(std::span<const Player> players);
  // One tick (see the contract above). `out` is overwritten. A GPU variant that meets a device error
  // (out of memory, say) mid-tick cannot undo it: every later tick fails until reset() succeeds.
  Status tick(std::span<const Command> commands, TickResult& out);
  // The same tick, its notifications handed to `sink` chunk by chunk instead of stored in `out` (whose
  // notification and mailbox vectors are left empty; notification_count still counts them). The rest of
  // `out` is filled before the first chunk is handed over.
  Status tick(std::span<const Command> commands, TickResult& out, const NotificationSink& sink);

  // Save and restore: save() writes the players and a fingerprint of the config to bytes; restore() on a
  // world of the same config (world, aoi, shape, max_move, attack_range, track_visibility and format; any
  // variant and chunk size: a GPU world restores on the CPU and back) puts them back bit for bit and, as
  // reset() does, records their visibility, so the ticks after it equal the ticks after the save (the
  // players and the visibility of their positions are the whole state between ticks). The bytes are
  // untrusted: a wrong header, format, reserved word, config or length, or a player reset() refuses, is
  // refused (InvalidArgument, "restore: ...") and nothing changes. The format: little-endian;
  // "WMAOI\0\0\0", u32 format (1), u32 0 (reserved: anything else is refused), the config (u32 shape,
  // u32 track_visibility, u32 notification format; f32 x0, y0, width, height, aoi, max_move,
  // attack_range), u64 player count n, then n x (f32 x, f32 y, i32 hp): 64 + 12 n bytes.
  Status save(std::vector<std::uint8_t>& out) const;
  Status restore(std::span<const std::uint8_t> bytes);

  std::span<const Player> players() const { return players_; }
  AoiVariant variant() const { return variant_; }
  const AoiConfig& config() const { return config_; }

  struct Impl;

 private:
  AoiWorld() = default;
  Status run_tick(std::span<const Command> commands, TickResult& out, const NotificationSink* sink);
  Context* ctx_ = nullptr;
  AoiConfig config_;
  AoiVariant variant_ = AoiVariant::Auto;
  std::vector<Player> players_;
  std::unique_ptr<Impl> impl_;
};

// Helpers for values in updates and notifications.
float value_as_float(std::uint32_t bits);
std::int32_t value_as_int(std::uint32_t bits);

}  // namespace warpmind::aoi
