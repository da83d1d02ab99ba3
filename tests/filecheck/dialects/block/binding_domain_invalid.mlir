// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// A binding that leaves its iteration variable's domain, for some iteration of the loops it
// uses, is refused: nothing stops those iterations, so the body would run outside the domain
// (the compiled code wrote past its buffers; the evaluator stopped at run time). Under the
// block's own predicate only the iterations where it holds run: a binding is refused at one
// of them where it leaves its domain. An enclosing block's predicate does not count, and
// under an scf.if lower-blocks checks each access instead.

func.func @loop_longer_than_the_domain(%A: memref<8xf32>, %B: memref<4xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op block "B": binding of %vi ranges over [0, 7], outside its domain [0, 3]}}
    block.block "B"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

func.func @negative(%A: memref<8xf32>, %B: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op block "B": binding of %vi ranges over [-1, 6], outside its domain [0, 7]}}
    block.block "B"(%vi = spatial(8, %i - 1)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

func.func @reduce_variable(%A: memref<4x8xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 8 "k" {
      // expected-error @+1 {{'block.block' op block "sum": binding of %vk ranges over [0, 7], outside its domain [0, 3]}}
      block.block "sum"(%vi = spatial(4, %i), %vk = reduce(4, %k)) {
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x8xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// An enclosing block's predicate can only test loops outside that block, never the loops a
// nested block's bindings use: it does not excuse them.
func.func @under_an_enclosing_predicate(%A: memref<8xf32>, %B: memref<8xf32>) {
  block.for %o = 0 to 4 "o" {
    block.block "outer"(%vo = spatial(2, %o)) where(%o < 2) {
      block.for %t = 0 to 4 "t" {
        // expected-error @+1 {{'block.block' op block "inner": binding of %vt ranges over [0, 3], outside its domain [0, 1]}}
        block.block "inner"(%vt = spatial(2, %t)) {
          %a = block.load %A[%vo * 4 + %vt] : memref<8xf32>
          block.store %a, %B[%vo * 4 + %vt] : memref<8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// A predicate that lets the binding leave its domain: i_0 * 4 + i_1 < 12 runs %vi up to 11.
func.func @predicate_too_weak(%A: memref<10xf32>, %B: memref<10xf32>) {
  block.for %i0 = 0 to 3 "i_0" {
    block.for %i1 = 0 to 4 "i_1" {
      // expected-error @+1 {{'block.block' op block "split": binding of %vi is 10 at i_0 = 2, i_1 = 2, where the predicate holds; outside its domain [0, 9]}}
      block.block "split"(%vi = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 12) {
        %a = block.load %A[%vi] : memref<10xf32>
        block.store %a, %B[%vi] : memref<10xf32>
      }
    }
  }
  func.return
}

// -----

// A backward binding: f < 12 lets 9 - f reach -1.
func.func @predicate_on_another_expression(%A: memref<10xf32>, %B: memref<10xf32>) {
  block.for %f = 0 to 16 "f" {
    // expected-error @+1 {{'block.block' op block "backward": binding of %vi is -1 at f = 10, where the predicate holds; outside its domain [0, 9]}}
    block.block "backward"(%vi = spatial(10, 9 - %f)) where(%f < 12) {
      %a = block.load %A[%vi] : memref<10xf32>
      block.store %a, %B[%vi] : memref<10xf32>
    }
  }
  func.return
}

// -----

// Accepted (no diagnostic): a fused loop's floordiv / mod stay in their domains, a
// non-dividing split is guarded by its own predicate (also after a fuse of the split loops,
// and a backward binding by a predicate bounding it from below), and a block under an scf.if
// is left to lower-blocks.
func.func @within_or_guarded(%A: memref<10xf32>, %B: memref<10xf32>, %C: memref<4x4xf32>) {
  block.for %f = 0 to 16 "f" {
    block.block "fused"(%vi = spatial(4, %f floordiv 4), %vj = spatial(4, %f mod 4)) {
      %c = block.load %C[%vi, %vj] : memref<4x4xf32>
      block.store %c, %C[%vj, %vi] : memref<4x4xf32>
    }
  }
  block.for %i0 = 0 to 3 "i_0" {
    block.for %i1 = 0 to 4 "i_1" {
      block.block "split"(%vi = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 10) {
        %a = block.load %A[%vi] : memref<10xf32>
        block.store %a, %B[%vi] : memref<10xf32>
      }
    }
  }
  block.for %f = 0 to 12 "i_0_i_1_fused" {
    block.block "fused_split"(%vi = spatial(10, %f floordiv 4 * 4 + %f mod 4)) where(%f floordiv 4 * 4 + %f mod 4 < 10) {
      %a = block.load %A[%vi] : memref<10xf32>
      block.store %a, %B[%vi] : memref<10xf32>
    }
  }
  block.for %b = 0 to 16 "b" {
    block.block "backward"(%vi = spatial(10, 12 - %b)) where(%b < 13, 3 - %b < 1) {
      %a = block.load %A[%vi] : memref<10xf32>
      block.store %a, %B[%vi] : memref<10xf32>
    }
  }
  %c6 = arith.constant 6 : index
  block.for %t = 0 to 12 "t" {
    %in = arith.cmpi slt, %t, %c6 : index
    scf.if %in {
      block.block "guarded"(%vt = spatial(6, %t)) {
        %a = block.load %A[%vt] : memref<10xf32>
        block.store %a, %B[%vt] : memref<10xf32>
      }
    }
  }
  func.return
}
