// RUN: xtir-opt %s --split-input-file -p lower-blocks,lower-to-gpu | filecheck %s
// Loops bound again to a thread axis that run once as they would for every outer iteration
// (lowering/rebound_threads.py lets them through): a cooperative fetch, then reads of its tile
// after it, in one outer iteration or in each iteration of a serial loop around both.

// CHECK:       "gpu.func"
// CHECK:         %[[A:.*]] = memref.load %A[%[[T:.*]]] : memref<16xf32>
// CHECK-NEXT:    memref.store %[[A]], %S[%[[T]]] : memref<16xf32, "shared">
// CHECK:         "gpu.barrier"()
// CHECK:         memref.load %S[%{{.*}}] : memref<16xf32, "shared">
func.func @fetch_then_read(%A: memref<16xf32>, %B: memref<16xf32>) {
  %S = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
        block.block "S"(%v = spatial(16, %t2)) {
          %a = block.load %A[%v] : memref<16xf32>
          block.store %a, %S[%v] : memref<16xf32, "shared">
        }
      }
      block.block "B"(%v = spatial(16, %t)) {
        %s = block.load %S[15 - %v] : memref<16xf32, "shared">
        block.store %s, %B[%v] : memref<16xf32>
      }
    }
  }
  func.return
}

// -----

// CHECK:       "gpu.func"
// CHECK:         scf.for %[[O:.*]] =
// CHECK:           memref.load %A[%[[O]], %[[T:.*]]] : memref<4x16xf32>
// CHECK-NEXT:      memref.store %{{.*}}, %S[%[[T]]] : memref<16xf32, "shared">
// CHECK:           "gpu.barrier"()
// CHECK-NEXT:      memref.load %S[%{{.*}}] : memref<16xf32, "shared">
func.func @fetch_in_serial_loop(%A: memref<4x16xf32>, %B: memref<4x16xf32>) {
  %S = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      block.for %o = 0 to 4 "o" {
        block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
          block.block "S"(%vo = spatial(4, %o), %v = spatial(16, %t2)) {
            %a = block.load %A[%vo, %v] : memref<4x16xf32>
            block.store %a, %S[%v] : memref<16xf32, "shared">
          }
        }
        block.block "B"(%vo = spatial(4, %o), %v = spatial(16, %t)) {
          %s = block.load %S[15 - %v] : memref<16xf32, "shared">
          block.store %s, %B[%vo, %v] : memref<4x16xf32>
        }
      }
    }
  }
  func.return
}
