// An integer division by data goes through a helper that checks the divisor, reports the op's
// site (here 1) on the error channel and gives 0: no trap, no undefined behaviour. A remainder by
// the constant 8 cannot be undefined and stays a plain `%`.
// RUN: xtir-translate %s -p 'split{loop=i factors=-1,32},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}' --target cuda | filecheck %s

// CHECK:      __device__ unsigned int xtir_error;
// CHECK-NEXT: __device__ long long xtir_error_operands[2];
// CHECK-NEXT: __device__ __forceinline__ bool xtir_report(unsigned int site, long long a, long long b) {
// CHECK-NEXT:   if (atomicCAS(&xtir_error, 0u, site) == 0u) {
// CHECK-NEXT:     xtir_error_operands[0] = a;
// CHECK-NEXT:     xtir_error_operands[1] = b;
// CHECK-NEXT:   }
// CHECK-NEXT:   return false;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: template <typename T> __device__ __forceinline__ bool xtir_divisible(T a, T b, unsigned int site) {
// CHECK-NEXT:   return (b != 0 && (b != -1 || (unsigned long long)a != ~0ULL << (sizeof(T) * 8 - 1)))
// CHECK-NEXT:          || xtir_report(site, (long long)a, (long long)b);
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: template <typename T> __device__ __forceinline__ T xtir_div(T a, T b, unsigned int site) {
// CHECK-NEXT:   return xtir_divisible(a, b, site) ? (T)(a / b) : (T)0;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: extern "C" __global__ void __launch_bounds__(32) main_kernel(const int* __restrict__ A, const int* __restrict__ B, int* __restrict__ C, int* __restrict__ D) {
// CHECK-NEXT:   const int i_0 = (int)blockIdx.x;
// CHECK-NEXT:   const int i_1 = (int)threadIdx.x;
// CHECK-NEXT:   const int v = i_0 * 32 + i_1;
// CHECK-NEXT:   const int a = A[v];
// CHECK-NEXT:   C[v] = xtir_div<int>(a, B[v], 1);
// CHECK-NEXT:   D[v] = a % 8;
// CHECK-NEXT: }

builtin.module {
  func.func @main(%A: memref<128xi32>, %B: memref<128xi32>, %C: memref<128xi32>, %D: memref<128xi32>) {
    block.for %i = 0 to 128 "i" {
      block.block "C"(%vi = spatial(128, %i)) {
        %a = block.load %A[%vi] : memref<128xi32>
        %b = block.load %B[%vi] : memref<128xi32>
        %c = arith.divsi %a, %b : i32
        block.store %c, %C[%vi] : memref<128xi32>
        %c8 = arith.constant 8 : i32
        %d = arith.remsi %a, %c8 : i32
        block.store %d, %D[%vi] : memref<128xi32>
      }
    }
    func.return
  }
}
