// The Python module's World (warpmind/world/world_map.h), bound by bind_world().
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "module.h"
#include "warpmind/world/world_map.h"

namespace py = pybind11;
using namespace warpmind;
using namespace warpmind::python;

namespace {

Vec2 vec_of(const std::tuple<float, float>& p) { return {std::get<0>(p), std::get<1>(p)}; }

struct WorldObject {
  world::WorldMap map;

  WorldObject(std::tuple<float, float, float, float> world, std::tuple<int, int> size) {
    check(world::WorldMap::create(world_of(world), std::get<0>(size), std::get<1>(size), map));
  }
  void fill_rect(std::tuple<float, float> lo, std::tuple<float, float> hi, std::uint8_t cost) {
    check(map.fill_rect(vec_of(lo), vec_of(hi), cost));
  }
  void draw_line(std::tuple<float, float> a, std::tuple<float, float> b, float thickness, std::uint8_t cost) {
    check(map.draw_line(vec_of(a), vec_of(b), thickness, cost));
  }
  void fill_polygon(const Array<float>& points, std::uint8_t cost) {
    const std::span<const Vec2> p = points_of(points, "fill_polygon: points");
    check(without_gil([&] { return map.fill_polygon(p, cost); }));
  }
  Array<std::uint8_t> costs() const {
    Array<std::uint8_t> out({static_cast<py::ssize_t>(map.height()), static_cast<py::ssize_t>(map.width())});
    std::copy(map.costs().begin(), map.costs().end(), out.mutable_data());
    return out;
  }
  py::tuple walls(std::uint32_t group) const {
    std::vector<field::Entity> e;
    check(map.wall_entities(group, e));
    Array<float> pos = new_points(e.size());
    Array<std::uint32_t> groups(static_cast<py::ssize_t>(e.size()));
    for (std::size_t i = 0; i < e.size(); ++i) {
      pos.mutable_data()[2 * i] = e[i].x;
      pos.mutable_data()[2 * i + 1] = e[i].y;
      groups.mutable_data()[i] = e[i].group;
    }
    return py::make_tuple(pos, groups);
  }
};

}  // namespace

void bind_world(py::module_& m) {
  py::class_<WorldObject>(m, "World", R"(One map of walls and terrain (warpmind/world/world_map.h).

world: (x0, y0, width, height); size: (columns, rows). Cells hold a cost: 0 blocked, 1..255 passable (a
new map is all 1). Shapes paint cells with a cost (0, a wall, by default): rectangles, lines of any
thickness (every cell they pass through) and polygons. costs is the (rows, columns) uint8 array: a
Crowd's obstacles are `costs == 0`, distance_fields takes it as it is; walls(group) gives the field
entities (positions, groups) of the walls' surface.)")
      .def(py::init<std::tuple<float, float, float, float>, std::tuple<int, int>>(), py::arg("world"), py::arg("size"))
      .def("fill_rect", &WorldObject::fill_rect, py::arg("lo"), py::arg("hi"), py::arg("cost") = 0)
      .def("draw_line", &WorldObject::draw_line, py::arg("a"), py::arg("b"), py::arg("thickness") = 0.0f,
           py::arg("cost") = 0)
      .def("fill_polygon", &WorldObject::fill_polygon, py::arg("points"), py::arg("cost") = 0)
      .def_property_readonly("costs", &WorldObject::costs)
      .def("walls", &WorldObject::walls, py::arg("group"));
}
