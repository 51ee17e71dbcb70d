#version 450
// A filled disc with a dark rim and, when the unit has a facing, a light notch pointing that way.
layout(location = 0) in vec2 local;
layout(location = 1) in vec4 fill;
layout(location = 2) in vec3 heading;
layout(location = 0) out vec4 color;
void main() {
  float r = length(local);
  if (r > 1.0) discard;
  if (heading.z > 0.5 && r > 0.35 && dot(local / r, heading.xy) > 0.9) {
    color = vec4(mix(fill.rgb, vec3(1.0), 0.7), 1.0);
    return;
  }
  color = r > 0.8 ? vec4(fill.rgb * 0.35, 1.0) : fill;
}
