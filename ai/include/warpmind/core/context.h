// warpmind::Context — which backend runs the work, and the resources it needs.
//
// A Context is created once and shared by the module objects built from it (FieldLayers, ...).
//   Backend::Cpu   multi-threaded CPU code only.
//   Backend::Cuda  an NVIDIA GPU; create() fails with StatusCode::Unavailable if none is usable
//                  (no driver, no device, CUDA not built in) and says why.
//   Backend::Auto  CUDA when a device is usable, otherwise the CPU; the fallback is logged, never fatal.
//
// create() never throws and never ends the process. Every option is checked first, as the C API checks
// wm_context_create's arguments, and a bad one is InvalidArgument with nothing created:
//   backend      one of the three enumerators (an integer cast to Backend outside them is refused);
//   cpu_threads  0 (one per hardware thread) to kMaxCpuThreads (4096);
//   cuda_device  >= 0; an ordinal past the last device makes CUDA unusable (Unavailable for Backend::Cuda,
//                the CPU for Backend::Auto, logged); ignored for Backend::Cpu beyond the sign check.
// When the system cannot start the threads asked for (a thread limit, no memory for the stacks), create()
// returns Unavailable naming how many started; a failed allocation is OutOfMemory.
//
// Logging: the library's messages (today the backend choice and the CPU fallback's reason) go to
// ContextOptions::log when one is set, otherwise to stderr as one "warpmind: ..." line; quiet = true drops
// them in both cases. The callback is called on the thread that made the call that logs, possibly from
// several threads at once when module objects of the context run on several threads, and during create()
// itself; it must not call back into the context. An exception thrown by it is caught and dropped.
// The context owns the CPU thread pool and, on CUDA, the device and the stream all module work is
// queued on. It must outlive every module object created from it (they keep a pointer to it).
//
// Threads — the library's one statement of it (warpmind/warpmind.h and docs/embedding.md refer here):
//   - A module object (FieldLayers, CrowdSolver, AoiWorld, ...) is used by one thread at a time.
//   - Different module objects of one context may be used from different threads at once (a field on one
//     job thread, an AOI world on another): the context's CPU pool runs one parallel_for at a time and
//     queues the others, and on CUDA every module's work goes to the context's one stream in the order
//     the calls reach it. Their results are those of the same calls made one after another; their work
//     takes turns rather than overlapping. (tests/core/shared_context_test.cpp, run under ThreadSanitizer
//     in CI.)
//     On CUDA this includes the field's steady-state build, which records its CUDA graph on a private
//     stream and launches it on the context's (tests/core/shared_context_test.cpp's GPU case).
//   - For work that overlaps, give each thread its own context (its own pool, on CUDA its own stream).
//   - A context itself is only read after create(); destroy it after every thread is done with it.
//
// Every module's `Auto` variant (FieldVariant, CrowdVariant, AoiVariant, DdmVariant) means the same: the
// module's default GPU variant on a context whose backend() is Cuda, its default CPU variant otherwise —
// never a GPU variant on a CPU context. The module's header names the two.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "warpmind/core/status.h"
#include "warpmind/core/thread_pool.h"

namespace warpmind {

enum class Backend { Cpu, Cuda, Auto };

// "cpu" | "cuda" | "auto"; returns false for anything else.
bool parse_backend(std::string_view name, Backend& out);
const char* backend_name(Backend b);

enum class LogLevel { Info, Warning };
const char* log_level_name(LogLevel level);  // "info" | "warning"

// A log message: its level and one line of text without a trailing newline (valid during the call only).
using LogCallback = std::function<void(LogLevel level, std::string_view message)>;

// The most CPU threads a context may ask for (ContextOptions::cpu_threads).
inline constexpr unsigned kMaxCpuThreads = 4096;

struct ContextOptions {
  Backend backend = Backend::Auto;
  unsigned cpu_threads = 0;  // 0: one per hardware thread; otherwise 1..kMaxCpuThreads
  int cuda_device = 0;       // device ordinal used when CUDA is chosen; >= 0
  bool quiet = false;        // true: log nothing (neither to `log` nor to stderr)
  LogCallback log;           // where messages go; empty: stderr
};

struct DeviceInfo {
  std::string name;  // e.g. "NVIDIA H100 80GB HBM3", or "cpu"
  int sm_count = 0;
  int compute_major = 0, compute_minor = 0;
  std::size_t memory_bytes = 0;
};

class Context {
 public:
  static Status create(const ContextOptions& options, std::unique_ptr<Context>& out);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // The backend actually in use: Cpu or Cuda, never Auto.
  Backend backend() const { return backend_; }
  bool cuda() const { return backend_ == Backend::Cuda; }
  ThreadPool& pool() { return pool_; }
  const DeviceInfo& device() const { return device_; }
  // Why CUDA is not in use (empty when it is).
  const std::string& fallback_reason() const { return fallback_reason_; }
  // The CUDA stream (a cudaStream_t) module work is queued on; nullptr on the CPU backend.
  void* stream() const { return stream_; }
  // Waits for all queued device work; reports a CUDA error if one happened.
  Status synchronize();
  // Sends one message where the options said (the callback, stderr or nowhere); never throws.
  void log(LogLevel level, std::string_view message) const noexcept;

 private:
  explicit Context(const ContextOptions& options);
  bool quiet_ = false;
  LogCallback log_;
  Backend backend_ = Backend::Cpu;
  ThreadPool pool_;
  DeviceInfo device_;
  std::string fallback_reason_;
  void* stream_ = nullptr;
};

}  // namespace warpmind
