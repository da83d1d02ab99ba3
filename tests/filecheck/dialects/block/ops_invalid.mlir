// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// One case per verifier (or syntax) rule of the block dialect; each expected-error pins the
// line of the diagnostic and its message (--verify-diagnostics: any other error fails).

// Bindings are affine: a product of two loop variables is rejected by the parser.
func.func @binding_product() {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 8 "j" {
      // expected-error @+1 {{index expression is not affine: a product of two variables}}
      block.block "B"(%v = spatial(64, %i * %j)) {
      }
    }
  }
  func.return
}

// -----

// A binding may only use the loops between the block and its enclosing block: not an
// outer block's iteration variable...
func.func @binding_outer_iter_var() {
  block.for %i = 0 to 8 "i" {
    block.block "outer"(%vi = spatial(8, %i)) {
      block.for %j = 0 to 8 "j" {
        // expected-error @+1 {{'block.block' op block "inner": bindings must be affine expressions of the loops between the block and its enclosing block; %vi is not one of them}}
        block.block "inner"(%vj = spatial(64, %vi * 8 + %j)) {
        }
      }
    }
  }
  func.return
}

// -----

// ...nor a loop outside the enclosing block.
func.func @binding_loop_outside_enclosing_block() {
  block.for %i = 0 to 8 "i" {
    block.block "outer"(%vi = spatial(8, %i)) {
      block.for %j = 0 to 8 "j" {
        // expected-error @+1 {{'block.block' op block "inner": bindings must be affine expressions of the loops between the block and its enclosing block; %i is not one of them}}
        block.block "inner"(%vj = spatial(8, %j), %vk = spatial(8, %i)) {
        }
      }
    }
  }
  func.return
}

// -----

// An iteration variable is visible only inside its block: a use after the block ends
// (in the same loop) is reported at the use.
func.func @iter_var_after_block(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
    }
    // expected-error @+1 {{use of undefined value %vi: an index expression may only use variables of the loops and blocks around it (an iteration variable is visible only inside its block)}}
    %x = block.load %A[%vi] : memref<8xf32>
  }
  func.return
}

// -----

// The same after the enclosing loop, in the same function.
func.func @iter_var_after_loop(%A: memref<8xf32>, %v: f32) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
    }
  }
  // expected-error @+1 {{use of undefined value %vi: an index expression may only use variables of the loops and blocks around it (an iteration variable is visible only inside its block)}}
  block.store %v, %A[%vi] : memref<8xf32>
  func.return
}

// -----

// Inside a block, the loops outside it are seen only through iteration variables.
func.func @loop_var_in_block(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.load' op loop variable %i of loop "i" is used inside block "B"; a block sees the loops outside it only through its iteration variables}}
      %x = block.load %A[%i] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Indices are loop variables or iteration variables, not arbitrary index values.
func.func @index_not_a_variable(%A: memref<8xf32>) {
  %c = arith.constant 0 : index
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.load' op index %c is neither a loop variable nor a block iteration variable}}
      %x = block.load %A[%vi + %c] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A block must not index the buffer it writes with a reduce variable.
func.func @reduce_var_indexes_write(%A: memref<8xf32>, %C: memref<8xf32>) {
  block.for %k = 0 to 8 "k" {
    // expected-error @+1 {{'block.block' op block "sum" writes C at an index that uses reduce variable %vk; a block must not index the buffer it writes with a reduce variable}}
    block.block "sum"(%vk = reduce(8, %k)) {
      %a = block.load %A[%vk] : memref<8xf32>
      block.store %a, %C[%vk] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Only reduction blocks have an init.
func.func @init_without_reduce(%C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op block "B" has an init region but no reduce iteration variable; only reduction blocks may have an init}}
    block.block "B"(%vi = spatial(8, %i)) {
      block.init {
        %zero = arith.constant 0.000000e+00 : f32
        block.store %zero, %C[%vi] : memref<8xf32>
      }
    }
  }
  func.return
}

// -----

// The init is the first op of its block...
func.func @init_not_first(%A: memref<8x8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 8 "k" {
      // expected-error @+1 {{'block.block' op block "sum": block.init must be the first op of the block}}
      block.block "sum"(%vi = spatial(8, %i), %vk = reduce(8, %k)) {
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// ...and there is at most one.
func.func @two_inits() {
  block.for %k = 0 to 8 "k" {
    // expected-error @+1 {{'block.block' op block "sum" has 2 block.init ops; a block has at most one}}
    block.block "sum"(%vk = reduce(8, %k)) {
      block.init {
      }
      block.init {
      }
    }
  }
  func.return
}

// -----

// An init lives directly in a block.
func.func @init_outside_block() {
  // expected-error @+1 {{'block.init' op 'block.init' expects parent op 'block.block'}}
  block.init {
  }
  func.return
}

// -----

// A load has one index per buffer dimension...
func.func @load_index_count(%A: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.load' op block.load on %A has 1 indices, but the buffer has rank 2}}
      %x = block.load %A[%vi] : memref<8x8xf32>
    }
  }
  func.return
}

// -----

// ...and so has a store.
func.func @store_index_count(%A: memref<8xf32>, %v: f32) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.store' op block.store on %A has 2 indices, but the buffer has rank 1}}
      block.store %v, %A[%vi, %vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A stored value has the buffer's element type: in custom syntax the parser says so...
func.func @store_type(%A: memref<8xf32>, %v: f16) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{block.store of a f16 value into %A, which holds f32}}
      block.store %v, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// ...and in generic syntax the verifier does.
func.func @store_type_generic(%A: memref<8xf32>, %v: f16) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.store' op block.store of a f16 value into %A, which holds f32}}
      "block.store"(%v, %A, %vi) <{map = affine_map<(d0) -> (d0)>}> : (f16, memref<8xf32>, index) -> ()
    }
  }
  func.return
}

// -----

// A load yields the buffer's element type (generic syntax).
func.func @load_type_generic(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.load' op block.load from %A yields i32, but the buffer holds f32}}
      %x = "block.load"(%A, %vi) <{map = affine_map<(d0) -> (d0)>}> : (memref<8xf32>, index) -> i32
    }
  }
  func.return
}

// -----

// The storage scope of a buffer is a string memory space.
func.func @alloc_scope_not_string() {
  // expected-error @+1 {{'block.alloc' op buffer %s has memory space 3 : i64; the storage scope of a buffer must be a string such as "global", "shared", "local" or "global.A_reg"}}
  %s = block.alloc : memref<16xf32, 3>
  func.return
}

// -----

// The same rule for buffers that come from elsewhere, checked where they are accessed.
func.func @access_scope_not_string(%A: memref<8xf32, 1>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.load' op block.load buffer %A has memory space 1 : i64; the storage scope of a buffer must be a string such as "global", "shared", "local" or "global.A_reg"}}
      %x = block.load %A[%vi] : memref<8xf32, 1>
    }
  }
  func.return
}

// -----

// Buffers have static shapes.
func.func @alloc_dynamic() {
  // expected-error @+1 {{'block.alloc' op buffer %d must have a static shape, got memref<?xf32>}}
  %d = block.alloc : memref<?xf32>
  func.return
}

// -----

// Loops start at 0.
func.func @loop_start() {
  // expected-error @+1 {{block.for loops start at 0; shift the index in the block binding instead}}
  block.for %i = 1 to 8 "i" {
  }
  func.return
}

// -----

// Extents are positive: not zero...
func.func @loop_extent_zero() {
  // expected-error @+1 {{'block.for' op loop "i" has extent 0; extents must be positive}}
  block.for %i = 0 to 0 "i" {
  }
  func.return
}

// -----

// ...nor negative.
func.func @loop_extent_negative() {
  // expected-error @+1 {{'block.for' op loop "i" has extent -4; extents must be positive}}
  block.for %i = 0 to -4 "i" {
  }
  func.return
}

// -----

// Iteration variable domains are positive too.
func.func @domain_zero() {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op block "B": iteration variable %vi has domain 0; domains must be positive}}
    block.block "B"(%vi = spatial(0, %i)) {
    }
  }
  func.return
}

// -----

// Iteration variables are spatial or reduce.
func.func @iter_kind() {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{expected iteration variable kind 'spatial' or 'reduce'}}
    block.block "B"(%vi = opaque(8, %i)) {
    }
  }
  func.return
}

// -----

// Unknown loop kind, in custom syntax...
func.func @loop_kind() {
  // expected-error @+1 {{loop "i" has unknown kind "pipelined"; expected serial, parallel, vectorized, unrolled or bind("<thread tag>")}}
  block.for %i = 0 to 8 "i" pipelined {
  }
  func.return
}

// -----

// ...and in generic syntax.
func.func @loop_kind_generic() {
  // expected-error @+1 {{'block.for' op loop "i" has unknown kind "pipelined"; expected one of serial, parallel, vectorized, unrolled, thread_binding}}
  "block.for"() <{name = "i", extent = 8 : i64, kind = "pipelined"}> ({
  ^bb0(%i: index):
  }) : () -> ()
  func.return
}

// -----

// Unknown thread tag.
func.func @thread_tag() {
  // expected-error @+1 {{'block.for' op loop "tx" is bound to unknown thread tag "threadIdx.w"; expected one of blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, vthread.x, vthread.y, vthread.z}}
  block.for %tx = 0 to 32 "tx" bind("threadIdx.w") {
  }
  func.return
}

// -----

// A thread tag goes with kind thread_binding only.
func.func @thread_tag_on_parallel_loop() {
  // expected-error @+1 {{'block.for' op loop "i": a thread tag goes with kind thread_binding only}}
  "block.for"() <{name = "i", extent = 8 : i64, kind = "parallel", thread = "threadIdx.x"}> ({
  ^bb0(%i: index):
  }) : () -> ()
  func.return
}
