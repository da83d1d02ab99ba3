// RUN: xtir-opt %s --split-input-file -p check-bounds --verify-diagnostics
// check-bounds (a stage of lower-blocks, on loop nests whose blocks are inlined) refuses an
// access that leaves its buffer at some point, with the point, and one that cannot be shown
// either way (check_bounds.mlir checks that one at run time instead).

// Under an scf.if (which the verifier leaves to this stage) that is too weak.
func.func @leaves(%A: memref<10xf32>, %B: memref<12xf32>) {
  %c12 = arith.constant 12 : index
  block.for %t = 0 to 16 "t" {
    %in = arith.cmpi slt, %t, %c12 : index
    scf.if %in {
      // expected-error @+1 {{check-bounds: block.load on %A in block "g": index 0 is 10 at t = 10, outside [0, 9]}}
      %a = block.load %A[%t] {xtir.block = "g"} : memref<10xf32>
      block.store %a, %B[%t] {xtir.block = "g"} : memref<12xf32>
    }
  }
  func.return
}

// -----

// A condition read from memory.
func.func @unknown(%A: memref<10xf32>, %B: memref<16xf32>, %N: memref<1xindex>) {
  %n = block.load %N[0] : memref<1xindex>
  block.for %t = 0 to 16 "t" {
    %in = arith.cmpi slt, %t, %n : index
    scf.if %in {
      // expected-error @+1 {{check-bounds: block.load on %A in block "g": cannot show that index 0 stays in [0, 9] under the conditions around it; build with bounds_check=True to check it at run time}}
      %a = block.load %A[%t] {xtir.block = "g"} : memref<10xf32>
      block.store %a, %B[%t] {xtir.block = "g"} : memref<16xf32>
    }
  }
  func.return
}
