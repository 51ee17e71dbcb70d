// warpmind-bots' check (bots_check.h): each bot's own updates against its commands, every tick every
// bot heard against the AOI rule (notification lists and visible sets), and every State's catch-up
// against the ticks it covers.
#include "bots_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "aoi_oracle.h"

namespace warpmind::bots {
namespace {

std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The position the server gives a player at (x, y) walking towards (tx, ty): the target clamped into
// the map, the step clamped to max_move per axis, the result clamped into the world (docs/protocol.md).
float step(float from, float target, float map, float max_move, float lo, float hi) {
  const float t = std::clamp(target, 0.0f, map);
  const float d = std::clamp(t - from, -max_move, max_move);
  return std::min(std::max(from + d, lo), std::nextafter(hi, lo));
}

// A bot's own position updates in a State (its x and y; its hp aside).
std::vector<aoi::MailboxEntry> own_positions(const Session& b, const StateRecord& s) {
  std::vector<aoi::MailboxEntry> own;
  for (const aoi::MailboxEntry& e : s.entries)
    if (e.subject() == b.player && e.field() != aoi::Field::Hp) own.push_back(e);
  return own;
}

// Keys (subject | field << 30) in (subject, field) order.
struct KeyLess {
  bool operator()(std::uint32_t a, std::uint32_t b) const {
    return std::pair(a & 0x3fffffffu, a >> 30) < std::pair(b & 0x3fffffffu, b >> 30);
  }
};
using KeySet = std::set<std::uint32_t, KeyLess>;

// What the checker knows of one tick every bot heard: positions, visible sets and updates by player.
struct TickData {
  std::map<std::uint32_t, aoi::Player> pos;
  std::map<std::uint32_t, std::set<std::uint32_t>> vis;
  std::map<std::uint32_t, std::vector<aoi::MailboxEntry>> updates;
};

class Checker {
 public:
  Checker(const World& w, const std::vector<Bot>& bots) : w_(w), bots_(bots) {}
  Check run();

 private:
  bool index();
  void check_own_updates(std::size_t i);
  bool bad_join(const Session& b, const StateRecord& s) const;
  bool bad_resume(const Session& b, const StateRecord& s);
  bool bad_step(const Session& b, const StateRecord& s, const StateRecord& prev) const;
  void check_shared_ids();
  void check_tick(std::uint64_t t);
  void follow_events(std::uint64_t t);
  void read_tick(std::uint64_t t);
  std::pair<long, long> cell_of(const aoi::Player& p) const;
  void find_near(std::size_t k);
  void check_receiver(std::size_t k, std::uint64_t t, TickData& td);
  void check_catch_ups(std::size_t i);
  bool covered(const Session& b, std::uint64_t t, const StateRecord& s) const;
  const std::set<std::uint32_t>& vis_at(const Session& b, std::uint64_t u) const;
  KeySet catch_up_keys(const Session& b, std::uint64_t t, const StateRecord& s) const;
  std::vector<aoi::MailboxEntry> expected_catch_up(const Session& b, std::uint64_t t, const StateRecord& s) const;

  const World& w_;
  const std::vector<Bot>& bots_;
  Check c_;
  std::vector<const Session*> in_;  // the sessions welcomed, bot by bot
  // By session: the first tick it is out of the game for, as far as the check knows (a lost session:
  // the tick after its last State, or its first tick if it heard none).
  std::vector<std::uint64_t> end_;
  // Players whose state is unknown from a tick on: a lost session's player, after its last State, until
  // a later session holds the id — the server may still keep it in the game (a detached player) or
  // have let it go. What receivers hear of such a player in those ticks is left out of their check.
  struct Unknown {
    std::uint32_t player;
    std::uint64_t from, to;  // [from, to)
  };
  std::vector<Unknown> unknown_;
  std::set<std::uint32_t> unknown_now_;  // the tick being checked's
  // The ticks checked: up to the last tick every bot heard of.
  std::uint64_t begin_ = UINT64_MAX, last_ = UINT64_MAX;
  std::vector<std::map<std::uint64_t, const StateRecord*>> by_tick_;  // by bot, by tick: its State
  std::vector<std::vector<EventRecord>> events_;                      // by bot, in tick order
  std::vector<std::size_t> next_event_;                               // by bot: its first event not applied
  std::vector<std::set<std::uint32_t>> visible_;                      // by bot: its visible set by its events
  std::map<std::uint64_t, TickData> ticks_;                           // the ticks every bot heard
  float x1_ = 0, y1_ = 0;                                             // the world's far corner
  // The tick being checked: the bots in the game, their updates and positions, a grid of them.
  std::vector<std::size_t> present_;
  std::map<std::uint32_t, std::vector<aoi::MailboxEntry>> updates_;
  std::vector<aoi::Player> pos_;
  std::map<std::pair<long, long>, std::vector<std::size_t>> grid_;
  std::vector<std::size_t> near_;
  const std::set<std::uint32_t> none_;
};

Check Checker::run() {
  if (!index()) return c_;
  check_shared_ids();
  for (std::size_t i = 0; i < in_.size(); ++i) check_own_updates(i);
  for (std::uint64_t t = begin_; t <= last_; ++t) check_tick(t);
  for (std::size_t i = 0; i < in_.size(); ++i) check_catch_ups(i);
  return c_;
}

// The bots that joined, the ticks to check, and each bot's States by tick and Events in tick order;
// false when there is nothing to check.
bool Checker::index() {
  for (const Bot& b : bots_)
    for (const Session& s : b.sessions) in_.push_back(&s);
  c_.sessions = in_.size();
  if (in_.empty()) return false;
  // Lost sessions end after their last State, their players unknown from then on until a later session
  // holds the id (sessions are in bot order, so every session of an id is looked at).
  end_.resize(in_.size());
  for (std::size_t i = 0; i < in_.size(); ++i) {
    const Session& b = *in_[i];
    end_[i] = b.end_tick;
    if (!b.lost || b.end_tick != UINT64_MAX) continue;
    end_[i] = b.states.empty() ? b.first_tick : b.states.back().tick + 1;
    std::uint64_t to = UINT64_MAX;
    for (const Session* o : in_)
      if (o->player == b.player && o->first_tick >= end_[i]) to = std::min(to, o->first_tick);
    unknown_.push_back({b.player, end_[i], to});
  }
  // Up to the last tick every session still in the game at the end heard of (one that heard nothing
  // ends it before it came); sessions that ended before bound nothing.
  for (std::size_t i = 0; i < in_.size(); ++i) {
    const Session* b = in_[i];
    begin_ = std::min(begin_, b->first_tick);
    if (end_[i] == UINT64_MAX) {
      const std::uint64_t heard = b->states.empty() ? b->first_tick - 1 : b->states.back().tick;
      if (heard < last_ && std::getenv("WARPMIND_BOTS_DEBUG"))
        std::fprintf(stderr, "checked up to %llu: session of %u from %llu (%zu states%s%s)\n",
                     static_cast<unsigned long long>(heard), b->player, static_cast<unsigned long long>(b->first_tick),
                     b->states.size(), b->resumed ? ", resumed" : "", b->after_crash ? " after a crash" : "");
      last_ = std::min(last_, heard);
    }
  }
  if (last_ == UINT64_MAX)  // every session ended: up to the last tick any was in the game
    for (std::size_t i = 0; i < in_.size(); ++i) last_ = std::min(last_, end_[i] - 1);
  if (last_ == UINT64_MAX || last_ < begin_) return false;
  by_tick_.resize(in_.size());
  for (std::size_t i = 0; i < in_.size(); ++i)
    for (const StateRecord& s : in_[i]->states) by_tick_[i].emplace(s.tick, &s);
  next_event_.assign(in_.size(), 0);
  // Events in tick order: from a cluster, a tick's Events relayed from another zone can arrive after
  // the next tick's (docs/protocol.md).
  events_.resize(in_.size());
  for (std::size_t i = 0; i < in_.size(); ++i) {
    events_[i] = in_[i]->events;
    std::stable_sort(events_[i].begin(), events_[i].end(),
                     [](const EventRecord& a, const EventRecord& b) { return a.tick < b.tick; });
  }
  visible_.resize(in_.size());
  x1_ = w_.cfg.world.x0 + w_.cfg.world.width;
  y1_ = w_.cfg.world.y0 + w_.cfg.world.height;
  return true;
}

// Session i's States counted, and its own updates checked against its commands, wherever two consecutive
// States (or the Welcome and the first State) say what the tick started from.
void Checker::check_own_updates(std::size_t i) {
  const Session& b = *in_[i];
  const std::uint64_t last = std::min(last_, end_[i] - 1);
  for (std::uint64_t t = b.first_tick; t <= last; ++t) {
    ++c_.states_expected;
    c_.states_received += by_tick_[i].count(t);
  }
  if (b.resumed && bad_resume(b, by_tick_[i].count(b.first_tick) ? *by_tick_[i].at(b.first_tick) : StateRecord{}) &&
      ++c_.resume_errors <= 5 && std::getenv("WARPMIND_BOTS_DEBUG"))
    std::fprintf(
        stderr,
        "resume of %u at tick %llu%s: Welcome (%.9g, %.9g) last_seq %u seq %u; before (%.9g, %.9g) last_seq %u "
        "seq %u; first State %s\n",
        b.player, static_cast<unsigned long long>(b.first_tick), b.after_crash ? " after a crash" : "", b.spawn_x,
        b.spawn_y, b.welcome_last_seq, b.welcome_seq, b.before_x, b.before_y, b.before_last_seq, b.before_seq,
        by_tick_[i].count(b.first_tick) ? "received" : "missing");
  for (const auto& [t, s] : by_tick_[i]) {
    if (t > last) break;
    if (t == b.first_tick) {
      if (!b.resumed || b.joins) c_.own_errors += bad_join(b, *s);
      continue;
    }
    auto p = by_tick_[i].find(t - 1);
    if (p == by_tick_[i].end()) continue;
    c_.own_errors += bad_step(b, *s, *p->second);
  }
}

// Whether a join went wrong. The server moves the player from its parking place to the spawn point of
// the Welcome (to float rounding) with the Welcome's HP and no command applied yet; its new position
// must be in its own notifications.
bool Checker::bad_join(const Session& b, const StateRecord& s) const {
  const std::vector<aoi::MailboxEntry> want = {{b.player, bits(s.x)}, {b.player | (1u << 30), bits(s.y)}};
  const float tolerance = 1e-3f * std::max(1.0f, w_.cfg.world.width + w_.cfg.world.height);
  return own_positions(b, s) != want || s.last_seq != 0 || s.hp != b.spawn_hp ||
         std::fabs(s.x - b.spawn_x) > tolerance || std::fabs(s.y - b.spawn_y) > tolerance;
}

// Whether a resumed session's Welcome did not give the player back as its client left it (where its
// last State put it, its last command applied, its seq counter), or its first State (s, tick 0 if it
// never came) does not follow from the Welcome by the rule of a step. The client restarted only once all
// it had sent was applied, so nothing of it can have changed the player since; its HP others may have
// changed: without an HP entry in the first State, it must be the Welcome's.
//
// After a crash (the bot did not choose the moment) the server may have applied commands the bot heard
// nothing of, and lost ones it received but never applied: the Welcome's last applied command must lie
// between the last State's and the bot's last, its seq counter between that and the bot's, and the
// player where the last State put it when nothing more was applied — else at most max_move per axis
// per command further.
bool Checker::bad_resume(const Session& b, const StateRecord& s) {
  ++c_.resumes_checked;
  // Where the client left the player: exactly, or (it had no State of a new session) to the join's rounding.
  const float tolerance = 1e-3f * std::max(1.0f, w_.cfg.world.width + w_.cfg.world.height);
  const bool same_place =
      b.before_exact ? bits(b.spawn_x) == bits(b.before_x) && bits(b.spawn_y) == bits(b.before_y)
                     : std::fabs(b.spawn_x - b.before_x) <= tolerance && std::fabs(b.spawn_y - b.before_y) <= tolerance;
  if (b.after_crash) {
    const std::uint32_t more = b.welcome_last_seq - b.before_last_seq;
    const float reach = w_.max_move * static_cast<float>(more) * (1 + 1e-5f) + tolerance;
    if (b.welcome_last_seq < b.before_last_seq || b.welcome_last_seq > b.before_seq ||
        b.welcome_seq < b.welcome_last_seq || b.welcome_seq > b.before_seq || (more == 0 && !same_place) ||
        std::fabs(b.spawn_x - b.before_x) > reach || std::fabs(b.spawn_y - b.before_y) > reach)
      return true;
  } else if (!same_place || b.welcome_last_seq != b.before_last_seq || b.welcome_seq != b.before_seq) {
    return true;
  }
  if (s.tick != b.first_tick || b.joins) return false;  // a join's first State: checked as a join
  StateRecord at_welcome;
  at_welcome.x = b.spawn_x;
  at_welcome.y = b.spawn_y;
  at_welcome.last_seq = b.welcome_last_seq;
  const bool hp_entry = std::any_of(s.entries.begin(), s.entries.end(), [&b](const aoi::MailboxEntry& e) {
    return e.subject() == b.player && e.field() == aoi::Field::Hp;
  });
  return bad_step(b, s, at_welcome) || (!hp_entry && s.hp != b.spawn_hp);
}

// Players that two sessions held in the same tick: a player id given to a new session while another
// session's player still had it (a resumed session takes over from the one before at its first tick).
void Checker::check_shared_ids() {
  std::map<std::uint32_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> spans;  // player -> [first, end)
  for (std::size_t i = 0; i < in_.size(); ++i) spans[in_[i]->player].emplace_back(in_[i]->first_tick, end_[i]);
  for (auto& [player, list] : spans) {
    std::sort(list.begin(), list.end());
    for (std::size_t k = 1; k < list.size(); ++k) c_.shared_ids += list[k].first < list[k - 1].second;
  }
}

// Whether a tick after the join went wrong. The command the State says was applied last moves the
// player from where the previous State left it, by the server's rule, and its own notifications say
// exactly that.
bool Checker::bad_step(const Session& b, const StateRecord& s, const StateRecord& prev) const {
  const float px = prev.x, py = prev.y;
  bool moved = false;
  float ex = px, ey = py;
  if (s.last_seq != prev.last_seq) {
    if (s.last_seq == 0 || s.last_seq > b.sent.size() || s.last_seq < prev.last_seq) return true;
    const Sent& k = b.sent[s.last_seq - 1];
    if (!k.attack) {
      moved = true;
      ex = step(px, k.x, w_.map, w_.max_move, w_.cfg.world.x0, x1_);
      ey = step(py, k.y, w_.map, w_.max_move, w_.cfg.world.y0, y1_);
    }
  }
  std::vector<aoi::MailboxEntry> want;
  if (moved) {
    want.push_back({b.player | (0u << 30), bits(ex)});
    want.push_back({b.player | (1u << 30), bits(ey)});
  }
  return own_positions(b, s) != want || bits(s.x) != bits(ex) || bits(s.y) != bits(ey);
}

// Tick t, when every bot in the game then heard it: the exact notification lists and visible sets.
void Checker::check_tick(std::uint64_t t) {
  present_.clear();
  unknown_now_.clear();
  for (const Unknown& u : unknown_)
    if (u.from <= t && t < u.to) unknown_now_.insert(u.player);
  bool all = true;
  for (std::size_t i = 0; i < in_.size(); ++i) {
    if (in_[i]->first_tick > t || end_[i] <= t) continue;
    if (!by_tick_[i].count(t)) all = false;
    present_.push_back(i);
  }
  follow_events(t);
  if (!all || present_.empty()) return;
  ++c_.ticks_checked;
  read_tick(t);
  TickData& td = ticks_[t];
  for (std::size_t k = 0; k < present_.size(); ++k) check_receiver(k, t, td);
  for (const auto& [subject, list] : updates_) td.updates[subject] = list;
}

// Visible sets follow the events up to t whether or not t can be checked.
void Checker::follow_events(std::uint64_t t) {
  for (std::size_t i : present_) {
    const std::vector<EventRecord>& ev = events_[i];
    while (next_event_[i] < ev.size() && ev[next_event_[i]].tick <= t) {
      for (std::uint32_t o : ev[next_event_[i]].entered) visible_[i].insert(o);
      for (std::uint32_t o : ev[next_event_[i]].left) visible_[i].erase(o);
      ++next_event_[i];
    }
  }
}

// Subject -> its updates this tick (from its own State), the players' positions after the tick, and
// a grid of cells 2 AOI wide over them.
void Checker::read_tick(std::uint64_t t) {
  updates_.clear();
  pos_.assign(present_.size(), aoi::Player{});
  for (std::size_t k = 0; k < present_.size(); ++k) {
    const Session& b = *in_[present_[k]];
    const StateRecord& s = *by_tick_[present_[k]].at(t);
    pos_[k] = {s.x, s.y, s.hp};
    for (const aoi::MailboxEntry& e : s.entries)
      if (e.subject() == b.player) updates_[b.player].push_back(e);
  }
  grid_.clear();
  for (std::size_t k = 0; k < present_.size(); ++k) grid_[cell_of(pos_[k])].push_back(k);
}

// A player's cell of the grid: cells 2 AOI wide.
std::pair<long, long> Checker::cell_of(const aoi::Player& p) const {
  const float cell = 2.0f * w_.cfg.aoi;
  return std::pair(static_cast<long>(std::floor(p.x / cell)), static_cast<long>(std::floor(p.y / cell)));
}

// Candidates for what present bot k sees, by the grid: whoever the rule lets one player see (adjacent
// buckets, or the circle) is in its own or a neighbouring cell; the rule itself decides.
void Checker::find_near(std::size_t k) {
  near_.clear();
  const auto [cx, cy] = cell_of(pos_[k]);
  for (long dx = -1; dx <= 1; ++dx)
    for (long dy = -1; dy <= 1; ++dy)
      if (auto g = grid_.find({cx + dx, cy + dy}); g != grid_.end())
        near_.insert(near_.end(), g->second.begin(), g->second.end());
}

// Present bot k's State of tick t: exactly the updates of the subjects in its AOI, with their values,
// and a visible set by its events that is exactly the players in its AOI.
void Checker::check_receiver(std::size_t k, std::uint64_t t, TickData& td) {
  const std::size_t i = present_[k];
  const Session& r = *in_[i];
  const StateRecord& s = *by_tick_[i].at(t);
  ++c_.states_checked;
  find_near(k);
  std::map<std::uint32_t, std::uint32_t> want, got;  // subject_field -> value
  std::set<std::uint32_t> sees;
  for (std::size_t o : near_) {
    if (!oracle::aoi_sees(w_.cfg, pos_[k], pos_[o])) continue;
    const std::uint32_t subject = in_[present_[o]]->player;
    if (o != k) sees.insert(subject);
    if (auto u = updates_.find(subject); u != updates_.end())
      for (const aoi::MailboxEntry& e : u->second) want[e.subject_field] = e.value;
  }
  for (const aoi::MailboxEntry& e : s.entries)
    if (!unknown_now_.count(e.subject())) got[e.subject_field] = e.value;
  for (const auto& [key, value] : want) {
    auto g = got.find(key);
    if (g == got.end())
      ++c_.missing;
    else if (g->second != value)
      ++c_.wrong_value;
  }
  for (const auto& [key, value] : got)
    if (!want.count(key)) ++c_.extra;
  std::set<std::uint32_t> vis = visible_[i];
  for (std::uint32_t o : unknown_now_) vis.erase(o);
  if (sees != vis && ++c_.visibility_errors <= 5 && std::getenv("WARPMIND_BOTS_DEBUG")) {
    std::fprintf(stderr, "visibility of %u at tick %llu (session from %llu%s%s): rule", r.player,
                 static_cast<unsigned long long>(t), static_cast<unsigned long long>(r.first_tick),
                 r.resumed ? ", resumed" : "", r.after_crash ? " after a crash" : "");
    for (std::uint32_t o : sees) std::fprintf(stderr, " %u", o);
    std::fprintf(stderr, "; events");
    for (std::uint32_t o : vis) std::fprintf(stderr, " %u", o);
    std::fprintf(stderr, "\n");
    for (std::uint32_t o : vis) {
      if (sees.count(o)) continue;
      std::fprintf(stderr, "  %u: events", o);
      for (const EventRecord& e : events_[i]) {
        if (std::count(e.entered.begin(), e.entered.end(), o))
          std::fprintf(stderr, " +%llu", static_cast<unsigned long long>(e.tick));
        if (std::count(e.left.begin(), e.left.end(), o))
          std::fprintf(stderr, " -%llu", static_cast<unsigned long long>(e.tick));
      }
      std::fprintf(stderr, "; ticks heard of %u:", r.player);
      for (std::uint64_t u = t - 14; u <= t; ++u)
        std::fprintf(stderr, "%s%llu", by_tick_[i].count(u) ? " " : " !", static_cast<unsigned long long>(u));
      std::fprintf(stderr, "\n");
    }
  }
  td.pos[r.player] = pos_[k];
  td.vis[r.player] = std::move(sees);
}

// Every State of bot i whose every covered tick was heard by every bot: its catch-up is exactly the one
// expected_catch_up() makes (with WARPMIND_BOTS_DEBUG set, the first five that are not are printed).
void Checker::check_catch_ups(std::size_t i) {
  const Session& b = *in_[i];
  for (const auto& [t, s] : by_tick_[i]) {
    if (t > last_ || t >= end_[i]) break;
    if (!covered(b, t, *s) || std::any_of(unknown_.begin(), unknown_.end(), [&](const Unknown& u) {
          return u.from <= t && u.to > (s->since == 0 ? t : s->since);
        })) {  // it covers a tick with a player of unknown state
      ++c_.catch_ups_skipped;
      continue;
    }
    c_.snapshots += s->since == 0;
    const std::vector<aoi::MailboxEntry> want = expected_catch_up(b, t, *s);
    ++c_.catch_ups_checked;
    c_.catch_ups_behind += s->since != 0 && s->since + 1 < t;
    if (want == s->catch_up) continue;
    if (++c_.catch_up_errors <= 5 && std::getenv("WARPMIND_BOTS_DEBUG")) {
      std::fprintf(stderr, "catch-up of %u at tick %llu since %llu: want", b.player, static_cast<unsigned long long>(t),
                   static_cast<unsigned long long>(s->since));
      for (const auto& e : want) std::fprintf(stderr, " %u.%u=%08x", e.subject(), e.subject_field >> 30, e.value);
      std::fprintf(stderr, "; got");
      for (const auto& e : s->catch_up)
        std::fprintf(stderr, " %u.%u=%08x", e.subject(), e.subject_field >> 30, e.value);
      std::fprintf(stderr, "\n");
    }
  }
}

// Whether every tick a State's catch-up covers (from `since`, or from the bot's join) was heard by
// every bot.
bool Checker::covered(const Session& b, std::uint64_t t, const StateRecord& s) const {
  const std::uint64_t from = s.since == 0 ? t : std::max(s.since, b.first_tick);
  bool known = s.since < t && ticks_.count(t);
  for (std::uint64_t u = from; known && u <= t; ++u) known = ticks_.count(u) > 0;
  return known;
}

// What bot b saw after tick u (nothing before it was in the game).
const std::set<std::uint32_t>& Checker::vis_at(const Session& b, std::uint64_t u) const {
  if (u < b.first_tick) return none_;  // not in the game yet
  return ticks_.at(u).vis.at(b.player);
}

// The keys a State's catch-up may hold: the players in view now whole (since 0), or those that came
// into view since `since` whole and the fields that changed in the ticks after `since` and before
// this one.
KeySet Checker::catch_up_keys(const Session& b, std::uint64_t t, const StateRecord& s) const {
  KeySet keys;
  const auto whole = [&keys](std::uint32_t o) {
    for (std::uint32_t f = 0; f < 3; ++f) keys.insert(o | f << 30);
  };
  if (s.since == 0) {
    for (std::uint32_t o : ticks_.at(t).vis.at(b.player)) whole(o);
    return keys;
  }
  for (std::uint64_t u = s.since + 1; u <= t; ++u) {
    const std::set<std::uint32_t>& before = vis_at(b, u - 1);
    for (std::uint32_t o : vis_at(b, u))
      if (!before.count(o)) whole(o);
    if (u == t) break;
    for (std::uint32_t o : vis_at(b, u))
      if (auto up = ticks_.at(u).updates.find(o); up != ticks_.at(u).updates.end())
        for (const aoi::MailboxEntry& e : up->second) keys.insert(e.subject_field);
  }
  return keys;
}

// A State's catch-up as it must be (docs/protocol.md, "Deltas"): of its keys, those of the players in
// view now, without the keys of the notifications, with their values after this tick.
std::vector<aoi::MailboxEntry> Checker::expected_catch_up(const Session& b, std::uint64_t t,
                                                          const StateRecord& s) const {
  const TickData& now = ticks_.at(t);
  const std::set<std::uint32_t>& vis = now.vis.at(b.player);
  std::vector<aoi::MailboxEntry> want;
  for (std::uint32_t k : catch_up_keys(b, t, s)) {
    const std::uint32_t o = k & 0x3fffffffu;
    if (!vis.count(o)) continue;
    if (std::any_of(s.entries.begin(), s.entries.end(),
                    [k](const aoi::MailboxEntry& e) { return e.subject_field == k; }))
      continue;
    const aoi::Player& p = now.pos.at(o);
    want.push_back({k, (k >> 30) == 0 ? bits(p.x) : (k >> 30) == 1 ? bits(p.y) : static_cast<std::uint32_t>(p.hp)});
  }
  return want;
}

}  // namespace

Check check(const World& world, const std::vector<Bot>& bots) { return Checker(world, bots).run(); }

}  // namespace warpmind::bots
