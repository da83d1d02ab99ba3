// On the GPU, exp, erf and tanh stay CUDA's own expf / erff / tanhf (lowering/vector_math.py's
// double-precision exp and erf and libmvec's tanh are the CPU target's).
// RUN: xtir-translate %s -p 'split{loop=i factors=-1,32},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}' --target cuda | filecheck %s

// CHECK:        const float a = A[v];
// CHECK-NEXT:   B[v] = expf(a);
// CHECK-NEXT:   B[64 + v] = erff(a);
// CHECK-NEXT:   B[128 + v] = tanhf(a);
// CHECK-NEXT: }
// CHECK-NOT:  double

builtin.module {
  func.func @main(%A: memref<64xf32>, %B: memref<3x64xf32>) {
    block.for %i = 0 to 64 "i" {
      block.block "B"(%vi = spatial(64, %i)) {
        %a = block.load %A[%vi] : memref<64xf32>
        %e = math.exp %a : f32
        block.store %e, %B[0, %vi] : memref<3x64xf32>
        %r = math.erf %a : f32
        block.store %r, %B[1, %vi] : memref<3x64xf32>
        %t = math.tanh %a : f32
        block.store %t, %B[2, %vi] : memref<3x64xf32>
      }
    }
    func.return
  }
}
