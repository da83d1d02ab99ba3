// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=0 factor=32 offset=32}' --verify-diagnostics
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=0 factor=32 offset=-1}' --verify-diagnostics
// An offset outside [0, factor): no stride modulo the factor equals it (TVM takes it and pads to offset mod factor;
// here it is taken for a mistake).

builtin.module {
  func.func @main(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
    %B = block.alloc : memref<16x16xf32>
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        // expected-error @+1 {{'block.block' op storage-align: offset must be in [0, factor) = [0, 32), got}}
        block.block "B"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
          %a = block.load %A[%vi, %vj] : memref<16x16xf32>
          block.store %a, %B[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    block.for %i2 = 0 to 16 "i2" {
      block.for %j2 = 0 to 16 "j2" {
        block.block "C"(%vi = spatial(16, %i2), %vj = spatial(16, %j2)) {
          %b = block.load %B[%vj, %vi] : memref<16x16xf32>
          block.store %b, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    func.return
  }
}
