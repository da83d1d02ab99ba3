// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},test-block-regions' | filecheck %s --check-prefix=SPLIT
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},test-block-regions' | filecheck %s --check-prefix=BLOCKIZE
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},test-block-regions' | filecheck %s --check-prefix=CACHE_READ
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},test-block-regions' | filecheck %s --check-prefix=COMPUTE_AT
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},cache-write{block=matmul_o index=0 scope="global.accumulator"},test-block-regions' | filecheck %s --check-prefix=CACHE_WRITE
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},cache-write{block=matmul_o index=0 scope="global.accumulator"},reverse-compute-at{block="C_global.accumulator" loop=j_0},test-block-regions' | filecheck %s --check-prefix=REVERSE_COMPUTE_AT
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},cache-write{block=matmul_o index=0 scope="global.accumulator"},reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0},test-block-regions' | filecheck %s --check-prefix=DECOMPOSE
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},cache-write{block=matmul_o index=0 scope="global.accumulator"},reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0},tensorize{block=matmul_o_update intrin=tmm16},test-block-regions' | filecheck %s --check-prefix=TENSORIZE
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},cache-write{block=matmul_o index=0 scope="global.accumulator"},reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0},tensorize{block=matmul_o_update intrin=tmm16},tensorize{block=matmul_o_init intrin=fill_zero16},tensorize{loop="A_global.A_reg/ax0" intrin=dma_copy16},tensorize{loop="B_global.B_reg/ax0" intrin=dma_copy16},tensorize{loop="C_global.accumulator/ax0" intrin=dma_copy16},test-block-regions' | filecheck %s --check-prefix=ACCEL

// Seed 001's tensorization walkthrough (6.2.2), one check prefix per printed step:
//   i, ii = sch.split(i, factors=[None, 16]) (and j, k); sch.reorder(i, j, k, ii, ji, ki) -> SPLIT
//   block_mm = sch.blockize(ii)                                                 -> BLOCKIZE
//   A_reg = sch.cache_read(block_mm, 0, storage_scope="global.A_reg") (and B_reg) -> CACHE_READ
//   sch.compute_at(A_reg, k); sch.compute_at(B_reg, k)                          -> COMPUTE_AT
//   C_acc = sch.cache_write(block_mm, 0, storage_scope="global.accumulator")    -> CACHE_WRITE
//   sch.reverse_compute_at(C_acc, j)                                            -> REVERSE_COMPUTE_AT
//   sch.decompose_reduction(block_mm, k)                                        -> DECOMPOSE
//   sch.tensorize(block_mm, "tmm16")                                            -> TENSORIZE
//   (beyond the seed) the init and the three copies onto fill_zero16 / dma_copy16 -> ACCEL
// Each prefix pins the whole function after that step, with the derived T.reads /
// T.writes of every block (test-block-regions). They match TVM 0.27's output
// (../shared/reference/tvm/ir/tmm_0*.tvmscript.txt) up to syntax: the same loops,
// extents, names, bindings and regions.

// SPLIT:       func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// SPLIT-NEXT: block.for %i0 = 0 to 64 "i_0" {
// SPLIT-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// SPLIT-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// SPLIT-NEXT:       block.for %i1 = 0 to 16 "i_1" {
// SPLIT-NEXT:         block.for %j1 = 0 to 16 "j_1" {
// SPLIT-NEXT:           block.for %k1 = 0 to 16 "k_1" {
// SPLIT-NEXT:             block.block "matmul"(%vi = spatial(1024, %i0 * 16 + %i1), %vj = spatial(1024, %j0 * 16 + %j1), %vk = reduce(1024, %k0 * 16 + %k1)) {
// SPLIT-NEXT:               block.init {
// SPLIT-NEXT:                 %zero = arith.constant 0.000000e+00 : f32
// SPLIT-NEXT:                 block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
// SPLIT-NEXT:               }
// SPLIT-NEXT:               %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
// SPLIT-NEXT:               %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
// SPLIT-NEXT:               %b = block.load %B[%vj, %vk] : memref<1024x1024xf32>
// SPLIT-NEXT:               %ab = arith.mulf %a, %b : f32
// SPLIT-NEXT:               %sum = arith.addf %c, %ab : f32
// SPLIT-NEXT:               block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
// SPLIT-NEXT:             } attributes {reads = ["A[vi, vk]", "B[vj, vk]"], writes = ["C[vi, vj]"]}
// SPLIT-NEXT:           }
// SPLIT-NEXT:         }
// SPLIT-NEXT:       }
// SPLIT-NEXT:     }
// SPLIT-NEXT:   }
// SPLIT-NEXT: }
// SPLIT-NEXT: func.return

// BLOCKIZE:    func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// BLOCKIZE-NEXT: block.for %i0 = 0 to 64 "i_0" {
// BLOCKIZE-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// BLOCKIZE-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// BLOCKIZE-NEXT:       block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// BLOCKIZE-NEXT:         block.init {
// BLOCKIZE-NEXT:           block.for %i1 = 0 to 16 "i_1" {
// BLOCKIZE-NEXT:             block.for %j1 = 0 to 16 "j_1" {
// BLOCKIZE-NEXT:               block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// BLOCKIZE-NEXT:                 %zero = arith.constant 0.000000e+00 : f32
// BLOCKIZE-NEXT:                 block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:               } attributes {reads = [], writes = ["C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init]"]}
// BLOCKIZE-NEXT:             }
// BLOCKIZE-NEXT:           }
// BLOCKIZE-NEXT:         }
// BLOCKIZE-NEXT:         block.for %i1_1 = 0 to 16 "i_1" {
// BLOCKIZE-NEXT:           block.for %j1_1 = 0 to 16 "j_1" {
// BLOCKIZE-NEXT:             block.for %k1 = 0 to 16 "k_1" {
// BLOCKIZE-NEXT:               block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// BLOCKIZE-NEXT:                 %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:                 %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:                 %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:                 %ab = arith.mulf %a, %b : f32
// BLOCKIZE-NEXT:                 %sum = arith.addf %c, %ab : f32
// BLOCKIZE-NEXT:                 block.store %sum, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:               } attributes {reads = ["C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]", "A[vi_o * 16 + vi_i, vk_o * 16 + vk_i]", "B[vj_o * 16 + vj_i, vk_o * 16 + vk_i]"], writes = ["C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]"]}
// BLOCKIZE-NEXT:             }
// BLOCKIZE-NEXT:           }
// BLOCKIZE-NEXT:         }
// BLOCKIZE-NEXT:       } attributes {reads = ["A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B[vj_o * 16:vj_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// BLOCKIZE-NEXT:     }
// BLOCKIZE-NEXT:   }
// BLOCKIZE-NEXT: }
// BLOCKIZE-NEXT: func.return

// CACHE_READ:  func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// CACHE_READ-NEXT: %A_global_A_reg = block.alloc : memref<1024x1024xf32, "global.A_reg">
// CACHE_READ-NEXT: %B_global_B_reg = block.alloc : memref<1024x1024xf32, "global.B_reg">
// CACHE_READ-NEXT: block.for %ax0 = 0 to 1024 "ax0" {
// CACHE_READ-NEXT:   block.for %ax1 = 0 to 1024 "ax1" {
// CACHE_READ-NEXT:     block.block "B_global.B_reg"(%v0 = spatial(1024, %ax0), %v1 = spatial(1024, %ax1)) {
// CACHE_READ-NEXT:       %0 = block.load %B[%v0, %v1] : memref<1024x1024xf32>
// CACHE_READ-NEXT:       block.store %0, %B_global_B_reg[%v0, %v1] : memref<1024x1024xf32, "global.B_reg">
// CACHE_READ-NEXT:     } attributes {reads = ["B[v0, v1]"], writes = ["B_global_B_reg[v0, v1]"]}
// CACHE_READ-NEXT:   }
// CACHE_READ-NEXT: }
// CACHE_READ-NEXT: block.for %ax0_1 = 0 to 1024 "ax0" {
// CACHE_READ-NEXT:   block.for %ax1_1 = 0 to 1024 "ax1" {
// CACHE_READ-NEXT:     block.block "A_global.A_reg"(%v0_1 = spatial(1024, %ax0_1), %v1_1 = spatial(1024, %ax1_1)) {
// CACHE_READ-NEXT:       %1 = block.load %A[%v0_1, %v1_1] : memref<1024x1024xf32>
// CACHE_READ-NEXT:       block.store %1, %A_global_A_reg[%v0_1, %v1_1] : memref<1024x1024xf32, "global.A_reg">
// CACHE_READ-NEXT:     } attributes {reads = ["A[v0_1, v1_1]"], writes = ["A_global_A_reg[v0_1, v1_1]"]}
// CACHE_READ-NEXT:   }
// CACHE_READ-NEXT: }
// CACHE_READ-NEXT: block.for %i0 = 0 to 64 "i_0" {
// CACHE_READ-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// CACHE_READ-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// CACHE_READ-NEXT:       block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// CACHE_READ-NEXT:         block.init {
// CACHE_READ-NEXT:           block.for %i1 = 0 to 16 "i_1" {
// CACHE_READ-NEXT:             block.for %j1 = 0 to 16 "j_1" {
// CACHE_READ-NEXT:               block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// CACHE_READ-NEXT:                 %zero = arith.constant 0.000000e+00 : f32
// CACHE_READ-NEXT:                 block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
// CACHE_READ-NEXT:               } attributes {reads = [], writes = ["C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init]"]}
// CACHE_READ-NEXT:             }
// CACHE_READ-NEXT:           }
// CACHE_READ-NEXT:         }
// CACHE_READ-NEXT:         block.for %i1_1 = 0 to 16 "i_1" {
// CACHE_READ-NEXT:           block.for %j1_1 = 0 to 16 "j_1" {
// CACHE_READ-NEXT:             block.for %k1 = 0 to 16 "k_1" {
// CACHE_READ-NEXT:               block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// CACHE_READ-NEXT:                 %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// CACHE_READ-NEXT:                 %a = block.load %A_global_A_reg[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.A_reg">
// CACHE_READ-NEXT:                 %b = block.load %B_global_B_reg[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.B_reg">
// CACHE_READ-NEXT:                 %ab = arith.mulf %a, %b : f32
// CACHE_READ-NEXT:                 %sum = arith.addf %c, %ab : f32
// CACHE_READ-NEXT:                 block.store %sum, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// CACHE_READ-NEXT:               } attributes {reads = ["C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]", "A_global_A_reg[vi_o * 16 + vi_i, vk_o * 16 + vk_i]", "B_global_B_reg[vj_o * 16 + vj_i, vk_o * 16 + vk_i]"], writes = ["C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]"]}
// CACHE_READ-NEXT:             }
// CACHE_READ-NEXT:           }
// CACHE_READ-NEXT:         }
// CACHE_READ-NEXT:       } attributes {reads = ["A_global_A_reg[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B_global_B_reg[vj_o * 16:vj_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// CACHE_READ-NEXT:     }
// CACHE_READ-NEXT:   }
// CACHE_READ-NEXT: }
// CACHE_READ-NEXT: func.return

// COMPUTE_AT:  func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// COMPUTE_AT-NEXT: %A_global_A_reg = block.alloc : memref<1024x1024xf32, "global.A_reg">
// COMPUTE_AT-NEXT: %B_global_B_reg = block.alloc : memref<1024x1024xf32, "global.B_reg">
// COMPUTE_AT-NEXT: block.for %i0 = 0 to 64 "i_0" {
// COMPUTE_AT-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// COMPUTE_AT-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// COMPUTE_AT-NEXT:       block.for %ax0 = 0 to 16 "ax0" {
// COMPUTE_AT-NEXT:         block.for %ax1 = 0 to 16 "ax1" {
// COMPUTE_AT-NEXT:           block.block "A_global.A_reg"(%v0 = spatial(1024, %i0 * 16 + %ax0), %v1 = spatial(1024, %k0 * 16 + %ax1)) {
// COMPUTE_AT-NEXT:             %0 = block.load %A[%v0, %v1] : memref<1024x1024xf32>
// COMPUTE_AT-NEXT:             block.store %0, %A_global_A_reg[%v0, %v1] : memref<1024x1024xf32, "global.A_reg">
// COMPUTE_AT-NEXT:           } attributes {reads = ["A[v0, v1]"], writes = ["A_global_A_reg[v0, v1]"]}
// COMPUTE_AT-NEXT:         }
// COMPUTE_AT-NEXT:       }
// COMPUTE_AT-NEXT:       block.for %ax0_1 = 0 to 16 "ax0" {
// COMPUTE_AT-NEXT:         block.for %ax1_1 = 0 to 16 "ax1" {
// COMPUTE_AT-NEXT:           block.block "B_global.B_reg"(%v0_1 = spatial(1024, %j0 * 16 + %ax0_1), %v1_1 = spatial(1024, %k0 * 16 + %ax1_1)) {
// COMPUTE_AT-NEXT:             %1 = block.load %B[%v0_1, %v1_1] : memref<1024x1024xf32>
// COMPUTE_AT-NEXT:             block.store %1, %B_global_B_reg[%v0_1, %v1_1] : memref<1024x1024xf32, "global.B_reg">
// COMPUTE_AT-NEXT:           } attributes {reads = ["B[v0_1, v1_1]"], writes = ["B_global_B_reg[v0_1, v1_1]"]}
// COMPUTE_AT-NEXT:         }
// COMPUTE_AT-NEXT:       }
// COMPUTE_AT-NEXT:       block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// COMPUTE_AT-NEXT:         block.init {
// COMPUTE_AT-NEXT:           block.for %i1 = 0 to 16 "i_1" {
// COMPUTE_AT-NEXT:             block.for %j1 = 0 to 16 "j_1" {
// COMPUTE_AT-NEXT:               block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// COMPUTE_AT-NEXT:                 %zero = arith.constant 0.000000e+00 : f32
// COMPUTE_AT-NEXT:                 block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
// COMPUTE_AT-NEXT:               } attributes {reads = [], writes = ["C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init]"]}
// COMPUTE_AT-NEXT:             }
// COMPUTE_AT-NEXT:           }
// COMPUTE_AT-NEXT:         }
// COMPUTE_AT-NEXT:         block.for %i1_1 = 0 to 16 "i_1" {
// COMPUTE_AT-NEXT:           block.for %j1_1 = 0 to 16 "j_1" {
// COMPUTE_AT-NEXT:             block.for %k1 = 0 to 16 "k_1" {
// COMPUTE_AT-NEXT:               block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// COMPUTE_AT-NEXT:                 %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// COMPUTE_AT-NEXT:                 %a = block.load %A_global_A_reg[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.A_reg">
// COMPUTE_AT-NEXT:                 %b = block.load %B_global_B_reg[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.B_reg">
// COMPUTE_AT-NEXT:                 %ab = arith.mulf %a, %b : f32
// COMPUTE_AT-NEXT:                 %sum = arith.addf %c, %ab : f32
// COMPUTE_AT-NEXT:                 block.store %sum, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// COMPUTE_AT-NEXT:               } attributes {reads = ["C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]", "A_global_A_reg[vi_o * 16 + vi_i, vk_o * 16 + vk_i]", "B_global_B_reg[vj_o * 16 + vj_i, vk_o * 16 + vk_i]"], writes = ["C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]"]}
// COMPUTE_AT-NEXT:             }
// COMPUTE_AT-NEXT:           }
// COMPUTE_AT-NEXT:         }
// COMPUTE_AT-NEXT:       } attributes {reads = ["A_global_A_reg[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B_global_B_reg[vj_o * 16:vj_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// COMPUTE_AT-NEXT:     }
// COMPUTE_AT-NEXT:   }
// COMPUTE_AT-NEXT: }
// COMPUTE_AT-NEXT: func.return

// CACHE_WRITE: func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// CACHE_WRITE-NEXT: %A_global_A_reg = block.alloc : memref<1024x1024xf32, "global.A_reg">
// CACHE_WRITE-NEXT: %B_global_B_reg = block.alloc : memref<1024x1024xf32, "global.B_reg">
// CACHE_WRITE-NEXT: %C_global_accumulator = block.alloc : memref<1024x1024xf32, "global.accumulator">
// CACHE_WRITE-NEXT: block.for %i0 = 0 to 64 "i_0" {
// CACHE_WRITE-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// CACHE_WRITE-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// CACHE_WRITE-NEXT:       block.for %ax0 = 0 to 16 "ax0" {
// CACHE_WRITE-NEXT:         block.for %ax1 = 0 to 16 "ax1" {
// CACHE_WRITE-NEXT:           block.block "A_global.A_reg"(%v0 = spatial(1024, %i0 * 16 + %ax0), %v1 = spatial(1024, %k0 * 16 + %ax1)) {
// CACHE_WRITE-NEXT:             %0 = block.load %A[%v0, %v1] : memref<1024x1024xf32>
// CACHE_WRITE-NEXT:             block.store %0, %A_global_A_reg[%v0, %v1] : memref<1024x1024xf32, "global.A_reg">
// CACHE_WRITE-NEXT:           } attributes {reads = ["A[v0, v1]"], writes = ["A_global_A_reg[v0, v1]"]}
// CACHE_WRITE-NEXT:         }
// CACHE_WRITE-NEXT:       }
// CACHE_WRITE-NEXT:       block.for %ax0_1 = 0 to 16 "ax0" {
// CACHE_WRITE-NEXT:         block.for %ax1_1 = 0 to 16 "ax1" {
// CACHE_WRITE-NEXT:           block.block "B_global.B_reg"(%v0_1 = spatial(1024, %j0 * 16 + %ax0_1), %v1_1 = spatial(1024, %k0 * 16 + %ax1_1)) {
// CACHE_WRITE-NEXT:             %1 = block.load %B[%v0_1, %v1_1] : memref<1024x1024xf32>
// CACHE_WRITE-NEXT:             block.store %1, %B_global_B_reg[%v0_1, %v1_1] : memref<1024x1024xf32, "global.B_reg">
// CACHE_WRITE-NEXT:           } attributes {reads = ["B[v0_1, v1_1]"], writes = ["B_global_B_reg[v0_1, v1_1]"]}
// CACHE_WRITE-NEXT:         }
// CACHE_WRITE-NEXT:       }
// CACHE_WRITE-NEXT:       block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// CACHE_WRITE-NEXT:         block.init {
// CACHE_WRITE-NEXT:           block.for %i1 = 0 to 16 "i_1" {
// CACHE_WRITE-NEXT:             block.for %j1 = 0 to 16 "j_1" {
// CACHE_WRITE-NEXT:               block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// CACHE_WRITE-NEXT:                 %zero = arith.constant 0.000000e+00 : f32
// CACHE_WRITE-NEXT:                 block.store %zero, %C_global_accumulator[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32, "global.accumulator">
// CACHE_WRITE-NEXT:               } attributes {reads = [], writes = ["C_global_accumulator[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init]"]}
// CACHE_WRITE-NEXT:             }
// CACHE_WRITE-NEXT:           }
// CACHE_WRITE-NEXT:         }
// CACHE_WRITE-NEXT:         block.for %i1_1 = 0 to 16 "i_1" {
// CACHE_WRITE-NEXT:           block.for %j1_1 = 0 to 16 "j_1" {
// CACHE_WRITE-NEXT:             block.for %k1 = 0 to 16 "k_1" {
// CACHE_WRITE-NEXT:               block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// CACHE_WRITE-NEXT:                 %c = block.load %C_global_accumulator[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32, "global.accumulator">
// CACHE_WRITE-NEXT:                 %a = block.load %A_global_A_reg[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.A_reg">
// CACHE_WRITE-NEXT:                 %b = block.load %B_global_B_reg[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.B_reg">
// CACHE_WRITE-NEXT:                 %ab = arith.mulf %a, %b : f32
// CACHE_WRITE-NEXT:                 %sum = arith.addf %c, %ab : f32
// CACHE_WRITE-NEXT:                 block.store %sum, %C_global_accumulator[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32, "global.accumulator">
// CACHE_WRITE-NEXT:               } attributes {reads = ["C_global_accumulator[vi_o * 16 + vi_i, vj_o * 16 + vj_i]", "A_global_A_reg[vi_o * 16 + vi_i, vk_o * 16 + vk_i]", "B_global_B_reg[vj_o * 16 + vj_i, vk_o * 16 + vk_i]"], writes = ["C_global_accumulator[vi_o * 16 + vi_i, vj_o * 16 + vj_i]"]}
// CACHE_WRITE-NEXT:             }
// CACHE_WRITE-NEXT:           }
// CACHE_WRITE-NEXT:         }
// CACHE_WRITE-NEXT:       } attributes {reads = ["A_global_A_reg[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B_global_B_reg[vj_o * 16:vj_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C_global_accumulator[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// CACHE_WRITE-NEXT:     }
// CACHE_WRITE-NEXT:   }
// CACHE_WRITE-NEXT: }
// CACHE_WRITE-NEXT: block.for %ax0_2 = 0 to 1024 "ax0" {
// CACHE_WRITE-NEXT:   block.for %ax1_2 = 0 to 1024 "ax1" {
// CACHE_WRITE-NEXT:     block.block "C_global.accumulator"(%v0_2 = spatial(1024, %ax0_2), %v1_2 = spatial(1024, %ax1_2)) {
// CACHE_WRITE-NEXT:       %2 = block.load %C_global_accumulator[%v0_2, %v1_2] : memref<1024x1024xf32, "global.accumulator">
// CACHE_WRITE-NEXT:       block.store %2, %C[%v0_2, %v1_2] : memref<1024x1024xf32>
// CACHE_WRITE-NEXT:     } attributes {reads = ["C_global_accumulator[v0_2, v1_2]"], writes = ["C[v0_2, v1_2]"]}
// CACHE_WRITE-NEXT:   }
// CACHE_WRITE-NEXT: }
// CACHE_WRITE-NEXT: func.return

// REVERSE_COMPUTE_AT: func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// REVERSE_COMPUTE_AT-NEXT: %A_global_A_reg = block.alloc : memref<1024x1024xf32, "global.A_reg">
// REVERSE_COMPUTE_AT-NEXT: %B_global_B_reg = block.alloc : memref<1024x1024xf32, "global.B_reg">
// REVERSE_COMPUTE_AT-NEXT: %C_global_accumulator = block.alloc : memref<1024x1024xf32, "global.accumulator">
// REVERSE_COMPUTE_AT-NEXT: block.for %i0 = 0 to 64 "i_0" {
// REVERSE_COMPUTE_AT-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// REVERSE_COMPUTE_AT-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// REVERSE_COMPUTE_AT-NEXT:       block.for %ax0 = 0 to 16 "ax0" {
// REVERSE_COMPUTE_AT-NEXT:         block.for %ax1 = 0 to 16 "ax1" {
// REVERSE_COMPUTE_AT-NEXT:           block.block "A_global.A_reg"(%v0 = spatial(1024, %i0 * 16 + %ax0), %v1 = spatial(1024, %k0 * 16 + %ax1)) {
// REVERSE_COMPUTE_AT-NEXT:             %0 = block.load %A[%v0, %v1] : memref<1024x1024xf32>
// REVERSE_COMPUTE_AT-NEXT:             block.store %0, %A_global_A_reg[%v0, %v1] : memref<1024x1024xf32, "global.A_reg">
// REVERSE_COMPUTE_AT-NEXT:           } attributes {reads = ["A[v0, v1]"], writes = ["A_global_A_reg[v0, v1]"]}
// REVERSE_COMPUTE_AT-NEXT:         }
// REVERSE_COMPUTE_AT-NEXT:       }
// REVERSE_COMPUTE_AT-NEXT:       block.for %ax0_1 = 0 to 16 "ax0" {
// REVERSE_COMPUTE_AT-NEXT:         block.for %ax1_1 = 0 to 16 "ax1" {
// REVERSE_COMPUTE_AT-NEXT:           block.block "B_global.B_reg"(%v0_1 = spatial(1024, %j0 * 16 + %ax0_1), %v1_1 = spatial(1024, %k0 * 16 + %ax1_1)) {
// REVERSE_COMPUTE_AT-NEXT:             %1 = block.load %B[%v0_1, %v1_1] : memref<1024x1024xf32>
// REVERSE_COMPUTE_AT-NEXT:             block.store %1, %B_global_B_reg[%v0_1, %v1_1] : memref<1024x1024xf32, "global.B_reg">
// REVERSE_COMPUTE_AT-NEXT:           } attributes {reads = ["B[v0_1, v1_1]"], writes = ["B_global_B_reg[v0_1, v1_1]"]}
// REVERSE_COMPUTE_AT-NEXT:         }
// REVERSE_COMPUTE_AT-NEXT:       }
// REVERSE_COMPUTE_AT-NEXT:       block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// REVERSE_COMPUTE_AT-NEXT:         block.init {
// REVERSE_COMPUTE_AT-NEXT:           block.for %i1 = 0 to 16 "i_1" {
// REVERSE_COMPUTE_AT-NEXT:             block.for %j1 = 0 to 16 "j_1" {
// REVERSE_COMPUTE_AT-NEXT:               block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// REVERSE_COMPUTE_AT-NEXT:                 %zero = arith.constant 0.000000e+00 : f32
// REVERSE_COMPUTE_AT-NEXT:                 block.store %zero, %C_global_accumulator[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32, "global.accumulator">
// REVERSE_COMPUTE_AT-NEXT:               } attributes {reads = [], writes = ["C_global_accumulator[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init]"]}
// REVERSE_COMPUTE_AT-NEXT:             }
// REVERSE_COMPUTE_AT-NEXT:           }
// REVERSE_COMPUTE_AT-NEXT:         }
// REVERSE_COMPUTE_AT-NEXT:         block.for %i1_1 = 0 to 16 "i_1" {
// REVERSE_COMPUTE_AT-NEXT:           block.for %j1_1 = 0 to 16 "j_1" {
// REVERSE_COMPUTE_AT-NEXT:             block.for %k1 = 0 to 16 "k_1" {
// REVERSE_COMPUTE_AT-NEXT:               block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// REVERSE_COMPUTE_AT-NEXT:                 %c = block.load %C_global_accumulator[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32, "global.accumulator">
// REVERSE_COMPUTE_AT-NEXT:                 %a = block.load %A_global_A_reg[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.A_reg">
// REVERSE_COMPUTE_AT-NEXT:                 %b = block.load %B_global_B_reg[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.B_reg">
// REVERSE_COMPUTE_AT-NEXT:                 %ab = arith.mulf %a, %b : f32
// REVERSE_COMPUTE_AT-NEXT:                 %sum = arith.addf %c, %ab : f32
// REVERSE_COMPUTE_AT-NEXT:                 block.store %sum, %C_global_accumulator[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32, "global.accumulator">
// REVERSE_COMPUTE_AT-NEXT:               } attributes {reads = ["C_global_accumulator[vi_o * 16 + vi_i, vj_o * 16 + vj_i]", "A_global_A_reg[vi_o * 16 + vi_i, vk_o * 16 + vk_i]", "B_global_B_reg[vj_o * 16 + vj_i, vk_o * 16 + vk_i]"], writes = ["C_global_accumulator[vi_o * 16 + vi_i, vj_o * 16 + vj_i]"]}
// REVERSE_COMPUTE_AT-NEXT:             }
// REVERSE_COMPUTE_AT-NEXT:           }
// REVERSE_COMPUTE_AT-NEXT:         }
// REVERSE_COMPUTE_AT-NEXT:       } attributes {reads = ["A_global_A_reg[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B_global_B_reg[vj_o * 16:vj_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C_global_accumulator[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// REVERSE_COMPUTE_AT-NEXT:     }
// REVERSE_COMPUTE_AT-NEXT:     block.for %ax0_2 = 0 to 16 "ax0" {
// REVERSE_COMPUTE_AT-NEXT:       block.for %ax1_2 = 0 to 16 "ax1" {
// REVERSE_COMPUTE_AT-NEXT:         block.block "C_global.accumulator"(%v0_2 = spatial(1024, %i0 * 16 + %ax0_2), %v1_2 = spatial(1024, %j0 * 16 + %ax1_2)) {
// REVERSE_COMPUTE_AT-NEXT:           %2 = block.load %C_global_accumulator[%v0_2, %v1_2] : memref<1024x1024xf32, "global.accumulator">
// REVERSE_COMPUTE_AT-NEXT:           block.store %2, %C[%v0_2, %v1_2] : memref<1024x1024xf32>
// REVERSE_COMPUTE_AT-NEXT:         } attributes {reads = ["C_global_accumulator[v0_2, v1_2]"], writes = ["C[v0_2, v1_2]"]}
// REVERSE_COMPUTE_AT-NEXT:       }
// REVERSE_COMPUTE_AT-NEXT:     }
// REVERSE_COMPUTE_AT-NEXT:   }
// REVERSE_COMPUTE_AT-NEXT: }
// REVERSE_COMPUTE_AT-NEXT: func.return

// DECOMPOSE:   func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// DECOMPOSE-NEXT: %A_global_A_reg = block.alloc : memref<1024x1024xf32, "global.A_reg">
// DECOMPOSE-NEXT: %B_global_B_reg = block.alloc : memref<1024x1024xf32, "global.B_reg">
// DECOMPOSE-NEXT: %C_global_accumulator = block.alloc : memref<1024x1024xf32, "global.accumulator">
// DECOMPOSE-NEXT: block.for %i0 = 0 to 64 "i_0" {
// DECOMPOSE-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// DECOMPOSE-NEXT:     block.block "matmul_o_init"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0)) {
// DECOMPOSE-NEXT:       block.for %i1 = 0 to 16 "i_1" {
// DECOMPOSE-NEXT:         block.for %j1 = 0 to 16 "j_1" {
// DECOMPOSE-NEXT:           block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// DECOMPOSE-NEXT:             %zero = arith.constant 0.000000e+00 : f32
// DECOMPOSE-NEXT:             block.store %zero, %C_global_accumulator[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32, "global.accumulator">
// DECOMPOSE-NEXT:           } attributes {reads = [], writes = ["C_global_accumulator[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init]"]}
// DECOMPOSE-NEXT:         }
// DECOMPOSE-NEXT:       }
// DECOMPOSE-NEXT:     } attributes {reads = [], writes = ["C_global_accumulator[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// DECOMPOSE-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// DECOMPOSE-NEXT:       block.for %ax0 = 0 to 16 "ax0" {
// DECOMPOSE-NEXT:         block.for %ax1 = 0 to 16 "ax1" {
// DECOMPOSE-NEXT:           block.block "A_global.A_reg"(%v0 = spatial(1024, %i0 * 16 + %ax0), %v1 = spatial(1024, %k0 * 16 + %ax1)) {
// DECOMPOSE-NEXT:             %0 = block.load %A[%v0, %v1] : memref<1024x1024xf32>
// DECOMPOSE-NEXT:             block.store %0, %A_global_A_reg[%v0, %v1] : memref<1024x1024xf32, "global.A_reg">
// DECOMPOSE-NEXT:           } attributes {reads = ["A[v0, v1]"], writes = ["A_global_A_reg[v0, v1]"]}
// DECOMPOSE-NEXT:         }
// DECOMPOSE-NEXT:       }
// DECOMPOSE-NEXT:       block.for %ax0_1 = 0 to 16 "ax0" {
// DECOMPOSE-NEXT:         block.for %ax1_1 = 0 to 16 "ax1" {
// DECOMPOSE-NEXT:           block.block "B_global.B_reg"(%v0_1 = spatial(1024, %j0 * 16 + %ax0_1), %v1_1 = spatial(1024, %k0 * 16 + %ax1_1)) {
// DECOMPOSE-NEXT:             %1 = block.load %B[%v0_1, %v1_1] : memref<1024x1024xf32>
// DECOMPOSE-NEXT:             block.store %1, %B_global_B_reg[%v0_1, %v1_1] : memref<1024x1024xf32, "global.B_reg">
// DECOMPOSE-NEXT:           } attributes {reads = ["B[v0_1, v1_1]"], writes = ["B_global_B_reg[v0_1, v1_1]"]}
// DECOMPOSE-NEXT:         }
// DECOMPOSE-NEXT:       }
// DECOMPOSE-NEXT:       block.block "matmul_o_update"(%vi_o_1 = spatial(64, %i0), %vj_o_1 = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// DECOMPOSE-NEXT:         block.for %i1_1 = 0 to 16 "i_1" {
// DECOMPOSE-NEXT:           block.for %j1_1 = 0 to 16 "j_1" {
// DECOMPOSE-NEXT:             block.for %k1 = 0 to 16 "k_1" {
// DECOMPOSE-NEXT:               block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// DECOMPOSE-NEXT:                 %c = block.load %C_global_accumulator[%vi_o_1 * 16 + %vi_i, %vj_o_1 * 16 + %vj_i] : memref<1024x1024xf32, "global.accumulator">
// DECOMPOSE-NEXT:                 %a = block.load %A_global_A_reg[%vi_o_1 * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.A_reg">
// DECOMPOSE-NEXT:                 %b = block.load %B_global_B_reg[%vj_o_1 * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32, "global.B_reg">
// DECOMPOSE-NEXT:                 %ab = arith.mulf %a, %b : f32
// DECOMPOSE-NEXT:                 %sum = arith.addf %c, %ab : f32
// DECOMPOSE-NEXT:                 block.store %sum, %C_global_accumulator[%vi_o_1 * 16 + %vi_i, %vj_o_1 * 16 + %vj_i] : memref<1024x1024xf32, "global.accumulator">
// DECOMPOSE-NEXT:               } attributes {reads = ["C_global_accumulator[vi_o_1 * 16 + vi_i, vj_o_1 * 16 + vj_i]", "A_global_A_reg[vi_o_1 * 16 + vi_i, vk_o * 16 + vk_i]", "B_global_B_reg[vj_o_1 * 16 + vj_i, vk_o * 16 + vk_i]"], writes = ["C_global_accumulator[vi_o_1 * 16 + vi_i, vj_o_1 * 16 + vj_i]"]}
// DECOMPOSE-NEXT:             }
// DECOMPOSE-NEXT:           }
// DECOMPOSE-NEXT:         }
// DECOMPOSE-NEXT:       } attributes {reads = ["C_global_accumulator[vi_o_1 * 16:vi_o_1 * 16 + 16, vj_o_1 * 16:vj_o_1 * 16 + 16]", "A_global_A_reg[vi_o_1 * 16:vi_o_1 * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B_global_B_reg[vj_o_1 * 16:vj_o_1 * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C_global_accumulator[vi_o_1 * 16:vi_o_1 * 16 + 16, vj_o_1 * 16:vj_o_1 * 16 + 16]"]}
// DECOMPOSE-NEXT:     }
// DECOMPOSE-NEXT:     block.for %ax0_2 = 0 to 16 "ax0" {
// DECOMPOSE-NEXT:       block.for %ax1_2 = 0 to 16 "ax1" {
// DECOMPOSE-NEXT:         block.block "C_global.accumulator"(%v0_2 = spatial(1024, %i0 * 16 + %ax0_2), %v1_2 = spatial(1024, %j0 * 16 + %ax1_2)) {
// DECOMPOSE-NEXT:           %2 = block.load %C_global_accumulator[%v0_2, %v1_2] : memref<1024x1024xf32, "global.accumulator">
// DECOMPOSE-NEXT:           block.store %2, %C[%v0_2, %v1_2] : memref<1024x1024xf32>
// DECOMPOSE-NEXT:         } attributes {reads = ["C_global_accumulator[v0_2, v1_2]"], writes = ["C[v0_2, v1_2]"]}
// DECOMPOSE-NEXT:       }
// DECOMPOSE-NEXT:     }
// DECOMPOSE-NEXT:   }
// DECOMPOSE-NEXT: }
// DECOMPOSE-NEXT: func.return

// TENSORIZE:   func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// TENSORIZE-NEXT: %A_global_A_reg = block.alloc : memref<1024x1024xf32, "global.A_reg">
// TENSORIZE-NEXT: %B_global_B_reg = block.alloc : memref<1024x1024xf32, "global.B_reg">
// TENSORIZE-NEXT: %C_global_accumulator = block.alloc : memref<1024x1024xf32, "global.accumulator">
// TENSORIZE-NEXT: block.for %i0 = 0 to 64 "i_0" {
// TENSORIZE-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// TENSORIZE-NEXT:     block.block "matmul_o_init"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0)) {
// TENSORIZE-NEXT:       block.for %i1 = 0 to 16 "i_1" {
// TENSORIZE-NEXT:         block.for %j1 = 0 to 16 "j_1" {
// TENSORIZE-NEXT:           block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// TENSORIZE-NEXT:             %zero = arith.constant 0.000000e+00 : f32
// TENSORIZE-NEXT:             block.store %zero, %C_global_accumulator[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32, "global.accumulator">
// TENSORIZE-NEXT:           } attributes {reads = [], writes = ["C_global_accumulator[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init]"]}
// TENSORIZE-NEXT:         }
// TENSORIZE-NEXT:       }
// TENSORIZE-NEXT:     } attributes {reads = [], writes = ["C_global_accumulator[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// TENSORIZE-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// TENSORIZE-NEXT:       block.for %ax0 = 0 to 16 "ax0" {
// TENSORIZE-NEXT:         block.for %ax1 = 0 to 16 "ax1" {
// TENSORIZE-NEXT:           block.block "A_global.A_reg"(%v0 = spatial(1024, %i0 * 16 + %ax0), %v1 = spatial(1024, %k0 * 16 + %ax1)) {
// TENSORIZE-NEXT:             %0 = block.load %A[%v0, %v1] : memref<1024x1024xf32>
// TENSORIZE-NEXT:             block.store %0, %A_global_A_reg[%v0, %v1] : memref<1024x1024xf32, "global.A_reg">
// TENSORIZE-NEXT:           } attributes {reads = ["A[v0, v1]"], writes = ["A_global_A_reg[v0, v1]"]}
// TENSORIZE-NEXT:         }
// TENSORIZE-NEXT:       }
// TENSORIZE-NEXT:       block.for %ax0_1 = 0 to 16 "ax0" {
// TENSORIZE-NEXT:         block.for %ax1_1 = 0 to 16 "ax1" {
// TENSORIZE-NEXT:           block.block "B_global.B_reg"(%v0_1 = spatial(1024, %j0 * 16 + %ax0_1), %v1_1 = spatial(1024, %k0 * 16 + %ax1_1)) {
// TENSORIZE-NEXT:             %1 = block.load %B[%v0_1, %v1_1] : memref<1024x1024xf32>
// TENSORIZE-NEXT:             block.store %1, %B_global_B_reg[%v0_1, %v1_1] : memref<1024x1024xf32, "global.B_reg">
// TENSORIZE-NEXT:           } attributes {reads = ["B[v0_1, v1_1]"], writes = ["B_global_B_reg[v0_1, v1_1]"]}
// TENSORIZE-NEXT:         }
// TENSORIZE-NEXT:       }
// TENSORIZE-NEXT:       block.block "matmul_o_update"(%vi_o_1 = spatial(64, %i0), %vj_o_1 = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// TENSORIZE-NEXT:         accel.tmm16 %C_global_accumulator[%vi_o_1 * 16 : 16, %vj_o_1 * 16 : 16], %A_global_A_reg[%vi_o_1 * 16 : 16, %vk_o * 16 : 16], %B_global_B_reg[%vj_o_1 * 16 : 16, %vk_o * 16 : 16] : memref<1024x1024xf32, "global.accumulator">, memref<1024x1024xf32, "global.A_reg">, memref<1024x1024xf32, "global.B_reg">
// TENSORIZE-NEXT:       } attributes {reads = ["C_global_accumulator[vi_o_1 * 16:vi_o_1 * 16 + 16, vj_o_1 * 16:vj_o_1 * 16 + 16]", "A_global_A_reg[vi_o_1 * 16:vi_o_1 * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B_global_B_reg[vj_o_1 * 16:vj_o_1 * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C_global_accumulator[vi_o_1 * 16:vi_o_1 * 16 + 16, vj_o_1 * 16:vj_o_1 * 16 + 16]"]}
// TENSORIZE-NEXT:     }
// TENSORIZE-NEXT:     block.for %ax0_2 = 0 to 16 "ax0" {
// TENSORIZE-NEXT:       block.for %ax1_2 = 0 to 16 "ax1" {
// TENSORIZE-NEXT:         block.block "C_global.accumulator"(%v0_2 = spatial(1024, %i0 * 16 + %ax0_2), %v1_2 = spatial(1024, %j0 * 16 + %ax1_2)) {
// TENSORIZE-NEXT:           %2 = block.load %C_global_accumulator[%v0_2, %v1_2] : memref<1024x1024xf32, "global.accumulator">
// TENSORIZE-NEXT:           block.store %2, %C[%v0_2, %v1_2] : memref<1024x1024xf32>
// TENSORIZE-NEXT:         } attributes {reads = ["C_global_accumulator[v0_2, v1_2]"], writes = ["C[v0_2, v1_2]"]}
// TENSORIZE-NEXT:       }
// TENSORIZE-NEXT:     }
// TENSORIZE-NEXT:   }
// TENSORIZE-NEXT: }
// TENSORIZE-NEXT: func.return

// ACCEL:       func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// ACCEL-NEXT: %A_global_A_reg = block.alloc : memref<1024x1024xf32, "global.A_reg">
// ACCEL-NEXT: %B_global_B_reg = block.alloc : memref<1024x1024xf32, "global.B_reg">
// ACCEL-NEXT: %C_global_accumulator = block.alloc : memref<1024x1024xf32, "global.accumulator">
// ACCEL-NEXT: block.for %i0 = 0 to 64 "i_0" {
// ACCEL-NEXT:   block.for %j0 = 0 to 64 "j_0" {
// ACCEL-NEXT:     block.block "matmul_o_init"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0)) {
// ACCEL-NEXT:       accel.fill_zero %C_global_accumulator[%vi_o * 16 : 16, %vj_o * 16 : 16] : memref<1024x1024xf32, "global.accumulator">
// ACCEL-NEXT:     } attributes {reads = [], writes = ["C_global_accumulator[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"]}
// ACCEL-NEXT:     block.for %k0 = 0 to 64 "k_0" {
// ACCEL-NEXT:       block.block "A_global.A_reg_o"(%v0_o = spatial(64, %i0), %v1_o = spatial(64, %k0)) {
// ACCEL-NEXT:         accel.dma_copy %A_global_A_reg[%v0_o * 16 : 16, %v1_o * 16 : 16], %A[%v0_o * 16 : 16, %v1_o * 16 : 16] : memref<1024x1024xf32, "global.A_reg">, memref<1024x1024xf32>
// ACCEL-NEXT:       } attributes {reads = ["A[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16]"], writes = ["A_global_A_reg[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16]"]}
// ACCEL-NEXT:       block.block "B_global.B_reg_o"(%v0_o_1 = spatial(64, %j0), %v1_o_1 = spatial(64, %k0)) {
// ACCEL-NEXT:         accel.dma_copy %B_global_B_reg[%v0_o_1 * 16 : 16, %v1_o_1 * 16 : 16], %B[%v0_o_1 * 16 : 16, %v1_o_1 * 16 : 16] : memref<1024x1024xf32, "global.B_reg">, memref<1024x1024xf32>
// ACCEL-NEXT:       } attributes {reads = ["B[v0_o_1 * 16:v0_o_1 * 16 + 16, v1_o_1 * 16:v1_o_1 * 16 + 16]"], writes = ["B_global_B_reg[v0_o_1 * 16:v0_o_1 * 16 + 16, v1_o_1 * 16:v1_o_1 * 16 + 16]"]}
// ACCEL-NEXT:       block.block "matmul_o_update"(%vi_o_1 = spatial(64, %i0), %vj_o_1 = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// ACCEL-NEXT:         accel.tmm16 %C_global_accumulator[%vi_o_1 * 16 : 16, %vj_o_1 * 16 : 16], %A_global_A_reg[%vi_o_1 * 16 : 16, %vk_o * 16 : 16], %B_global_B_reg[%vj_o_1 * 16 : 16, %vk_o * 16 : 16] : memref<1024x1024xf32, "global.accumulator">, memref<1024x1024xf32, "global.A_reg">, memref<1024x1024xf32, "global.B_reg">
// ACCEL-NEXT:       } attributes {reads = ["C_global_accumulator[vi_o_1 * 16:vi_o_1 * 16 + 16, vj_o_1 * 16:vj_o_1 * 16 + 16]", "A_global_A_reg[vi_o_1 * 16:vi_o_1 * 16 + 16, vk_o * 16:vk_o * 16 + 16]", "B_global_B_reg[vj_o_1 * 16:vj_o_1 * 16 + 16, vk_o * 16:vk_o * 16 + 16]"], writes = ["C_global_accumulator[vi_o_1 * 16:vi_o_1 * 16 + 16, vj_o_1 * 16:vj_o_1 * 16 + 16]"]}
// ACCEL-NEXT:     }
// ACCEL-NEXT:     block.block "C_global.accumulator_o"(%v0_o_2 = spatial(64, %i0), %v1_o_2 = spatial(64, %j0)) {
// ACCEL-NEXT:       accel.dma_copy %C[%v0_o_2 * 16 : 16, %v1_o_2 * 16 : 16], %C_global_accumulator[%v0_o_2 * 16 : 16, %v1_o_2 * 16 : 16] : memref<1024x1024xf32>, memref<1024x1024xf32, "global.accumulator">
// ACCEL-NEXT:     } attributes {reads = ["C_global_accumulator[v0_o_2 * 16:v0_o_2 * 16 + 16, v1_o_2 * 16:v1_o_2 * 16 + 16]"], writes = ["C[v0_o_2 * 16:v0_o_2 * 16 + 16, v1_o_2 * 16:v1_o_2 * 16 + 16]"]}
// ACCEL-NEXT:   }
// ACCEL-NEXT: }
// ACCEL-NEXT: func.return

// MatmulModule of seed 001: C = A · Bᵀ, 1024x1024x1024, float32.
func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.for %j = 0 to 1024 "j" {
      block.for %k = 0 to 1024 "k" {
        block.block "matmul"(%vi = spatial(1024, %i), %vj = spatial(1024, %j), %vk = reduce(1024, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
          %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
          %b = block.load %B[%vj, %vk] : memref<1024x1024xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
        }
      }
    }
  }
  func.return
}
