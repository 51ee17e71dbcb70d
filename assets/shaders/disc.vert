#version 450
// One instanced quad per unit, sized to its radius.
layout(push_constant) uniform Push {
  vec4 camera;
  vec4 field;
  vec4 range;
} pc;
layout(location = 0) in vec2 center;  // per instance, world units
layout(location = 1) in float radius;
layout(location = 2) in vec4 tint;
layout(location = 3) in float facing;  // radians; >= 100: no facing marker
layout(location = 0) out vec2 local;
layout(location = 1) out vec4 fill;
layout(location = 2) out vec3 heading;  // direction (x, y) and 1 when there is a marker
void main() {
  const vec2 corners[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
  local = corners[gl_VertexIndex];
  vec2 world = center + local * radius;
  vec2 n = (world - pc.camera.xy) / (pc.camera.zw - pc.camera.xy);
  gl_Position = vec4(n.x * 2.0 - 1.0, 1.0 - n.y * 2.0, 0.0, 1.0);
  fill = tint;
  heading = facing < 100.0 ? vec3(cos(facing), sin(facing), 1.0) : vec3(0.0);
}
