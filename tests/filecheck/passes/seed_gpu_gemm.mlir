// RUN: xtir-opt %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},split{loop=k factors=-1,4},unroll{loop=k_1},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},reverse-compute-at{block=C_local loop=j_1},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1 thread="threadIdx.x"},bind{loop=j_1 thread="threadIdx.y"},decompose-reduction{block=C loop=k_0},test-block-regions' | filecheck %s --check-prefix=LOCAL
// RUN: xtir-opt %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},split{loop=k factors=-1,8},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},fuse{loops=i_1,j_1},reverse-compute-at{block=C_local loop=i_1_j_1_fused},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1_j_1_fused thread="threadIdx.x"},cache-read{block=C index=0 scope="shared"},compute-at{block=A_shared loop=k_0},fuse{loops="A_shared/ax0","A_shared/ax1"},split{loop="A_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="A_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="A_shared/ax0_ax1_fused_2"},cache-read{block=C index=1 scope="shared"},compute-at{block=B_shared loop=k_0},fuse{loops="B_shared/ax0","B_shared/ax1"},split{loop="B_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="B_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="B_shared/ax0_ax1_fused_2"},test-block-regions' | filecheck %s --check-prefix=SHARED

// Seed 002 (6.1.5-6.1.6), the GEMM schedules: LOCAL is `blocking(sch, 8, 8, 8, 8, 4)`
// (register tiling with a local accumulator written back per thread), SHARED is
// `blocking_with_shared(sch, 8, 8, 8, 8, 8)` (A and B tiles staged in shared memory
// by cooperative fetching, fused + split + bound + vectorized). Both match TVM 0.27
// (../shared/reference/tvm/ir/gpu_gemm_{local,shared}_blocking.tvmscript.txt) up to
// syntax. Loops that share a name (the two fetch nests) are addressed as BLOCK/LOOP.

// LOCAL: func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// LOCAL-NEXT: %C_local = block.alloc : memref<1024x1024xf32, "local">
// LOCAL-NEXT: block.for %i0 = 0 to 16 "i_0" bind("blockIdx.x") {
// LOCAL-NEXT:   block.for %j0 = 0 to 16 "j_0" bind("blockIdx.y") {
// LOCAL-NEXT:     block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
// LOCAL-NEXT:       block.for %j1 = 0 to 8 "j_1" bind("threadIdx.y") {
// LOCAL-NEXT:         block.for %i_2_init = 0 to 8 "i_2_init" {
// LOCAL-NEXT:           block.for %j_2_init = 0 to 8 "j_2_init" {
// LOCAL-NEXT:             block.block "C_init"(%vi = spatial(1024, %i0 * 64 + %i1 * 8 + %i_2_init), %vj = spatial(1024, %j0 * 64 + %j1 * 8 + %j_2_init)) {
// LOCAL-NEXT:               %zero = arith.constant 0.000000e+00 : f32
// LOCAL-NEXT:               block.store %zero, %C_local[%vi, %vj] : memref<1024x1024xf32, "local">
// LOCAL-NEXT:             } attributes {reads = [], writes = ["C_local[vi, vj]"]}
// LOCAL-NEXT:           }
// LOCAL-NEXT:         }
// LOCAL-NEXT:         block.for %k0 = 0 to 256 "k_0" {
// LOCAL-NEXT:           block.for %k1 = 0 to 4 "k_1" unrolled {
// LOCAL-NEXT:             block.for %i2 = 0 to 8 "i_2" {
// LOCAL-NEXT:               block.for %j2 = 0 to 8 "j_2" {
// LOCAL-NEXT:                 block.block "C_update"(%vi_1 = spatial(1024, %i0 * 64 + %i1 * 8 + %i2), %vj_1 = spatial(1024, %j0 * 64 + %j1 * 8 + %j2), %vk = reduce(1024, %k0 * 4 + %k1)) {
// LOCAL-NEXT:                   %c = block.load %C_local[%vi_1, %vj_1] : memref<1024x1024xf32, "local">
// LOCAL-NEXT:                   %a = block.load %A[%vi_1, %vk] : memref<1024x1024xf32>
// LOCAL-NEXT:                   %b = block.load %B[%vk, %vj_1] : memref<1024x1024xf32>
// LOCAL-NEXT:                   %ab = arith.mulf %a, %b : f32
// LOCAL-NEXT:                   %sum = arith.addf %c, %ab : f32
// LOCAL-NEXT:                   block.store %sum, %C_local[%vi_1, %vj_1] : memref<1024x1024xf32, "local">
// LOCAL-NEXT:                 } attributes {reads = ["C_local[vi_1, vj_1]", "A[vi_1, vk]", "B[vk, vj_1]"], writes = ["C_local[vi_1, vj_1]"]}
// LOCAL-NEXT:               }
// LOCAL-NEXT:             }
// LOCAL-NEXT:           }
// LOCAL-NEXT:         }
// LOCAL-NEXT:         block.for %ax0 = 0 to 8 "ax0" {
// LOCAL-NEXT:           block.for %ax1 = 0 to 8 "ax1" {
// LOCAL-NEXT:             block.block "C_local"(%v0 = spatial(1024, %i0 * 64 + %i1 * 8 + %ax0), %v1 = spatial(1024, %j0 * 64 + %j1 * 8 + %ax1)) {
// LOCAL-NEXT:               %0 = block.load %C_local[%v0, %v1] : memref<1024x1024xf32, "local">
// LOCAL-NEXT:               block.store %0, %C[%v0, %v1] : memref<1024x1024xf32>
// LOCAL-NEXT:             } attributes {reads = ["C_local[v0, v1]"], writes = ["C[v0, v1]"]}
// LOCAL-NEXT:           }
// LOCAL-NEXT:         }
// LOCAL-NEXT:       }
// LOCAL-NEXT:     }
// LOCAL-NEXT:   }
// LOCAL-NEXT: }
// LOCAL-NEXT: func.return

// SHARED: func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// SHARED-NEXT: %C_local = block.alloc : memref<1024x1024xf32, "local">
// SHARED-NEXT: %A_shared = block.alloc : memref<1024x1024xf32, "shared">
// SHARED-NEXT: %B_shared = block.alloc : memref<1024x1024xf32, "shared">
// SHARED-NEXT: block.for %i0 = 0 to 16 "i_0" bind("blockIdx.x") {
// SHARED-NEXT:   block.for %j0 = 0 to 16 "j_0" bind("blockIdx.y") {
// SHARED-NEXT:     block.for %i_1_j_1_fused = 0 to 64 "i_1_j_1_fused" bind("threadIdx.x") {
// SHARED-NEXT:       block.for %k0 = 0 to 128 "k_0" {
// SHARED-NEXT:         block.for %ax0_ax1_fused0 = 0 to 2 "ax0_ax1_fused_0" {
// SHARED-NEXT:           block.for %ax0_ax1_fused1 = 0 to 64 "ax0_ax1_fused_1" bind("threadIdx.x") {
// SHARED-NEXT:             block.for %ax0_ax1_fused2 = 0 to 4 "ax0_ax1_fused_2" vectorized {
// SHARED-NEXT:               block.block "A_shared"(%v0 = spatial(1024, %i0 * 64 + (%ax0_ax1_fused0 * 256 + %ax0_ax1_fused1 * 4 + %ax0_ax1_fused2) floordiv 8), %v1 = spatial(1024, %k0 * 8 + (%ax0_ax1_fused0 * 256 + %ax0_ax1_fused1 * 4 + %ax0_ax1_fused2) mod 8)) {
// SHARED-NEXT:                 %0 = block.load %A[%v0, %v1] : memref<1024x1024xf32>
// SHARED-NEXT:                 block.store %0, %A_shared[%v0, %v1] : memref<1024x1024xf32, "shared">
// SHARED-NEXT:               } attributes {reads = ["A[v0, v1]"], writes = ["A_shared[v0, v1]"]}
// SHARED-NEXT:             }
// SHARED-NEXT:           }
// SHARED-NEXT:         }
// SHARED-NEXT:         block.for %ax0_ax1_fused0_1 = 0 to 2 "ax0_ax1_fused_0" {
// SHARED-NEXT:           block.for %ax0_ax1_fused1_1 = 0 to 64 "ax0_ax1_fused_1" bind("threadIdx.x") {
// SHARED-NEXT:             block.for %ax0_ax1_fused2_1 = 0 to 4 "ax0_ax1_fused_2" vectorized {
// SHARED-NEXT:               block.block "B_shared"(%v0_1 = spatial(1024, %k0 * 8 + (%ax0_ax1_fused0_1 * 256 + %ax0_ax1_fused1_1 * 4 + %ax0_ax1_fused2_1) floordiv 64), %v1_1 = spatial(1024, %j0 * 64 + (%ax0_ax1_fused0_1 * 256 + %ax0_ax1_fused1_1 * 4 + %ax0_ax1_fused2_1) mod 64)) {
// SHARED-NEXT:                 %1 = block.load %B[%v0_1, %v1_1] : memref<1024x1024xf32>
// SHARED-NEXT:                 block.store %1, %B_shared[%v0_1, %v1_1] : memref<1024x1024xf32, "shared">
// SHARED-NEXT:               } attributes {reads = ["B[v0_1, v1_1]"], writes = ["B_shared[v0_1, v1_1]"]}
// SHARED-NEXT:             }
// SHARED-NEXT:           }
// SHARED-NEXT:         }
// SHARED-NEXT:         block.for %k1 = 0 to 8 "k_1" {
// SHARED-NEXT:           block.for %i2 = 0 to 8 "i_2" {
// SHARED-NEXT:             block.for %j2 = 0 to 8 "j_2" {
// SHARED-NEXT:               block.block "C"(%vi = spatial(1024, %i0 * 64 + %i_1_j_1_fused floordiv 8 * 8 + %i2), %vj = spatial(1024, %j0 * 64 + %i_1_j_1_fused mod 8 * 8 + %j2), %vk = reduce(1024, %k0 * 8 + %k1)) {
// SHARED-NEXT:                 block.init {
// SHARED-NEXT:                   %zero = arith.constant 0.000000e+00 : f32
// SHARED-NEXT:                   block.store %zero, %C_local[%vi, %vj] : memref<1024x1024xf32, "local">
// SHARED-NEXT:                 }
// SHARED-NEXT:                 %c = block.load %C_local[%vi, %vj] : memref<1024x1024xf32, "local">
// SHARED-NEXT:                 %a = block.load %A_shared[%vi, %vk] : memref<1024x1024xf32, "shared">
// SHARED-NEXT:                 %b = block.load %B_shared[%vk, %vj] : memref<1024x1024xf32, "shared">
// SHARED-NEXT:                 %ab = arith.mulf %a, %b : f32
// SHARED-NEXT:                 %sum = arith.addf %c, %ab : f32
// SHARED-NEXT:                 block.store %sum, %C_local[%vi, %vj] : memref<1024x1024xf32, "local">
// SHARED-NEXT:               } attributes {reads = ["A_shared[vi, vk]", "B_shared[vk, vj]"], writes = ["C_local[vi, vj]"]}
// SHARED-NEXT:             }
// SHARED-NEXT:           }
// SHARED-NEXT:         }
// SHARED-NEXT:       }
// SHARED-NEXT:       block.for %ax0 = 0 to 8 "ax0" {
// SHARED-NEXT:         block.for %ax1 = 0 to 8 "ax1" {
// SHARED-NEXT:           block.block "C_local"(%v0_2 = spatial(1024, %i0 * 64 + %i_1_j_1_fused floordiv 8 * 8 + %ax0), %v1_2 = spatial(1024, %j0 * 64 + %i_1_j_1_fused mod 8 * 8 + %ax1)) {
// SHARED-NEXT:             %2 = block.load %C_local[%v0_2, %v1_2] : memref<1024x1024xf32, "local">
// SHARED-NEXT:             block.store %2, %C[%v0_2, %v1_2] : memref<1024x1024xf32>
// SHARED-NEXT:           } attributes {reads = ["C_local[v0_2, v1_2]"], writes = ["C[v0_2, v1_2]"]}
// SHARED-NEXT:         }
// SHARED-NEXT:       }
// SHARED-NEXT:     }
// SHARED-NEXT:   }
// SHARED-NEXT: }
// SHARED-NEXT: func.return

// MyModuleMatmul of seed 002 (the GPU matmul before scheduling): C = A · B,
// 1024x1024x1024, float32; note B is indexed [vk, vj] here, not transposed.
func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.for %j = 0 to 1024 "j" {
      block.for %k = 0 to 1024 "k" {
        block.block "C"(%vi = spatial(1024, %i), %vj = spatial(1024, %j), %vk = reduce(1024, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
          %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
          %b = block.load %B[%vk, %vj] : memref<1024x1024xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
        }
      }
    }
  }
  func.return
}
