// warpmind-server's metrics endpoint (metrics_endpoint.h): a listening TCP socket and the thread that
// answers its scrapes with the page the tick thread publishes.
#include "metrics_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace warpmind::server {

std::string MetricsEndpoint::open(const std::string& host, int port, std::function<std::string()> text) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &a.sin_addr);
  const int yes = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  socklen_t len = sizeof a;
  if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd_, 16) != 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return close(), "--metrics-port: cannot listen on " + host + ":" + std::to_string(port);
  std::fprintf(stderr, "warpmind-server: metrics on http://%s:%u/metrics\n", host.c_str(), ntohs(a.sin_port));
  text_ = std::move(text);
  published_ = Clock::time_point{};
  publish();
  thread_ = std::thread([this] { loop(); });
  return {};
}

// The tick thread's side: the page, made afresh at most every 100 ms, for the endpoint's thread to send.
void MetricsEndpoint::publish() {
  if (fd_ < 0) return;
  const Clock::time_point now = Clock::now();
  if (now - published_ < std::chrono::milliseconds(100)) return;
  published_ = now;
  const std::string body = text_();
  std::string page =
      "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n\r\n" + body;
  const std::lock_guard<std::mutex> lock(mu_);
  page_.swap(page);
}

namespace {

using Clock = MetricsEndpoint::Clock;

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
void MetricsEndpoint::loop() {
  std::vector<Scrape> scrapes;
  std::vector<pollfd> fds;
  while (!stop_.load()) {
    fds.clear();
    fds.push_back({static_cast<int>(scrapes.size()) < kMaxScrapes ? fd_ : -1, POLLIN, 0});
    for (const Scrape& c : scrapes) fds.push_back({c.fd, static_cast<short>(c.answering ? POLLOUT : POLLIN), 0});
    poll(fds.data(), fds.size(), 50);
    const Clock::time_point now = Clock::now();
    if (fds[0].revents & POLLIN) {
      const int c = accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
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
          const std::lock_guard<std::mutex> lock(mu_);
          c.out = page_;
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
        ::close(c.fd);
        c.fd = -1;
      }
    }
    std::erase_if(scrapes, [](const Scrape& c) { return c.fd < 0; });
  }
  for (Scrape& c : scrapes) ::close(c.fd);
}

void MetricsEndpoint::close() {
  if (thread_.joinable()) {
    stop_ = true;
    thread_.join();
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace warpmind::server
