// RUN: not xtir-opt %s -p convert-to-llvm 2>&1 | filecheck %s
// A loop bound to a GPU thread axis cannot run on the CPU: build it for the cuda target.

func.func @bound(%A: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  // CHECK: {{.*}}to_llvm_invalid.mlir:[[# @LINE + 1]]:3: error: 'scf.for' op check-llvm-target: loop i_0 is bound to threadIdx.x; build it for the cuda target
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %one, %A[%i] : memref<64xf32>
  } {xtir.loop_name = "i_0", xtir.loop_kind = "thread_binding", xtir.thread = "threadIdx.x"}
  func.return
}
