// A child process that speaks a line protocol on its standard input and output (a UCI chess engine, a
// Connect6 engine): started through /bin/sh, fed lines, read line by line with a timeout. The referee
// and the training data generator drive engines through it. Not thread-safe: one thread per object.
#pragma once

#include <sys/types.h>

#include <string>

namespace warpmind::demos {

class ChildProcess {
 public:
  // Starts `command` under /bin/sh -c; ok() says whether it started.
  explicit ChildProcess(const std::string& command);
  // Sends "quit", waits up to half a second for the child to end, then kills it.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool ok() const { return pid_ > 0; }
  // Writes `line` and a newline; after a failed write the child counts as gone and sends do nothing.
  void send(const std::string& line);
  // The next line (without its "\r\n" or "\n") into `out`; false when none came within `ms` or the child
  // closed its output.
  bool line(std::string& out, int ms);
  // Reads lines until one starts with `prefix` (into *got when given); false when none did within `ms`.
  bool expect(const std::string& prefix, int ms, std::string* got = nullptr);

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
};

}  // namespace warpmind::demos
