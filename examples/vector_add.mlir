// MyModuleVecAdd of seed 002: C = A + B on 1024-element float32 vectors.
// xtir-run: numpy C = A + B
builtin.module {
  func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
    block.for %i = 0 to 1024 "i" {
      block.block "C"(%vi = spatial(1024, %i)) {
        %a = block.load %A[%vi] : memref<1024xf32>
        %b = block.load %B[%vi] : memref<1024xf32>
        %sum = arith.addf %a, %b : f32
        block.store %sum, %C[%vi] : memref<1024xf32>
      }
    }
    func.return
  }
}
