// RUN: xtir-opt %s | xtir-opt | filecheck %s
// A name hint ending in `_<digits>` loses those underscores (`%x_1_0`, which xDSL's parser
// reads as the hint `x_1`, prints as `%x1`) so it cannot clash with the printer's own
// `%x_1`; a hint left without a leading letter or `_` (`%_1_2`, read as `_1`, would become
// `1`, not a valid name; it used to end in a ValueError) is dropped and the value prints
// numbered.

// CHECK:      func.func @main(%0: memref<4xf32>, %x1: memref<4xf32>, %_: memref<4xf32>) {
// CHECK-NEXT:   %1 = block.load %0[0] : memref<4xf32>
// CHECK-NEXT:   block.store %1, %x1[1] : memref<4xf32>
func.func @main(%_1_2: memref<4xf32>, %x_1_0: memref<4xf32>, %__1: memref<4xf32>) {
  %_3 = block.load %_1_2[0] : memref<4xf32>
  block.store %_3, %x_1_0[1] : memref<4xf32>
  func.return
}
