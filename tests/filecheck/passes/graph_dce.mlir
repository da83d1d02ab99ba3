// RUN: xtir-opt %s -p dce | filecheck %s
// RUN: xtir-opt %s -p fuse-ewise-fma,dce,fuse-ops | filecheck %s --check-prefix=PIPE
// xDSL's dce removes graph ops whose values nobody uses (they are Pure), constants included.

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %m = tensor.multiply %x, %y
// CHECK-NEXT:    %s = tensor.add %m, %y
// CHECK-NEXT:    func.return %s
// CHECK-NEXT:  }
// The graph pipeline: the fma replaces the add, dce drops the dead branch, and the fma
// stays a single op (no other graph op to fuse with).
// PIPE-LABEL: func.func @main
// PIPE-NEXT:    %s = tensor.ewise_fma %x, %y, %y
// PIPE-NEXT:    func.return %s
// PIPE-NEXT:  }
// PIPE-NOT:   func.func
func.func @main(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %w = arith.constant dense<1.0> : tensor<4x4xf32>
  %dead = tensor.matmul %x, %w : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %also_dead = tensor.softmax %dead axis 1 : tensor<3x4xf32> -> tensor<3x4xf32>
  %m = tensor.multiply %x, %y : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %s = tensor.add %m, %y : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  func.return %s : tensor<3x4xf32>
}
