// warpmind-server's tick times by stage and its tick counts: server_tick.cpp adds them; the summary, the
// metrics and the virtual clients' report read them. Tick thread only.
#pragma once

#include <cstdint>

#include "time_samples.h"

namespace warpmind::server {

class TickTimes {
 public:
  // One tick's stages, in ms: the whole tick; taking the commands; the AOI module; the messages.
  void add(float tick, float commands, float module, float encode) {
    tick_.add(tick);
    commands_.add(commands);
    module_.add(module);
    encode_.add(encode);
  }
  void add_wait(float ms) { wait_.add(ms); }              // a zone's wait for the others' tick messages
  void add_late() { ++late_; }                            // the schedule skipped ahead
  void add_rejected(std::uint64_t n) { rejected_ += n; }  // commands the AOI module rejected
  void clear_stages() { tick_.clear(), commands_.clear(), module_.clear(), encode_.clear(); }

  const TimeSamples& tick() const { return tick_; }
  const TimeSamples& commands() const { return commands_; }
  const TimeSamples& module() const { return module_; }
  const TimeSamples& encode() const { return encode_; }
  const TimeSamples& wait() const { return wait_; }
  std::uint64_t late() const { return late_; }
  std::uint64_t rejected() const { return rejected_; }

 private:
  TimeSamples tick_, commands_, module_, encode_, wait_;
  std::uint64_t late_ = 0, rejected_ = 0;
};

}  // namespace warpmind::server
