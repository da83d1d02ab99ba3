// RUN: not xtir-opt %s -p compact-buffers 2>&1 | filecheck %s

// Blocks must be inlined first. The refusal shows the source line with a caret, as a
// schedule primitive's does (a LoweringError, located by the pipeline driver).
// CHECK: {{.*}}compact_buffers_invalid.mlir:[[# @LINE + 3]]:1: error: 'func.func' op compact-buffers: function @blocks still has blocks; the pass runs on loop nests whose blocks are inlined (after inline-blocks)
// CHECK-NEXT: {{^}}func.func @blocks(%A: memref<8xf32>) {
// CHECK-NEXT: {{^}}^
func.func @blocks(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "b"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}
