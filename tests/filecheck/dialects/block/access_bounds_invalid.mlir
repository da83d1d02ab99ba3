// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// An access whose index can leave its buffer, for some value of the loop and block variables
// it uses (block variables range over the block's domain), is refused. Under a block
// predicate (`where`) only the points where it holds run: the index, in the loops the block
// is bound to, is refused at one of them where it leaves.

func.func @past_the_end(%A: memref<10xf32>, %B: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.load' op block.load on %A: index 0 ranges over [3, 10], outside the dimension's [0, 9]}}
      %a = block.load %A[%vi + 3] : memref<10xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

func.func @negative(%A: memref<8x8xf32>, %B: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.load' op block.load on %A: index 1 ranges over [-1, 6], outside the dimension's [0, 7]}}
      %a = block.load %A[%vi, %vi - 1] : memref<8x8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A loop variable used directly (inside a block's body) is bounded by its extent.
func.func @loop_inside_block(%A: memref<4x16xf32>, %B: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      %cst = arith.constant 0.0 : f32
      block.for %j = 0 to 16 "j" {
        // expected-error @+1 {{'block.store' op block.store on %A: index 1 ranges over [0, 30], outside the dimension's [0, 15]}}
        block.store %cst, %A[%vi, %j * 2] : memref<4x16xf32>
      }
      %a = block.load %A[%vi, 0] : memref<4x16xf32>
      block.store %a, %B[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// A 16x16 region of accel.fill_zero that starts at row 8 of 16.
func.func @accel_region(%C: memref<16x16xf32, "global.accumulator">) {
  block.for %i = 0 to 2 "i" {
    block.block "Z"(%vi = spatial(2, %i)) {
      // expected-error @+1 {{'accel.fill_zero' op accel.fill_zero on %C: index 0 ranges over [0, 23], outside the dimension's [0, 15]}}
      accel.fill_zero %C[%vi * 8 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">
    }
  }
  func.return
}

// -----

// Under a predicate that lets the index leave: i < 7 runs A[vi + 4] at 10.
func.func @predicate_too_weak(%A: memref<10xf32>, %B: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) where(%i < 7) {
      // expected-error @+1 {{'block.load' op block.load on %A: index 0 is 10 at i = 6, where the predicate holds; outside the dimension's [0, 9]}}
      %a = block.load %A[%vi + 4] : memref<10xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Under a predicate: only i < 6 runs, so A[vi + 4] stays within A (accepted, no diagnostic).
func.func @predicated(%A: memref<10xf32>, %B: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) where(%i < 6) {
      %a = block.load %A[%vi + 4] : memref<10xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}
