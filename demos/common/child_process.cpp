#include "child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace warpmind::demos {

using Clock = std::chrono::steady_clock;

ChildProcess::ChildProcess(const std::string& command) {
  int in[2], out[2];
  if (pipe(in)) return;
  if (pipe(out)) {
    close(in[0]);
    close(in[1]);
    return;
  }
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  if (pid_ < 0) {
    close(in[1]);
    close(out[0]);
    return;
  }
  to_ = in[1];
  from_ = out[0];
}

ChildProcess::~ChildProcess() {
  send("quit");
  if (to_ >= 0) close(to_);
  if (from_ >= 0) close(from_);
  if (pid_ > 0) {
    int status = 0;
    for (int i = 0; i < 50 && waitpid(pid_, &status, WNOHANG) == 0; ++i) usleep(10000);
    if (waitpid(pid_, &status, WNOHANG) == 0) kill(pid_, SIGKILL), waitpid(pid_, &status, 0);
  }
}

void ChildProcess::send(const std::string& line) {
  const std::string s = line + "\n";
  if (to_ >= 0 && write(to_, s.data(), s.size()) != static_cast<ssize_t>(s.size())) to_ = -1;
}

bool ChildProcess::line(std::string& out, int ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      out = buffer_.substr(0, nl);
      if (!out.empty() && out.back() == '\r') out.pop_back();
      buffer_.erase(0, nl + 1);
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || from_ < 0) return false;
    pollfd p{from_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) return false;
    char buf[4096];
    const ssize_t n = read(from_, buf, sizeof buf);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<std::size_t>(n));
  }
}

bool ChildProcess::expect(const std::string& prefix, int ms, std::string* got) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
  std::string l;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (!line(l, static_cast<int>(std::max<long long>(1, left)))) return false;
    if (l.rfind(prefix, 0) == 0) {
      if (got) *got = l;
      return true;
    }
  }
}

}  // namespace warpmind::demos
