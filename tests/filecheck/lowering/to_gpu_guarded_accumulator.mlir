// RUN: xtir-opt %s -p lower-blocks,lower-to-gpu | filecheck %s
// A shared accumulator each thread updates and writes back itself, under the tile's edge `i < 3`
// (3 elements, blocks of 2 threads; the unit loop "r" is a split's factor 1, as in the GPU
// fuzzer's shrunk case): the guard is on the thread index, so no barrier can sit inside it, and
// none is needed there, as no thread touches an element another thread touches (C_shared[t] of
// thread t only, at every iteration of "k" and "r"). (The barriers the planner places outside the
// guard, at the top of "r" and before the write-back, are not needed either; not checked here.)

// CHECK-LABEL: "gpu.func"
// CHECK: %S = memref.alloca() : memref<2xf32, "shared">
// CHECK: scf.for %k = %c0 to %c2 step %c1 {
// CHECK: scf.if
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %zero, %S
// CHECK-NOT: gpu.barrier
// CHECK: %c = memref.load %S
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %sum, %S
// CHECK: } {xtir.loop_name = "k"}
// CHECK: scf.if
// CHECK-NEXT: %{{.*}} = memref.load %S[%t]
// CHECK-NEXT: memref.store %{{.*}}, %C

func.func @guarded_accumulator(%A: memref<3x2xf32>, %C: memref<3xf32>) {
  %S = block.alloc : memref<3xf32, "shared">
  block.for %b = 0 to 2 "b" bind("blockIdx.x") {
    block.for %t = 0 to 2 "t" bind("threadIdx.x") {
      block.for %k = 0 to 2 "k" {
        block.for %r = 0 to 1 "r" {
          block.block "S"(%vi = spatial(3, %b * 2 + %t + %r), %vk = reduce(2, %k)) where(%b * 2 + %t + %r < 3) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %S[%vi] : memref<3xf32, "shared">
            }
            %c = block.load %S[%vi] : memref<3xf32, "shared">
            %a = block.load %A[%vi, %vk] : memref<3x2xf32>
            %sum = arith.addf %c, %a : f32
            block.store %sum, %S[%vi] : memref<3xf32, "shared">
          }
        }
      }
      block.block "C"(%v = spatial(3, %b * 2 + %t)) where(%b * 2 + %t < 3) {
        %s = block.load %S[%v] : memref<3xf32, "shared">
        block.store %s, %C[%v] : memref<3xf32>
      }
    }
  }
  func.return
}
