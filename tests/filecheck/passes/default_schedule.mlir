// RUN: xtir-opt %s -p fuse-ops,legalize-tensor,default-schedule --split-input-file | filecheck %s
// RUN: xtir-opt %s -p 'fuse-ops,legalize-tensor,default-schedule{skip=add}' --split-input-file | filecheck %s --check-prefix=SKIP
// default-schedule after legalize-tensor: each block function gets a CPU schedule.

// A fused dense + bias + relu: a register tile (8 rows unrolled x 32 columns vectorized)
// accumulated in a local buffer over k, the init decomposed out of the reduction, the bias
// and relu inlined into the tile's write-back, the outer loops fused and parallel (64x64x64
// iterations: worth threads).
// CHECK-LABEL:   func.func @fused_dense_add_relu(%x: memref<64x64xf32>, %w: memref<64x64xf32>, %b: memref<64xf32>, %T_relu: memref<64x64xf32>) {
// CHECK-NEXT:     %T_dense_local = block.alloc : memref<64x64xf32, "local">
// CHECK-NEXT:     block.for %i_0_j_0_fused = 0 to 16 "i_0_j_0_fused" parallel {
// CHECK-NEXT:       block.for %i_1_init = 0 to 8 "i_1_init" {
// CHECK-NEXT:         block.for %j_1_init = 0 to 32 "j_1_init" {
// CHECK-NEXT:           block.block "T_dense_init"(%vi = spatial(64, %i_0_j_0_fused floordiv 2 * 8 + %i_1_init), %vj = spatial(64, %i_0_j_0_fused mod 2 * 32 + %j_1_init)) {
// CHECK-NEXT:             %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:             block.store %zero, %T_dense_local[%vi, %vj] : memref<64x64xf32, "local">
// CHECK-NEXT:           }
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:       block.for %k = 0 to 64 "k" {
// CHECK-NEXT:         block.for %i1 = 0 to 8 "i_1" unrolled {
// CHECK-NEXT:           block.for %j1 = 0 to 32 "j_1" vectorized {
// CHECK-NEXT:             block.block "T_dense_update"(%vi_1 = spatial(64, %i_0_j_0_fused floordiv 2 * 8 + %i1), %vj_1 = spatial(64, %i_0_j_0_fused mod 2 * 32 + %j1), %vk = reduce(64, %k)) {
// CHECK-NEXT:               %t_dense = block.load %T_dense_local[%vi_1, %vj_1] : memref<64x64xf32, "local">
// CHECK-NEXT:               %0 = block.load %x[%vi_1, %vk] : memref<64x64xf32>
// CHECK-NEXT:               %1 = block.load %w[%vj_1, %vk] : memref<64x64xf32>
// CHECK-NEXT:               %2 = arith.mulf %0, %1 : f32
// CHECK-NEXT:               %3 = arith.addf %t_dense, %2 : f32
// CHECK-NEXT:               block.store %3, %T_dense_local[%vi_1, %vj_1] : memref<64x64xf32, "local">
// CHECK-NEXT:             }
// CHECK-NEXT:           }
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:       block.for %ax0 = 0 to 8 "ax0" {
// CHECK-NEXT:         block.for %ax1 = 0 to 32 "ax1" {
// CHECK-NEXT:           block.block "T_dense_local"(%v0 = spatial(64, %i_0_j_0_fused floordiv 2 * 8 + %ax0), %v1 = spatial(64, %i_0_j_0_fused mod 2 * 32 + %ax1)) {
// CHECK-NEXT:             %4 = block.load %T_dense_local[%v0, %v1] : memref<64x64xf32, "local">
// CHECK-NEXT:             %5 = block.load %b[%v1] : memref<64xf32>
// CHECK-NEXT:             %6 = arith.addf %4, %5 : f32
// CHECK-NEXT:             %7 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:             %8 = arith.maximumf %6, %7 : f32
// CHECK-NEXT:             block.store %8, %T_relu[%v0, %v1] : memref<64x64xf32>
// CHECK-NEXT:           }
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @main(%x: memref<64x64xf32>, %w: memref<64x64xf32>, %b: memref<64xf32>, %out: memref<64x64xf32>) {
func.func @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<64x64xf32> {
  %h = tensor.dense %x, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %hb = tensor.add %h, %b : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xf32>
  %r = tensor.relu %hb : tensor<64x64xf32> -> tensor<64x64xf32>
  func.return %r : tensor<64x64xf32>
}

// -----

// Elementwise functions vectorize their innermost loop; the outer loop runs in parallel
// only when the block does enough work (512x256, not 4x8). `skip` leaves a function alone.
// CHECK-LABEL:   func.func @relu(%x: memref<4x8xf32>, %T_relu: memref<4x8xf32>) {
// CHECK-NEXT:     block.for %i0 = 0 to 4 "i0" {
// CHECK-NEXT:       block.for %i1 = 0 to 8 "i1" vectorized {
// CHECK-LABEL:   func.func @add(%y: memref<512x256xf32>, %z: memref<256xf32>, %T_add: memref<512x256xf32>) {
// CHECK-NEXT:     block.for %i0 = 0 to 512 "i0" parallel {
// CHECK-NEXT:       block.for %i1 = 0 to 256 "i1" vectorized {
// SKIP-LABEL: func.func @relu
// SKIP:         block.for %i1 = 0 to 8 "i1" vectorized {
// SKIP-LABEL: func.func @add
// SKIP-NEXT:    block.for %i0 = 0 to 512 "i0" {
// SKIP-NEXT:      block.for %i1 = 0 to 256 "i1" {
func.func @main(%x: tensor<4x8xf32>, %y: tensor<512x256xf32>, %z: tensor<256xf32>) -> (tensor<4x8xf32>, tensor<512x256xf32>) {
  %r = tensor.relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = tensor.add %y, %z : tensor<512x256xf32>, tensor<256xf32> -> tensor<512x256xf32>
  func.return %r, %s : tensor<4x8xf32>, tensor<512x256xf32>
}

// -----

// A conv2d: the vector axis is the output column (xx), the register axis the output channel
// (ff, whose weight the vector loads do not read); the reduction loops go between the tile and
// the outer loops.
// CHECK-LABEL: func.func @conv2d
// CHECK:         %conv2d_nchw_local = block.alloc : memref<1x16x6x6xf32, "local">
// CHECK:         block.block "conv2d_nchw_init"
// CHECK:         block.for %rc = 0 to 4 "rc" {
// CHECK-NEXT:      block.for %ry = 0 to 3 "ry" {
// CHECK-NEXT:        block.for %rx = 0 to 3 "rx" {
// CHECK-NEXT:          block.for %ff = 0 to 16 "ff" unrolled {
// CHECK-NEXT:            block.for %xx = 0 to 6 "xx" vectorized {
// CHECK-NEXT:              block.block "conv2d_nchw_update"
// CHECK:         block.block "conv2d_nchw_local"
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<1x16x6x6xf32> {
  %c = tensor.conv2d %x, %w : tensor<1x4x8x8xf32>, tensor<16x4x3x3xf32> -> tensor<1x16x6x6xf32>
  func.return %c : tensor<1x16x6x6xf32>
}

// -----

// A function whose loops already carry a kind (scheduled by a user or the tuner) is left as it is.
// CHECK-LABEL: func.func @by_hand
// CHECK-NEXT:    block.for %i = 0 to 4 "i" parallel {
// CHECK-NEXT:      block.for %j = 0 to 8 "j" {
func.func @by_hand(%A: memref<4x8xf32>, %B: memref<4x8xf32>) {
  block.for %i = 0 to 4 "i" parallel {
    block.for %j = 0 to 8 "j" {
      block.block "B"(%vi = spatial(4, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<4x8xf32>
        block.store %a, %B[%vi, %vj] : memref<4x8xf32>
      }
    }
  }
  func.return
}

// -----

// tanh is a call of libm's tanhf, which LLVM vectorizes only on CPUs with a libmvec variant
// (it warned elsewhere that the loop marked vectorized was not): its loop stays serial; gelu's
// erf and sigmoid's exp are computed inline on f32 (lowering/vector_math.py) and vectorize.
// CHECK-LABEL: func.func @gelu(
// CHECK-NEXT:    block.for %i0 = 0 to 4 "i0" {
// CHECK-NEXT:      block.for %i1 = 0 to 64 "i1" vectorized {
// CHECK-LABEL: func.func @sigmoid(
// CHECK-NEXT:    block.for %i0 = 0 to 4 "i0" {
// CHECK-NEXT:      block.for %i1 = 0 to 64 "i1" vectorized {
// CHECK-LABEL: func.func @tanh(
// CHECK-NEXT:    block.for %i0 = 0 to 4 "i0" {
// CHECK-NEXT:      block.for %i1 = 0 to 64 "i1" {
func.func @activations(%a: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
  %g = tensor.gelu %a : tensor<4x64xf32> -> tensor<4x64xf32>
  %s = tensor.sigmoid %a : tensor<4x64xf32> -> tensor<4x64xf32>
  %t = tensor.tanh %a : tensor<4x64xf32> -> tensor<4x64xf32>
  func.return %g, %s, %t : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// An integer division by a tensor is checked at run time (guard-arith: a branch to a report
// call), which LLVM does not vectorize (it warned that the marked loop was not): its loop stays
// serial. Other integer arithmetic vectorizes.
// CHECK-LABEL: func.func @floor_divide(
// CHECK-NEXT:    block.for %i0 = 0 to 4 "i0" {
// CHECK-NEXT:      block.for %i1 = 0 to 64 "i1" {
// CHECK-LABEL: func.func @multiply(
// CHECK-NEXT:    block.for %i0 = 0 to 4 "i0" {
// CHECK-NEXT:      block.for %i1 = 0 to 64 "i1" vectorized {
func.func @divisions(%a: tensor<4x64xi32>, %b: tensor<4x64xi32>) -> (tensor<4x64xi32>, tensor<4x64xi32>) {
  %q = tensor.floor_divide %a, %b : tensor<4x64xi32>, tensor<4x64xi32> -> tensor<4x64xi32>
  %r = tensor.multiply %a, %b : tensor<4x64xi32>, tensor<4x64xi32> -> tensor<4x64xi32>
  func.return %q, %r : tensor<4x64xi32>, tensor<4x64xi32>
}
