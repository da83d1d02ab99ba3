// RUN: xtir-opt %s -p legalize-tensor --split-input-file | filecheck %s
// legalize-tensor (TVM's LegalizeOps / call_te, FuseTIR for fused operators): each graph op
// and each call of a fused operator becomes a block function built from xtir.topi, and the
// graph function a host function over memrefs (inputs, hoisted constants, then the results
// as output buffers) that allocates the intermediates and calls the block functions in order.

// Seed 003's MLP after fuse-ops, weights as parameters: a fused dense + bias + relu is ONE
// function of two blocks (the reduction into a scratch buffer, the bias and relu inlined into
// one epilogue block); the second layer's result is written straight into the output buffer.
// CHECK-LABEL: func.func @fused_dense_add_relu(%x: memref<2x6xf32>, %w0: memref<4x6xf32>, %b0: memref<4xf32>, %T_relu: memref<2x4xf32>) {
// CHECK-NEXT:    %T_dense = block.alloc : memref<2x4xf32>
// CHECK-NEXT:    block.for %i = 0 to 2 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.for %k = 0 to 6 "k" {
// CHECK-NEXT:          block.block "T_dense"(%vi = spatial(2, %i), %vj = spatial(4, %j), %vk = reduce(6, %k)) {
// CHECK-NEXT:            block.init {
// CHECK-NEXT:              %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:              block.store %zero, %T_dense[%vi, %vj] : memref<2x4xf32>
// CHECK-NEXT:            }
// CHECK-NEXT:            %t_dense = block.load %T_dense[%vi, %vj] : memref<2x4xf32>
// CHECK-NEXT:            %0 = block.load %x[%vi, %vk] : memref<2x6xf32>
// CHECK-NEXT:            %1 = block.load %w0[%vj, %vk] : memref<4x6xf32>
// CHECK-NEXT:            %2 = arith.mulf %0, %1 : f32
// CHECK-NEXT:            %3 = arith.addf %t_dense, %2 : f32
// CHECK-NEXT:            block.store %3, %T_dense[%vi, %vj] : memref<2x4xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    block.for %i0 = 0 to 2 "i0" {
// CHECK-NEXT:      block.for %i1 = 0 to 4 "i1" {
// CHECK-NEXT:        block.block "T_relu"(%vi0 = spatial(2, %i0), %vi1 = spatial(4, %i1)) {
// CHECK-NEXT:          %t_dense_1 = block.load %T_dense[%vi0, %vi1] : memref<2x4xf32>
// CHECK-NEXT:          %4 = block.load %b0[%vi1] : memref<4xf32>
// CHECK-NEXT:          %5 = arith.addf %t_dense_1, %4 : f32
// CHECK-NEXT:          %6 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:          %7 = arith.maximumf %5, %6 : f32
// CHECK-NEXT:          block.store %7, %T_relu[%vi0, %vi1] : memref<2x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @fused_dense_add(%lv2: memref<2x4xf32>, %w1: memref<3x4xf32>, %b1: memref<3xf32>, %T_add: memref<2x3xf32>) {
// CHECK:         block.block "T_dense"(
// CHECK:         block.block "T_add"(
// CHECK:       func.func @mlp(%x: memref<2x6xf32>, %w0: memref<4x6xf32>, %b0: memref<4xf32>, %w1: memref<3x4xf32>, %b1: memref<3xf32>, %out: memref<2x3xf32>) {
// CHECK-NEXT:    %lv2 = block.alloc : memref<2x4xf32>
// CHECK-NEXT:    func.call @fused_dense_add_relu(%x, %w0, %b0, %lv2) : (memref<2x6xf32>, memref<4x6xf32>, memref<4xf32>, memref<2x4xf32>) -> ()
// CHECK-NEXT:    func.call @fused_dense_add(%lv2, %w1, %b1, %out) : (memref<2x4xf32>, memref<3x4xf32>, memref<3xf32>, memref<2x3xf32>) -> ()
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NOT:   xtir.primitive
func.func @mlp(%x: tensor<2x6xf32>, %w0: tensor<4x6xf32>, %b0: tensor<4xf32>, %w1: tensor<3x4xf32>, %b1: tensor<3xf32>) -> tensor<2x3xf32> {
  %lv2 = func.call @fused_dense_add_relu(%x, %w0, %b0) : (tensor<2x6xf32>, tensor<4x6xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %lv4 = func.call @fused_dense_add(%lv2, %w1, %b1) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %lv4 : tensor<2x3xf32>
}
func.func private @fused_dense_add_relu(%x: tensor<2x6xf32>, %w0: tensor<4x6xf32>, %b0: tensor<4xf32>) -> tensor<2x4xf32> attributes {xtir.primitive, xtir.op_pattern = "out_elemwise_fusable"} {
  %lv0 = tensor.dense %x, %w0 : tensor<2x6xf32>, tensor<4x6xf32> -> tensor<2x4xf32>
  %lv1 = tensor.add %lv0, %b0 : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %lv2 = tensor.relu %lv1 : tensor<2x4xf32> -> tensor<2x4xf32>
  func.return %lv2 : tensor<2x4xf32>
}
func.func private @fused_dense_add(%lv2: tensor<2x4xf32>, %w1: tensor<3x4xf32>, %b1: tensor<3xf32>) -> tensor<2x3xf32> attributes {xtir.primitive, xtir.op_pattern = "out_elemwise_fusable"} {
  %lv3 = tensor.dense %lv2, %w1 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<2x3xf32>
  %lv4 = tensor.add %lv3, %b1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  func.return %lv4 : tensor<2x3xf32>
}

// -----

// Constant weights are hoisted to parameters after the inputs, named after the constants; a
// constant used only as a dense's weight is hoisted transposed (Wᵀ, [K, N]), so that the
// block function reads it along N, the vector axis of its schedule: the dense is a matmul.
// CHECK-LABEL: func.func @dense(%x: memref<2x3xf32>, %w: memref<3x4xf32>, %T_matmul: memref<2x4xf32>) {
// CHECK:         %1 = block.load %w[%vk, %vj] : memref<3x4xf32>
// CHECK-LABEL: func.func @add(%y: memref<2x4xf32>, %b: memref<4xf32>, %T_add: memref<2x4xf32>) {
// CHECK-LABEL: func.func @main(%x: memref<2x3xf32>, %w: memref<3x4xf32>, %b: memref<4xf32>, %out: memref<2x4xf32>) {
// CHECK-NEXT:    %y = block.alloc : memref<2x4xf32>
// CHECK-NEXT:    func.call @dense(%x, %w, %y) : (memref<2x3xf32>, memref<3x4xf32>, memref<2x4xf32>) -> ()
// CHECK-NEXT:    func.call @add(%y, %b, %out) : (memref<2x4xf32>, memref<4xf32>, memref<2x4xf32>) -> ()
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [-1.0, 0.5, 2.0], [0.0, 1.0, 0.0]]> : tensor<4x3xf32>
  %b = arith.constant dense<[0.5, -0.5, 1.0, 0.0]> : tensor<4xf32>
  %y = tensor.dense %x, %w : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %z = tensor.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  func.return %z : tensor<2x4xf32>
}

// -----

// Ops that build the same function share it; one of another shape gets its own (@relu_1).
// A result is computed straight into its output buffer, also when it is read later (%b, %z);
// a result that is an input, or a value returned a second time, is copied into its buffer.
// CHECK-LABEL: func.func @relu(%x: memref<4xf32>, %T_relu: memref<4xf32>) {
// CHECK-LABEL: func.func @reshape(%b: memref<4xf32>, %T_reshape: memref<2x2xf32>) {
// CHECK:         block.load %b[%vi0 * 2 + %vi1] : memref<4xf32>
// CHECK-LABEL: func.func @relu_1(%z: memref<2x2xf32>, %T_relu: memref<2x2xf32>) {
// CHECK-LABEL: func.func @copy(%src: memref<4xf32>, %T_copy: memref<4xf32>) {
// CHECK-LABEL: func.func @copy_1(%src: memref<2x2xf32>, %T_copy: memref<2x2xf32>) {
// CHECK-LABEL: func.func @shared(%x: memref<4xf32>, %out0: memref<4xf32>, %out1: memref<2x2xf32>, %out2: memref<4xf32>, %out3: memref<2x2xf32>, %out4: memref<2x2xf32>) {
// CHECK-NEXT:    %a = block.alloc : memref<4xf32>
// CHECK-NEXT:    func.call @relu(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    func.call @relu(%a, %out2) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    func.call @reshape(%out2, %out3) : (memref<4xf32>, memref<2x2xf32>) -> ()
// CHECK-NEXT:    func.call @relu_1(%out3, %out1) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
// CHECK-NEXT:    func.call @copy(%x, %out0) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    func.call @copy_1(%out1, %out4) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
// CHECK-NEXT:    func.return
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = tensor.relu %x : tensor<4xf32> -> tensor<4xf32>
  %b = tensor.relu %a : tensor<4xf32> -> tensor<4xf32>
  %z = tensor.reshape %b shape [2, 2] : tensor<4xf32> -> tensor<2x2xf32>
  %r = tensor.relu %z : tensor<2x2xf32> -> tensor<2x2xf32>
  func.return %x, %r, %b, %z, %r : tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// The CNN of fuse-ops: a conv2d with its bias and relu is one function of three blocks:
// the padding (its own stage, as TVM's topi writes it), the convolution, the epilogue.
// CHECK-LABEL: func.func @fused_conv2d_bias_add_relu(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %b: memref<4xf32>, %T_relu: memref<1x4x8x8xf32>) {
// CHECK-NEXT:    %pad_temp = block.alloc : memref<1x3x10x10xf32>
// CHECK-NEXT:    %conv2d_nchw = block.alloc : memref<1x4x8x8xf32>
// CHECK:         block.block "pad_temp"(%vi0 = spatial(1, %i0), %vi1 = spatial(3, %i1), %vi2 = spatial(10, %i2), %vi3 = spatial(10, %i3)) {
// CHECK:           scf.if
// CHECK-NEXT:        block.load %x[%vi0, %vi1, %vi2 - 1, %vi3 - 1] : memref<1x3x8x8xf32>
// CHECK:         block.block "conv2d_nchw"(%vnn = spatial(1, %nn), %vff = spatial(4, %ff), %vyy = spatial(8, %yy), %vxx = spatial(8, %xx), %vrc = reduce(3, %rc), %vry = reduce(3, %ry), %vrx = reduce(3, %rx)) {
// CHECK:           block.load %pad_temp[%vnn, %vrc, %vyy + %vry, %vxx + %vrx] : memref<1x3x10x10xf32>
// CHECK:           block.load %w[%vff, %vrc, %vry, %vrx] : memref<4x3x3x3xf32>
// CHECK:         block.block "T_relu"(
// CHECK-LABEL: func.func @max_pool2d(%r: memref<1x4x8x8xf32>, %pool_max: memref<1x4x4x4xf32>) {
// CHECK:         block.block "pool_max"(
// CHECK-LABEL: func.func @flatten(%p: memref<1x4x4x4xf32>, %T_reshape: memref<1x64xf32>) {
// CHECK:         block.load %p[0, %vi1 floordiv 16, (%vi1 floordiv 4) mod 4, %vi1 mod 4] : memref<1x4x4x4xf32>
// CHECK-LABEL: func.func @cnn(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %b: memref<4xf32>, %out: memref<1x64xf32>) {
// CHECK-NEXT:    %r = block.alloc : memref<1x4x8x8xf32>
// CHECK-NEXT:    %p = block.alloc : memref<1x4x4x4xf32>
// CHECK-NEXT:    func.call @fused_conv2d_bias_add_relu(%x, %w, %b, %r)
// CHECK-NEXT:    func.call @max_pool2d(%r, %p)
// CHECK-NEXT:    func.call @flatten(%p, %out)
// CHECK-NEXT:    func.return
func.func @cnn(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x64xf32> {
  %r = func.call @fused_conv2d_bias_add_relu(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.max_pool2d %r kernel [2, 2] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %f = tensor.flatten %p : tensor<1x4x4x4xf32> -> tensor<1x64xf32>
  func.return %f : tensor<1x64xf32>
}
func.func private @fused_conv2d_bias_add_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> attributes {xtir.primitive, xtir.op_pattern = "out_elemwise_fusable"} {
  %c = tensor.conv2d %x, %w padding [1, 1, 1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  %cb = tensor.bias_add %c, %b : tensor<1x4x8x8xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  %r = tensor.relu %cb : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

// A 0-d tensor (a Python number in an imported model, `x * 2.5`) is a one-element buffer,
// broadcast like the 0-d tensor; a 0-d input or result is one element too.
// CHECK-LABEL: func.func @multiply(%x: memref<2x3xf32>, %c: memref<1xf32>, %T_multiply: memref<2x3xf32>) {
// CHECK:         %{{.*}} = block.load %c[0] : memref<1xf32>
// CHECK-LABEL: func.func @multiply_1(%s: memref<1xf32>, %c: memref<1xf32>, %T_multiply: memref<1xf32>) {
// CHECK-LABEL: func.func @scale(%x: memref<2x3xf32>, %s: memref<1xf32>, %c: memref<1xf32>, %out0: memref<2x3xf32>, %out1: memref<1xf32>) {
// CHECK-NEXT:    func.call @multiply(%x, %c, %out0)
// CHECK-NEXT:    func.call @multiply_1(%s, %c, %out1)
func.func @scale(%x: tensor<2x3xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<f32>) {
  %c = arith.constant dense<2.5> : tensor<f32>
  %y = tensor.multiply %x, %c : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %t = tensor.multiply %s, %c : tensor<f32>, tensor<f32> -> tensor<f32>
  func.return %y, %t : tensor<2x3xf32>, tensor<f32>
}

// -----

// A float16 dense multiplies and sums in float32 (as torch and numpy do; 2048 products summed
// in float16 are off by percents) and is cast back to float16 in a stage of its own.
// CHECK-LABEL: func.func @dense(%x: memref<2x8xf16>, %w: memref<4x8xf16>, %T_dense_cast: memref<2x4xf16>) {
// CHECK-NEXT:    %T_dense = block.alloc : memref<2x4xf32>
// CHECK:           block.block "T_dense"(
// CHECK:             %{{.*}} = arith.extf %{{.*}} : f16 to f32
// CHECK:             %{{.*}} = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:        %{{.*}} = arith.addf %{{.*}}, %[[P]] : f32
// CHECK:           block.block "T_dense_cast"(
// CHECK:             %{{.*}} = arith.truncf %{{.*}} : f32 to f16
func.func @half(%x: tensor<2x8xf16>, %w: tensor<4x8xf16>) -> tensor<2x4xf16> {
  %y = tensor.dense %x, %w : tensor<2x8xf16>, tensor<4x8xf16> -> tensor<2x4xf16>
  func.return %y : tensor<2x4xf16>
}

// -----

// Activations are one elementwise block each; a float16 one computes in float32 and rounds
// once (as torch), so that LLVM calls libm's tanhf / erff (no intrinsic has either). A slice
// reads begin + stride * i.
// CHECK-LABEL: func.func @gelu(%x: memref<2x8xf16>, %T_gelu: memref<2x8xf16>) {
// CHECK:           block.block "T_gelu"(
// CHECK:             %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:             %{{.*}} = math.erf %{{.*}} : f32
// CHECK:             %[[Y:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT:        block.store %[[Y]], %T_gelu[%vi0, %vi1] : memref<2x8xf16>
// CHECK-LABEL: func.func @strided_slice(%g: memref<2x8xf16>, %T_strided_slice: memref<2x3xf16>) {
// CHECK:           block.block "T_strided_slice"(%vi0 = spatial(2, %i0), %vi1 = spatial(3, %i1)) {
// CHECK-NEXT:        %{{.*}} = block.load %g[%vi0, %vi1 * 3 + 1] : memref<2x8xf16>
// CHECK-LABEL: func.func @leaky_relu(%s: memref<2x3xf16>, %T_leaky_relu: memref<2x3xf16>) {
// CHECK:             %[[C:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:        %[[S:.*]] = arith.constant 2.000000e-01 : f32
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// CHECK-NEXT:        %{{.*}} = arith.select %[[C]], %{{.*}}, %[[M]] : f32
func.func @act(%x: tensor<2x8xf16>) -> tensor<2x3xf16> {
  %g = tensor.gelu %x : tensor<2x8xf16> -> tensor<2x8xf16>
  %s = tensor.strided_slice %g begin [0, 1] end [2, 8] strides [1, 3] : tensor<2x8xf16> -> tensor<2x3xf16>
  %l = tensor.leaky_relu %s negative_slope 0.2 : tensor<2x3xf16> -> tensor<2x3xf16>
  func.return %l : tensor<2x3xf16>
}

// -----

// Booleans compare by (in)equality: cmpi eq on i1 (no sign involved).
// CHECK-LABEL: func.func @equal(%a: memref<4xi1>, %b: memref<4xi1>, %T_equal: memref<4xi1>) {
// CHECK:             %[[A:.*]] = block.load %a[%vi0] : memref<4xi1>
// CHECK-NEXT:        %[[B:.*]] = block.load %b[%vi0] : memref<4xi1>
// CHECK-NEXT:        %[[E:.*]] = arith.cmpi eq, %[[A]], %[[B]] : i1
// CHECK-NEXT:        block.store %[[E]], %T_equal[%vi0] : memref<4xi1>
func.func @same_sign(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %z = arith.constant dense<0.0> : tensor<f32>
  %a = tensor.greater %x, %z : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
  %b = tensor.greater %y, %z : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
  %e = tensor.equal %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  func.return %e : tensor<4xi1>
}

// -----

// A float16 sum adds in float32 (the init 0.0 : f32) and rounds once in T_sum_cast; a mean
// divides the float32 sum by the count before rounding; a 0-d result is a one-element buffer.
// CHECK-LABEL: func.func @sum(%x: memref<2x3xf16>, %T_sum_cast: memref<2x1xf16>) {
// CHECK:         %T_sum = block.alloc : memref<2x1xf32>
// CHECK:           block.block "T_sum"(%vi0 = spatial(2, %i0), %vi1 = spatial(1, %i1), %vk1 = reduce(3, %k1)) {
// CHECK:             %zero = arith.constant 0.000000e+00 : f32
// CHECK:           %[[X:.*]] = block.load %x[%vi0, %vk1] : memref<2x3xf16>
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %{{.*}} = arith.addf %t_sum, %[[W]] : f32
// CHECK:         block.block "T_sum_cast"(
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK-LABEL: func.func @mean(%x: memref<2x3xf16>, %T_mean: memref<1xf16>) {
// CHECK:         block.block "T_mean"(
// CHECK:           %[[N:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %{{.*}}, %[[N]] : f32
// CHECK-NEXT:      %{{.*}} = arith.truncf %[[Q]] : f32 to f16
// CHECK-LABEL: func.func @max(%x: memref<2x3xf16>, %T_max: memref<3xf16>) {
// CHECK:             %{{.*}} = arith.constant 0xfc00 : f16
// CHECK:           %{{.*}} = arith.maximumf %t_max, %{{.*}} : f16
func.func @reductions(%x: tensor<2x3xf16>) -> (tensor<2x1xf16>, tensor<f16>, tensor<3xf16>) {
  %s = tensor.sum %x axes [1] keepdims : tensor<2x3xf16> -> tensor<2x1xf16>
  %m = tensor.mean %x axes [0, 1] : tensor<2x3xf16> -> tensor<f16>
  %mx = tensor.max %x axes [0] : tensor<2x3xf16> -> tensor<3xf16>
  func.return %s, %m, %mx : tensor<2x1xf16>, tensor<f16>, tensor<3xf16>
}

// -----

// negative multiplies by -1 (0.0 becomes -0.0, as torch's); a float16 from float64 goes
// through float32, as torch converts; trunc_divide corrects the floor quotient where a
// remainder is left and the signs differ; flip reads n - 1 - i.
// CHECK-LABEL: func.func @negative(%x: memref<4xf64>, %T_negative: memref<4xf64>) {
// CHECK:           %[[M:.*]] = arith.constant -1.000000e+00 : f64
// CHECK-NEXT:      %{{.*}} = arith.mulf %{{.*}}, %[[M]] : f64
// CHECK-LABEL: func.func @astype(%n: memref<4xf64>, %T_cast: memref<4xf16>) {
// CHECK:           %[[F:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT:      %{{.*}} = arith.truncf %[[F]] : f32 to f16
// CHECK-LABEL: func.func @trunc_divide(%i: memref<4xi32>, %j: memref<4xi32>, %T_trunc_divide: memref<4xi32>) {
// CHECK:           %[[Q:.*]] = arith.floordivsi %[[A:.*]], %[[B:.*]] : i32
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[Q]], %[[B]] : i32
// CHECK-NEXT:      %[[R:.*]] = arith.cmpi ne, %[[P]], %[[A]] : i32
// CHECK:           %[[S:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[C:.*]] = arith.andi %[[R]], %[[S]] : i1
// CHECK:           %[[Q1:.*]] = arith.addi %[[Q]], %{{.*}} : i32
// CHECK-NEXT:      %{{.*}} = arith.select %[[C]], %[[Q1]], %[[Q]] : i32
// CHECK-LABEL: func.func @flip(%i: memref<4xi32>, %T_flip: memref<4xi32>) {
// CHECK:           %{{.*}} = block.load %i[-%vi0 + 3] : memref<4xi32>
func.func @conversions(%x: tensor<4xf64>, %i: tensor<4xi32>, %j: tensor<4xi32>) -> (tensor<4xf16>, tensor<4xi32>, tensor<4xi32>) {
  %n = tensor.negative %x : tensor<4xf64> -> tensor<4xf64>
  %h = tensor.astype %n : tensor<4xf64> -> tensor<4xf16>
  %t = tensor.trunc_divide %i, %j : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %f = tensor.flip %i axes [0] : tensor<4xi32> -> tensor<4xi32>
  func.return %h, %t, %f : tensor<4xf16>, tensor<4xi32>, tensor<4xi32>
}
