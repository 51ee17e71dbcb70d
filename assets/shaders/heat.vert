#version 450
// Full-screen triangle; passes the world position of each pixel to the fragment shader.
layout(push_constant) uniform Push {
  vec4 camera;  // visible world rectangle: x0, y0, x1, y1 (y up)
  vec4 field;   // world rectangle the heat texture covers
  vec4 range;   // lo, hi, unused, unused
} pc;
layout(location = 0) out vec2 world;
void main() {
  vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);  // (0,0) (2,0) (0,2)
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
  // Vulkan's framebuffer y grows downwards; world y grows upwards.
  world = vec2(mix(pc.camera.x, pc.camera.z, uv.x), mix(pc.camera.w, pc.camera.y, uv.y));
}
