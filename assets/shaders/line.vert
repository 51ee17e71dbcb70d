#version 450
// Debug lines: two vertices per segment, world units.
layout(push_constant) uniform Push {
  vec4 camera;
  vec4 field;
  vec4 range;
} pc;
layout(location = 0) in vec2 world;
layout(location = 1) in vec4 tint;
layout(location = 0) out vec4 fill;
void main() {
  vec2 n = (world - pc.camera.xy) / (pc.camera.zw - pc.camera.xy);
  gl_Position = vec4(n.x * 2.0 - 1.0, 1.0 - n.y * 2.0, 0.0, 1.0);
  fill = tint;
}
