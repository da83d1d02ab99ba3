// Floor and ceiling divisions: by a positive constant through the unchecked helpers (no error
// site), by data through the checked ones, which report the op's site on the error channel.
// ceildivui computes on the unsigned type; bitcast is CUDA's `__int_as_float` family.
// RUN: xtir-translate %s -p 'split{loop=i factors=-1,32},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}' --target cuda | filecheck %s

// CHECK:      template <typename T> __device__ __forceinline__ T xtir_ceildivu(T a, T b) {
// CHECK-NEXT:   return (T)(a / b + (a % b != 0 ? 1 : 0));
// CHECK-NEXT: }
// CHECK:      template <typename T> __device__ __forceinline__ T xtir_ceildivu_checked(T a, T b, unsigned int site) {
// CHECK-NEXT:   return xtir_nonzero(a, b, site) ? (T)(xtir_ceildivu(a, b)) : (T)0;
// CHECK-NEXT: }
// CHECK:      extern "C" __global__ void __launch_bounds__(32) main_kernel(const int* __restrict__ A, const int* __restrict__ B, int* __restrict__ C, float* __restrict__ F) {
// CHECK:        C[v * 6] = xtir_floordiv<int>(a, 3);
// CHECK-NEXT:   C[v * 6 + 1] = xtir_ceildiv<int>(a, 3);
// CHECK-NEXT:   C[v * 6 + 2] = (int)xtir_ceildivu<unsigned int>((unsigned int)a, (unsigned int)3);
// CHECK-NEXT:   C[v * 6 + 3] = xtir_floordiv_checked<int>(a, b, 1);
// CHECK-NEXT:   C[v * 6 + 4] = xtir_ceildiv_checked<int>(a, b, 2);
// CHECK-NEXT:   C[v * 6 + 5] = (int)xtir_ceildivu_checked<unsigned int>((unsigned int)a, (unsigned int)b, 3);
// CHECK-NEXT:   F[v] = __int_as_float(a);
// CHECK-NEXT: }

builtin.module {
  func.func @main(%A: memref<128xi32>, %B: memref<128xi32>, %C: memref<128x6xi32>, %F: memref<128xf32>) {
    block.for %i = 0 to 128 "i" {
      block.block "C"(%vi = spatial(128, %i)) {
        %a = block.load %A[%vi] : memref<128xi32>
        %b = block.load %B[%vi] : memref<128xi32>
        %c3 = arith.constant 3 : i32
        %r0 = arith.floordivsi %a, %c3 : i32
        block.store %r0, %C[%vi, 0] : memref<128x6xi32>
        %r1 = arith.ceildivsi %a, %c3 : i32
        block.store %r1, %C[%vi, 1] : memref<128x6xi32>
        %r2 = arith.ceildivui %a, %c3 : i32
        block.store %r2, %C[%vi, 2] : memref<128x6xi32>
        %r3 = arith.floordivsi %a, %b : i32
        block.store %r3, %C[%vi, 3] : memref<128x6xi32>
        %r4 = arith.ceildivsi %a, %b : i32
        block.store %r4, %C[%vi, 4] : memref<128x6xi32>
        %r5 = arith.ceildivui %a, %b : i32
        block.store %r5, %C[%vi, 5] : memref<128x6xi32>
        %f = arith.bitcast %a : i32 to f32
        block.store %f, %F[%vi] : memref<128xf32>
      }
    }
    func.return
  }
}
