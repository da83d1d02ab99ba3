// RUN: xtir-opt %s -p fuse-ops | filecheck %s
// RUN: xtir-opt %s -p 'fuse-ops{max_fused_ops=2}' | filecheck %s --check-prefix=DEPTH
// fuse-ops (TVM's FuseOps): ops join their immediate post-dominator's group under TVM's
// op-pattern rules; each group of two or more ops becomes a private primitive function
// called where the group's last op was.

// Seed 003's MLP: each dense takes its bias add (and relu) as an epilogue. The bias add
// reads the dense's output elementwise (the bias is broadcast, the dense output is not),
// which is what makes it an epilogue. Constants stay outside and are passed in.
// CHECK-LABEL: func.func @mlp(
// CHECK-NEXT:    %b0 = arith.constant dense<5.000000e-01> : tensor<128xf32>
// CHECK-NEXT:    %b1 = arith.constant dense<2.500000e-01> : tensor<10xf32>
// CHECK-NEXT:    %lv2 = func.call @fused_dense_add_relu(%x, %w0, %b0) : (tensor<1x784xf32>, tensor<128x784xf32>, tensor<128xf32>) -> tensor<1x128xf32>
// CHECK-NEXT:    %lv4 = func.call @fused_dense_add(%lv2, %w1, %b1) : (tensor<1x128xf32>, tensor<10x128xf32>, tensor<10xf32>) -> tensor<1x10xf32>
// CHECK-NEXT:    func.return %lv4 : tensor<1x10xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @fused_dense_add_relu(%x: tensor<1x784xf32>, %w0: tensor<128x784xf32>, %b0: tensor<128xf32>) -> tensor<1x128xf32> attributes {xtir.primitive, xtir.op_pattern = "out_elemwise_fusable"} {
// CHECK-NEXT:    %lv0 = tensor.dense %x, %w0 : tensor<1x784xf32>, tensor<128x784xf32> -> tensor<1x128xf32>
// CHECK-NEXT:    %lv1 = tensor.add %lv0, %b0 : tensor<1x128xf32>, tensor<128xf32> -> tensor<1x128xf32>
// CHECK-NEXT:    %lv2 = tensor.relu %lv1 : tensor<1x128xf32> -> tensor<1x128xf32>
// CHECK-NEXT:    func.return %lv2 : tensor<1x128xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @fused_dense_add(%lv2: tensor<1x128xf32>, %w1: tensor<10x128xf32>, %b1: tensor<10xf32>) -> tensor<1x10xf32> attributes {xtir.primitive, xtir.op_pattern = "out_elemwise_fusable"} {
// CHECK-NEXT:    %lv3 = tensor.dense %lv2, %w1
// CHECK-NEXT:    %lv4 = tensor.add %lv3, %b1
// CHECK-NEXT:    func.return %lv4 : tensor<1x10xf32>
func.func @mlp(%x: tensor<1x784xf32>, %w0: tensor<128x784xf32>, %w1: tensor<10x128xf32>) -> tensor<1x10xf32> {
  %b0 = arith.constant dense<0.5> : tensor<128xf32>
  %b1 = arith.constant dense<0.25> : tensor<10xf32>
  %lv0 = tensor.dense %x, %w0 : tensor<1x784xf32>, tensor<128x784xf32> -> tensor<1x128xf32>
  %lv1 = tensor.add %lv0, %b0 : tensor<1x128xf32>, tensor<128xf32> -> tensor<1x128xf32>
  %lv2 = tensor.relu %lv1 : tensor<1x128xf32> -> tensor<1x128xf32>
  %lv3 = tensor.dense %lv2, %w1 : tensor<1x128xf32>, tensor<10x128xf32> -> tensor<1x10xf32>
  %lv4 = tensor.add %lv3, %b1 : tensor<1x10xf32>, tensor<10xf32> -> tensor<1x10xf32>
  func.return %lv4 : tensor<1x10xf32>
}

// conv2d + bias + relu fuse; max_pool2d is an anchor of its own (it reduces windows) and
// does not take a conv as its prologue; flatten (injective) cannot join the pool either.
// CHECK-LABEL: func.func @cnn(
// CHECK-NEXT:    %r = func.call @fused_conv2d_bias_add_relu(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %p = tensor.max_pool2d %r kernel [2, 2] strides [2, 2]
// CHECK-NEXT:    %f = tensor.flatten %p
// CHECK-NEXT:    func.return %f
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @fused_conv2d_bias_add_relu({{.*}}) -> tensor<1x4x8x8xf32> attributes {xtir.primitive, xtir.op_pattern = "out_elemwise_fusable"} {
// CHECK-NEXT:    %c = tensor.conv2d %x, %w padding [1, 1, 1, 1]
// CHECK-NEXT:    %cb = tensor.bias_add %c, %b
// CHECK-NEXT:    %r = tensor.relu %cb
// CHECK-NEXT:    func.return %r
func.func @cnn(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x64xf32> {
  %c = tensor.conv2d %x, %w padding [1, 1, 1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  %cb = tensor.bias_add %c, %b : tensor<1x4x8x8xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  %r = tensor.relu %cb : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %p = tensor.max_pool2d %r kernel [2, 2] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %f = tensor.flatten %p : tensor<1x4x4x4xf32> -> tensor<1x64xf32>
  func.return %f : tensor<1x64xf32>
}

// A diamond: the dense has two consumers, but both paths meet again at the add (its
// post-dominator) through elementwise ops only, so the whole diamond is one group.
// CHECK-LABEL: func.func @diamond(
// CHECK-NEXT:    %s = func.call @fused_dense_relu_multiply_add(%x, %w)
// CHECK-NEXT:    func.return %s
// CHECK:       func.func private @fused_dense_relu_multiply_add(
// CHECK-NEXT:    %h = tensor.dense %x, %w
// CHECK-NEXT:    %r = tensor.relu %h
// CHECK-NEXT:    %m = tensor.multiply %h, %h
// CHECK-NEXT:    %s = tensor.add %r, %m
// CHECK-NEXT:    func.return %s
func.func @diamond(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %h = tensor.dense %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %r = tensor.relu %h : tensor<4x8xf32> -> tensor<4x8xf32>
  %m = tensor.multiply %h, %h : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %s = tensor.add %r, %m : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %s : tensor<4x8xf32>
}

// Injective ops (transpose, reshape) join an elementwise chain (TVM's second phase).
// CHECK-LABEL: func.func @injective_chain(
// CHECK-NEXT:    %e = func.call @fused_transpose_reshape_add_relu(%x, %y)
// CHECK:       func.func private @fused_transpose_reshape_add_relu({{.*}}) -> tensor<2x16xf32> attributes {xtir.primitive, xtir.op_pattern = "injective"} {
func.func @injective_chain(%x: tensor<8x4xf32>, %y: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %t = tensor.transpose %x permutation [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %r = tensor.reshape %t shape [2, 16] : tensor<4x8xf32> -> tensor<2x16xf32>
  %a = tensor.add %r, %y : tensor<2x16xf32>, tensor<2x16xf32> -> tensor<2x16xf32>
  %e = tensor.relu %a : tensor<2x16xf32> -> tensor<2x16xf32>
  func.return %e : tensor<2x16xf32>
}

// A repeated layer (same ops, attributes and types) calls one fused function; groups
// with the same ops but other types get numbered names, as relax numbers them.
// CHECK-LABEL: func.func @repeated(
// CHECK-NEXT:    %a = func.call @fused_dense_bias_add(%x, %w, %b)
// CHECK-NEXT:    %a2 = func.call @fused_dense_bias_add(%a, %w, %b)
// CHECK-NEXT:    %a3 = func.call @fused_dense_bias_add1(%a2, %v, %c)
// CHECK-NEXT:    func.return %a3
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @fused_dense_bias_add(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32>
// CHECK:       func.func private @fused_dense_bias_add1(%a2: tensor<2x4xf32>, %v: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NOT:   func.func
func.func @repeated(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %v: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %h = tensor.dense %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a = tensor.bias_add %h, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %h2 = tensor.dense %a, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a2 = tensor.bias_add %h2, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %h3 = tensor.dense %a2, %v : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<2x3xf32>
  %a3 = tensor.bias_add %h3, %c : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  func.return %a3 : tensor<2x3xf32>
}

// Not fused: the dense feeds a relu and a softmax whose paths never meet again (both
// are returned), so the dense has no post-dominator to join.
// CHECK-LABEL: func.func @two_consumers(
// CHECK-NEXT:    %h = tensor.dense %x, %w
// CHECK-NEXT:    %r = tensor.relu %h
// CHECK-NEXT:    %s = tensor.softmax %h axis 1
// CHECK-NEXT:    func.return %r, %s
// CHECK-NEXT:  }
func.func @two_consumers(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %h = tensor.dense %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %r = tensor.relu %h : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = tensor.softmax %h axis 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r, %s : tensor<4x8xf32>, tensor<4x8xf32>
}

// A value the function returns is fused into (dense + add) but never fused from: the
// relu after it stays alone, so that the add's value still leaves the group whole.
// (@mlp already holds a fused_dense_add of other types: this one is numbered.)
// CHECK-LABEL: func.func @returned_midway(
// CHECK-NEXT:    %a = func.call @fused_dense_add1(%x, %w, %b)
// CHECK-NEXT:    %r = tensor.relu %a
// CHECK-NEXT:    func.return %a, %r
func.func @returned_midway(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %h = tensor.dense %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %a = tensor.add %h, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %r = tensor.relu %a : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %a, %r : tensor<4x8xf32>, tensor<4x8xf32>
}

// Not fused: anchors (conv2d, max_pool2d, matmul) never join each other, and a reshape
// cannot join a matmul.
// CHECK-LABEL: func.func @anchor_into_anchor(
// CHECK-NEXT:    %c = tensor.conv2d
// CHECK-NEXT:    %p = tensor.max_pool2d %c
// CHECK-NEXT:    %f = tensor.reshape %p
// CHECK-NEXT:    %m = tensor.matmul %f, %v
// CHECK-NEXT:    func.return %m
func.func @anchor_into_anchor(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %v: tensor<9x4xf32>) -> tensor<4x4xf32> {
  %c = tensor.conv2d %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  %p = tensor.max_pool2d %c kernel [2, 2] strides [2, 2] : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %f = tensor.reshape %p shape [4, 9] : tensor<1x4x3x3xf32> -> tensor<4x9xf32>
  %m = tensor.matmul %f, %v : tensor<4x9xf32>, tensor<9x4xf32> -> tensor<4x4xf32>
  func.return %m : tensor<4x4xf32>
}

// Not an epilogue: the add stretches the dense's 4x1 output to 4x16 (a broadcast edge),
// so the dense stays alone; the add and relu still fuse with each other.
// CHECK-LABEL: func.func @broadcast_epilogue(
// CHECK-NEXT:    %h = tensor.dense %x, %w
// CHECK-NEXT:    %r = func.call @fused_add_relu(%h, %b)
// CHECK:       func.func private @fused_add_relu({{.*}}) -> tensor<4x16xf32> attributes {xtir.primitive, xtir.op_pattern = "broadcast"} {
func.func @broadcast_epilogue(%x: tensor<4x8xf32>, %w: tensor<1x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %h = tensor.dense %x, %w : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x1xf32>
  %a = tensor.add %h, %b : tensor<4x1xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %r = tensor.relu %a : tensor<4x16xf32> -> tensor<4x16xf32>
  func.return %r : tensor<4x16xf32>
}

// Not fused across an opaque op (a call to an external function); declarations are skipped.
// CHECK-LABEL: func.func private @external(tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func @opaque_consumer(
// CHECK-NEXT:    %h = tensor.dense %x, %w
// CHECK-NEXT:    %e = func.call @external(%h)
// CHECK-NEXT:    %r = tensor.relu %e
// CHECK-NEXT:    func.return %r
// CHECK-NEXT:  }
func.func private @external(tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @opaque_consumer(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %h = tensor.dense %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %e = func.call @external(%h) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tensor.relu %e : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// max_fused_ops bounds a group (TVM's max_depth): a chain of five relus becomes two
// pairs (one function, called twice) and a single op.
// DEPTH-LABEL: func.func @chain(
// DEPTH-NEXT:    %b = func.call @fused_relu_relu(%x)
// DEPTH-NEXT:    %d = func.call @fused_relu_relu(%b)
// DEPTH-NEXT:    %e = tensor.relu %d
// DEPTH-NEXT:    func.return %e
// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %e = func.call @fused_relu_relu_relu_relu_relu(%x)
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tensor.relu %x : tensor<4xf32> -> tensor<4xf32>
  %b = tensor.relu %a : tensor<4xf32> -> tensor<4xf32>
  %c = tensor.relu %b : tensor<4xf32> -> tensor<4xf32>
  %d = tensor.relu %c : tensor<4xf32> -> tensor<4xf32>
  %e = tensor.relu %d : tensor<4xf32> -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// The activations are elementwise: gelu joins a dense's epilogue; strided_slice is injective
// and heads a chain of its own (an out_elemwise_fusable group takes no injective op).
// CHECK-LABEL: func.func @activations(
// CHECK-NEXT:    %g = func.call @fused_dense_add_gelu(%x, %w, %b)
// CHECK-NEXT:    %l = func.call @fused_strided_slice_tanh_leaky_relu(%g)
// CHECK:       func.func private @fused_dense_add_gelu({{.*}}) -> tensor<4x16xf32> attributes {xtir.primitive, xtir.op_pattern = "out_elemwise_fusable"} {
// CHECK:       func.func private @fused_strided_slice_tanh_leaky_relu({{.*}}) -> tensor<4x3xf32> attributes {xtir.primitive, xtir.op_pattern = "injective"} {
func.func @activations(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x3xf32> {
  %h = tensor.dense %x, %w : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %hb = tensor.add %h, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %g = tensor.gelu %hb approximate "tanh" : tensor<4x16xf32> -> tensor<4x16xf32>
  %s = tensor.strided_slice %g begin [0, 1] end [4, 16] strides [1, 5] : tensor<4x16xf32> -> tensor<4x3xf32>
  %t = tensor.tanh %s : tensor<4x3xf32> -> tensor<4x3xf32>
  %l = tensor.leaky_relu %t : tensor<4x3xf32> -> tensor<4x3xf32>
  func.return %l : tensor<4x3xf32>
}
