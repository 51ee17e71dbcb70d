// warpmind-server's metrics: the summary's counters in the Prometheus text format over HTTP at
// --metrics-port (served by a thread of its own from a page the tick thread makes every 100 ms), and the
// summary printed on stop.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "server.h"

namespace warpmind::server {

// --metrics-port: listens on it (0: any free port, printed on stderr); empty string or the reason.
std::string Server::open_metrics() {
  metrics_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(f.metrics_port));
  inet_pton(AF_INET, f.host.c_str(), &a.sin_addr);
  const int yes = 1;
  setsockopt(metrics_fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  socklen_t len = sizeof a;
  if (metrics_fd < 0 || bind(metrics_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      listen(metrics_fd, 16) != 0 || getsockname(metrics_fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return "--metrics-port: cannot listen on " + f.host + ":" + std::to_string(f.metrics_port);
  std::fprintf(stderr, "warpmind-server: metrics on http://%s:%u/metrics\n", f.host.c_str(), ntohs(a.sin_port));
  metrics_published = Clock::time_point{};
  publish_metrics();
  metrics_thread = std::thread([this] { metrics_loop(); });
  return {};
}

std::string Server::metrics_text() {
  std::string t;
  const auto metric = [&t](const char* name, const char* type, const char* help, const std::string& samples) {
    t += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + samples;
  };
  // A metric of one sample, without labels.
  const auto single = [&metric](const char* name, const char* type, const char* help, double v) {
    char b[160];
    std::snprintf(b, sizeof b, "%s %.17g\n", name, v);
    metric(name, type, help, b);
  };
  single("warpmind_server_ticks_total", "counter", "Ticks run.", tick - 1);
  single("warpmind_server_late_ticks_total", "counter", "Times the schedule skipped ahead.", late_ticks);
  single("warpmind_server_clients", "gauge", "Players joined now.", active_count());
  single("warpmind_server_joins_total", "counter", "Joins accepted.", joined);
  single("warpmind_server_leaves_total", "counter", "Players that left.", left);
  single("warpmind_server_refused_total", "counter", "Joins refused.", refused);
  single("warpmind_server_idle_total", "counter", "Players whose clients went quiet for --idle-seconds.", idle_players);
  single("warpmind_server_half_open_reset_total", "counter", "Handshakes reset: too old, or too many from one address.",
         half_open_reset);
  std::size_t open_connections = 0;
  for_each_peer([&](std::size_t, std::size_t, const ENetPeer* p) {
    open_connections += p->state != ENET_PEER_STATE_DISCONNECTED;
  });
  single("warpmind_server_connections", "gauge", "ENet connections open now (handshakes and closings included).",
         static_cast<double>(open_connections));
  single("warpmind_server_detached_total", "counter", "Players kept in the game after their connection was lost.",
         detached);
  single("warpmind_server_resumed_total", "counter", "Sessions taken back by a Hello with their token.", resumed);
  single("warpmind_server_resume_failed_total", "counter", "Resumes asked for of sessions not there (a new one given).",
         resume_failed);
  single("warpmind_server_expired_total", "counter", "Detached players that left after --resume-seconds.", expired);
  single("warpmind_server_superseded_total", "counter",
         "Connections dropped for a new one from their address and port.", superseded);
  metric("warpmind_server_connections_sealed_total", "counter", "Connections whose keys were agreed, by cipher.",
         "warpmind_server_connections_sealed_total{cipher=\"chacha20-poly1305\"} " + std::to_string(ciphers[0]) +
             "\nwarpmind_server_connections_sealed_total{cipher=\"aes-256-gcm\"} " + std::to_string(ciphers[1]) + "\n");
  std::string d;
  for (int k = 0; k < kDrops; ++k)
    d += "warpmind_server_drops_total{reason=\"" + std::string(drop_name(k)) + "\"} " + std::to_string(drops[k]) + "\n";
  metric("warpmind_server_drops_total", "counter", "Packets and datagrams dropped, by reason.", d);
  single("warpmind_server_commands_total", "counter", "Commands accepted into a tick.", commands);
  single("warpmind_server_notifications_total", "counter", "Notifications sent.", notifications);
  single("warpmind_server_datagrams_in_total", "counter", "UDP datagrams received.", datagrams_in);
  single("warpmind_server_bytes_in_total", "counter", "Message bytes received.", bytes_in);
  single("warpmind_server_bytes_out_total", "counter", "Message bytes sent.", bytes_out);
  // The last 1,000 ticks' times.
  std::vector<float> recent = tick_ms.recent();
  std::sort(recent.begin(), recent.end());
  std::string q;
  for (double p : {0.5, 0.9, 0.99}) {
    const double v =
        recent.empty() ? 0.0 : recent[std::min(recent.size() - 1, static_cast<std::size_t>(p * recent.size()))];
    char b[160];
    std::snprintf(b, sizeof b, "warpmind_server_tick_seconds{quantile=\"%g\"} %.9g\n", p, v / 1000.0);
    q += b;
  }
  metric("warpmind_server_tick_seconds", "summary", "Time of a tick over the last 1000 ticks.", q);
  return t;
}

// Answers at most one scrape per call: the request read for at most 20 ms, then the page, then close.
// The tick thread's side: the page, made afresh at most every 100 ms, for the endpoint's thread to send.
void Server::publish_metrics() {
  if (metrics_fd < 0) return;
  const Clock::time_point now = Clock::now();
  if (now - metrics_published < std::chrono::milliseconds(100)) return;
  metrics_published = now;
  const std::string body = metrics_text();
  std::string page =
      "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n\r\n" + body;
  const std::lock_guard<std::mutex> lock(metrics_mu);
  metrics_page.swap(page);
}

namespace {

// One scrape's connection on the endpoint's thread: its request so far, then the page being sent.
struct Scrape {
  int fd = -1;
  Clock::time_point opened;
  std::string in, out;
  std::size_t sent = 0;
  bool answering = false;
};

constexpr int kMaxScrapes = 16;                           // connections at once; more wait in the backlog
constexpr auto kScrapeTimeout = std::chrono::seconds(2);  // a connection that takes longer is closed

}  // namespace

// The endpoint's own thread: every connection non-blocking and polled, none can hold up the tick (a
// connection that says nothing, or reads nothing, is closed after 2 s).
void Server::metrics_loop() {
  std::vector<Scrape> scrapes;
  std::vector<pollfd> fds;
  while (!metrics_stop.load()) {
    fds.clear();
    fds.push_back({static_cast<int>(scrapes.size()) < kMaxScrapes ? metrics_fd : -1, POLLIN, 0});
    for (const Scrape& c : scrapes) fds.push_back({c.fd, static_cast<short>(c.answering ? POLLOUT : POLLIN), 0});
    poll(fds.data(), fds.size(), 50);
    const Clock::time_point now = Clock::now();
    if (fds[0].revents & POLLIN) {
      const int c = accept4(metrics_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (c >= 0) scrapes.push_back({c, now, {}, {}, 0, false});
    }
    for (std::size_t k = 0; k < scrapes.size(); ++k) {
      Scrape& c = scrapes[k];
      bool done = now - c.opened > kScrapeTimeout;
      if (!done && !c.answering) {
        char buf[1024];
        const ssize_t n = read(c.fd, buf, sizeof buf);
        if (n > 0) c.in.append(buf, static_cast<std::size_t>(n));
        if (n == 0 || c.in.find("\r\n\r\n") != std::string::npos || c.in.size() >= 2048) {
          const std::lock_guard<std::mutex> lock(metrics_mu);
          c.out = metrics_page;
          c.answering = true;
        }
      }
      if (!done && c.answering) {
        const ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
        if (n > 0) c.sent += static_cast<std::size_t>(n);
        done = c.sent == c.out.size() || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
      }
      if (done) {
        shutdown(c.fd, SHUT_WR);
        close(c.fd);
        c.fd = -1;
      }
    }
    std::erase_if(scrapes, [](const Scrape& c) { return c.fd < 0; });
  }
  for (Scrape& c : scrapes) close(c.fd);
}

// The summary on stop: one line of JSON (--json) or a few lines of text, on stdout.
void Server::print_summary(double seconds, std::uint32_t connected) const {
  std::uint64_t dropped = 0;
  for (std::uint64_t d : drops) dropped += d;
  if (f.json) {
    std::string drop_list, by_socket;
    for (std::size_t k = 0; k < connects_by_socket.size(); ++k)
      by_socket += (k ? "," : "") + std::to_string(connects_by_socket[k]);
    for (int d = 0; d < kDrops; ++d)
      drop_list += std::string(d ? "," : "") + "\"" + drop_name(d) + "\":" + std::to_string(drops[d]);
    std::printf(
        "{\"program\":\"warpmind-server\",\"ticks\":%llu,\"seconds\":%.3f,\"tick_hz\":%d,\"late_ticks\":%llu,"
        "\"clients\":{\"joined\":%llu,\"left\":%llu,\"disconnected\":%llu,\"refused\":%llu,\"slow\":%llu,\"peak\":%llu,"
        "\"connected_at_stop\":%u,\"idle\":%llu,\"half_open_reset\":%llu,\"detached\":%llu,\"resumed\":%llu,"
        "\"resume_failed\":%llu,\"expired\":%llu,\"superseded\":%llu,\"sealed_chacha20_poly1305\":%llu,"
        "\"sealed_aes_256_gcm\":%llu},\"drops\":{%s},\"dropped\":%llu,\"receive_"
        "errors\":%llu,\"commands\":%llu,"
        "\"rejected_by_aoi\":%llu,"
        "\"notifications\":%llu,\"datagrams_in\":%llu,\"datagram_bytes_in\":%llu,\"bytes_in\":%llu,\"packets_out\":%"
        "llu,\"bytes_out\":%llu,"
        "\"tick_ms\":{\"p50\":%.4f,\"p90\":%.4f,\"p99\":%.4f,\"max\":%.4f},\"variant\":\"%s\",\"backend\":\"%s\","
        "\"send_failures\":%llu,\"observers\":%zu,\"observers_refused\":%llu,\"observers_idle\":%llu,\"connects_by_"
        "socket\":[%s],\"socket_"
        "buffer\":%d,\"zone\":%d,"
        "\"zones\":%d,\"cluster\":{"
        "\"messages_in\":%llu,\"bad_"
        "messages\":%llu,\"late_messages\":%llu,"
        "\"timeouts\":%llu,\"relayed_out\":%llu,\"relayed_in\":%llu,\"resets\":%llu,\"views_missing\":%llu,"
        "\"bad_tags\":%llu,\"too_early\":%llu,\"resent\":%llu,\"stores\":%llu,\"store_failures\":%llu,\"store_bytes\":%"
        "llu,"
        "\"restored_tick\":%llu,\"restore_ms\":%.3f,"
        "\"wait_ms\":{\"p50\":%.4f,\"p99\":%.4f}}}\n",
        static_cast<unsigned long long>(tick - 1), seconds, f.tick_hz, static_cast<unsigned long long>(late_ticks),
        static_cast<unsigned long long>(joined), static_cast<unsigned long long>(left),
        static_cast<unsigned long long>(disconnected), static_cast<unsigned long long>(refused),
        static_cast<unsigned long long>(slow_peers), static_cast<unsigned long long>(peak), connected,
        static_cast<unsigned long long>(idle_players), static_cast<unsigned long long>(half_open_reset),
        static_cast<unsigned long long>(detached), static_cast<unsigned long long>(resumed),
        static_cast<unsigned long long>(resume_failed), static_cast<unsigned long long>(expired),
        static_cast<unsigned long long>(superseded), static_cast<unsigned long long>(ciphers[0]),
        static_cast<unsigned long long>(ciphers[1]), drop_list.c_str(), static_cast<unsigned long long>(dropped),
        static_cast<unsigned long long>(receive_errors), static_cast<unsigned long long>(commands),
        static_cast<unsigned long long>(module_rejected), static_cast<unsigned long long>(notifications),
        static_cast<unsigned long long>(datagrams_in), static_cast<unsigned long long>(datagram_bytes_in),
        static_cast<unsigned long long>(bytes_in), static_cast<unsigned long long>(packets_out),
        static_cast<unsigned long long>(bytes_out), percentile(tick_ms.kept(), 0.5), percentile(tick_ms.kept(), 0.9),
        percentile(tick_ms.kept(), 0.99), tick_ms.max(), aoi::variant_name(world->variant()),
        backend_name(ctx->backend()), static_cast<unsigned long long>(send_failures), observers.size(),
        static_cast<unsigned long long>(observers_refused), static_cast<unsigned long long>(observers_idle),
        by_socket.c_str(), socket_buffer, f.zone, f.zones, static_cast<unsigned long long>(zone_messages),
        static_cast<unsigned long long>(zone_bad), static_cast<unsigned long long>(zone_late),
        static_cast<unsigned long long>(zone_timeouts), static_cast<unsigned long long>(relayed_out),
        static_cast<unsigned long long>(relayed_in), static_cast<unsigned long long>(resets),
        static_cast<unsigned long long>(views_missing), static_cast<unsigned long long>(zone_bad_tags),
        static_cast<unsigned long long>(zone_too_early), static_cast<unsigned long long>(zone_resent),
        static_cast<unsigned long long>(stores), static_cast<unsigned long long>(store_failures),
        static_cast<unsigned long long>(store_bytes), static_cast<unsigned long long>(restored_tick), restore_ms,
        percentile(wait_ms.kept(), 0.5), percentile(wait_ms.kept(), 0.99));
  } else {
    std::printf("warpmind-server: %llu ticks in %.1f s (%llu late), %llu joined, %llu left, peak %llu clients\n",
                static_cast<unsigned long long>(tick - 1), seconds, static_cast<unsigned long long>(late_ticks),
                static_cast<unsigned long long>(joined), static_cast<unsigned long long>(left),
                static_cast<unsigned long long>(peak));
    std::printf("dropped %llu:", static_cast<unsigned long long>(dropped));
    for (int d = 0; d < kDrops; ++d) std::printf(" %s %llu", drop_name(d), static_cast<unsigned long long>(drops[d]));
    std::printf("\nbytes in %llu, out %llu; tick ms p50 %.3f p99 %.3f\n", static_cast<unsigned long long>(bytes_in),
                static_cast<unsigned long long>(bytes_out), percentile(tick_ms.kept(), 0.5),
                percentile(tick_ms.kept(), 0.99));
  }
}

}  // namespace warpmind::server
