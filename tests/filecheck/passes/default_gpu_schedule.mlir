// RUN: xtir-opt %s -p fuse-ops,legalize-tensor,default-gpu-schedule --split-input-file | filecheck %s
// RUN: xtir-opt %s -p 'fuse-ops,legalize-tensor,default-gpu-schedule{skip=add}' --split-input-file | filecheck %s --check-prefix=SKIP
// default-gpu-schedule after legalize-tensor: each block function gets a GPU schedule.

// A fused dense + bias + relu, tiled as seed 002's shared GEMM: 16x16 threads (fused onto
// threadIdx.x) of 4x4 outputs each, accumulated in a local buffer over k in steps of 8, the
// x and w tiles of a k step fetched into shared memory by all 256 threads and stored k-major
// (a thread's 4 rows of a k step adjacent), the k step and the thread tile unrolled, the init
// decomposed out, the bias and relu inlined into the write-back.
// CHECK-LABEL:   func.func @fused_dense_add_relu(%x: memref<64x64xf32>, %w: memref<64x64xf32>, %b: memref<64xf32>, %T_relu: memref<64x64xf32>) {
// CHECK-NEXT:     %T_dense_local = block.alloc : memref<64x64xf32, "local">
// CHECK-NEXT:     %x_shared = block.alloc : memref<64x64xf32, "shared">
// CHECK-NEXT:     %w_shared = block.alloc : memref<64x64xf32, "shared">
// CHECK-NEXT:     block.for %i_0_j_0_fused = 0 to 1 "i_0_j_0_fused" bind("blockIdx.x") {
// CHECK-NEXT:       block.for %i_1_j_1_fused = 0 to 256 "i_1_j_1_fused" bind("threadIdx.x") {
// CHECK-NEXT:         block.for %i_2_init = 0 to 4 "i_2_init" {
// CHECK-NEXT:           block.for %j_2_init = 0 to 4 "j_2_init" {
// CHECK-NEXT:             block.block "T_dense_init"(%vi = spatial(64, %i_0_j_0_fused * 64 + %i_1_j_1_fused floordiv 16 * 4 + %i_2_init), %vj = spatial(64, %i_0_j_0_fused * 64 + %i_1_j_1_fused mod 16 * 4 + %j_2_init)) {
// CHECK:                block.for %k0 = 0 to 8 "k_0" {
// CHECK-NEXT:           block.for %ax0_ax1_fused0 = 0 to 2 "ax0_ax1_fused_0" {
// CHECK-NEXT:             block.for %ax0_ax1_fused1 = 0 to 256 "ax0_ax1_fused_1" bind("threadIdx.x") {
// CHECK-NEXT:               block.block "x_shared"(%v0 = spatial(64, (%ax0_ax1_fused0 * 256 + %ax0_ax1_fused1) floordiv 8), %v1 = spatial(64, %k0 * 8 + (%ax0_ax1_fused0 * 256 + %ax0_ax1_fused1) mod 8)) {
// CHECK-NEXT:               %0 = block.load %x[%v0, %v1] : memref<64x64xf32>
// CHECK-NEXT:               block.store %0, %x_shared[%v1, %v0] : memref<64x64xf32, "shared">
// CHECK:                    block.block "w_shared"
// CHECK:                block.for %k1 = 0 to 8 "k_1" unrolled {
// CHECK-NEXT:             block.for %i2 = 0 to 4 "i_2" unrolled {
// CHECK-NEXT:               block.for %j2 = 0 to 4 "j_2" unrolled {
// CHECK-NEXT:                 block.block "T_dense_update"(%vi_1 = spatial(64, %i_0_j_0_fused * 64 + %i_1_j_1_fused floordiv 16 * 4 + %i2), %vj_1 = spatial(64, %i_0_j_0_fused * 64 + %i_1_j_1_fused mod 16 * 4 + %j2), %vk = reduce(64, %k0 * 8 + %k1)) {
// CHECK-NEXT:                   %t_dense = block.load %T_dense_local[%vi_1, %vj_1] : memref<64x64xf32, "local">
// CHECK-NEXT:                   %2 = block.load %x_shared[%vk, %vi_1] : memref<64x64xf32, "shared">
// CHECK-NEXT:                   %3 = block.load %w_shared[%vk, %vj_1] : memref<64x64xf32, "shared">
// CHECK:                block.for %ax0 = 0 to 4 "ax0" {
// CHECK-NEXT:             block.for %ax1 = 0 to 4 "ax1" {
// CHECK-NEXT:               block.block "T_dense_local"
// CHECK-NEXT:                 %6 = block.load %T_dense_local[%v0_2, %v1_2] : memref<64x64xf32, "local">
// CHECK-NEXT:                 %7 = block.load %b[%v1_2] : memref<64xf32>
// CHECK-NEXT:                 %8 = arith.addf %6, %7 : f32
// CHECK-NEXT:                 %9 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:                 %10 = arith.maximumf %8, %9 : f32
// CHECK-NEXT:                 block.store %10, %T_relu[%v0_2, %v1_2] : memref<64x64xf32>
// CHECK-LABEL:   func.func @main
func.func @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<64x64xf32> {
  %h = tensor.dense %x, %w : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %hb = tensor.add %h, %b : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xf32>
  %r = tensor.relu %hb : tensor<64x64xf32> -> tensor<64x64xf32>
  func.return %r : tensor<64x64xf32>
}

// -----

// Elementwise functions: the loops fused and split by 256 threads (fewer when there are fewer
// elements), the last block of a size 256 does not divide guarded. `skip` leaves a function alone.
// CHECK-LABEL:   func.func @relu(%x: memref<4x8xf32>, %T_relu: memref<4x8xf32>) {
// CHECK-NEXT:     block.for %i0_i1_fused0 = 0 to 1 "i0_i1_fused_0" bind("blockIdx.x") {
// CHECK-NEXT:       block.for %i0_i1_fused1 = 0 to 32 "i0_i1_fused_1" bind("threadIdx.x") {
// CHECK-NEXT:         block.block "T_relu"(%vi0 = spatial(4, (%i0_i1_fused0 * 32 + %i0_i1_fused1) floordiv 8), %vi1 = spatial(8, (%i0_i1_fused0 * 32 + %i0_i1_fused1) mod 8)) {
// CHECK-LABEL:   func.func @add(%y: memref<512x256xf32>, %z: memref<256xf32>, %T_add: memref<512x256xf32>) {
// CHECK-NEXT:     block.for %i0_i1_fused0 = 0 to 512 "i0_i1_fused_0" bind("blockIdx.x") {
// CHECK-NEXT:       block.for %i0_i1_fused1 = 0 to 256 "i0_i1_fused_1" bind("threadIdx.x") {
// CHECK-NEXT:         block.block "T_add"(%vi0 = spatial(512, %i0_i1_fused0), %vi1 = spatial(256, %i0_i1_fused1)) {
// CHECK-LABEL:   func.func @relu_1(%p: memref<3x101xf32>, %T_relu: memref<3x101xf32>) {
// CHECK-NEXT:     block.for %i0_i1_fused0 = 0 to 2 "i0_i1_fused_0" bind("blockIdx.x") {
// CHECK-NEXT:       block.for %i0_i1_fused1 = 0 to 256 "i0_i1_fused_1" bind("threadIdx.x") {
// CHECK-NEXT:         block.block "T_relu"(%vi0 = spatial(3, (%i0_i1_fused0 * 256 + %i0_i1_fused1) floordiv 101), %vi1 = spatial(101, (%i0_i1_fused0 * 256 + %i0_i1_fused1) mod 101)) where(%i0_i1_fused0 * 256 + %i0_i1_fused1 < 303) {
// SKIP-LABEL: func.func @relu
// SKIP:         bind("threadIdx.x")
// SKIP-LABEL: func.func @add
// SKIP-NEXT:    block.for %i0 = 0 to 512 "i0" {
// SKIP-NEXT:      block.for %i1 = 0 to 256 "i1" {
func.func @main(%x: tensor<4x8xf32>, %y: tensor<512x256xf32>, %z: tensor<256xf32>, %p: tensor<3x101xf32>) -> (tensor<4x8xf32>, tensor<512x256xf32>, tensor<3x101xf32>) {
  %r = tensor.relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = tensor.add %y, %z : tensor<512x256xf32>, tensor<256xf32> -> tensor<512x256xf32>
  %q = tensor.relu %p : tensor<3x101xf32> -> tensor<3x101xf32>
  func.return %r, %s, %q : tensor<4x8xf32>, tensor<512x256xf32>, tensor<3x101xf32>
}

// -----

// Softmax rows: its reductions take one thread per row (the row maximum, then the sum with
// the exponential inlined), the division one thread per element.
// CHECK-LABEL:   func.func @softmax(%x: memref<5x11xf32>, %T_softmax_norm: memref<5x11xf32>) {
// CHECK:           block.for %i00 = 0 to 1 "i0_0" bind("blockIdx.x") {
// CHECK-NEXT:        block.for %i01 = 0 to 5 "i0_1" bind("threadIdx.x") {
// CHECK-NEXT:          block.for %k = 0 to 11 "k" {
// CHECK-NEXT:            block.block "T_softmax_maxelem"(%vi0 = spatial(5, %i00 * 5 + %i01), %vk = reduce(11, %k)) {
// CHECK:           block.for %i00_1 = 0 to 1 "i0_0" bind("blockIdx.x") {
// CHECK-NEXT:        block.for %i01_1 = 0 to 5 "i0_1" bind("threadIdx.x") {
// CHECK-NEXT:          block.for %k_1 = 0 to 11 "k" {
// CHECK-NEXT:            block.block "T_softmax_expsum"
// CHECK:           block.for %i0_i1_fused0 = 0 to 1 "i0_i1_fused_0" bind("blockIdx.x") {
// CHECK-NEXT:        block.for %i0_i1_fused1 = 0 to 55 "i0_i1_fused_1" bind("threadIdx.x") {
func.func @main(%x: tensor<5x11xf32>) -> tensor<5x11xf32> {
  %s = tensor.softmax %x axis 1 : tensor<5x11xf32> -> tensor<5x11xf32>
  func.return %s : tensor<5x11xf32>
}

// -----

// A function whose loops already carry a kind (scheduled by a user or the tuner) is left as it is.
// CHECK-LABEL:   func.func @by_hand(%A: memref<4x8xf32>, %B: memref<4x8xf32>) {
// CHECK-NEXT:     block.for %i = 0 to 4 "i" bind("threadIdx.x") {
// CHECK-NEXT:       block.for %j = 0 to 8 "j" {
func.func @by_hand(%A: memref<4x8xf32>, %B: memref<4x8xf32>) {
  block.for %i = 0 to 4 "i" bind("threadIdx.x") {
    block.for %j = 0 to 8 "j" {
      block.block "B"(%vi = spatial(4, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<4x8xf32>
        block.store %a, %B[%vi, %vj] : memref<4x8xf32>
      }
    }
  }
  func.return
}
