// xtir-opt's -t offers the targets that apply to xtir programs (issue 14), and --help lists
// xtir's passes with a summary each.
// RUN: xtir-opt %s -t llvm | FileCheck %s --check-prefix=LLVM
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,4},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}' -t cuda | FileCheck %s --check-prefix=CUDA
// RUN: not xtir-opt %s -t cuda 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not xtir-opt %s -t wgsl 2>&1 | FileCheck %s --check-prefix=WGSL
// RUN: xtir-opt --help | FileCheck %s --check-prefix=HELP

func.func @main(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      %b = arith.addf %a, %a : f32
      block.store %b, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}

// LLVM: define void @"xtir.main"(ptr noalias
// LLVM: fadd contract float
// CUDA: extern "C" __global__ void __launch_bounds__(4) main_kernel(float* __restrict__ A)
// CUDA: main_kernel<<<dim3(2, 1, 1), dim3(4, 1, 1)>>>(A);
// HOST: loop 'i' is not bound to a GPU thread axis
// WGSL: invalid choice: 'wgsl' (choose from mlir, llvm, cuda)
// HELP: -t TARGET, --target TARGET
// HELP-NEXT: Available targets are:
// HELP-NEXT: mlir,llvm,cuda
// HELP: xtir's passes (xtir-opt --help-pass NAME
// HELP: compute-at {{ +}}compute-at{block=B loop=L
// HELP: split {{ +}}split{loop=L factors=F0,F1,...}: split a loop into nested loops
