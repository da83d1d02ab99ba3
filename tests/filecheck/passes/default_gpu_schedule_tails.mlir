// RUN: xtir-opt %s -p fuse-ops,legalize-tensor,default-gpu-schedule --split-input-file | filecheck %s
// default-gpu-schedule on sizes no tile divides, and a kernel whose first tiles do not lower.

// A prime k (97) and odd spatial sizes: the matmul is padded to whole tiles (pad-einsum: i to
// 39 = 13 threads x 3, j to 54 = 9 x 6, k to 104 = 13 steps of 8), not stepped by 1. The padded
// copies of x and w are inlined into the shared fetches (zeros outside x and w; the x tile
// k-major), the update runs unguarded, only the write-back (with the bias and relu) is guarded.
// CHECK-LABEL:   func.func @fused_dense_add_relu(%x: memref<37x97xf32>, %w: memref<53x97xf32>, %b: memref<53xf32>, %T_relu: memref<37x53xf32>) {
// CHECK-NEXT:     %T_dense_pad_local = block.alloc : memref<39x54xf32, "local">
// CHECK-NEXT:     %x_pad_shared = block.alloc : memref<104x39xf32, "shared">
// CHECK-NEXT:     %w_pad_shared = block.alloc : memref<104x54xf32, "shared">
// CHECK-NEXT:     block.for %i_0_j_0_fused = 0 to 1 "i_0_j_0_fused" bind("blockIdx.x") {
// CHECK-NEXT:       block.for %i_1_j_1_fused = 0 to 117 "i_1_j_1_fused" bind("threadIdx.x") {
// CHECK:            block.for %k0 = 0 to 13 "k_0" {
// CHECK:                    block.block "x_pad_shared"
// CHECK-NEXT:                 %0 = arith.constant 37 : index
// CHECK-NEXT:                 %1 = arith.cmpi slt, %v0, %0 : index
// CHECK-NEXT:                 %2 = arith.constant 97 : index
// CHECK-NEXT:                 %3 = arith.cmpi slt, %v1, %2 : index
// CHECK-NEXT:                 %4 = arith.andi %1, %3 : i1
// CHECK-NEXT:                 %5 = scf.if %4 -> (f32) {
// CHECK-NEXT:                   %6 = block.load %x[%v0, %v1] : memref<37x97xf32>
// CHECK:                        %7 = arith.constant 0.000000e+00 : f32
// CHECK:                      block.store %5, %x_pad_shared[%v1, %v0] : memref<104x39xf32, "shared">
// CHECK:                    block.block "w_pad_shared"
// CHECK:                block.for %k1 = 0 to 8 "k_1" unrolled {
// CHECK-NEXT:             block.for %i2 = 0 to 3 "i_2" unrolled {
// CHECK-NEXT:               block.for %j2 = 0 to 6 "j_2" unrolled {
// CHECK-NEXT:                 block.block "T_dense_update"(%vi_1 = spatial(39, %i_0_j_0_fused * 39 + %i_1_j_1_fused floordiv 9 * 3 + %i2), %vj_1 = spatial(54, %i_0_j_0_fused * 54 + %i_1_j_1_fused mod 9 * 6 + %j2), %vk = reduce(104, %k0 * 8 + %k1)) {
// CHECK-NEXT:                   %t_dense = block.load %T_dense_pad_local[%vi_1, %vj_1] : memref<39x54xf32, "local">
// CHECK-NEXT:                   %16 = block.load %x_pad_shared[%vk, %vi_1] : memref<104x39xf32, "shared">
// CHECK-NEXT:                   %17 = block.load %w_pad_shared[%vk, %vj_1] : memref<104x54xf32, "shared">
// CHECK:                block.block "T_dense_pad_local"(%v0_2 = spatial(39, %i_0_j_0_fused * 39 + %i_1_j_1_fused floordiv 9 * 3 + %ax0), %v1_2 = spatial(54, %i_0_j_0_fused * 54 + %i_1_j_1_fused mod 9 * 6 + %ax1)) where(%i_0_j_0_fused * 39 + %i_1_j_1_fused floordiv 9 * 3 + %ax0 < 37, %i_0_j_0_fused * 54 + %i_1_j_1_fused mod 9 * 6 + %ax1 < 53) {
// CHECK-NEXT:             %20 = block.load %T_dense_pad_local[%v0_2, %v1_2] : memref<39x54xf32, "local">
// CHECK-NEXT:             %21 = block.load %b[%v1_2] : memref<53xf32>
// CHECK-NEXT:             %22 = arith.addf %20, %21 : f32
// CHECK-NEXT:             %23 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:             %24 = arith.maximumf %22, %23 : f32
// CHECK-NEXT:             block.store %24, %T_relu[%v0_2, %v1_2] : memref<37x53xf32>
// CHECK-LABEL:   func.func @main
func.func @main(%x: tensor<37x97xf32>, %w: tensor<53x97xf32>, %b: tensor<53xf32>) -> tensor<37x53xf32> {
  %h = tensor.dense %x, %w : tensor<37x97xf32>, tensor<53x97xf32> -> tensor<37x53xf32>
  %hb = tensor.add %h, %b : tensor<37x53xf32>, tensor<53xf32> -> tensor<37x53xf32>
  %r = tensor.relu %hb : tensor<37x53xf32> -> tensor<37x53xf32>
  func.return %r : tensor<37x53xf32>
}

// -----

// A max over a prime k pad-einsum refuses (zeros would change a max): k is split by 8 all the
// same, the step past 97 guarded in the fetch and the update.
// CHECK-LABEL:   func.func @row_max(%A: memref<37x97xf32>, %M: memref<37xf32>) {
// CHECK:           block.for %k0 = 0 to 13 "k_0" {
// CHECK:                 block.block "A_shared"({{.*}}) where(%k0 * 8 + (%ax0_ax1_fused0 * 148 + %ax0_ax1_fused1 * 4 + %ax0_ax1_fused2) mod 8 < 97) {
// CHECK:             block.for %k1 = 0 to 8 "k_1" unrolled {
// CHECK-NEXT:          block.for %i2 = 0 to 1 "i_2" {
// CHECK-NEXT:            block.block "M_update"(%vi_1 = spatial(37, %i0 * 37 + %i1 + %i2), %vk = reduce(97, %k0 * 8 + %k1)) where(%k0 * 8 + %k1 < 97) {
func.func @row_max(%A: memref<37x97xf32>, %M: memref<37xf32>) {
  block.for %i = 0 to 37 "i" {
    block.for %k = 0 to 97 "k" {
      block.block "M"(%vi = spatial(37, %i), %vk = reduce(97, %k)) {
        block.init {
          %low = arith.constant -3.400000e+38 : f32
          block.store %low, %M[%vi] : memref<37xf32>
        }
        %m = block.load %M[%vi] : memref<37xf32>
        %a = block.load %A[%vi, %vk] : memref<37x97xf32>
        %t = arith.maximumf %m, %a : f32
        block.store %t, %M[%vi] : memref<37xf32>
      }
    }
  }
  func.return
}

// -----

// "wide" (64 x 10) gets the fewest tiles, 64 x 10 outputs in one thread block of 16 x 10
// threads: the fetch of y does not split evenly over 160 threads and is guarded; lower-to-gpu
// sizes its shared tile per k step all the same (it was over all of k, over 48 KiB, and the next
// candidate, thread factors powers of two, was taken). "small" before it keeps its tiles.
// CHECK-LABEL:   func.func @two_denses(
// CHECK-NEXT:     %h_local = block.alloc : memref<16x16xf32, "local">
// CHECK-NEXT:     %x_shared = block.alloc : memref<16x16xf32, "shared">
// CHECK-NEXT:     %w_shared = block.alloc : memref<16x16xf32, "shared">
// CHECK-NEXT:     %g_local = block.alloc : memref<64x10xf32, "local">
// CHECK-NEXT:     %y_shared = block.alloc : memref<784x64xf32, "shared">
// CHECK-NEXT:     %v_shared = block.alloc : memref<10x784xf32, "shared">
// CHECK-NEXT:     block.for %i_0_j_0_fused = 0 to 1 "i_0_j_0_fused" bind("blockIdx.x") {
// CHECK:              block.block "small_update"
// CHECK:          block.for %i_0_j_0_fused1 = 0 to 1 "i_0_j_0_fused_1" bind("blockIdx.x") {
// CHECK-NEXT:       block.for %i_1_j_1_fused1 = 0 to 160 "i_1_j_1_fused_1" bind("threadIdx.x") {
// CHECK:              block.block "wide_update"(%vi_3 = spatial(64, %i_0_j_0_fused1 * 64 + %i_1_j_1_fused1 floordiv 10 * 4 + %i2_1), %vj_3 = spatial(10, %i_0_j_0_fused1 * 10 + %i_1_j_1_fused1 mod 10 + %j2_1), %vk_1 = reduce(784, %k0_1 * 8 + %k1_1))
func.func @two_denses(%x: memref<16x16xf32>, %w: memref<16x16xf32>, %h: memref<16x16xf32>, %y: memref<64x784xf32>, %v: memref<10x784xf32>, %g: memref<64x10xf32>) {
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.for %k = 0 to 16 "k" {
        block.block "small"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %h[%vi, %vj] : memref<16x16xf32>
          }
          %acc = block.load %h[%vi, %vj] : memref<16x16xf32>
          %a = block.load %x[%vi, %vk] : memref<16x16xf32>
          %b = block.load %w[%vj, %vk] : memref<16x16xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          block.store %s, %h[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
  }
  block.for %i = 0 to 64 "i" {
    block.for %j = 0 to 10 "j" {
      block.for %k = 0 to 784 "k" {
        block.block "wide"(%vi = spatial(64, %i), %vj = spatial(10, %j), %vk = reduce(784, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %g[%vi, %vj] : memref<64x10xf32>
          }
          %acc = block.load %g[%vi, %vj] : memref<64x10xf32>
          %a = block.load %y[%vi, %vk] : memref<64x784xf32>
          %b = block.load %v[%vj, %vk] : memref<10x784xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          block.store %s, %g[%vi, %vj] : memref<64x10xf32>
        }
      }
    }
  }
  func.return
}
