// RUN: xtir-opt %s -p 'lower-blocks{bounds_check=true}' | filecheck %s
// lower-blocks{bounds_check=true} (xtir.build(..., bounds_check=True)) checks every access at
// run time instead of refusing the ones it cannot show inside their buffers: the access runs
// under scf.if (each index in [0, size - 1]); otherwise each index goes to
// @xtir_runtime_error(site, dimension, index), the run-time error channel, which records the first one out of range, and
// a load yields 0. The built function raises it after the call (tests/test_memory_safety.py).

// CHECK-LABEL: func.func @unknown_guard
// CHECK:         scf.for %t = %c0 to %c16 step %c1 {
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        %[[LOW:.*]] = arith.cmpi sge, %t, %c0 : index
// CHECK-NEXT:        %[[HIGH:.*]] = arith.cmpi sle, %t, %c9 : index
// CHECK-NEXT:        %[[OK:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK-NEXT:        %[[A:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT:          %[[V:.*]] = memref.load %A[%t] : memref<10xf32>
// CHECK-NEXT:          scf.yield %[[V]] : f32
// CHECK-NEXT:        } else {
// CHECK-NEXT:          func.call @xtir_runtime_error(%{{.*}}, %c0, %t) {xtir.runtime_error} : (index, index, index) -> ()
// CHECK-NEXT:          %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:          scf.yield %[[ZERO]] : f32
// CHECK-NEXT:        }
// CHECK:             scf.if %{{.*}} {
// CHECK-NEXT:          memref.store %[[A]], %B[%t] : memref<10xf32>
// CHECK-NEXT:        } else {
// CHECK-NEXT:          func.call @xtir_runtime_error(%{{.*}}, %c0, %t) {xtir.runtime_error} : (index, index, index) -> ()
// CHECK-NEXT:        }
// CHECK:       func.func private @xtir_runtime_error(index, index, index) -> () attributes {xtir.runtime_error}
func.func @unknown_guard(%A: memref<10xf32>, %B: memref<10xf32>, %N: memref<1xindex>) {
  %n = block.load %N[0] : memref<1xindex>
  block.for %t = 0 to 16 "t" {
    %in = arith.cmpi slt, %t, %n : index
    scf.if %in {
      block.block "g"(%vt = spatial(16, %t)) {
        %a = block.load %A[%vt] : memref<10xf32>
        block.store %a, %B[%vt] : memref<10xf32>
      }
    }
  }
  func.return
}
