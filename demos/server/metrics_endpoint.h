// warpmind-server's Prometheus endpoint (--metrics-port): a thread of its own serves every scrape the
// page the tick thread last published, so that neither a slow scraper nor a slow tick holds up the other
// (they share only the page, swapped under a mutex).
//
// open() listens and starts the thread; publish() (the tick thread, as often as it likes) makes the page
// afresh from `text` at most every 100 ms; close() (also on destruction) joins the thread and closes the
// socket. A connection that says nothing, or reads nothing, is closed after 2 s; at most 16 are served
// at once, more wait in the listen backlog.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace warpmind::server {

class MetricsEndpoint {
 public:
  using Clock = std::chrono::steady_clock;

  MetricsEndpoint() = default;
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;
  ~MetricsEndpoint() { close(); }

  // Listens on host:port (port 0: any free one, printed on stderr) and serves `text` from then on; empty
  // string or the reason it cannot. `text` is called on the tick thread only (from open and publish).
  std::string open(const std::string& host, int port, std::function<std::string()> text);
  // The tick thread's side: the page made afresh, unless it was less than 100 ms ago. Nothing when closed.
  void publish();
  // The thread joined, the socket closed; the endpoint can be dropped or left as it is.
  void close();

 private:
  void loop();  // the endpoint's thread

  int fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::string page_;  // under mu_
  Clock::time_point published_{};
  std::function<std::string()> text_;
};

}  // namespace warpmind::server
