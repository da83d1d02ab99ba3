// RUN: not xtir-opt %s -p 'split{func=seed loop=i factors=-1,16},split{func=seed loop=j factors=-1,16},split{func=seed loop=k factors=-1,16},reorder{func=seed loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{func=seed loop=i_1},decompose-reduction{func=seed block=matmul_o loop=k_0},tensorize{func=seed block=matmul_o_update intrin=tmm16}' 2>&1 | filecheck %s --check-prefix=NO_CACHE
// RUN: not xtir-opt %s -p 'split{func=seed loop=i factors=-1,16},split{func=seed loop=j factors=-1,16},split{func=seed loop=k factors=-1,16},reorder{func=seed loops=i_0,j_0,k_0,i_1,j_1,k_1},tensorize{func=seed loop=i_1 intrin=tmm16}' 2>&1 | filecheck %s --check-prefix=LOOP_INIT
// RUN: not xtir-opt %s -p 'tensorize{func=seed block=matmul intrin=nope}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not xtir-opt %s -p 'tensorize{func=seed intrin=tmm16}' 2>&1 | filecheck %s --check-prefix=NEITHER
// RUN: not xtir-opt %s -p 'tensorize{func=seed block=matmul loop=i intrin=tmm16}' 2>&1 | filecheck %s --check-prefix=BOTH
// RUN: not xtir-opt %s -p 'tensorize{func=seed block=matmul}' 2>&1 | filecheck %s --check-prefix=NO_INTRIN
// RUN: not xtir-opt %s -p 'tensorize{func=seed block=matmul_o intrin=tmm16}' 2>&1 | filecheck %s --check-prefix=NO_BLOCK
// RUN: not xtir-opt %s -p 'tensorize{func=seed loop=i_1 intrin=tmm16}' 2>&1 | filecheck %s --check-prefix=NO_LOOP
// RUN: not xtir-opt %s --intrinsics=%S/Inputs/user_intrinsics.mlir -p 'cache-read{func=twice block=twice index=0 scope="local"},split{func=twice loop=ax0 factors=-1,8},tensorize{func=twice loop=ax0_1 intrin=copy8}' 2>&1 | filecheck %s --check-prefix=USER_SCOPE
// RUN: not xtir-opt %s --intrinsics=%S/Inputs/user_intrinsics.mlir -p 'cache-read{func=twice block=twice index=0 scope="shared"},split{func=twice loop=ax0 factors=-1,4},tensorize{func=twice loop=ax0_1 intrin=copy8}' 2>&1 | filecheck %s --check-prefix=USER_EXTENT
// RUN: not xtir-opt %s --intrinsics=%S/Inputs/user_intrinsics.mlir -p 'split{func=twice loop=i factors=-1,8},tensorize{func=twice loop=i_1 intrin=copy8}' 2>&1 | filecheck %s --check-prefix=USER_BODY
// RUN: not xtir-opt %s --intrinsics=%s 2>&1 | filecheck %s --check-prefix=NO_PAIRS
// RUN: not xtir-opt %s --intrinsics=%S/Inputs/does_not_exist.mlir 2>&1 | filecheck %s --check-prefix=NO_FILE
// What tensorize refuses, by the pass's options and the intrinsics registered;
// refusals of a block's body against tmm16: tensorize_invalid.mlir.
//   NO_CACHE     the seed walkthrough without its cache-read/cache-write steps: the
//                tiles are in "global", not in the accelerator's scopes
//   LOOP_INIT    tensorize{loop=...} blockizes the loop (into block "matmul_o") on a
//                copy first; its init was not split off with decompose-reduction
//   UNKNOWN, NEITHER, BOTH, NO_INTRIN, NO_BLOCK, NO_LOOP    the options
//   USER_SCOPE, USER_EXTENT, USER_BODY    user intrinsics from Inputs/user_intrinsics.mlir
//                (copy8: 8 elements from a global buffer into a "shared" one): a copy
//                into "local", a 4-wide copy nest, and a nest whose block is no copy
//   NO_PAIRS     an --intrinsics file without @NAME_desc / @NAME_impl pairs (this one)
//   NO_FILE      an --intrinsics file that does not exist

// NEITHER: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 8]]:1: error: 'func.func' op tensorize: got neither block= nor loop=; give one
// BOTH: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 7]]:1: error: 'func.func' op tensorize: got both block= and loop=; give one
// NO_INTRIN: xtir-opt: error: tensorize requires argument "intrin" (pass 1 of 1 in the pipeline)
// NO_PAIRS: xtir-opt: error: no tensor intrinsics found: define them as @NAME_desc and @NAME_impl functions
// NO_FILE: xtir-opt: error: [Errno 2] No such file or directory: '{{.*}}Inputs/does_not_exist.mlir'

// NO_BLOCK: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 2]]:1: error: 'func.func' op tensorize: no block named "matmul_o"; blocks: matmul
// NO_LOOP: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 1]]:1: error: 'func.func' op tensorize: no loop named "i_1"; loops: i, j, k
func.func @seed(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
  // LOOP_INIT: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 1]]:3: error: 'block.for' op tensorize: loop "i_1" (blockized as "matmul_o") does not match tensor intrinsic "tmm16": block "matmul_o" has an init, but the intrinsic only accumulates; split the init off first with decompose-reduction
  block.for %i = 0 to 32 "i" {
    block.for %j = 0 to 32 "j" {
      block.for %k = 0 to 32 "k" {
        // NO_CACHE: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 2]]:9: error: 'block.block' op tensorize: block "matmul_o_update" does not match tensor intrinsic "tmm16": C is in scope "global" where the intrinsic's C must be in "global.accumulator" (cache it there with cache-read/cache-write)
        // UNKNOWN: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 1]]:9: error: 'block.block' op tensorize: tensor intrinsic "nope" is not registered; registered: dma_copy16, fill_zero16, tmm16
        block.block "matmul"(%vi = spatial(32, %i), %vj = spatial(32, %j), %vk = reduce(32, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<32x32xf32>
          }
          // NO_CACHE: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 1]]:11: note: it differs from the intrinsic here
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

// The copy nest made by cache-read takes the location of the block it was made for.
// USER_SCOPE: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 5]]:5: error: 'block.for' op tensorize: loop "ax0_1" (blockized as "A_local_o") does not match tensor intrinsic "copy8": A_local is in scope "local" where the intrinsic's dst must be in "shared" (cache it there with cache-read/cache-write)
// USER_EXTENT: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 4]]:5: error: 'block.for' op tensorize: loop "ax0_1" (blockized as "A_shared_o") does not match tensor intrinsic "copy8": loop "ax0_1" has extent 4 where the intrinsic's loop "i" has 8
func.func @twice(%A: memref<32xf32>, %B: memref<32xf32>) {
  // USER_BODY: {{.*}}tensorize_invalid_operands.mlir:[[# @LINE + 1]]:3: error: 'block.for' op tensorize: loop "i_1" (blockized as "twice_o") does not match tensor intrinsic "copy8": block "twice" has 3 statements where the intrinsic's has 2
  block.for %i = 0 to 32 "i" {
    block.block "twice"(%vi = spatial(32, %i)) {
      %a = block.load %A[%vi] : memref<32xf32>
      %s = arith.addf %a, %a : f32
      block.store %s, %B[%vi] : memref<32xf32>
    }
  }
  func.return
}
