// RUN: xtir-opt %s -p 'split{loop=i factors=-1,128},test-block-regions' | filecheck %s --check-prefix=SPLIT
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},test-block-regions' | filecheck %s --check-prefix=BIND

// Seed 002 (6.1.3), vector add on the GPU: split by 128, then bind the outer loop
// to blockIdx.x and the inner one to threadIdx.x. Matches TVM 0.27's output
// (../shared/reference/tvm/ir/gpu_vecadd_0*.tvmscript.txt) up to syntax.
//   i0, i1 = sch.split(i, [None, 128])                          -> SPLIT
//   sch.bind(i0, "blockIdx.x"); sch.bind(i1, "threadIdx.x")     -> BIND

// SPLIT: func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
// SPLIT-NEXT: block.for %i0 = 0 to 8 "i_0" {
// SPLIT-NEXT:   block.for %i1 = 0 to 128 "i_1" {
// SPLIT-NEXT:     block.block "C"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// SPLIT-NEXT:       %a = block.load %A[%vi] : memref<1024xf32>
// SPLIT-NEXT:       %b = block.load %B[%vi] : memref<1024xf32>
// SPLIT-NEXT:       %sum = arith.addf %a, %b : f32
// SPLIT-NEXT:       block.store %sum, %C[%vi] : memref<1024xf32>
// SPLIT-NEXT:     } attributes {reads = ["A[vi]", "B[vi]"], writes = ["C[vi]"]}
// SPLIT-NEXT:   }
// SPLIT-NEXT: }
// SPLIT-NEXT: func.return

// BIND: func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
// BIND-NEXT: block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// BIND-NEXT:   block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// BIND-NEXT:     block.block "C"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// BIND-NEXT:       %a = block.load %A[%vi] : memref<1024xf32>
// BIND-NEXT:       %b = block.load %B[%vi] : memref<1024xf32>
// BIND-NEXT:       %sum = arith.addf %a, %b : f32
// BIND-NEXT:       block.store %sum, %C[%vi] : memref<1024xf32>
// BIND-NEXT:     } attributes {reads = ["A[vi]", "B[vi]"], writes = ["C[vi]"]}
// BIND-NEXT:   }
// BIND-NEXT: }
// BIND-NEXT: func.return

// MyModuleVecAdd of seed 002: C = A + B on 1024-element float32 vectors.
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
