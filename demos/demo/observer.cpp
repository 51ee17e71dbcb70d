// The observer connection to warpmind-server (observer.h). Every packet goes through the verified read
// (net::read_message) before anything in it is looked at; what fails, or makes no sense, is counted and
// ignored.
#include "observer.h"

#include <enet/enet.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "aoi_oracle.h"
#include "enet_send.h"
#include "output.h"
#include "protocol.h"
#include "session_keys.h"

namespace warpmind::demos {

namespace {

// ENet once per process (enet_deinitialize is left to process exit: other code may use ENet too).
bool enet_ready() {
  static const bool ok = enet_initialize() == 0;
  return ok;
}

// "HOST:PORT" split; false when it is not that shape.
bool split_address(const std::string& a, std::string& host, int& port) {
  const std::size_t colon = a.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= a.size() || a.size() > 255) return false;
  host = a.substr(0, colon);
  const std::string p = a.substr(colon + 1);
  if (p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) return false;
  port = std::atoi(p.c_str());
  return port >= 1 && port <= 65535;
}

const char* refuse_text(net::RefuseReason r) {
  switch (r) {
    case net::RefuseReason_UnknownVersion:
      return "refused: the server speaks another protocol version";
    case net::RefuseReason_ServerFull:
      return "refused: the server has no room for another observer (--max-observers)";
    case net::RefuseReason_AlreadyJoined:
      return "refused: already joined";
    case net::RefuseReason_NotAuthorized:
      return "refused: the server wants its observer key (--observer-key-file)";
    default:
      return "refused";
  }
}

}  // namespace

const char* observer_state_name(ObserverState s) {
  switch (s) {
    case ObserverState::Connecting:
      return "connecting";
    case ObserverState::Waiting:
      return "waiting for welcome";
    case ObserverState::Watching:
      return "watching";
    case ObserverState::Refused:
      return "refused";
    case ObserverState::Disconnected:
      return "disconnected";
    case ObserverState::Failed:
      return "failed";
  }
  return "?";
}

std::string ServerObserver::check_address(const std::string& address) {
  std::string host;
  int port = 0;
  if (!split_address(address, host, port))
    return "--connect: expected HOST:PORT (PORT 1..65535), got '" + address + "'";
  return {};
}

std::string ServerObserver::read_key(const std::string& path, std::string& key) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "--observer-key-file: cannot read " + path;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() < 16 || line.size() > 256)
    return "--observer-key-file: " + path + " must hold a key of 16 to 256 bytes on its first line";
  key = line;
  return {};
}

std::string ServerObserver::check_server_key(const std::string& hex) {
  net::Key32 k{};
  return net::parse_hex32(hex, k) ? std::string() : "--server-key: 64 hexadecimal digits expected";
}

std::string ServerObserver::open(const std::string& address, const std::string& key, const std::string& server_key,
                                 std::unique_ptr<ServerObserver>& out) {
  out.reset();
  net::Key32 pin{};
  if (!server_key.empty() && !net::parse_hex32(server_key, pin)) return check_server_key(server_key);
  std::string host;
  int port = 0;
  if (!split_address(address, host, port))
    return "--connect: expected HOST:PORT (PORT 1..65535), got '" + address + "'";
  if (!enet_ready()) return "cannot initialise ENet";
  ENetAddress a{};
  if (enet_address_set_host(&a, host.c_str()) != 0) return "--connect: cannot resolve '" + host + "'";
  a.port = static_cast<enet_uint16>(port);
  std::unique_ptr<ServerObserver> o(new ServerObserver());
  o->address_ = address;
  o->key_ = key;
  o->pinned_ = !server_key.empty();
  static_assert(sizeof o->pin_ == sizeof pin);
  std::memcpy(o->pin_, pin.data(), sizeof o->pin_);
  o->host_ = enet_host_create(nullptr, 1, net::kChannels, 0, 0);
  if (o->host_ == nullptr) return "cannot create an ENet host (no UDP socket)";
  // A Snapshot of 4,000 players is ~64 KiB; the server's own packet limit is 256 KiB.
  o->host_->maximumPacketSize = 256 * 1024;
  o->host_->maximumWaitingData = 1024 * 1024;
  o->peer_ = enet_host_connect(o->host_, &a, net::kChannels, 0);
  if (o->peer_ == nullptr) return "cannot start an ENet connection";
  o->since_ = Clock::now();
  out = std::move(o);
  return {};
}

struct ServerObserver::Sealing {
  net::KeyPair pair;
  net::SessionKeys keys;
};

ServerObserver::~ServerObserver() {
  if (host_ != nullptr) {
    if (peer_ != nullptr && connected()) {
      enet_peer_disconnect_now(peer_, 0);
      enet_host_flush(host_);
    }
    enet_host_destroy(host_);
  }
}

void ServerObserver::fail(ObserverState s, const std::string& why) {
  state_ = s;
  reason_ = why;
  since_ = Clock::now();
  if (peer_ != nullptr) {
    enet_peer_reset(peer_);  // nothing more from it (the server times the connection out)
    peer_ = nullptr;
  }
}

void ServerObserver::close(double wait_s) {
  if (peer_ == nullptr || !connected()) return;
  enet_peer_disconnect(peer_, 0);
  ENetEvent ev;
  const auto until = Clock::now() + std::chrono::duration<double>(wait_s);
  bool done = wait_s <= 0;
  while (!done && Clock::now() < until) {
    const int r = enet_host_service(host_, &ev, 5);
    if (r < 0) break;
    if (r > 0 && ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
    if (r > 0 && ev.type == ENET_EVENT_TYPE_DISCONNECT) done = true;
  }
  if (!done) enet_peer_disconnect_now(peer_, 0);
  enet_host_flush(host_);
  peer_ = nullptr;
  state_ = ObserverState::Disconnected;
  reason_ = "closed by the demo";
}

void ServerObserver::poll(int max_events) {
  if (host_ == nullptr) return;
  ENetEvent ev;
  for (int k = 0; k < max_events; ++k) {
    const int r = enet_host_service(host_, &ev, 0);
    if (r <= 0) break;
    switch (ev.type) {
      case ENET_EVENT_TYPE_CONNECT:
        if (state_ == ObserverState::Connecting) {
          // The connection's first packet: a fresh public key, in clear; the Observe follows the Keys.
          sealing_ = std::make_unique<Sealing>();
          if (!sealing_->pair.make()) return fail(ObserverState::Failed, "cannot make a key pair (libsodium)");
          flatbuffers::FlatBufferBuilder b(96);
          const auto key = b.CreateVector(sealing_->pair.pk.data(), sealing_->pair.pk.size());
          net::FinishMessageBuffer(
              b, net::CreateMessage(b, net::Body_Connect, net::CreateConnect(b, net::kProtocolVersion, key).Union()));
          net::send_packet(peer_, net::kReliableChannel, b.GetBufferPointer(), b.GetSize(), nullptr);
          state_ = ObserverState::Waiting;
          since_ = Clock::now();
        }
        break;
      case ENET_EVENT_TYPE_DISCONNECT:
        if (state_ == ObserverState::Connecting)
          fail(ObserverState::Failed, "no answer from " + address_);
        else if (state_ == ObserverState::Waiting || state_ == ObserverState::Watching)
          fail(ObserverState::Disconnected, "the server closed the connection or stopped answering");
        peer_ = nullptr;  // ENet has let it go
        break;
      case ENET_EVENT_TYPE_RECEIVE:
        on_packet(ev.packet->data, ev.packet->dataLength, ev.channelID);
        enet_packet_destroy(ev.packet);
        break;
      case ENET_EVENT_TYPE_NONE:
        break;
    }
  }
  if (state_ == ObserverState::Watching && peer_ != nullptr && Clock::now() - last_ack_ >= std::chrono::seconds(1)) {
    last_ack_ = Clock::now();  // still here: an Ack (token 0) a second keeps the server from timing it out
    flatbuffers::FlatBufferBuilder b(64);
    net::FinishMessageBuffer(b, net::CreateMessage(b, net::Body_Ack, net::CreateAck(b, 0, ++ack_seq_, tick_).Union()));
    send_sealed(net::kStreamChannel, b.GetBufferPointer(), b.GetSize());
  }
  const double waited = std::chrono::duration<double>(Clock::now() - since_).count();
  if (state_ == ObserverState::Connecting && waited > kObserverTimeoutS) {
    char why[160];
    std::snprintf(why, sizeof why, "no answer from %s within %.0f s", address_.c_str(), kObserverTimeoutS);
    fail(ObserverState::Failed, why);
  } else if (state_ == ObserverState::Waiting && waited > kObserverTimeoutS) {
    char why[160];
    std::snprintf(why, sizeof why, "connected to %s, but no Welcome within %.0f s", address_.c_str(),
                  kObserverTimeoutS);
    fail(ObserverState::Failed, why);
  }
}

// A packet: before the keys, the server's Keys (or its Refused) in clear; then sealed Messages.
void ServerObserver::on_packet(const std::uint8_t* data, std::size_t size, std::uint8_t channel) {
  if (sealing_ == nullptr || !sealing_->keys.ready()) return on_keys(data, size);
  std::size_t plain = 0;
  opened_.resize(size >= net::kSealOverhead ? size - net::kSealOverhead : 0);
  if (size < net::kSealOverhead ||
      sealing_->keys.open(channel, data, size, opened_.data(), plain) != net::OpenError::None) {
    ++bad_packets_;
    return;
  }
  on_message(opened_.data(), plain);
}

// The answer to the Connect: the server's public key (then the Observe goes out, sealed), or a Refused.
void ServerObserver::on_keys(const std::uint8_t* data, std::size_t size) {
  const net::Message* m = net::read_message(data, size);
  if (m != nullptr && m->body_type() == net::Body_Refused) return on_message(data, size);
  const net::Keys* k = m ? m->body_as_Keys() : nullptr;
  if (sealing_ == nullptr || state_ != ObserverState::Waiting || k == nullptr || k->key() == nullptr ||
      k->key()->size() != net::kPublicKeyBytes || !sealing_->keys.derive_client(sealing_->pair, k->key()->data())) {
    ++bad_packets_;
    return;
  }
  if (pinned_ && std::memcmp(k->key()->data(), pin_, sizeof pin_) != 0)
    return fail(ObserverState::Failed, "the server's public key is not the one given (--server-key)");
  // The Connect offered ChaCha20-Poly1305 only (an observer's traffic is small).
  if (k->cipher() != net::Cipher_ChaCha20Poly1305)
    return fail(ObserverState::Failed, "the server picked a cipher the observer did not offer");
  flatbuffers::FlatBufferBuilder b(64 + key_.size());
  const auto key = key_.empty() ? 0 : b.CreateString(key_);
  net::FinishMessageBuffer(
      b, net::CreateMessage(b, net::Body_Observe, net::CreateObserve(b, net::kProtocolVersion, key).Union()));
  send_sealed(net::kReliableChannel, b.GetBufferPointer(), b.GetSize());
}

void ServerObserver::send_sealed(std::uint8_t channel, const std::uint8_t* data, std::size_t size) {
  net::send_packet(peer_, channel, data, size, &sealing_->keys);
}

void ServerObserver::on_message(const std::uint8_t* data, std::size_t size) {
  const net::Message* m = net::read_message(data, size);
  if (m == nullptr) {
    ++bad_packets_;
    return;
  }
  if (state_ != ObserverState::Waiting && state_ != ObserverState::Watching) return;  // after the end
  switch (m->body_type()) {
    case net::Body_Welcome: {
      const net::Welcome& w = *m->body_as_Welcome();
      const auto finite_positive = [](float v) { return std::isfinite(v) && v > 0; };
      if (welcomed_ || w.version() != net::kProtocolVersion || !finite_positive(w.map()) || !finite_positive(w.aoi()) ||
          !finite_positive(w.world_width()) || !finite_positive(w.world_height()) || !std::isfinite(w.world_x0()) ||
          !std::isfinite(w.world_y0()) || w.tick_hz() == 0) {
        ++bad_packets_;
        if (!welcomed_) fail(ObserverState::Failed, "the server's Welcome cannot be used");
        return;
      }
      world_.map = w.map();
      world_.aoi.world = {w.world_x0(), w.world_y0(), w.world_width(), w.world_height()};
      world_.aoi.aoi = w.aoi();
      world_.aoi.shape = w.shape() == net::Shape_Circle ? aoi::AoiShape::Circle : aoi::AoiShape::Square;
      world_.tick_hz = w.tick_hz();
      welcomed_ = true;
      state_ = ObserverState::Watching;
      since_ = Clock::now();
      return;
    }
    case net::Body_Refused:
      fail(ObserverState::Refused, refuse_text(m->body_as_Refused()->reason()));
      return;
    case net::Body_Snapshot: {
      if (!welcomed_) return;  // ahead of its Welcome (another channel): the next one will do
      const net::Snapshot& s = *m->body_as_Snapshot();
      if (snapshots_ > 0 && s.tick() <= tick_) return;  // sequenced channel: cannot happen; never go back
      const auto* list = s.players();
      const std::size_t n = list ? list->size() : 0;
      // Ascending ids and finite positions, or the whole snapshot is ignored.
      for (std::size_t k = 0; k < n; ++k) {
        const net::PlayerState* p = list->Get(static_cast<flatbuffers::uoffset_t>(k));
        if (!std::isfinite(p->x()) || !std::isfinite(p->y()) ||
            (k > 0 && list->Get(static_cast<flatbuffers::uoffset_t>(k - 1))->player() >= p->player())) {
          ++bad_packets_;
          return;
        }
      }
      ids_.resize(n);
      players_.resize(n);
      for (std::size_t k = 0; k < n; ++k) {
        const net::PlayerState* p = list->Get(static_cast<flatbuffers::uoffset_t>(k));
        ids_[k] = p->player();
        players_[k] = {p->x(), p->y(), p->hp()};
      }
      tick_ = s.tick();
      ++snapshots_;
      last_snapshot_ = Clock::now();
      arrivals_.push_back(last_snapshot_);
      while (!arrivals_.empty() && last_snapshot_ - arrivals_.front() > std::chrono::seconds(1)) arrivals_.pop_front();
      return;
    }
    default:
      ++bad_packets_;  // nothing else is sent to an observer
      return;
  }
}

double ServerObserver::snapshots_per_second() const {
  std::size_t n = 0;
  const auto now = Clock::now();
  for (const auto& t : arrivals_) n += now - t <= std::chrono::seconds(1);
  return static_cast<double>(n);
}

double ServerObserver::last_snapshot_age_s() const {
  if (snapshots_ == 0) return -1;
  return std::chrono::duration<double>(Clock::now() - last_snapshot_).count();
}

std::string ServerObserver::stats_json() const {
  char age[32];
  std::snprintf(age, sizeof age, "%.3f", last_snapshot_age_s());
  return "{\"address\": \"" + json_escape(address_) + "\", \"state\": \"" + observer_state_name(state_) +
         "\", \"connected\": " + (connected() ? "true" : "false") +
         ", \"welcomed\": " + (welcomed_ ? "true" : "false") + ", \"snapshots\": " + std::to_string(snapshots_) +
         ", \"last_tick\": " + std::to_string(tick_) + ", \"players\": " + std::to_string(players_.size()) +
         ", \"bad_packets\": " + std::to_string(bad_packets_) + ", \"last_snapshot_age_s\": " + age +
         ", \"reason\": \"" + json_escape(reason_) + "\"}";
}

std::vector<std::uint32_t> observed_aoi(const ServerObserver& o, std::uint32_t selected) {
  std::vector<std::uint32_t> out;
  const auto ids = o.ids();
  const auto it = std::lower_bound(ids.begin(), ids.end(), selected);
  if (!o.welcomed() || it == ids.end() || *it != selected) return out;
  const aoi::Player& me = o.players()[static_cast<std::size_t>(it - ids.begin())];
  for (std::size_t k = 0; k < ids.size(); ++k)
    if (oracle::aoi_sees(o.world().aoi, me, o.players()[k])) out.push_back(ids[k]);
  return out;
}

WorldRect observed_view(const ServerObserver& o) {
  if (!o.welcomed()) return {0, 0, 1000, 1000};
  return {0, 0, o.world().map, o.world().map};
}

void draw_observed(const ServerObserver& o, std::uint32_t selected, std::vector<engine::UnitInstance>& units,
                   std::vector<engine::LineVertex>& lines) {
  const auto line = [&lines](float x0, float y0, float x1, float y1, std::uint32_t c) {
    lines.push_back({x0, y0, c});
    lines.push_back({x1, y1, c});
  };
  const auto colour = [](int r, int g, int b, int a = 255) {
    return static_cast<std::uint32_t>(r) | (static_cast<std::uint32_t>(g) << 8) |
           (static_cast<std::uint32_t>(b) << 16) | (static_cast<std::uint32_t>(a) << 24);
  };
  const auto rect = [&](float x0, float y0, float x1, float y1, std::uint32_t c) {
    line(x0, y0, x1, y0, c);
    line(x1, y0, x1, y1, c);
    line(x1, y1, x0, y1, c);
    line(x0, y1, x0, y0, c);
  };
  const WorldRect view = observed_view(o);
  rect(view.x0, view.y0, view.x0 + view.width, view.y0 + view.height, colour(200, 200, 200, 160));
  if (!o.welcomed()) return;
  const aoi::AoiConfig& c = o.world().aoi;
  // The bucket grid over the map, laid from the world's corner (the parking strip beyond the map is left
  // out: nobody in the game stands there).
  const float a = c.aoi;
  const float mx = std::min(c.world.x0 + c.world.width, view.x0 + view.width);
  const float my = std::min(c.world.y0 + c.world.height, view.y0 + view.height);
  if ((mx - c.world.x0) / a <= 400 && (my - c.world.y0) / a <= 400) {
    const std::uint32_t g = colour(255, 255, 255, 40);
    for (float x = c.world.x0; x <= mx + 1e-3f; x += a) line(x, c.world.y0, x, my, g);
    for (float y = c.world.y0; y <= my + 1e-3f; y += a) line(c.world.x0, y, mx, y, g);
  }
  const auto ids = o.ids();
  const auto players = o.players();
  const float r = std::max(0.3f, a * 0.12f);
  for (std::size_t i = 0; i < players.size(); ++i) {
    const float life = std::clamp(static_cast<float>(players[i].hp) / 100.0f, 0.0f, 1.0f);
    units.push_back({players[i].x, players[i].y, r,
                     colour(static_cast<int>(255 * (1 - life)), static_cast<int>(80 + 175 * life), 90)});
  }
  const auto it = std::lower_bound(ids.begin(), ids.end(), selected);
  if (it == ids.end() || *it != selected) return;
  const aoi::Player& me = players[static_cast<std::size_t>(it - ids.begin())];
  units.push_back({me.x, me.y, r * 2.5f, colour(255, 240, 80)});  // drawn last: on top
  const std::uint32_t yellow = colour(255, 230, 90, 220);
  if (c.shape == aoi::AoiShape::Square) {
    // The 3 x 3 buckets around its own (clamped into the grid, as the rule clamps).
    const int cols = std::max(1, static_cast<int>(std::ceil(c.world.width / a)));
    const int rows = std::max(1, static_cast<int>(std::ceil(c.world.height / a)));
    const int bx = std::clamp(static_cast<int>(std::floor((me.x - c.world.x0) / a)), 0, cols - 1);
    const int by = std::clamp(static_cast<int>(std::floor((me.y - c.world.y0) / a)), 0, rows - 1);
    rect(c.world.x0 + static_cast<float>(std::max(bx - 1, 0)) * a,
         c.world.y0 + static_cast<float>(std::max(by - 1, 0)) * a,
         c.world.x0 + static_cast<float>(std::min(bx + 2, cols)) * a,
         c.world.y0 + static_cast<float>(std::min(by + 2, rows)) * a, yellow);
  } else {
    for (int k = 0; k < 48; ++k) {
      const float a0 = 6.2831853f * static_cast<float>(k) / 48, a1 = 6.2831853f * static_cast<float>(k + 1) / 48;
      line(me.x + a * std::cos(a0), me.y + a * std::sin(a0), me.x + a * std::cos(a1), me.y + a * std::sin(a1), yellow);
    }
  }
  // A line to each player in its AOI.
  for (std::size_t k = 0; k < players.size(); ++k)
    if (ids[k] != selected && oracle::aoi_sees(c, me, players[k]))
      line(me.x, me.y, players[k].x, players[k].y, colour(120, 180, 255, 200));
}

}  // namespace warpmind::demos
