// RUN: xtir-opt %s -p 'tensorize{func=constant_offsets block=tile intrin=tmm16},tensorize{func=mixed_offsets block=tile intrin=tmm16},cache-read{func=caches block=matmul index=0 scope="global.A_reg"},cache-read{func=caches block=matmul index=1 scope="global.B_reg"},cache-write{func=caches block=matmul index=0 scope="global.accumulator"},split{func=caches loop=i factors=-1,16},split{func=caches loop=j factors=-1,16},split{func=caches loop=k factors=-1,16},reorder{func=caches loops=i_0,j_0,k_0,i_1,j_1,k_1},decompose-reduction{func=caches block=matmul loop=k_0},tensorize{func=caches loop=i_1_init intrin=fill_zero16},tensorize{func=caches loop=i_1 intrin=tmm16},split{func=caches loop="A_global.A_reg/ax0" factors=-1,16},split{func=caches loop="A_global.A_reg/ax1" factors=-1,16},reorder{func=caches loops=ax0_0,ax1_0,ax0_1,ax1_1},tensorize{func=caches loop=ax0_1 intrin=dma_copy16},split{func=caches loop="B_global.B_reg/ax0" factors=-1,16},split{func=caches loop="B_global.B_reg/ax1" factors=-1,16},reorder{func=caches loops="B_global.B_reg/ax0_0","B_global.B_reg/ax1_0",ax0_1,ax1_1},tensorize{func=caches loop=ax0_1 intrin=dma_copy16},split{func=caches loop="C_global.accumulator/ax0" factors=-1,16},split{func=caches loop="C_global.accumulator/ax1" factors=-1,16},reorder{func=caches loops="C_global.accumulator/ax0_0","C_global.accumulator/ax1_0",ax0_1,ax1_1},tensorize{func=caches loop=ax0_1 intrin=dma_copy16},test-block-regions' | filecheck %s
// RUN: xtir-opt %s --intrinsics=%S/Inputs/user_intrinsics.mlir -p 'split{func=add loop=i factors=-1,4},split{func=add loop=j factors=-1,4},reorder{func=add loops=i_0,j_0,i_1,j_1},tensorize{func=add loop=i_1 intrin=vadd4x4},split{func=add loop=p factors=-1,4},split{func=add loop=q factors=-1,4},reorder{func=add loops=p_0,q_0,p_1,q_1},tensorize{func=add loop=p_1 intrin=vadd4x4},cache-read{func=shared_copy block=twice index=0 scope="shared"},split{func=shared_copy loop=ax0 factors=-1,8},tensorize{func=shared_copy loop=ax0_1 intrin=copy8},test-block-regions' | filecheck %s --check-prefix=USER
// tensorize (TVM's sch.tensorize) beyond the seed walkthrough (seed_walkthrough.mlir,
// prefixes TENSORIZE and ACCEL): tile offsets made of constants; tensorize{loop=...},
// which blockizes the loop first, on an init nest, an update nest and the three cache
// copies; and user intrinsics registered from an IR file (Inputs/user_intrinsics.mlir)
// whose implementations are written in the block dialect.
// What tensorize refuses: tensorize_invalid*.mlir.

// A hand-written 16x16x16 tile whose operands sit at constant offsets: they become
// the region offsets of accel.tmm16.
// CHECK-LABEL: func.func @constant_offsets(%A: memref<32x48xf32, "global.A_reg">, %B: memref<16x48xf32, "global.B_reg">, %C: memref<32x16xf32, "global.accumulator">) {
// CHECK-NEXT: block.block "tile"() {
// CHECK-NEXT:   accel.tmm16 %C[16 : 16, 0 : 16], %A[16 : 16, 32 : 16], %B[0 : 16, 32 : 16] : memref<32x16xf32, "global.accumulator">, memref<32x48xf32, "global.A_reg">, memref<16x48xf32, "global.B_reg">
// CHECK-NEXT: } attributes {reads = ["C[16:32, 0:16]", "A[16:32, 32:48]", "B[0:16, 32:48]"], writes = ["C[16:32, 0:16]"]}
// CHECK-NEXT: func.return
func.func @constant_offsets(%A: memref<32x48xf32, "global.A_reg">, %B: memref<16x48xf32, "global.B_reg">, %C: memref<32x16xf32, "global.accumulator">) {
  block.block "tile"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi + 16, %vj] : memref<32x16xf32, "global.accumulator">
            %a = block.load %A[%vi + 16, %vk + 32] : memref<32x48xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk + 32] : memref<16x48xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi + 16, %vj] : memref<32x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// Offsets mixing the outer block's variable and constants.
// CHECK-LABEL: func.func @mixed_offsets(%A: memref<32x48xf32, "global.A_reg">, %B: memref<32x48xf32, "global.B_reg">, %C: memref<32x32xf32, "global.accumulator">) {
// CHECK-NEXT: block.for %o = 0 to 2 "o" {
// CHECK-NEXT:   block.block "tile"(%vo = spatial(2, %o)) {
// CHECK-NEXT:     accel.tmm16 %C[%vo * 16 : 16, 16 : 16], %A[%vo * 16 : 16, 32 : 16], %B[16 : 16, 32 : 16] : memref<32x32xf32, "global.accumulator">, memref<32x48xf32, "global.A_reg">, memref<32x48xf32, "global.B_reg">
// CHECK-NEXT:   } attributes {reads = ["C[vo * 16:vo * 16 + 16, 16:32]", "A[vo * 16:vo * 16 + 16, 32:48]", "B[16:32, 32:48]"], writes = ["C[vo * 16:vo * 16 + 16, 16:32]"]}
// CHECK-NEXT: }
// CHECK-NEXT: func.return
func.func @mixed_offsets(%A: memref<32x48xf32, "global.A_reg">, %B: memref<32x48xf32, "global.B_reg">, %C: memref<32x32xf32, "global.accumulator">) {
  block.for %o = 0 to 2 "o" {
    block.block "tile"(%vo = spatial(2, %o)) {
      block.for %i = 0 to 16 "i" {
        block.for %j = 0 to 16 "j" {
          block.for %k = 0 to 16 "k" {
            block.block "mm"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
              %c = block.load %C[%vo * 16 + %vi, %vj + 16] : memref<32x32xf32, "global.accumulator">
              %a = block.load %A[%vo * 16 + %vi, %vk + 32] : memref<32x48xf32, "global.A_reg">
              %b = block.load %B[%vj + 16, %vk + 32] : memref<32x48xf32, "global.B_reg">
              %ab = arith.mulf %a, %b : f32
              %sum = arith.addf %c, %ab : f32
              block.store %sum, %C[%vo * 16 + %vi, %vj + 16] : memref<32x32xf32, "global.accumulator">
            }
          }
        }
      }
    }
  }
  func.return
}

// C = A · Bᵀ at 32x32x32 with the caches made at the top level (no compute-at).
// Every step is tensorize{loop=...}: the loop's subtree becomes block X_o (blockize),
// whose body is the intrinsic. The init nest left by decompose-reduction (loops
// i_1_init, j_1_init) becomes accel.fill_zero, the update nest accel.tmm16, and each
// cache copy, split into 16x16 tiles, accel.dma_copy (any scope to any scope).
// CHECK-LABEL: func.func @caches(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
// CHECK-NEXT: %A_global_A_reg = block.alloc : memref<32x32xf32, "global.A_reg">
// CHECK-NEXT: %B_global_B_reg = block.alloc : memref<32x32xf32, "global.B_reg">
// CHECK-NEXT: %C_global_accumulator = block.alloc : memref<32x32xf32, "global.accumulator">
// CHECK-NEXT: block.for %ax00 = 0 to 2 "ax0_0" {
// CHECK-NEXT:   block.for %ax10 = 0 to 2 "ax1_0" {
// CHECK-NEXT:     block.block "B_global.B_reg_o"(%v0_o = spatial(2, %ax00), %v1_o = spatial(2, %ax10)) {
// CHECK-NEXT:       accel.dma_copy %B_global_B_reg[%v0_o * 16 : 16, %v1_o * 16 : 16], %B[%v0_o * 16 : 16, %v1_o * 16 : 16] : memref<32x32xf32, "global.B_reg">, memref<32x32xf32>
// CHECK-NEXT:     } attributes {reads = ["B[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16]"], writes = ["B_global_B_reg[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16]"]}
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: block.for %ax00_1 = 0 to 2 "ax0_0" {
// CHECK-NEXT:   block.for %ax10_1 = 0 to 2 "ax1_0" {
// CHECK-NEXT:     block.block "A_global.A_reg_o"(%v0_o_1 = spatial(2, %ax00_1), %v1_o_1 = spatial(2, %ax10_1)) {
// CHECK-NEXT:       accel.dma_copy %A_global_A_reg[%v0_o_1 * 16 : 16, %v1_o_1 * 16 : 16], %A[%v0_o_1 * 16 : 16, %v1_o_1 * 16 : 16] : memref<32x32xf32, "global.A_reg">, memref<32x32xf32>
// CHECK-NEXT:     } attributes {reads = ["A[v0_o_1 * 16:v0_o_1 * 16 + 16, v1_o_1 * 16:v1_o_1 * 16 + 16]"], writes = ["A_global_A_reg[v0_o_1 * 16:v0_o_1 * 16 + 16, v1_o_1 * 16:v1_o_1 * 16 + 16]"]}
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: block.for %i0 = 0 to 2 "i_0" {
// CHECK-NEXT:   block.for %j0 = 0 to 2 "j_0" {
// CHECK-NEXT:     block.block "matmul_init_o"(%vi_o = spatial(2, %i0), %vj_o = spatial(2, %j0)) {
// CHECK-NEXT:       accel.fill_zero %C_global_accumulator[%vi_o * 16 : 16, %vj_o * 16 : 16] : memref<32x32xf32, "global.accumulator">
// CHECK-NEXT:     } attributes {reads = [], writes = ["C_global_accumulator[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// CHECK-NEXT:     block.for %k0 = 0 to 2 "k_0" {
// CHECK-NEXT:       block.block "matmul_update_o"(%vi_o_1 = spatial(2, %i0), %vj_o_1 = spatial(2, %j0), %vk_o = reduce(2, %k0)) {
// CHECK-NEXT:         accel.tmm16 %C_global_accumulator[%vi_o_1 * 16 : 16, %vj_o_1 * 16 : 16], %A_global_A_reg[%vi_o_1 * 16 : 16, %vk_o * 16 : 16], %B_global_B_reg[%vj_o_1 * 16 : 16, %vk_o * 16 : 16] : memref<32x32xf32, "global.accumulator">, memref<32x32xf32, "global.A_reg">, memref<32x32xf32, "global.B_reg">
// CHECK-NEXT:       } attributes {reads = ["C_global_accumulator[vi_o_1 * 16:vi_o_1 * 16 + 16, vj_o_1 * 16:vj_o_1 * 16 + 16]", "A_global_A_reg[vi_o_1 * 16:vi_o_1 * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B_global_B_reg[vj_o_1 * 16:vj_o_1 * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C_global_accumulator[vi_o_1 * 16:vi_o_1 * 16 + 16, vj_o_1 * 16:vj_o_1 * 16 + 16]"]}
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: block.for %ax00_2 = 0 to 2 "ax0_0" {
// CHECK-NEXT:   block.for %ax10_2 = 0 to 2 "ax1_0" {
// CHECK-NEXT:     block.block "C_global.accumulator_o"(%v0_o_2 = spatial(2, %ax00_2), %v1_o_2 = spatial(2, %ax10_2)) {
// CHECK-NEXT:       accel.dma_copy %C[%v0_o_2 * 16 : 16, %v1_o_2 * 16 : 16], %C_global_accumulator[%v0_o_2 * 16 : 16, %v1_o_2 * 16 : 16] : memref<32x32xf32>, memref<32x32xf32, "global.accumulator">
// CHECK-NEXT:     } attributes {reads = ["C_global_accumulator[v0_o_2 * 16:v0_o_2 * 16 + 16, v1_o_2 * 16:v1_o_2 * 16 + 16]"], writes = ["C[v0_o_2 * 16:v0_o_2 * 16 + 16, v1_o_2 * 16:v1_o_2 * 16 + 16]"]}
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
func.func @caches(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
  block.for %i = 0 to 32 "i" {
    block.for %j = 0 to 32 "j" {
      block.for %k = 0 to 32 "k" {
        block.block "matmul"(%vi = spatial(32, %i), %vj = spatial(32, %j), %vk = reduce(32, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<32x32xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<32x32xf32>
          %a = block.load %A[%vi, %vk] : memref<32x32xf32>
          %b = block.load %B[%vj, %vk] : memref<32x32xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<32x32xf32>
        }
      }
    }
  }
  func.return
}

// C = A + B and then D = C + B, tiled 4x4, for the user intrinsic vadd4x4. Its
// implementation is copied into each X_o block with the tile offset added to its
// loads and stores; the second copy's block gets a fresh name (vadd4x4_row_1).
// USER-LABEL: func.func @add(%A: memref<8x12xf32>, %B: memref<8x12xf32>, %C: memref<8x12xf32>, %D: memref<8x12xf32>) {
// USER-NEXT: block.for %i0 = 0 to 2 "i_0" {
// USER-NEXT:   block.for %j0 = 0 to 3 "j_0" {
// USER-NEXT:     block.block "add_o"(%vi_o = spatial(2, %i0), %vj_o = spatial(3, %j0)) {
// USER-NEXT:       block.for %r = 0 to 4 "r" {
// USER-NEXT:         block.for %c = 0 to 4 "c" vectorized {
// USER-NEXT:           block.block "vadd4x4_row"(%vr = spatial(4, %r), %vc = spatial(4, %c)) {
// USER-NEXT:             %a = block.load %A[%vi_o * 4 + %vr, %vj_o * 4 + %vc] : memref<8x12xf32>
// USER-NEXT:             %b = block.load %B[%vi_o * 4 + %vr, %vj_o * 4 + %vc] : memref<8x12xf32>
// USER-NEXT:             %s = arith.addf %a, %b : f32
// USER-NEXT:             block.store %s, %C[%vi_o * 4 + %vr, %vj_o * 4 + %vc] : memref<8x12xf32>
// USER-NEXT:           } attributes {reads = ["A[vi_o * 4 + vr, vj_o * 4 + vc]", "B[vi_o * 4 + vr, vj_o * 4 + vc]"], writes = ["C[vi_o * 4 + vr, vj_o * 4 + vc]"]}
// USER-NEXT:         }
// USER-NEXT:       }
// USER-NEXT:     } attributes {reads = ["A[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4]", "B[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4]"], writes = ["C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4]"]}
// USER-NEXT:   }
// USER-NEXT: }
// USER-NEXT: block.for %p0 = 0 to 2 "p_0" {
// USER-NEXT:   block.for %q0 = 0 to 3 "q_0" {
// USER-NEXT:     block.block "add_again_o"(%vp_o = spatial(2, %p0), %vq_o = spatial(3, %q0)) {
// USER-NEXT:       block.for %r_1 = 0 to 4 "r" {
// USER-NEXT:         block.for %c_1 = 0 to 4 "c" vectorized {
// USER-NEXT:           block.block "vadd4x4_row_1"(%vr_1 = spatial(4, %r_1), %vc_1 = spatial(4, %c_1)) {
// USER-NEXT:             %a_1 = block.load %C[%vp_o * 4 + %vr_1, %vq_o * 4 + %vc_1] : memref<8x12xf32>
// USER-NEXT:             %b_1 = block.load %B[%vp_o * 4 + %vr_1, %vq_o * 4 + %vc_1] : memref<8x12xf32>
// USER-NEXT:             %s_1 = arith.addf %a_1, %b_1 : f32
// USER-NEXT:             block.store %s_1, %D[%vp_o * 4 + %vr_1, %vq_o * 4 + %vc_1] : memref<8x12xf32>
// USER-NEXT:           } attributes {reads = ["C[vp_o * 4 + vr_1, vq_o * 4 + vc_1]", "B[vp_o * 4 + vr_1, vq_o * 4 + vc_1]"], writes = ["D[vp_o * 4 + vr_1, vq_o * 4 + vc_1]"]}
// USER-NEXT:         }
// USER-NEXT:       }
// USER-NEXT:     } attributes {reads = ["C[vp_o * 4:vp_o * 4 + 4, vq_o * 4:vq_o * 4 + 4]", "B[vp_o * 4:vp_o * 4 + 4, vq_o * 4:vq_o * 4 + 4]"], writes = ["D[vp_o * 4:vp_o * 4 + 4, vq_o * 4:vq_o * 4 + 4]"]}
// USER-NEXT:   }
// USER-NEXT: }
// USER-NEXT: func.return
func.func @add(%A: memref<8x12xf32>, %B: memref<8x12xf32>, %C: memref<8x12xf32>, %D: memref<8x12xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 12 "j" {
      block.block "add"(%vi = spatial(8, %i), %vj = spatial(12, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x12xf32>
        %b = block.load %B[%vi, %vj] : memref<8x12xf32>
        %s = arith.addf %a, %b : f32
        block.store %s, %C[%vi, %vj] : memref<8x12xf32>
      }
    }
  }
  block.for %p = 0 to 8 "p" {
    block.for %q = 0 to 12 "q" {
      block.block "add_again"(%vp = spatial(8, %p), %vq = spatial(12, %q)) {
        %c = block.load %C[%vp, %vq] : memref<8x12xf32>
        %b = block.load %B[%vp, %vq] : memref<8x12xf32>
        %s = arith.addf %c, %b : f32
        block.store %s, %D[%vp, %vq] : memref<8x12xf32>
      }
    }
  }
  func.return
}

// B = A + A reading A through a "shared" copy, whose nest the user intrinsic copy8
// (global -> "shared") computes 8 elements at a time.
// USER-LABEL: func.func @shared_copy(%A: memref<32xf32>, %B: memref<32xf32>) {
// USER-NEXT: %A_shared = block.alloc : memref<32xf32, "shared">
// USER-NEXT: block.for %ax00 = 0 to 4 "ax0_0" {
// USER-NEXT:   block.block "A_shared_o"(%v0_o = spatial(4, %ax00)) {
// USER-NEXT:     block.for %i = 0 to 8 "i" vectorized {
// USER-NEXT:       block.block "copy8_lanes"(%vi = spatial(8, %i)) {
// USER-NEXT:         %x = block.load %A[%v0_o * 8 + %vi] : memref<32xf32>
// USER-NEXT:         block.store %x, %A_shared[%v0_o * 8 + %vi] : memref<32xf32, "shared">
// USER-NEXT:       } attributes {reads = ["A[v0_o * 8 + vi]"], writes = ["A_shared[v0_o * 8 + vi]"]}
// USER-NEXT:     }
// USER-NEXT:   } attributes {reads = ["A[v0_o * 8:v0_o * 8 + 8]"], writes = ["A_shared[v0_o * 8:v0_o * 8 + 8]"]}
// USER-NEXT: }
// USER-NEXT: block.for %i_1 = 0 to 32 "i" {
// USER-NEXT:   block.block "twice"(%vi_1 = spatial(32, %i_1)) {
// USER-NEXT:     %a = block.load %A_shared[%vi_1] : memref<32xf32, "shared">
// USER-NEXT:     %s = arith.addf %a, %a : f32
// USER-NEXT:     block.store %s, %B[%vi_1] : memref<32xf32>
// USER-NEXT:   } attributes {reads = ["A_shared[vi_1]"], writes = ["B[vi_1]"]}
// USER-NEXT: }
// USER-NEXT: func.return
func.func @shared_copy(%A: memref<32xf32>, %B: memref<32xf32>) {
  block.for %i = 0 to 32 "i" {
    block.block "twice"(%vi = spatial(32, %i)) {
      %a = block.load %A[%vi] : memref<32xf32>
      %s = arith.addf %a, %a : f32
      block.store %s, %B[%vi] : memref<32xf32>
    }
  }
  func.return
}
