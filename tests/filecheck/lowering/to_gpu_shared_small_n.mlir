// RUN: xtir-opt %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},split{loop=k factors=-1,8},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},fuse{loops=i_1,j_1},reverse-compute-at{block=C_local loop=i_1_j_1_fused},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1_j_1_fused thread="threadIdx.x"},cache-read{block=C index=0 scope="shared"},compute-at{block=A_shared loop=k_0},fuse{loops="A_shared/ax0","A_shared/ax1"},split{loop="A_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="A_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="A_shared/ax0_ax1_fused_2"},cache-read{block=C index=1 scope="shared"},compute-at{block=B_shared loop=k_0},fuse{loops="B_shared/ax0","B_shared/ax1"},split{loop="B_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="B_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="B_shared/ax0_ax1_fused_2"},lower-blocks,lower-to-gpu' | filecheck %s

// Seed 002's shared GEMM (to_gpu_gemm_shared.mlir) at 60x60x64: n is smaller than the 64x64
// block tile, so the 8x60 tile of B is 480 floats fetched by 64 threads x 2 x 4 = 512 lanes and
// the fetch is guarded by `f < 480` on its fused index f (row f floordiv 60, column f mod 60).
// That guard cuts the last, partial row off the fetch: B_shared is one k_0 iteration's 8x60
// tile, not the kernel's 64x60 (nor 9x60), and A_shared the 60x8 one (A's rows cut at m by the
// same kind of guard): 3840 bytes in all.

// CHECK: "gpu.func"()
// CHECK-NEXT: ^bb0(%A: memref<60x64xf32>, %B: memref<64x60xf32>, %C: memref<60x60xf32>):
// CHECK-NEXT: %A_shared = memref.alloca() : memref<60x8xf32, "shared">
// CHECK-NEXT: %B_shared = memref.alloca() : memref<8x60xf32, "shared">
// CHECK-NEXT: %C_local = memref.alloca() : memref<8x8xf32, "local">
// CHECK: gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>, xtir.shared_bytes = 3840 : i64

builtin.module {
  func.func @main(%A: memref<60x64xf32>, %B: memref<64x60xf32>, %C: memref<60x60xf32>) {
    block.for %i = 0 to 60 "i" {
      block.for %j = 0 to 60 "j" {
        block.for %k = 0 to 64 "k" {
          block.block "C"(%vi = spatial(60, %i), %vj = spatial(60, %j), %vk = reduce(64, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<60x60xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<60x60xf32>
            %a = block.load %A[%vi, %vk] : memref<60x64xf32>
            %b = block.load %B[%vk, %vj] : memref<64x60xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<60x60xf32>
          }
        }
      }
    }
    func.return
  }
}
