// RUN: xtir-opt %s -p 'reverse-compute-inline{func=relu block=relu},reverse-compute-inline{func=permuted block=Y},reverse-compute-inline{func=partial block=C},reverse-compute-inline{func=same_nest block=C},reverse-compute-inline{func=twice block=C},reverse-compute-inline{func=twice block=D}' | filecheck %s
// RUN: xtir-opt %s -p 'split{func=conjoined loop=e factors=-1,5},reverse-compute-inline{func=conjoined block=C},reverse-compute-inline{func=part block=C},reverse-compute-inline{func=where block=C}' | filecheck %s --check-prefix=WHERE
// reverse-compute-inline (TVM's sch.reverse_compute_inline): a complete consumer
// `Y[...] = g(X[v0, v1, ...], inputs...)` of an intermediate buffer X disappears into X's
// single producer `X[p0, p1, ...] = f(...)`, which now stores g(f(...)) into Y with each
// v_d replaced by p_d. The loops left empty and X's allocation go too.

// relu after an elementwise producer, as TVM's test_reverse_compute_inline_elementwise:
//   with T.block("B"):
//       vi, vj = T.axis.remap("SS", [i, j])
//       C[vi, vj] = T.max(A[vi, vj] * T.float32(2), T.float32(0))
// The producer keeps its name.
// CHECK-LABEL: func.func @relu
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
// CHECK-NEXT:          %a = block.load %A[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:          %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:          %b = arith.mulf %a, %two : f32
// CHECK-NEXT:          %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:          %c = arith.maximumf %b, %zero : f32
// CHECK-NEXT:          block.store %c, %C[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @relu(%A: memref<8x4xf32>, %C: memref<8x4xf32>) {
  %B = block.alloc : memref<8x4xf32>
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "relu"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %b = block.load %B[%vi, %vj] : memref<8x4xf32>
        %zero = arith.constant 0.000000e+00 : f32
        %c = arith.maximumf %b, %zero : f32
        block.store %c, %C[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// The producer stores X transposed (X[vj, vi, vk]); the consumer, whose loops run in
// another order under other names, reads X[vm, vn, vk] and writes Y[vk, vn, vm]. Its
// variables are the producer's store indices: vm -> vj, vn -> vi, vk -> vk, so the
// store becomes Y[vk, vi, vj] and the other input D[vn] becomes D[vi].
// CHECK-LABEL: func.func @permuted
// CHECK-NEXT:    block.for %i = 0 to 6 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.for %k = 0 to 2 "k" {
// CHECK-NEXT:          block.block "X"(%vi = spatial(6, %i), %vj = spatial(4, %j), %vk = spatial(2, %k)) {
// CHECK-NEXT:            %a = block.load %A[%vi, %vj, %vk] : memref<6x4x2xf32>
// CHECK-NEXT:            %x = arith.negf %a : f32
// CHECK-NEXT:            %d = block.load %D[%vi] : memref<6xf32>
// CHECK-NEXT:            %y = arith.addf %x, %d : f32
// CHECK-NEXT:            block.store %y, %Y[%vk, %vi, %vj] : memref<2x6x4xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @permuted(%A: memref<6x4x2xf32>, %D: memref<6xf32>, %Y: memref<2x6x4xf32>) {
  %X = block.alloc : memref<4x6x2xf32>
  block.for %i = 0 to 6 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 2 "k" {
        block.block "X"(%vi = spatial(6, %i), %vj = spatial(4, %j), %vk = spatial(2, %k)) {
          %a = block.load %A[%vi, %vj, %vk] : memref<6x4x2xf32>
          %x = arith.negf %a : f32
          block.store %x, %X[%vj, %vi, %vk] : memref<4x6x2xf32>
        }
      }
    }
  }
  block.for %k = 0 to 2 "k" {
    block.for %n = 0 to 6 "n" {
      block.for %m = 0 to 4 "m" {
        block.block "Y"(%vk = spatial(2, %k), %vn = spatial(6, %n), %vm = spatial(4, %m)) {
          %x = block.load %X[%vm, %vn, %vk] : memref<4x6x2xf32>
          %d = block.load %D[%vn] : memref<6xf32>
          %y = arith.addf %x, %d : f32
          block.store %y, %Y[%vk, %vn, %vm] : memref<2x6x4xf32>
        }
      }
    }
  }
  func.return
}

// The consumer reads only the first 6 of the 10 elements the producer computes: the
// producer gets the predicate `i < 6` (TVM adds it too), so it writes C where C exists.
// CHECK-LABEL: func.func @partial
// CHECK-NEXT:    block.for %i = 0 to 10 "i" {
// CHECK-NEXT:      block.block "B"(%vi = spatial(10, %i)) where(%i < 6) {
// CHECK-NEXT:        %a = block.load %A[%vi] : memref<10xf32>
// CHECK-NEXT:        %b = arith.addf %a, %a : f32
// CHECK-NEXT:        block.store %b, %C[%vi] : memref<6xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @partial(%A: memref<10xf32>, %C: memref<6xf32>) {
  %B = block.alloc : memref<10xf32>
  block.for %i = 0 to 10 "i" {
    block.block "B"(%vi = spatial(10, %i)) {
      %a = block.load %A[%vi] : memref<10xf32>
      %b = arith.addf %a, %a : f32
      block.store %b, %B[%vi] : memref<10xf32>
    }
  }
  block.for %i = 0 to 6 "i" {
    block.block "C"(%vi = spatial(6, %i)) {
      %b = block.load %B[%vi] : memref<10xf32>
      block.store %b, %C[%vi] : memref<6xf32>
    }
  }
  func.return
}

// Producer and consumer share a loop (as after reverse-compute-at): only the consumer goes.
// CHECK-LABEL: func.func @same_nest
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.block "B"(%vi = spatial(8, %i)) {
// CHECK-NEXT:        %a = block.load %A[%vi] : memref<8xf32>
// CHECK-NEXT:        %c = math.exp %a : f32
// CHECK-NEXT:        block.store %c, %C[%vi] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @same_nest(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %c = math.exp %b : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// Two consumers in a row (C reads B, D reads C) go into B one after the other. B stores
// at a fused index, B[vi * 4 + vj]; that expression replaces C's variable and then D's,
// so D's read of E[vd] becomes E[vi * 4 + vj].
// CHECK-LABEL: func.func @twice
// CHECK-NEXT:    block.for %i = 0 to 2 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "B"(%vi = spatial(2, %i), %vj = spatial(4, %j)) {
// CHECK-NEXT:          %a = block.load %A[%vi, %vj] : memref<2x4xf32>
// CHECK-NEXT:          %c = arith.mulf %a, %a : f32
// CHECK-NEXT:          %e = block.load %E[%vi * 4 + %vj] : memref<8xf32>
// CHECK-NEXT:          %d = arith.subf %c, %e : f32
// CHECK-NEXT:          block.store %d, %D[%vi * 4 + %vj] : memref<8xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @twice(%A: memref<2x4xf32>, %E: memref<8xf32>, %D: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  %C = block.alloc : memref<8xf32>
  block.for %i = 0 to 2 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "B"(%vi = spatial(2, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<2x4xf32>
        block.store %a, %B[%vi * 4 + %vj] : memref<8xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vc = spatial(8, %i)) {
      %b = block.load %B[%vc] : memref<8xf32>
      %c = arith.mulf %b, %b : f32
      block.store %c, %C[%vc] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "D"(%vd = spatial(8, %i)) {
      %c = block.load %C[%vd] : memref<8xf32>
      %e = block.load %E[%vd] : memref<8xf32>
      %d = arith.subf %c, %e : f32
      block.store %d, %D[%vd] : memref<8xf32>
    }
  }
  func.return
}

// Predicates are conjoined, never replaced. After the split, the producer has two
// conjuncts on one expression, the original `< 10` and the split's `< 16`; the consumer
// adds `< 16` for its domain. All hold, so `< 10` does (a map keyed by expression kept
// the last one and wrote C[10:16]).
// WHERE-LABEL: func.func @conjoined
// WHERE:         block.block "B"(%ve = spatial(16, %e0 * 5 + %e1)) where(%e0 * 5 + %e1 < 10) {
func.func @conjoined(%A: memref<16xf32>, %C: memref<16xf32>) {
  %B = block.alloc : memref<16xf32>
  block.for %e = 0 to 16 "e" {
    block.block "B"(%ve = spatial(16, %e)) where(%e < 10) {
      %a = block.load %A[%ve] : memref<16xf32>
      block.store %a, %B[%ve] : memref<16xf32>
    }
  }
  block.for %i = 0 to 16 "i" {
    block.block "C"(%vi = spatial(16, %i)) {
      %b = block.load %B[%vi] : memref<16xf32>
      block.store %b, %C[%vi] : memref<16xf32>
    }
  }
  func.return
}

// The consumer's loops run 10 of its 16 instances: the producer is limited to those.
// WHERE-LABEL: func.func @part
// WHERE:         block.block "B"(%ve = spatial(16, %e)) where(%e < 10) {
// WHERE-NEXT:      %a = block.load %A[%ve] : memref<16xf32>
// WHERE-NEXT:      block.store %a, %C[%ve] : memref<16xf32>
func.func @part(%A: memref<16xf32>, %C: memref<16xf32>) {
  %B = block.alloc : memref<16xf32>
  block.for %e = 0 to 16 "e" {
    block.block "B"(%ve = spatial(16, %e)) {
      %a = block.load %A[%ve] : memref<16xf32>
      block.store %a, %B[%ve] : memref<16xf32>
    }
  }
  block.for %i = 0 to 10 "i" {
    block.block "C"(%vi = spatial(16, %i)) {
      %b = block.load %B[%vi] : memref<16xf32>
      block.store %b, %C[%vi] : memref<16xf32>
    }
  }
  func.return
}

// A consumer under a predicate runs the box of instances its loops reach where the
// predicate holds: rows 2 to 5 (`-i < -1`), every column (the split's predicate cuts
// only iterations past the domain).
// WHERE-LABEL: func.func @where
// WHERE:         block.block "P"(%vi = spatial(6, %i), %vj = spatial(6, %j)) where(-%i < -1) {
func.func @where(%A: memref<6x6xf32>, %C: memref<6x6xf32>) {
  %X = block.alloc : memref<6x6xf32>
  block.for %i = 0 to 6 "i" {
    block.for %j = 0 to 6 "j" {
      block.block "P"(%vi = spatial(6, %i), %vj = spatial(6, %j)) {
        %a = block.load %A[%vi, %vj] : memref<6x6xf32>
        block.store %a, %X[%vi, %vj] : memref<6x6xf32>
      }
    }
  }
  block.for %r = 0 to 4 "r" {
    block.for %j0 = 0 to 2 "j_0" {
      block.for %j1 = 0 to 4 "j_1" {
        block.block "C"(%vi = spatial(6, %r + 2), %vj = spatial(6, %j0 * 4 + %j1)) where(%j0 * 4 + %j1 < 6) {
          %x = block.load %X[%vi, %vj] : memref<6x6xf32>
          block.store %x, %C[%vi, %vj] : memref<6x6xf32>
        }
      }
    }
  }
  func.return
}
