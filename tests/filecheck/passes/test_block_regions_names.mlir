// The regions test-block-regions attaches name the iteration variables as the printed IR
// does: the second block's `%vi` prints as `%vi_1`, and its regions say `vi_1`.
// RUN: xtir-opt %s -p test-block-regions | filecheck %s

func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 4 "j" {
    block.block "C"(%vi = spatial(8, %j * 2)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// CHECK:      block.block "B"(%vi = spatial(8, %i)) {
// CHECK:      } attributes {reads = ["A[vi]"], writes = ["B[vi]"]}
// CHECK:      block.block "C"(%vi_1 = spatial(8, %j * 2)) {
// CHECK-NEXT:   %b = block.load %B[%vi_1] : memref<8xf32>
// CHECK-NEXT:   block.store %b, %C[%vi_1] : memref<8xf32>
// CHECK-NEXT: } attributes {reads = ["B[vi_1]"], writes = ["C[vi_1]"]}
