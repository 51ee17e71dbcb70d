// What the Python module's source files share: the array type, Status and wm_status to exceptions, the
// GIL released around the library's calls, points as Vec2 spans, and the Context object every module
// object keeps alive.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "c/c_api.h"  // wm_context: the C API's handle of a Context, shared by the C++ and C halves
#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"
#include "warpmind/warpmind.h"

namespace py = pybind11;

namespace warpmind::python {

template <class T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

// The module's exception types (set at import; the module holds the references).
inline PyObject* g_error = nullptr;
inline PyObject* g_unavailable = nullptr;

inline void check(const Status& st) {
  if (st.ok()) return;
  if (st.code() == StatusCode::InvalidArgument) throw py::value_error(st.message());
  PyErr_SetString(st.code() == StatusCode::Unavailable ? g_unavailable : g_error, st.message().c_str());
  throw py::error_already_set();
}

inline void check_c(wm_status s) {
  if (s == WM_OK) return;
  if (s == WM_INVALID_ARGUMENT) throw py::value_error(wm_last_error());
  PyErr_SetString(s == WM_UNAVAILABLE ? g_unavailable : g_error, wm_last_error());
  throw py::error_already_set();
}

// A C API call (returning a wm_status) with the GIL released, checked once the GIL is back.
template <class F>
void check_c_without_gil(F&& f) {
  wm_status s;
  {
    py::gil_scoped_release free;
    s = f();
  }
  check_c(s);
}

// Runs f (returning a Status) with the GIL released, for the library's long calls; the Status is
// turned into an exception after the GIL is back.
template <class F>
Status without_gil(F&& f) {
  py::gil_scoped_release free;
  return f();
}

// A module's saved state (the crowd's, the AOI world's, the navigation fields': save(bytes) and
// restore(span) in C++) as Python bytes and back, the GIL released around the library's calls.
template <class T>
py::bytes save_state(const T& module) {
  std::vector<std::uint8_t> b;
  check(without_gil([&] { return module.save(b); }));
  return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}
template <class T>
void restore_state(T& module, const py::bytes& bytes) {
  const std::string b = bytes;
  check(without_gil([&] {
    return module.restore(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(b.data()), b.size()));
  }));
}

// An (n, 2) array of points as Vec2s (a view when it is already C-contiguous float32).
inline std::span<const Vec2> points_of(const Array<float>& a, const char* what) {
  if (a.ndim() != 2 || a.shape(1) != 2)
    throw py::value_error(std::string(what) + ": expected an array of shape (n, 2), got " + std::to_string(a.ndim()) +
                          " dimensions");
  return {reinterpret_cast<const Vec2*>(a.data()), static_cast<std::size_t>(a.shape(0))};
}

inline Array<float> new_points(std::size_t n) { return Array<float>({static_cast<py::ssize_t>(n), py::ssize_t{2}}); }

inline std::span<Vec2> points_out(Array<float>& a) {
  return {reinterpret_cast<Vec2*>(a.mutable_data()), static_cast<std::size_t>(a.shape(0))};
}

inline WorldRect world_of(const std::tuple<float, float, float, float>& w) {
  return {std::get<0>(w), std::get<1>(w), std::get<2>(w), std::get<3>(w)};
}

// ---- context ----------------------------------------------------------------------------------------

struct ContextObject {
  wm_context c;  // owns the Context; the C++ modules use *c.ctx, the engines' C API handles &c
  Context& ctx() { return *c.ctx; }
  ContextObject(const std::string& backend, unsigned threads, const py::object& log) {
    ContextOptions o;
    if (backend == "auto")
      o.backend = Backend::Auto;
    else if (backend == "cpu")
      o.backend = Backend::Cpu;
    else if (backend == "cuda")
      o.backend = Backend::Cuda;
    else
      throw py::value_error("backend: 'auto', 'cpu' or 'cuda', got '" + backend + "'");
    o.cpu_threads = threads;
    o.quiet = log.is_none();
    if (!log.is_none()) {
      if (!PyCallable_Check(log.ptr())) throw py::type_error("log: a callable(level, message) or None");
      // The callable is shared by the context's copies of the callback; its last reference is dropped
      // with the GIL held, whichever thread lets it go.
      std::shared_ptr<py::object> fn(new py::object(log), [](py::object* p) {
        py::gil_scoped_acquire gil;
        delete p;
      });
      o.log = [fn](LogLevel level, std::string_view message) {
        py::gil_scoped_acquire gil;
        try {
          (*fn)(log_level_name(level), py::str(message.data(), message.size()));
        } catch (py::error_already_set& e) {
          e.discard_as_unraisable("warpmind log callback");
        }
      };
    }
    check(Context::create(o, c.ctx));
  }
};

}  // namespace warpmind::python
