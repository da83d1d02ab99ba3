// A loop's SSA name is its label where xDSL allows it: `.`, `-` and `$` stay (`%i.o0` for loop
// "i.o_0"); a trailing `_<digits>` cannot (xDSL's printer strips it to number values apart), nor
// can a space, `/` or a non-ASCII letter, which become `_`.
// RUN: xtir-opt %s -p 'split{loop="i.o" factors=2,1},split{loop="k-1" factors=2,2},fuse{loops="i.o_1","j x"}' | filecheck %s
// RUN: xtir-opt %s -p 'split{loop="i.o" factors=2,1},split{loop="k-1" factors=2,2},fuse{loops="i.o_1","j x"}' | xtir-opt | filecheck %s

func.func @main(%A: memref<8x4x4xf32>) {
  block.for %a = 0 to 2 "i.o" {
    block.for %b = 0 to 4 "j x" {
      block.for %c = 0 to 4 "k-1" {
        block.block "B"(%vi = spatial(8, %a * 4 + %b), %vj = spatial(4, %b), %vk = spatial(4, %c)) {
          %x = block.load %A[%vi, %vj, %vk] : memref<8x4x4xf32>
          block.store %x, %A[%vi, %vj, %vk] : memref<8x4x4xf32>
        }
      }
    }
  }
  func.return
}

// CHECK:      block.for %i.o0 = 0 to 2 "i.o_0" {
// CHECK-NEXT:   block.for %i.o_1_j_x_fused = 0 to 4 "i.o_1_j x_fused" {
// CHECK-NEXT:     block.for %k-10 = 0 to 2 "k-1_0" {
// CHECK-NEXT:       block.for %k-11 = 0 to 2 "k-1_1" {
