// warpmind::Status — how the public API reports failure.
//
// The library never throws across its API. Every operation that can fail returns a Status: ok(), or a
// code plus a one-line message meant for a person ("scenario.json: kinds[1].radius: must be > 0").
// An operation that returns an error leaves the object it was called on unchanged.
// The gpu layer (gpu/) reports with the same type: a device allocation that fails is OutOfMemory, any
// other CUDA error Internal, with the call or kernel that failed and where. This header is the only one
// of ai/ that gpu/ includes (a header-only vocabulary type; no link dependency).
#pragma once

#include <string>
#include <utility>

namespace warpmind {

enum class StatusCode {
  Ok = 0,
  InvalidArgument,  // bad input from the caller: sizes, NaN, unknown names, malformed files
  Unavailable,      // the requested backend or device cannot be used here (e.g. no CUDA GPU)
  OutOfMemory,      // a host or device allocation failed
  Internal,         // a CUDA call or another dependency failed unexpectedly
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status Invalid(std::string m) { return {StatusCode::InvalidArgument, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::Unavailable, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::Internal, std::move(m)}; }
  static Status OutOfMemory(std::string m) { return {StatusCode::OutOfMemory, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The same status with `where` put before its message ("crowd step: cudaMalloc failed: ..."); ok stays ok.
  Status context(const std::string& where) const { return ok() ? Status() : Status(code_, where + ": " + message_); }

 private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

}  // namespace warpmind

// Return early from the enclosing function when `expr` yields an error Status.
#define WM_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::warpmind::Status wm_status_ = (expr);  \
    if (!wm_status_.ok()) return wm_status_; \
  } while (0)
