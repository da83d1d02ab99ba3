// RUN: xtir-opt %s -p 'blockize{loop=i1}' | filecheck %s
// RUN: xtir-opt %s -p 'split{loop=i0 factors=-1,4},blockize{loop=i0_1}' | filecheck %s --check-prefix=SPLIT

// Blockize a block that uses its iteration variables as values (pad-einsum's A_pad: an
// if_then_else's comparison): the inner block computes them from its own and the outer block's
// variables (it crashed: "arith.cmpi does not use index expressions").
builtin.module {
  func.func @main(%A: memref<6x6xf32>, %A_pad: memref<8x8xf32>) {
    block.for %i0 = 0 to 8 "i0" {
      block.for %i1 = 0 to 8 "i1" {
        block.block "A_pad"(%v0 = spatial(8, %i0), %v1 = spatial(8, %i1)) {
          %n = arith.constant 6 : index
          %in0 = arith.cmpi slt, %v0, %n : index
          %in1 = arith.cmpi slt, %v1, %n : index
          %in = arith.andi %in0, %in1 : i1
          %x = scf.if %in -> (f32) {
            %a = block.load %A[%v0, %v1] : memref<6x6xf32>
            scf.yield %a : f32
          } else {
            %zero = arith.constant 0.000000e+00 : f32
            scf.yield %zero : f32
          }
          block.store %x, %A_pad[%v0, %v1] : memref<8x8xf32>
        }
      }
    }
    func.return
  }
}

// CHECK:      block.block "A_pad_o"(%[[O0:[^ ]+]] = spatial(8, %i0), %{{.*}} = spatial(1, 0)) {
// CHECK:        block.block "A_pad"(%[[I1:[^ ]+]] = spatial(8, %i1)) {
// CHECK:          arith.cmpi slt, %[[O0]], %{{.*}} : index
// CHECK-NEXT:     arith.cmpi slt, %[[I1]], %{{.*}} : index
// CHECK:          block.load %A[%[[O0]], %[[I1]]]

// SPLIT:      block.block "A_pad_o"(%[[O0:[^ ]+]] = spatial(2, %{{.*}}), %{{.*}} = spatial(1, 0)) {
// SPLIT:        block.block "A_pad"(%[[I0:[^ ]+]] = spatial(4, %{{.*}}), %[[I1:[^ ]+]] = spatial(8, %i1)) {
// SPLIT:          %[[C4:.*]] = arith.constant 4 : index
// SPLIT-NEXT:     %[[M:.*]] = arith.muli %[[O0]], %[[C4]] : index
// SPLIT-NEXT:     %[[V0:.*]] = arith.addi %[[M]], %[[I0]] : index
// SPLIT-NEXT:     arith.cmpi slt, %[[V0]], %{{.*}} : index
// SPLIT-NEXT:     arith.cmpi slt, %[[I1]], %{{.*}} : index
// SPLIT:          block.load %A[%[[O0]] * 4 + %[[I0]], %[[I1]]]
