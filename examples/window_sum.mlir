// MyModuleWindowSun of seed 002: a window sum over 3 neighbours, float32,
// B[vi] = A[vi] + A[vi + 1] + A[vi + 2] with A of 1026 and B of 1024 elements.
// xtir-run: numpy B = A[:-2] + A[1:-1] + A[2:]
builtin.module {
  func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
    block.for %i = 0 to 1024 "i" {
      block.block "B"(%vi = spatial(1024, %i)) {
        %a0 = block.load %A[%vi] : memref<1026xf32>
        %a1 = block.load %A[%vi + 1] : memref<1026xf32>
        %a2 = block.load %A[%vi + 2] : memref<1026xf32>
        %s01 = arith.addf %a0, %a1 : f32
        %sum = arith.addf %s01, %a2 : f32
        block.store %sum, %B[%vi] : memref<1024xf32>
      }
    }
    func.return
  }
}
