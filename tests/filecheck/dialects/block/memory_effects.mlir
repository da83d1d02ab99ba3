// block.load reads, block.store writes and block.alloc allocates (xDSL's memory-effect
// traits), so xDSL's own cse and dce can work on blocks: cse merges two loads of one
// element only when no store can come between them, and dce removes an unused load. An
// unused block.alloc stays, as xDSL's memref.alloc does (an allocation is an effect).
// RUN: xtir-opt %s -p cse | filecheck %s --check-prefix=CSE
// RUN: xtir-opt %s -p dce | filecheck %s --check-prefix=DCE

func.func @main(%A: memref<8xf32>, %B: memref<8xf32>) {
  %T = block.alloc : memref<8xf32>
  %unused = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      %a2 = block.load %A[%vi] : memref<8xf32>
      %s = arith.addf %a, %a2 : f32
      block.store %s, %T[%vi] : memref<8xf32>
      %t = block.load %T[%vi] : memref<8xf32>
      block.store %s, %T[%vi] : memref<8xf32>
      %t2 = block.load %T[%vi] : memref<8xf32>
      %dead = block.load %B[%vi] : memref<8xf32>
      %u = arith.addf %t, %t2 : f32
      block.store %u, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// Two loads of A[vi] with nothing written between them: one load.
// CSE:      %a = block.load %A[%vi] : memref<8xf32>
// CSE-NEXT: %s = arith.addf %a, %a : f32
// The store to T between the two loads of T[vi] keeps them apart.
// CSE-NEXT: block.store %s, %T[%vi] : memref<8xf32>
// CSE-NEXT: %t = block.load %T[%vi] : memref<8xf32>
// CSE-NEXT: block.store %s, %T[%vi] : memref<8xf32>
// CSE-NEXT: %t2 = block.load %T[%vi] : memref<8xf32>

// DCE:     %T = block.alloc
// DCE:     %unused = block.alloc
// DCE:     %a2 = block.load %A[%vi]
// DCE:     %t2 = block.load %T[%vi]
// DCE-NOT: %dead
// DCE:     block.store %u, %B[%vi]
