// RUN: xtir-opt %s -p "check-bounds{runtime=true}" | filecheck %s
// check-bounds{runtime=true} (xtir.build(..., bounds_check=True)) puts every access it
// cannot show in bounds under scf.if (each index in range), reporting each index to
// the run-time error channel (@xtir_runtime_error) otherwise, instead of refusing it (check_bounds_invalid.mlir);
// lower_blocks_bounds_check.mlir shows it through lower-blocks.

// CHECK-LABEL: func.func @unknown
// CHECK:         block.for %t = 0 to 16 "t" {
// CHECK:           scf.if %{{.*}} {
// CHECK:             %[[OK:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:        %[[A:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT:          %[[V:.*]] = block.load %A[%t] {xtir.block = "g"} : memref<10xf32>
// CHECK-NEXT:          scf.yield %[[V]] : f32
// CHECK-NEXT:        } else {
// CHECK-NEXT:          func.call @xtir_runtime_error(%{{.*}}, %{{.*}}, %t) {xtir.runtime_error} : (index, index, index) -> ()
// CHECK:       func.func private @xtir_runtime_error(index, index, index) -> () attributes {xtir.runtime_error}
func.func @unknown(%A: memref<10xf32>, %B: memref<16xf32>, %N: memref<1xindex>) {
  %n = block.load %N[0] : memref<1xindex>
  block.for %t = 0 to 16 "t" {
    %in = arith.cmpi slt, %t, %n : index
    scf.if %in {
      %a = block.load %A[%t] {xtir.block = "g"} : memref<10xf32>
      block.store %a, %B[%t] {xtir.block = "g"} : memref<16xf32>
    }
  }
  func.return
}
