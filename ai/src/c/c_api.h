// What the C API's source files share (warpmind_c.cpp, nav_c.cpp): the context handle and how a Status
// or an exception becomes a code and the thread's last-error message (contract in warpmind/warpmind.h).
#pragma once

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "warpmind/core/context.h"
#include "warpmind/core/status.h"
#include "warpmind/warpmind.h"

struct wm_context {
  std::unique_ptr<warpmind::Context> ctx;
};

namespace warpmind::capi {

inline thread_local std::string last_error;

inline wm_status fail(wm_status code, std::string message) {
  last_error = std::move(message);
  return code;
}

inline wm_status from(const Status& st) {
  if (st.ok()) return WM_OK;
  switch (st.code()) {
    case StatusCode::InvalidArgument:
      return fail(WM_INVALID_ARGUMENT, st.message());
    case StatusCode::Unavailable:
      return fail(WM_UNAVAILABLE, st.message());
    case StatusCode::OutOfMemory:
      return fail(WM_OUT_OF_MEMORY, st.message());
    default:
      return fail(WM_INTERNAL, st.message());
  }
}

// Runs f() (returning wm_status), turning exceptions into codes: nothing escapes into C.
template <class F>
wm_status guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return fail(WM_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(WM_INTERNAL, e.what());
  } catch (...) {
    return fail(WM_INTERNAL, "unexpected error");
  }
}

// The value a C caller stored in an enum, read as its int: C allows any int there, C++ only the enum's
// range, so the bytes are read instead of the enum (no undefined load before the value is checked).
template <class E>
int raw_enum(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

inline wm_status null_argument(const char* call, const char* what) {
  return fail(WM_INVALID_ARGUMENT, std::string(call) + ": " + what + " is null");
}

}  // namespace warpmind::capi
