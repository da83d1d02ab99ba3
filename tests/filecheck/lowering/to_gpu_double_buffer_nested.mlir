// RUN: xtir-opt %s -p 'lower-blocks,lower-to-gpu' | filecheck %s

// Double buffers pipelined in nested loops (GPU fuzzing, tests/fuzz/test_fuzz_gpu.py): A_shared is
// fetched per k_0 step, B_shared per k_1 step inside it. The inner pipeline (k_1) goes first, so
// the outer one copies a pipelined k_1 into k_0's epilogue; the other order left the epilogue's
// k_1 indexing B_shared with the half of the original k_1 ("used before it is defined").
// Each half holds one step's tile: A's 3 rows x 4 columns of a k_0 step, B's one row of a k_1 step.

// CHECK:      %A_shared = memref.alloca() : memref<2x3x4xf32, "shared">
// CHECK-NEXT: %B_shared = memref.alloca() : memref<2x1x3xf32, "shared">
// k_0 (its last iteration peeled): B's tile 0 of this k_0 step, then k_1 pipelined
// CHECK:      scf.for %k0 = %c0 to %c1 step %c1 {
// CHECK:        memref.store %{{.*}}, %B_shared[%c0, %{{.*}}, %{{.*}}] : memref<2x1x3xf32, "shared">
// CHECK:        scf.for %k1 = %c0 to %c3 step %c1 {
// CHECK:          memref.store %{{.*}}, %B_shared_next[%{{.*}}] : memref<4xf32, "local">
// CHECK:        %b_1 = memref.load %B_shared[%c1, %{{.*}}, %{{.*}}] : memref<2x1x3xf32, "shared">
// CHECK:        memref.store %{{.*}}, %A_shared[%{{.*}}, %ax0_ax1_fused0_2, %{{.*}}] : memref<2x3x4xf32, "shared">
// k_0's epilogue: its own copy of the pipelined k_1, B's tile 0 first
// CHECK:      memref.store %{{.*}}, %B_shared[%c0, %{{.*}}, %{{.*}}] : memref<2x1x3xf32, "shared">
// CHECK:      scf.for %k1_1 = %c0 to %c3 step %c1 {
// CHECK:        memref.store %{{.*}}, %B_shared_next_1[%{{.*}}] : memref<4xf32, "local">
// CHECK:        %a_2 = memref.load %A_shared[%c1, %{{.*}}, %{{.*}}] : memref<2x3x4xf32, "shared">
// CHECK:      %b_3 = memref.load %B_shared[%c1, %{{.*}}, %{{.*}}] : memref<2x1x3xf32, "shared">

builtin.module {
  func.func @main(%A: memref<3x8xf32>, %B: memref<8x3xf32>, %C: memref<3x3xf32>) {
    %C_local = block.alloc : memref<3x3xf32, "local">
    %A_shared = block.alloc {double_buffer_scope} : memref<3x8xf32, "shared">
    %B_shared = block.alloc {double_buffer_scope} : memref<8x3xf32, "shared">
    block.for %i0 = 0 to 1 "i_0" bind("blockIdx.x") {
      block.for %j0 = 0 to 1 "j_0" {
        block.for %i_1_j_1_fused = 0 to 4 "i_1_j_1_fused" bind("threadIdx.x") {
          block.for %k0 = 0 to 2 "k_0" {
            block.for %ax0_ax1_fused0 = 0 to 3 "ax0_ax1_fused_0" {
              block.for %ax0_ax1_fused1 = 0 to 4 "ax0_ax1_fused_1" bind("threadIdx.x") {
                block.block "A_shared"(%v0 = spatial(3, %ax0_ax1_fused0), %v1 = spatial(8, %k0 * 4 + %ax0_ax1_fused1)) {
                  %0 = block.load %A[%v0, %v1] : memref<3x8xf32>
                  block.store %0, %A_shared[%v0, %v1] : memref<3x8xf32, "shared">
                }
              }
            }
            block.for %k1 = 0 to 4 "k_1" {
              block.for %ax00 = 0 to 1 "ax0_0" {
                block.for %ax01 = 0 to 4 "ax0_1" bind("threadIdx.x") {
                  block.for %ax02 = 0 to 4 "ax0_2" {
                    block.block "B_shared"(%v0_1 = spatial(8, %k0 * 4 + %k1), %v1_1 = spatial(3, %ax00 * 16 + %ax01 * 4 + %ax02)) where(%ax00 * 16 + %ax01 * 4 + %ax02 < 3) {
                      %1 = block.load %B[%v0_1, %v1_1] : memref<8x3xf32>
                      block.store %1, %B_shared[%v0_1, %v1_1] : memref<8x3xf32, "shared">
                    }
                  }
                }
              }
              block.for %i2 = 0 to 2 "i_2" {
                block.for %j2 = 0 to 2 "j_2" {
                  block.block "C"(%vi = spatial(3, %i0 * 4 + %i_1_j_1_fused floordiv 2 * 2 + %i2), %vj = spatial(3, %j0 * 4 + %i_1_j_1_fused mod 2 * 2 + %j2), %vk = reduce(8, %k0 * 4 + %k1)) where(%i0 * 4 + %i_1_j_1_fused floordiv 2 * 2 + %i2 < 3, %j0 * 4 + %i_1_j_1_fused mod 2 * 2 + %j2 < 3) {
                    block.init {
                      %zero = arith.constant 0.000000e+00 : f32
                      block.store %zero, %C_local[%vi, %vj] : memref<3x3xf32, "local">
                    }
                    %c = block.load %C_local[%vi, %vj] : memref<3x3xf32, "local">
                    %a = block.load %A_shared[%vi, %vk] : memref<3x8xf32, "shared">
                    %b = block.load %B_shared[%vk, %vj] : memref<8x3xf32, "shared">
                    %ab = arith.mulf %a, %b : f32
                    %sum = arith.addf %c, %ab : f32
                    block.store %sum, %C_local[%vi, %vj] : memref<3x3xf32, "local">
                  }
                }
              }
            }
          }
          block.for %ax0 = 0 to 2 "ax0" {
            block.for %ax1 = 0 to 2 "ax1" {
              block.block "C_local"(%v0_2 = spatial(3, %i0 * 4 + %i_1_j_1_fused floordiv 2 * 2 + %ax0), %v1_2 = spatial(3, %j0 * 4 + %i_1_j_1_fused mod 2 * 2 + %ax1)) where(%i0 * 4 + %i_1_j_1_fused floordiv 2 * 2 + %ax0 < 3, %j0 * 4 + %i_1_j_1_fused mod 2 * 2 + %ax1 < 3) {
                %2 = block.load %C_local[%v0_2, %v1_2] : memref<3x3xf32, "local">
                block.store %2, %C[%v0_2, %v1_2] : memref<3x3xf32>
              }
            }
          }
        }
      }
    }
    func.return
  }
}
