// RUN: not xtir-opt %s --split-input-file -p lower-blocks 2>&1 | filecheck %s
// What lower-blocks refuses, before changing anything: ops outside the block, accel,
// arith, math, scf and memref dialects, and top-level ops other than functions.

func.func @graph(%A: memref<4xf32>, %B: memref<4xf32>) {
  // CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 3]]:3: error: 'tensor.empty' op inline-blocks: unexpected op tensor.empty; it lowers the block, accel, arith, math, scf and memref dialects only
  // CHECK-NEXT: {{^}}  %t = tensor.empty() : tensor<4xf32>
  // CHECK-NEXT: {{^}}  ^
  %t = tensor.empty() : tensor<4xf32>
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %B[%vi] : memref<4xf32>
    }
  }
  func.return
}


// -----

// CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 1]]:1: error: 'memref.global' op inline-blocks: unexpected op memref.global at the top level; it lowers functions only
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<4xf32>, initial_value = dense<1.000000e+00> : tensor<4xf32>, constant}> : () -> ()

// -----

// A parallel loop written by hand whose iterations share an element one of them writes (the
// parallel primitive refuses it; parallel_invalid.mlir): a race, refused.
func.func @racing_parallel_loop(%U: memref<17xf32>) {
  // CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 1]]:3: error: 'block.for' op check-parallel-loops: parallel loop "i" would race: block "B" writes an element of U in iteration 15 of loop "i" that block "B" reads in iteration 14
  block.for %i = 0 to 16 "i" parallel {
    block.block "B"(%vi = spatial(16, %i)) {
      %u = block.load %U[15 - %vi] : memref<17xf32>
      %one = arith.constant 1.000000e+00 : f32
      %s = arith.addf %u, %one : f32
      block.store %s, %U[16 - %vi] : memref<17xf32>
    }
  }
  func.return
}

// -----

// Under an scf.if written by hand (the verifier leaves it to lower-blocks), an access that
// leaves its buffer where the condition holds is refused, with the point.
func.func @guard_too_weak(%A: memref<10xf32>, %B: memref<10xf32>) {
  %c12 = arith.constant 12 : index
  block.for %t = 0 to 16 "t" {
    %in = arith.cmpi slt, %t, %c12 : index
    scf.if %in {
      block.block "g"(%vt = spatial(12, %t)) {
        // CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 1]]:9: error: 'block.load' op check-bounds: block.load on %A in block "g": index 0 is 10 at t = 10, outside [0, 9]
        %a = block.load %A[%vt] : memref<10xf32>
        block.store %a, %B[%vt] : memref<10xf32>
      }
    }
  }
  func.return
}

// -----

// A condition lower-blocks cannot read (a value loaded from memory): the access cannot be shown
// inside its buffer, and is refused unless every access is checked at run time
// (lower_blocks_bounds_check.mlir).
func.func @unknown_guard(%A: memref<10xf32>, %B: memref<10xf32>, %N: memref<1xindex>) {
  %n = block.load %N[0] : memref<1xindex>
  block.for %t = 0 to 16 "t" {
    %in = arith.cmpi slt, %t, %n : index
    scf.if %in {
      block.block "g"(%vt = spatial(16, %t)) {
        // CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 1]]:9: error: 'block.load' op check-bounds: block.load on %A in block "g": cannot show that index 0 stays in [0, 9] under the conditions around it; build with bounds_check=True to check it at run time
        %a = block.load %A[%vt] : memref<10xf32>
        block.store %a, %B[%vt] : memref<10xf32>
      }
    }
  }
  func.return
}
