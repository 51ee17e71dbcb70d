#version 450
// A filled disc with a dark rim.
layout(location = 0) in vec2 local;
layout(location = 1) in vec4 fill;
layout(location = 0) out vec4 color;
void main() {
  float r = length(local);
  if (r > 1.0) discard;
  color = r > 0.8 ? vec4(fill.rgb * 0.35, 1.0) : fill;
}
