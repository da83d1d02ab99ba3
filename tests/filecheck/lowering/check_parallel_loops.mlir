// RUN: xtir-opt %s --split-input-file -p check-parallel-loops --verify-diagnostics | filecheck %s
// check-parallel-loops (a stage of lower-blocks, after inline-blocks and compact-buffers):
// a parallel loop two of whose iterations touch one element that one of them writes is
// refused; iterations that write disjoint elements pass unchanged. It runs on loop nests
// whose blocks are inlined, as here.

func.func @racing(%U: memref<17xf32>) {
  // expected-error @+1 {{check-parallel-loops: parallel loop "i" would race: block "B" writes an element of U in iteration 15 of loop "i" that block "B" reads in iteration 14}}
  block.for %i = 0 to 16 "i" parallel {
    %u = block.load %U[15 - %i] {xtir.block = "B"} : memref<17xf32>
    block.store %u, %U[16 - %i] {xtir.block = "B"} : memref<17xf32>
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @disjoint
// CHECK-NEXT:    block.for %i = 0 to 16 "i" parallel {
func.func @disjoint(%U: memref<16xf32>, %V: memref<16xf32>) {
  block.for %i = 0 to 16 "i" parallel {
    %u = block.load %U[%i] {xtir.block = "B"} : memref<16xf32>
    block.store %u, %V[%i] {xtir.block = "B"} : memref<16xf32>
  }
  func.return
}

// -----

// expected-error @+1 {{check-parallel-loops: function @blocks still has blocks; the pass runs on loop nests whose blocks are inlined (after inline-blocks)}}
func.func @blocks(%U: memref<16xf32>) {
  block.for %i = 0 to 16 "i" parallel {
    block.block "B"(%vi = spatial(16, %i)) {
      %u = block.load %U[%vi] : memref<16xf32>
      block.store %u, %U[%vi] : memref<16xf32>
    }
  }
  func.return
}
