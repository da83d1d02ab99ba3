// RUN: xtir-opt %s --split-input-file -p 'fuse-reduction-epilogue{block=matmul epilogue=add}' --verify-diagnostics
// RUN: not xtir-opt %s --split-input-file -p 'fuse-reduction-epilogue{block=matmul epilogue=add mode=per-iteration}' 2>&1 | filecheck %s --check-prefix=PER_ITERATION
// RUN: not xtir-opt %S/../../../examples/matmul_bias.mlir -p 'fuse-reduction-epilogue{block=add epilogue=matmul}' 2>&1 | filecheck %s --check-prefix=SWAPPED
// RUN: not xtir-opt %S/../../../examples/matmul_bias.mlir -p 'fuse-reduction-epilogue{block=matmul epilogue=matmul}' 2>&1 | filecheck %s --check-prefix=SAME
// RUN: not xtir-opt %S/../../../examples/matmul_bias.mlir -p 'fuse-reduction-epilogue{block=matmul epilogue=add mode=fast}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not xtir-opt %S/../../../examples/matmul_bias.mlir -p 'decompose-reduction{block=matmul loop=k},fuse-reduction-epilogue{block=matmul_update epilogue=add}' 2>&1 | filecheck %s --check-prefix=DECOMPOSED
// RUN: not xtir-opt %S/../../../examples/matmul_bias.mlir -p 'split{loop="matmul/i" factors=-1,16},split{loop="matmul/j" factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},fuse-reduction-epilogue{block=matmul epilogue=add}' 2>&1 | filecheck %s --check-prefix=BLOCKIZED
// RUN: not xtir-opt %S/../../../examples/matmul_bias.mlir -p 'split{loop="matmul/i" factors=-1,16},split{loop="matmul/j" factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},fuse-reduction-epilogue{block=matmul_o epilogue=add}' 2>&1 | filecheck %s --check-prefix=BLOCKIZED_OUTER
// RUN: not xtir-opt %S/../../../examples/matmul_bias.mlir -p 'split{loop="matmul/i" factors=-1,16},split{loop="matmul/j" factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},cache-write{block=matmul_o index=0 scope="global.accumulator"},decompose-reduction{block=matmul_o loop=k_0},tensorize{block=matmul_o_update intrin=tmm16},fuse-reduction-epilogue{block=matmul_o_update epilogue=add}' 2>&1 | filecheck %s --check-prefix=TENSORIZED
// RUN: not xtir-opt %S/../../../examples/matmul_bias.mlir -p 'blockize{loop="add/i"},fuse-reduction-epilogue{block=matmul epilogue=add_o}' 2>&1 | filecheck %s --check-prefix=EPILOGUE_BLOCKIZED
// What fuse-reduction-epilogue refuses; each refusal leaves the IR as it was and says why,
// at the op it refuses. The first RUN line checks the chunks below (default mode); the
// others run seed 004's examples/matmul_bias.mlir through a schedule first, or every chunk
// in mode=per-iteration.

// Arguments swapped (TVM: "The block ... is not a reduction block - it violates condition #1"):
// SWAPPED: matmul_bias.mlir:29:9: error: 'block.block' op fuse-reduction-epilogue: block "add" is not a reduction block (it has no reduce iteration variable); block= names the reduction and epilogue= the block that adds to its result
// One block as both:
// SAME: matmul_bias.mlir:12:11: error: 'block.block' op fuse-reduction-epilogue: block "matmul" cannot be both the reduction and its epilogue
// An unknown mode:
// MODE: matmul_bias.mlir:7:3: error: 'func.func' op fuse-reduction-epilogue: mode must be exact or per-iteration, got 'fast'
// After decompose-reduction the update has no init; the message points to the init block:
// DECOMPOSED: matmul_bias.mlir:12:11: error: 'block.block' op fuse-reduction-epilogue: block "matmul_update" has no init (block "matmul_init" also writes temp: if decompose-reduction split the init off, fuse the epilogue before decompose-reduction); fuse-reduction-epilogue needs a complete reduction with its init, which becomes the epilogue's computation
// After blockize, the inner block "matmul" has lost its init to "matmul_o": fuse first.
// BLOCKIZED: matmul_bias.mlir:12:11: error: 'block.block' op fuse-reduction-epilogue: the reduction block "matmul" is the inner block of block "matmul_o", which blockize made (the init and the outer reduction are in "matmul_o"); fuse-reduction-epilogue rewrites a reduction block that holds its own init and update: fuse the epilogue first, then blockize or tensorize
// The outer block of blockize holds the loops and the inner block: fuse first.
// BLOCKIZED_OUTER: matmul_bias.mlir:12:11: error: 'block.block' op fuse-reduction-epilogue: the reduction block "matmul_o" holds block "matmul" in its body, as blockize leaves a block; fuse-reduction-epilogue rewrites a block whose body is scalar statements: fuse the epilogue first, then blockize or tensorize
// After tensorize (seed 001's schedule), the update is accel.tmm16: fuse first.
// TENSORIZED: matmul_bias.mlir:12:11: error: 'block.block' op fuse-reduction-epilogue: the reduction block "matmul_o_update" has been tensorized (its body holds accel.tmm16); fuse-reduction-epilogue rewrites the scalar init and update of a block: fuse the epilogue first, then tensorize
// A blockized epilogue is refused the same way.
// EPILOGUE_BLOCKIZED: matmul_bias.mlir:29:9: error: 'block.block' op fuse-reduction-epilogue: the epilogue block "add_o" holds block "add" in its body, as blockize leaves a block; fuse-reduction-epilogue rewrites a block whose body is scalar statements: fuse the epilogue first, then blockize or tensorize

// mode=per-iteration takes additions followed by max/min clamps, nothing else; the structural
// refusals stay the same (the scaled temp of the chunk below, for instance):
// PER_ITERATION: error: 'arith.mulf' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = temp[vi, vj] * 2.0 + C[vi, vj]: temp[vi, vj] is scaled by arith.mulf
// PER_ITERATION: error: 'arith.addf' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = max(temp[vi, vj], 0.0) + C[vi, vj]: mode=per-iteration folds additions followed by max/min clamps (as TVM does for ReLU and clipping); here arith.addf comes after a clamp
// PER_ITERATION: error: 'math.exp' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = math.exp(temp[vi, vj] + C[vi, vj]): mode=per-iteration folds additions followed by max/min clamps (as TVM does for ReLU and clipping); math.exp is neither an addition nor a clamp


// The reduction is an output block: it writes %temp, a function argument, whose values
// the fusion would drop (TVM's output-block rule).
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>, %temp: memref<4x4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: block "matmul" is an output block: it writes temp, an argument of function "main", whose values the fusion would drop; only a reduction into an intermediate buffer (block.alloc) can take its epilogue}}
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A reduction without init: nothing to put the epilogue's addend into.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: block "matmul" has no init; fuse-reduction-epilogue needs a complete reduction with its init, which becomes the epilogue's computation}}
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A reduction writing two buffers.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  %X = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: block "matmul" writes 2 buffers (temp, X); the reduction must write one buffer, the one its epilogue reads}}
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
          block.store %ab, %X[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// An init of two statements.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          // expected-error @+1 {{'block.init' op fuse-reduction-epilogue: the init of block "matmul" must end in its only block.store, `temp[...] = value`; it has 2 stores}}
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// An init with a side effect besides its store.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            %c0 = arith.constant 0 : index
            // expected-error @+1 {{'memref.store' op fuse-reduction-epilogue: the init of block "matmul" contains memref.store; it must be one statement `temp[...] = value`}}
            memref.store %zero, %D[%c0, %c0] : memref<4x4xf32>
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// An update of two statements.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: the update of block "matmul" must end in its only block.store, `temp[...] = temp[...] + ...`; it has 2 stores}}
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// An update with a side effect besides its store.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          %c0 = arith.constant 0 : index
          // expected-error @+1 {{'memref.store' op fuse-reduction-epilogue: the update of block "matmul" contains memref.store; it must be one statement `temp[...] = temp[...] + ...`}}
          memref.store %sum, %D[%c0, %c0] : memref<4x4xf32>
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The reduction stores at shifted indices: its elements cannot be named by the
// epilogue's variables one to one.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<5x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi + 1, %vj] : memref<5x4xf32>
          }
          %t = block.load %temp[%vi + 1, %vj] : memref<5x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: block "matmul" stores temp[vi + 1, vj]; the reduction must store at its spatial iteration variables (%vi, %vj), each exactly once and alone in its index, so that the epilogue's indices can be mapped onto them}}
          block.store %sum, %temp[%vi + 1, %vj] : memref<5x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<5x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The init and the update write different elements.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: the init of block "matmul" stores temp[vj, vi] but its update stores temp[vi, vj]; both must write the same element}}
            block.store %zero, %temp[%vj, %vi] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// An update that overwrites temp instead of accumulating into it.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %ab, %ab : f32
          // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: the update of block "matmul" stores A[vi, vk] * B[vj, vk] + A[vi, vk] * B[vj, vk] into temp[vi, vj] without reading temp: it overwrites temp[vi, vj] instead of accumulating into it; the epilogue's addition moves into the init only for a sum, `temp[vi, vj] = temp[vi, vj] + ...`}}
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// An update that reads temp elsewhere than where it stores.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vj, %vi] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: the update of block "matmul" reads temp[vj, vi] and stores temp[vj, vi] + A[vi, vk] * B[vj, vk] into temp[vi, vj]; the epilogue's addition moves into the init only for a sum, `temp[vi, vj] = temp[vi, vj] + ...`}}
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A max-reduction: max(C, max over k) is not C + max over k, so only a sum can take
// the epilogue's addition into its init.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.maximumf %t, %ab : f32
          // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: the update of block "matmul" computes temp[vi, vj] = max(temp[vi, vj], A[vi, vk] * B[vj, vk]) (with arith.maximumf); the epilogue's addition moves into the init only for a sum, `temp[vi, vj] = temp[vi, vj] + ...`}}
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue must be a complete block, not a reduction.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: the epilogue block "add" is a reduction block (reduce variable %vj); the primitive needs a complete block: spatial iteration variables only, no init}}
      block.block "add"(%vi = spatial(4, %i), %vj = reduce(4, %j)) {
        block.init {
          %c = block.load %C[%vi, 0] : memref<4x4xf32>
          block.store %c, %D[%vi, 0] : memref<4x4xf32>
        }
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %D[%vi, 0] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, 0] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue has a predicate.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: block "add" has a predicate (where j < 3); the primitive needs a block that runs over its whole domain}}
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) where(%j < 3) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue has two statements.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: the epilogue block "add" must be one statement `D[...] = temp[...] + C[...]`; it has 2 block.store statements}}
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
        block.store %c, %C[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue has a side effect besides its store.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        %c0 = arith.constant 0 : index
        // expected-error @+1 {{'memref.store' op fuse-reduction-epilogue: the epilogue block "add" contains memref.store; it must be one statement `D[...] = temp[...] + C[...]`}}
        memref.store %d, %C[%c0, %c0] : memref<4x4xf32>
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue uses a value from outside the block, which cannot move into the reduction.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  %two = arith.constant 2.000000e+00 : f32
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        // expected-error @+1 {{'arith.addf' op fuse-reduction-epilogue: the epilogue block "add" uses %two, defined outside the block; the epilogue's computation moves into the reduction, so it may use only its own iteration variables, buffers and the values it computes}}
        %d = arith.addf %t, %two : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue does not read temp.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: the epilogue block "add" does not read temp, the buffer block "matmul" reduces into}}
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %c, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue reads temp twice.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        // expected-error @+1 {{'block.load' op fuse-reduction-epilogue: the epilogue block "add" reads temp 2 times (temp[vi, vj], temp[vi, vj]); the fused reduction keeps one running value per element of D, so the epilogue must read temp exactly once}}
        %t2 = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %t2 : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue uses the value of temp twice (temp + temp * C).
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        // expected-error @+1 {{'arith.mulf' op fuse-reduction-epilogue: the epilogue block "add" computes temp[vi, vj] + temp[vi, vj] * C[vi, vj], which uses the value of temp[vi, vj] 2 times; the fused reduction keeps one running value, so the epilogue must use temp[vi, vj] exactly once}}
        %tc = arith.mulf %t, %c : f32
        %d = arith.addf %t, %tc : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue reads temp but stores something else.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        // expected-error @+1 {{'block.load' op fuse-reduction-epilogue: the epilogue block "add" reads temp[vi, vj] but does not use it in the value it stores}}
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %c, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue reads temp shifted, not at its own variables.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 3 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(3, %j)) {
        // expected-error @+1 {{'block.load' op fuse-reduction-epilogue: the epilogue block "add" reads temp[vi, vj + 1]; the epilogue must read temp at its iteration variables (%vi, %vj), each exactly once and alone in its index, so that they can be mapped onto those of block "matmul"}}
        %t = block.load %temp[%vi, %vj + 1] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// Mismatched iteration domains: the epilogue covers 4x2 of the 4x4 elements the reduction
// computes.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 2 "j" {
      // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: mismatched iteration domains: the epilogue block "add" iterates %vj over 2 where it reads temp[vi, vj], but block "matmul" computes temp[vi, vj] for %vj over 4; each element the reduction computes must be read once by the epilogue}}
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(2, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue stores at a shifted index.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x5xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: the epilogue block "add" stores D[vi, vj + 1]; the epilogue must store at its iteration variables (%vi, %vj), each exactly once and alone in its index, so that the fused reduction accumulates into each element of D on its own}}
        block.store %d, %D[%vi, %vj + 1] : memref<4x5xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue reads the buffer it writes (D = temp + D).
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        // expected-error @+1 {{'block.load' op fuse-reduction-epilogue: the epilogue block "add" reads D, the buffer it writes; the fused reduction writes D from its first step, before such a read}}
        %c = block.load %D[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// The epilogue copies temp: no addition to fold.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: the epilogue block "add" stores temp[vi, vj] unchanged into D[vi, vj]; fuse-reduction-epilogue folds an addition, D = temp + C}}
        block.store %t, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A non-add op: D = temp * C (TVM's fre_mul_0_before, which TVM refuses with
// compute_inline's message).
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        // expected-error @+1 {{'arith.mulf' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = temp[vi, vj] * C[vi, vj]: it combines temp[vi, vj] with arith.mulf, not an addition; only D = temp + C (either operand order) can start the reduction at C}}
        %d = arith.mulf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A subtraction after the addition, temp + C - E: only additions are folded.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        %e = block.load %B[%vi, %vj] : memref<4x4xf32>
        // expected-error @+1 {{'arith.subf' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = temp[vi, vj] + C[vi, vj] - B[vi, vj]: it subtracts with arith.subf after the addition; fuse-reduction-epilogue folds additions only, D = temp + C}}
        %de = arith.subf %d, %e : f32
        block.store %de, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// temp scaled before the addition: temp * 2 + C.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %two = arith.constant 2.000000e+00 : f32
        // expected-error @+1 {{'arith.mulf' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = temp[vi, vj] * 2.0 + C[vi, vj]: temp[vi, vj] is scaled by arith.mulf; the reduction accumulates temp itself, so the epilogue must add to it unscaled, D = temp + C}}
        %t2 = arith.mulf %t, %two : f32
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t2, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// BiasReLU, max(C + temp, 0) (TVM's fre_bias_relu_0_before): refused by default because
// the clamp would apply to every partial sum; mode=per-iteration opts in (see
// fuse_reduction_epilogue.mlir).
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %s = arith.addf %c, %t : f32
        %zero = arith.constant 0.000000e+00 : f32
        // expected-error @+1 {{'arith.maximumf' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = max(C[vi, vj] + temp[vi, vj], 0.0), which is not linear in temp (arith.maximumf): folded into the reduction, the clamp would be applied after every reduction step, to each partial sum, instead of once to the finished sum, and the results would change; fuse-reduction-epilogue refuses it. mode=per-iteration does this anyway, as TVM does, and changes the numbers}}
        %d = arith.maximumf %s, %zero : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// Clipping, min(max(temp, -1), 1): refused by default for the same reason.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %lo = arith.constant -1.000000e+00 : f32
        %hi = arith.constant 1.000000e+00 : f32
        // expected-error @+1 {{'arith.maximumf' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = min(max(temp[vi, vj], -1.0), 1.0), which is not linear in temp (arith.maximumf): folded into the reduction, the clamp would be applied after every reduction step, to each partial sum, instead of once to the finished sum, and the results would change; fuse-reduction-epilogue refuses it. mode=per-iteration does this anyway, as TVM does, and changes the numbers}}
        %l = arith.maximumf %t, %lo : f32
        %d = arith.minimumf %l, %hi : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A clamp before the addition, max(temp, 0) + C: not linear, and not the form
// mode=per-iteration takes either (PER_ITERATION above).
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %zero = arith.constant 0.000000e+00 : f32
        // expected-error @+1 {{'arith.maximumf' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = max(temp[vi, vj], 0.0) + C[vi, vj]: arith.maximumf is not linear in temp; fuse-reduction-epilogue folds an addition, D = temp + C (mode=per-iteration also takes max/min clamps after it)}}
        %r = arith.maximumf %t, %zero : f32
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %r, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// exp(temp + C): not linear, and neither a clamp for mode=per-iteration (PER_ITERATION above).
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %s = arith.addf %t, %c : f32
        // expected-error @+1 {{'math.exp' op fuse-reduction-epilogue: the epilogue block "add" computes D[vi, vj] = math.exp(temp[vi, vj] + C[vi, vj]): math.exp is not linear in temp; fuse-reduction-epilogue folds an addition, D = temp + C (mode=per-iteration also takes max/min clamps after it)}}
        %d = math.exp %s : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// Another block also writes temp.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "reset"(%vi = spatial(4, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: block "reset" also writes temp; block "matmul" must be its only producer for the fusion to remove it}}
      block.store %zero, %temp[%vi, 0] : memref<4x4xf32>
    }
  }
  func.return
}

// -----

// Another block also reads temp: the fused reduction no longer computes it.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>, %E: memref<4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "diag"(%vi = spatial(4, %i)) {
      // expected-error @+1 {{'block.load' op fuse-reduction-epilogue: block "diag" also reads temp; block "add" must be its only consumer, since the fused block "matmul" no longer computes it}}
      %t = block.load %temp[%vi, %vi] : memref<4x4xf32>
      block.store %t, %E[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// The two blocks are in different scopes.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.block "outer"() {
    block.for %i = 0 to 4 "i" {
      block.for %j = 0 to 4 "j" {
        // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: the epilogue block "add" is in the scope of block "outer", block "matmul" in that of function "main"; the two blocks must be in the same scope}}
        block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %c = block.load %C[%vi, %vj] : memref<4x4xf32>
          %d = arith.addf %t, %c : f32
          block.store %d, %D[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  func.return
}

// -----

// The epilogue comes before the reduction.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      // expected-error @+1 {{'block.block' op fuse-reduction-epilogue: the epilogue block "add" comes before block "matmul"; it must read temp after the reduction computes it}}
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  func.return
}

// -----

// The reduction reads D, which the fused reduction would write while still reading it.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          // expected-error @+1 {{'block.load' op fuse-reduction-epilogue: block "matmul" reads D, which the fused reduction would write while it still reads it}}
          %b = block.load %D[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A block between the two reads D: fused, D would be written before that read.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>, %E: memref<4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "peek"(%vi = spatial(4, %i)) {
      // expected-error @+1 {{'block.load' op fuse-reduction-epilogue: block "peek" reads D in the loop nests from block "matmul" to block "add"; fused, "matmul" writes D and would reorder it with that access}}
      %d = block.load %D[%vi, 0] : memref<4x4xf32>
      block.store %d, %E[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A block between the two writes C, which the epilogue reads (as when two epilogues are
// fused in the wrong order, see @two_pairs in fuse_reduction_epilogue.mlir): fused, C would be read
// in the init, before that write.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "bias"(%vi = spatial(4, %i)) {
      %one = arith.constant 1.000000e+00 : f32
      // expected-error @+1 {{'block.store' op fuse-reduction-epilogue: block "bias" writes C, which the epilogue block "add" reads, in the loop nests from block "matmul" to it; fused, the read moves into the init of "matmul", before that write}}
      block.store %one, %C[%vi, 0] : memref<4x4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %d = arith.addf %t, %c : f32
        block.store %d, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}
