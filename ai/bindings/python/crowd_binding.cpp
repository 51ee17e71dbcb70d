// The Python module's Crowd (warpmind/crowd/crowd_solver.h), bound by bind_crowd().
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "module.h"
#include "warpmind/crowd/crowd_solver.h"

namespace py = pybind11;
using namespace warpmind;
using namespace warpmind::python;

namespace {

struct CrowdObject {
  std::shared_ptr<ContextObject> owner;
  std::unique_ptr<crowd::CrowdSolver> solver;

  CrowdObject(std::shared_ptr<ContextObject> ctx, std::tuple<float, float, float, float> world, float radius,
              std::optional<Array<std::uint8_t>> obstacles, const std::string& rule, const std::string& variant,
              const std::string& movement, float max_step, float min_radius)
      : owner(std::move(ctx)) {
    crowd::CrowdConfig c;
    c.world = world_of(world);
    c.radius = radius;
    c.max_step = max_step;
    c.min_radius = min_radius;
    if (!crowd::parse_movement(movement, c.movement))
      throw py::value_error("movement: 'accept-reject' or 'avoid', got '" + movement + "'");
    if (obstacles) {
      if (obstacles->ndim() != 2) throw py::value_error("obstacles: expected a 2-D array (rows, columns)");
      c.obstacles.height = static_cast<int>(obstacles->shape(0));
      c.obstacles.width = static_cast<int>(obstacles->shape(1));
      c.obstacles.blocked.assign(obstacles->data(), obstacles->data() + obstacles->size());
    }
    if (!crowd::parse_rule(rule, c.rule)) throw py::value_error("rule: 'strict' or 'lowest-id', got '" + rule + "'");
    if (!crowd::parse_variant(variant, c.variant)) throw py::value_error("variant: unknown name '" + variant + "'");
    check(crowd::CrowdSolver::create(owner->ctx(), c, solver));
  }

  // An optional 1-D float array (empty span: none).
  static std::span<const float> optional_floats(const std::optional<Array<float>>& a, const char* what) {
    if (!a) return {};
    if (a->ndim() != 1) throw py::value_error(std::string(what) + " must be a 1-D array");
    return {a->data(), static_cast<std::size_t>(a->shape(0))};
  }

  void reset(const Array<float>& positions, std::optional<Array<float>> max_steps, std::optional<Array<float>> radii) {
    const std::span<const Vec2> p = points_of(positions, "reset: positions");
    const std::span<const float> steps = optional_floats(max_steps, "reset: max_steps");
    const std::span<const float> sizes = optional_floats(radii, "reset: radii");
    check(without_gil([&] { return solver->reset(p, steps, sizes); }));
  }

  Array<float> radii() const {
    Array<float> out(static_cast<py::ssize_t>(solver->size()));
    check(solver->read_radii(std::span<float>(out.mutable_data(), solver->size())));
    return out;
  }

  py::dict step(const Array<float>& proposals) {
    const std::span<const Vec2> p = points_of(proposals, "step: proposals");
    check(without_gil([&] { return solver->step(p); }));
    const crowd::StepStats& s = solver->last_stats();
    return py::dict(py::arg("moved") = s.moved, py::arg("stayed") = s.stayed, py::arg("out_of_world") = s.out_of_world,
                    py::arg("blocked") = s.blocked, py::arg("collisions") = s.collisions,
                    py::arg("too_far") = s.too_far);
  }

  Array<float> positions() const {
    Array<float> out = new_points(solver->size());
    const std::span<Vec2> o = points_out(out);
    check(without_gil([&] { return solver->read_positions(o); }));
    return out;
  }

  Array<std::uint8_t> verdicts() const {
    Array<std::uint8_t> out(static_cast<py::ssize_t>(solver->size()));
    std::span<crowd::Verdict> o(reinterpret_cast<crowd::Verdict*>(out.mutable_data()), solver->size());
    check(without_gil([&] { return solver->read_verdicts(o); }));
    return out;
  }

  Array<std::uint32_t> spawn(const Array<float>& positions, std::optional<Array<float>> max_steps,
                             std::optional<Array<float>> radii) {
    const std::span<const Vec2> p = points_of(positions, "spawn: positions");
    const std::span<const float> steps = optional_floats(max_steps, "spawn: max_steps");
    const std::span<const float> sizes = optional_floats(radii, "spawn: radii");
    Array<std::uint32_t> ids(static_cast<py::ssize_t>(p.size()));
    std::span<std::uint32_t> out(ids.mutable_data(), p.size());
    check(without_gil([&] { return solver->spawn(p, steps, out, sizes); }));
    return ids;
  }

  void despawn(const Array<std::uint32_t>& ids) {
    if (ids.ndim() != 1) throw py::value_error("despawn: ids must be a 1-D array");
    std::span<const std::uint32_t> i(ids.data(), static_cast<std::size_t>(ids.shape(0)));
    check(without_gil([&] { return solver->despawn(i); }));
  }

  Array<std::uint32_t> ids() const {
    Array<std::uint32_t> out(static_cast<py::ssize_t>(solver->size()));
    check(solver->read_ids(std::span<std::uint32_t>(out.mutable_data(), solver->size())));
    return out;
  }

  py::bytes save() const { return save_state(*solver); }
  void restore(const py::bytes& bytes) { restore_state(*solver, bytes); }

  void retain(const Array<std::uint8_t>& keep) {
    if (keep.ndim() != 1) throw py::value_error("retain: keep must be a 1-D array of flags");
    std::span<const std::uint8_t> k(keep.data(), static_cast<std::size_t>(keep.shape(0)));
    check(without_gil([&] { return solver->retain(k); }));
  }
};

}  // namespace

void bind_crowd(py::module_& m) {
  py::class_<CrowdObject>(m, "Crowd", R"(Collision-checked movement (warpmind/crowd/crowd_solver.h).

world: (x0, y0, width, height); radius: the agents'; obstacles: a (rows, columns) array, non-zero
blocks; rule: 'strict' or 'lowest-id'; movement: 'accept-reject' or 'avoid' (a refused agent slides or
sidesteps); max_step: every agent's maximum step a tick (0: none; 'avoid' needs > 0); min_radius: the
smallest radius reset() or spawn() may give an agent (0: every agent has `radius`; else in [radius / 4,
radius], and radius is the largest). Verdicts: 0 moved, 1 stayed, 2 out of world, 3 blocked,
4 collision, 5 too far.)")
      .def(py::init<std::shared_ptr<ContextObject>, std::tuple<float, float, float, float>, float,
                    std::optional<Array<std::uint8_t>>, const std::string&, const std::string&, const std::string&,
                    float, float>(),
           py::arg("context"), py::arg("world"), py::arg("radius"), py::arg("obstacles") = py::none(),
           py::arg("rule") = "strict", py::arg("variant") = "auto", py::arg("movement") = "accept-reject",
           py::arg("max_step") = 0.0f, py::arg("min_radius") = 0.0f)
      .def("reset", &CrowdObject::reset, py::arg("positions"), py::arg("max_steps") = py::none(),
           py::arg("radii") = py::none(),
           "Sets the agents (ids 0..n-1); max_steps and radii: none, or one per agent (0: the crowd's).")
      .def_property_readonly("radii", &CrowdObject::radii, "Every agent's radius, by slot (float32).")
      .def("step", &CrowdObject::step, py::arg("proposals"), "One tick; returns the verdict counts.")
      .def("retain", &CrowdObject::retain, py::arg("keep"))
      .def("spawn", &CrowdObject::spawn, py::arg("positions"), py::arg("max_steps") = py::none(),
           py::arg("radii") = py::none(),
           "Appends agents, checked against everyone (nothing changes on error); returns their new ids.")
      .def("despawn", &CrowdObject::despawn, py::arg("ids"), "Removes the agents of these ids.")
      .def_property_readonly("ids", &CrowdObject::ids, "Every agent's stable id, by slot (uint32).")
      .def("save", &CrowdObject::save, "The agents as bytes (format in crowd_solver.h).")
      .def("restore", &CrowdObject::restore, py::arg("state"),
           "Puts saved bytes back (same settings, any variant); bad bytes: ValueError, nothing changes.")
      .def_property_readonly("positions", &CrowdObject::positions)
      .def_property_readonly("verdicts", &CrowdObject::verdicts)
      .def("__len__", [](const CrowdObject& c) { return c.solver->size(); });
}
