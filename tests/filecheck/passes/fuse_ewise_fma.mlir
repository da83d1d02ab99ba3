// RUN: xtir-opt %s -p fuse-ewise-fma | filecheck %s
// fuse-ewise-fma (seed 003's EwiseFMARewriter): add(multiply(a, b), c) -> ewise_fma(a, b, c).

// The seed's example: gv0 = add(lv0, y) with lv0 = multiply(x, y). The multiply had no
// other user, so it goes with the add.
// CHECK-LABEL: func.func @seed
// CHECK-NEXT:    %gv0 = tensor.ewise_fma %x, %y, %y : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %gv0 : tensor<3x4xf32>
func.func @seed(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %lv0 = tensor.multiply %x, %y : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %gv0 = tensor.add %lv0, %y : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  func.return %gv0 : tensor<3x4xf32>
}

// A multiply that another op still uses stays for it; add commutes, so a product on its
// right fuses too.
// CHECK-LABEL: func.func @shared_multiply
// CHECK-NEXT:    %m = tensor.multiply %x, %y
// CHECK-NEXT:    %s = tensor.ewise_fma %x, %y, %c : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    %r = tensor.relu %m
// CHECK-NEXT:    func.return %s, %r
func.func @shared_multiply(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %m = tensor.multiply %x, %y : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %s = tensor.add %c, %m : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %r = tensor.relu %m : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return %s, %r : tensor<3x4xf32>, tensor<3x4xf32>
}

// Broadcasting operands keep their shapes; the fma's result is the add's.
// When both sides are products, the left one fuses and the right one is the addend.
// CHECK-LABEL: func.func @broadcast_and_two_products
// CHECK-NEXT:    %n = tensor.multiply %c, %c : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %s = tensor.ewise_fma %row, %col, %n : tensor<8xf32>, tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %s
func.func @broadcast_and_two_products(%row: tensor<8xf32>, %col: tensor<4x1xf32>, %c: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %m = tensor.multiply %row, %col : tensor<8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %n = tensor.multiply %c, %c : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
  %s = tensor.add %m, %n : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  func.return %s : tensor<4x8xf32>
}

// An add of the same product twice: a*b + a*b, the multiply stays as the addend.
// CHECK-LABEL: func.func @square_sum
// CHECK-NEXT:    %m = tensor.multiply %x, %y
// CHECK-NEXT:    %s = tensor.ewise_fma %x, %y, %m
func.func @square_sum(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %m = tensor.multiply %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %s = tensor.add %m, %m : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// Nothing to fuse: a multiply after the add, a subtract of a product, and a dead op the
// pass leaves to dce.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %dead = tensor.relu %x
// CHECK-NEXT:    %a = tensor.add %x, %y
// CHECK-NEXT:    %m = tensor.multiply %a, %y
// CHECK-NEXT:    %d = tensor.subtract %m, %x
// CHECK-NEXT:    func.return %d
func.func @untouched(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %dead = tensor.relu %x : tensor<4xf32> -> tensor<4xf32>
  %a = tensor.add %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %m = tensor.multiply %a, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %d = tensor.subtract %m, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
