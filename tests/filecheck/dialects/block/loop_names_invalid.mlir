// RUN: xtir-opt %s --verify-diagnostics
// `/` separates BLOCK/LOOP in schedule handles (`loop="B/i"`), so a loop name holding one
// could never be scheduled; block names may hold it (a handle's loop is after the last `/`).

func.func @main(%A: memref<4xf32>) {
  // expected-error @+1 {{loop "i/j": a loop name cannot contain "/", which separates BLOCK/LOOP in schedule handles}}
  block.for %i = 0 to 4 "i/j" {
    block.block "x/y"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %A[%vi] : memref<4xf32>
    }
  }
  func.return
}
