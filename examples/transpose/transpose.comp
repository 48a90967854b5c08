#version 450
// out = in^T for a side x side matrix through a 32 x 32 tile in shared memory; the CUDA twin
// (transpose.cu) takes the same tile as dynamic shared memory. A workgroup is 256 invocations
// = 32 columns x 8 rows (the declaration fixes block_sizes = [256]); workgroup (x, y) is tile
// (column x, row y).
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) restrict readonly buffer In { float a[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Out { float b[]; };
layout(push_constant) uniform Scalars { uint side; };

const uint TILE = 32;
const uint ROWS = 8;
shared float tile[TILE * (TILE + 1)];  // one padding column per row, as in CUDA

void main() {
  uint tx = gl_LocalInvocationID.x % TILE, ty = gl_LocalInvocationID.x / TILE;
  uint x = gl_WorkGroupID.x * TILE + tx, y = gl_WorkGroupID.y * TILE + ty;
  for (uint r = 0; r < TILE; r += ROWS)
    if (x < side && y + r < side) tile[(ty + r) * (TILE + 1) + tx] = a[(y + r) * side + x];
  barrier();
  x = gl_WorkGroupID.y * TILE + tx;
  y = gl_WorkGroupID.x * TILE + ty;
  for (uint r = 0; r < TILE; r += ROWS)
    if (x < side && y + r < side) b[(y + r) * side + x] = tile[tx * (TILE + 1) + ty + r];
}
