// RUN: xtir-opt %s -p 'compute-inline{func=chain block=B},compute-inline{func=window block=B},compute-inline{func=permuted block=B},compute-inline{func=same_nest block=B},compute-inline{func=dead block=B},compute-inline{func=twice block=B},compute-inline{func=twice block=C}' | filecheck %s
// compute-inline (TVM's sch.compute_inline): a complete block `X[v0, v1, ...] = f(...)`
// writing an intermediate buffer disappears; every read X[e0, e1, ...] becomes a copy
// of f with v_k replaced by e_k. The loops left empty and X's allocation go too.

// The elementwise chain B = A * 2, C = B + 1, as TVM's test_compute_inline_elementwise:
//   with T.block("C"):
//       vi, vj = T.axis.remap("SS", [i, j])
//       C[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "C"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
// CHECK-NEXT:          %a = block.load %A[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:          %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:          %b = arith.mulf %a, %two : f32
// CHECK-NEXT:          %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:          %c = arith.addf %b, %one : f32
// CHECK-NEXT:          block.store %c, %C[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @chain(%A: memref<8x4xf32>, %C: memref<8x4xf32>) {
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
      block.block "C"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %b = block.load %B[%vi, %vj] : memref<8x4xf32>
        %one = arith.constant 1.000000e+00 : f32
        %c = arith.addf %b, %one : f32
        block.store %c, %C[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// A consumer reading B at shifted indices gets one copy of B's computation per read,
// each at its own index.
// CHECK-LABEL: func.func @window
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.block "C"(%vi = spatial(8, %i)) {
// CHECK-NEXT:        %a = block.load %A[%vi] : memref<10xf32>
// CHECK-NEXT:        %b = arith.mulf %a, %a : f32
// CHECK-NEXT:        %a_1 = block.load %A[%vi + 2] : memref<10xf32>
// CHECK-NEXT:        %b_1 = arith.mulf %a_1, %a_1 : f32
// CHECK-NEXT:        %c = arith.addf %b, %b_1 : f32
// CHECK-NEXT:        block.store %c, %C[%vi] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @window(%A: memref<10xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<10xf32>
  block.for %i = 0 to 10 "i" {
    block.block "B"(%vi = spatial(10, %i)) {
      %a = block.load %A[%vi] : memref<10xf32>
      %b = arith.mulf %a, %a : f32
      block.store %b, %B[%vi] : memref<10xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b0 = block.load %B[%vi] : memref<10xf32>
      %b2 = block.load %B[%vi + 2] : memref<10xf32>
      %c = arith.addf %b0, %b2 : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// B stores transposed (X[vj, vi]) and the consumer, whose loops run in the other order
// under other names, reads X[vm, vn] with vm over B's j: so vj -> vm and vi -> vn, and the
// copied read of A[vi, vj] becomes A[vn, vm]. The other input D stays as it was.
// CHECK-LABEL: func.func @permuted
// CHECK-NEXT:    block.for %n = 0 to 6 "n" {
// CHECK-NEXT:      block.for %m = 0 to 4 "m" {
// CHECK-NEXT:        block.for %k = 0 to 2 "k" {
// CHECK-NEXT:          block.block "Y"(%vn = spatial(6, %n), %vm = spatial(4, %m), %vk = spatial(2, %k)) {
// CHECK-NEXT:            %a = block.load %A[%vn, %vm, %vk] : memref<6x4x2xf32>
// CHECK-NEXT:            %x = arith.negf %a : f32
// CHECK-NEXT:            %d = block.load %D[%vk] : memref<2xf32>
// CHECK-NEXT:            %y = arith.mulf %x, %d : f32
// CHECK-NEXT:            block.store %y, %Y[%vk, %vn, %vm] : memref<2x6x4xf32>
func.func @permuted(%A: memref<6x4x2xf32>, %D: memref<2xf32>, %Y: memref<2x6x4xf32>) {
  %X = block.alloc : memref<4x6x2xf32>
  block.for %i = 0 to 6 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 2 "k" {
        block.block "B"(%vi = spatial(6, %i), %vj = spatial(4, %j), %vk = spatial(2, %k)) {
          %a = block.load %A[%vi, %vj, %vk] : memref<6x4x2xf32>
          %x = arith.negf %a : f32
          block.store %x, %X[%vj, %vi, %vk] : memref<4x6x2xf32>
        }
      }
    }
  }
  block.for %n = 0 to 6 "n" {
    block.for %m = 0 to 4 "m" {
      block.for %k = 0 to 2 "k" {
        block.block "Y"(%vn = spatial(6, %n), %vm = spatial(4, %m), %vk = spatial(2, %k)) {
          %x = block.load %X[%vm, %vn, %vk] : memref<4x6x2xf32>
          %d = block.load %D[%vk] : memref<2xf32>
          %y = arith.mulf %x, %d : f32
          block.store %y, %Y[%vk, %vn, %vm] : memref<2x6x4xf32>
        }
      }
    }
  }
  func.return
}

// B shares its loop with the consumer (as after compute-at): only B goes, the loop stays.
// CHECK-LABEL: func.func @same_nest
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.block "C"(%vi = spatial(8, %i)) {
// CHECK-NEXT:        %a = block.load %A[%vi] : memref<8xf32>
// CHECK-NEXT:        %b = math.exp %a : f32
// CHECK-NEXT:        block.store %b, %C[%vi] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @same_nest(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      %b = math.exp %a : f32
      block.store %b, %B[%vi] : memref<8xf32>
    }
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// A block whose buffer nobody reads is dead: it is removed (as TVM does).
// CHECK-LABEL: func.func @dead
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.block "C"(%vi = spatial(8, %i)) {
// CHECK-NEXT:        %a = block.load %A[%vi] : memref<8xf32>
// CHECK-NEXT:        block.store %a, %C[%vi] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @dead(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// Inlining B (into C), then C (into D) composes the index maps of a three-stage chain:
// D reads C[vi + 1], C reads B[vi * 2].
// CHECK-LABEL: func.func @twice
// CHECK-NEXT:    block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      block.block "D"(%vi = spatial(4, %i)) {
// CHECK-NEXT:        %a = block.load %A[%vi * 2 + 2] : memref<16xf32>
// CHECK-NEXT:        %b = arith.addf %a, %a : f32
// CHECK-NEXT:        %c = arith.mulf %b, %b : f32
// CHECK-NEXT:        block.store %c, %D[%vi] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @twice(%A: memref<16xf32>, %D: memref<4xf32>) {
  %B = block.alloc : memref<16xf32>
  %C = block.alloc : memref<8xf32>
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %a = block.load %A[%vi] : memref<16xf32>
      %b = arith.addf %a, %a : f32
      block.store %b, %B[%vi] : memref<16xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi * 2] : memref<16xf32>
      %c = arith.mulf %b, %b : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "D"(%vi = spatial(4, %i)) {
      %c = block.load %C[%vi + 1] : memref<8xf32>
      block.store %c, %D[%vi] : memref<4xf32>
    }
  }
  func.return
}
