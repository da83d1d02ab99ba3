// RUN: xtir-opt %s -p lower-blocks,lower-to-gpu | filecheck %s
// Barriers come from the shared accesses, not one per statement: none where each thread
// reads what it wrote itself; where threads read what others wrote, one before the reads and,
// in a serial loop whose next iteration overwrites what this one read, one at its top.
// (compact-buffers leaves S alone: one per thread block, sized here, not one per thread.)

// CHECK-LABEL: "gpu.func"
// CHECK: %S = memref.alloca() : memref<128xf32, "shared">
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %a, %S[%t]
// CHECK-NOT: gpu.barrier
// CHECK: %s = memref.load %S[%t]
// CHECK: sym_name = "same_thread_kernel"

// CHECK-LABEL: "gpu.func"
// CHECK: scf.for %o = %c0 to %c4 step %c1 {
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %a = memref.load %A[%o, %t]
// CHECK-NEXT: memref.store %a, %S[%t]
// CHECK-NEXT: %1 = arith.addi %0, %c127 : index
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %s = memref.load %S[%1]
// CHECK-NEXT: memref.store %s, %B[%o, %t]
// CHECK-NEXT: } {xtir.loop_name = "o"}

func.func @same_thread(%A: memref<128xf32>, %B: memref<128xf32>) {
  %S = block.alloc : memref<128xf32, "shared">
  block.for %t = 0 to 128 "t" bind("threadIdx.x") {
    block.block "S"(%v = spatial(128, %t)) {
      %a = block.load %A[%v] : memref<128xf32>
      block.store %a, %S[%v] : memref<128xf32, "shared">
    }
    block.block "B"(%v = spatial(128, %t)) {
      %s = block.load %S[%v] : memref<128xf32, "shared">
      block.store %s, %B[%v] : memref<128xf32>
    }
  }
  func.return
}

func.func @reversed(%A: memref<4x128xf32>, %B: memref<4x128xf32>) {
  %S = block.alloc : memref<128xf32, "shared">
  block.for %t = 0 to 128 "t" bind("threadIdx.x") {
    block.for %o = 0 to 4 "o" {
      block.for %t2 = 0 to 128 "t2" bind("threadIdx.x") {
        block.block "S"(%vo = spatial(4, %o), %v = spatial(128, %t2)) {
          %a = block.load %A[%vo, %v] : memref<4x128xf32>
          block.store %a, %S[%v] : memref<128xf32, "shared">
        }
      }
      block.block "B"(%vo = spatial(4, %o), %v = spatial(128, %t)) {
        %s = block.load %S[127 - %v] : memref<128xf32, "shared">
        block.store %s, %B[%vo, %v] : memref<4x128xf32>
      }
    }
  }
  func.return
}
