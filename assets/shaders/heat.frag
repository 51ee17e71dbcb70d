#version 450
// Scalar field as a heat map: the same diverging ramp as warpmind::engine::heatmap_rgba.
layout(push_constant) uniform Push {
  vec4 camera;
  vec4 field;
  vec4 range;
} pc;
layout(set = 0, binding = 0) uniform sampler2D heat;
layout(location = 0) in vec2 world;
layout(location = 0) out vec4 color;

vec3 ramp(float t) {
  const vec3 stops[5] = vec3[5](vec3(0.05, 0.20, 0.60), vec3(0.20, 0.55, 0.95), vec3(0.06, 0.06, 0.08),
                                vec3(0.90, 0.30, 0.10), vec3(1.00, 0.90, 0.35));
  t = clamp(t, 0.0, 1.0) * 4.0;
  int i = min(int(t), 3);
  return mix(stops[i], stops[i + 1], t - float(i));
}

void main() {
  vec2 uv = (world - pc.field.xy) / (pc.field.zw - pc.field.xy);
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThanEqual(uv, vec2(1.0)))) {
    color = vec4(0.02, 0.02, 0.03, 1.0);
    return;
  }
  float v = texture(heat, uv).r;
  color = vec4(ramp((v - pc.range.x) / (pc.range.y - pc.range.x)), 1.0);
}
