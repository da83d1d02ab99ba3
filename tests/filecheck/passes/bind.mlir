// RUN: xtir-opt %s -p 'split{func=vecadd loop=i factors=-1,128},bind{func=vecadd loop=i_0 thread="blockIdx.x"},bind{func=vecadd loop=i_1 thread="threadIdx.x"},split{func=window loop=i factors=-1,128},bind{func=window loop=i_0 thread="blockIdx.x"},bind{func=window loop=i_1 thread="threadIdx.x"},bind{func=siblings loop=i thread="blockIdx.x"},bind{func=siblings loop=j thread="threadIdx.x"},bind{func=siblings loop=k thread="threadIdx.x"}' | filecheck %s
// bind (TVM's sch.bind) maps a loop onto a GPU thread axis: `bind("TAG")`.

// Seed 002's vector add after split(i, [None, 128]) and the two binds, as TVM prints it:
//   for i_0 in T.thread_binding(8, thread="blockIdx.x"):
//       for i_1 in T.thread_binding(128, thread="threadIdx.x"):
//           vi = T.axis.spatial(1024, i_0 * 128 + i_1)
// (reference/tvm/ir/gpu_vecadd_02_bind).
// CHECK-LABEL: func.func @vecadd
// CHECK-NEXT:    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// CHECK-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// CHECK-NEXT:        block.block "C"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// CHECK-NEXT:          %a = block.load %A[%vi] : memref<1024xf32>
// CHECK-NEXT:          %b = block.load %B[%vi] : memref<1024xf32>
// CHECK-NEXT:          %sum = arith.addf %a, %b : f32
// CHECK-NEXT:          block.store %sum, %C[%vi] : memref<1024xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @vecadd(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
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

// Seed 002's window sum, the same schedule (reference/tvm/ir/gpu_window_01_split_bind).
// CHECK-LABEL: func.func @window
// CHECK-NEXT:    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// CHECK-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// CHECK-NEXT:        block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// CHECK-NEXT:          %a0 = block.load %A[%vi] : memref<1026xf32>
// CHECK-NEXT:          %a1 = block.load %A[%vi + 1] : memref<1026xf32>
// CHECK-NEXT:          %a2 = block.load %A[%vi + 2] : memref<1026xf32>
func.func @window(%A: memref<1026xf32>, %B: memref<1024xf32>) {
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

// One tag on two sibling loops of one kernel is fine when their extents agree.
// CHECK-LABEL: func.func @siblings
// CHECK-NEXT:    block.for %i = 0 to 4 "i" bind("blockIdx.x") {
// CHECK-NEXT:      block.for %j = 0 to 32 "j" bind("threadIdx.x") {
// CHECK:           block.for %k = 0 to 32 "k" bind("threadIdx.x") {
func.func @siblings(%A: memref<4x32xf32>, %B: memref<4x32xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 32 "j" {
      block.block "P"(%vi = spatial(4, %i), %vj = spatial(32, %j)) {
        %z = arith.constant 0.000000e+00 : f32
        block.store %z, %A[%vi, %vj] : memref<4x32xf32>
      }
    }
    block.for %k = 0 to 32 "k" {
      block.block "Q"(%vi = spatial(4, %i), %vk = spatial(32, %k)) {
        %a = block.load %A[%vi, %vk] : memref<4x32xf32>
        block.store %a, %B[%vi, %vk] : memref<4x32xf32>
      }
    }
  }
  func.return
}
