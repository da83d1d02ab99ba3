// RUN: not xtir-opt %s --split-input-file -p lower-blocks 2>&1 | filecheck %s
// What lower-blocks refuses, before changing anything: ops outside the block, accel,
// arith, math, scf and memref dialects, and top-level ops other than functions.

func.func @graph(%A: memref<4xf32>, %B: memref<4xf32>) {
  // CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 1]]:3: error: 'tensor.empty' op lower-blocks: unexpected op tensor.empty; it lowers the block, accel, arith, math, scf and memref dialects only
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

func.func @kernel(%A: memref<4xf32>) {
  func.return
}

func.func @caller(%A: memref<4xf32>) {
  // CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 1]]:3: error: 'func.call' op lower-blocks: unexpected op func.call; it lowers the block, accel, arith, math, scf and memref dialects only
  func.call @kernel(%A) : (memref<4xf32>) -> ()
  func.return
}

// -----

// CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 1]]:1: error: 'memref.global' op lower-blocks: unexpected op memref.global at the top level; it lowers functions only
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<4xf32>, initial_value = dense<1.000000e+00> : tensor<4xf32>, constant}> : () -> ()

// -----

// A parallel loop written by hand whose iterations share an element one of them writes (the
// parallel primitive refuses it; parallel_invalid.mlir): a race, refused.
func.func @racing_parallel_loop(%U: memref<17xf32>) {
  // CHECK: {{.*}}lower_blocks_invalid.mlir:[[# @LINE + 1]]:3: error: 'block.for' op lower-blocks: parallel loop "i" would race: block "B" writes an element of U in iteration 15 of loop "i" that block "B" reads in iteration 14
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
