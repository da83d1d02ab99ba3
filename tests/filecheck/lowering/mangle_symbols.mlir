// RUN: xtir-opt %s -p mangle-symbols | filecheck %s
// mangle-symbols (a stage of convert-to-llvm): every function the module defines becomes
// xtir.NAME, and so do its calls, so that no user function takes the place of a runtime
// symbol; declarations keep their names. to_llvm_names_invalid.mlir: names it refuses.

// CHECK:      func.func @xtir.helper(%A: memref<4xf32>) {
// CHECK:      func.func @xtir.main(%A: memref<4xf32>) {
// CHECK-NEXT:   func.call @xtir.helper(%A) : (memref<4xf32>) -> ()
// CHECK-NEXT:   func.call @external(%A) : (memref<4xf32>) -> ()
// CHECK:      func.func private @external(memref<4xf32>) -> ()
func.func @helper(%A: memref<4xf32>) {
  func.return
}
func.func @main(%A: memref<4xf32>) {
  func.call @helper(%A) : (memref<4xf32>) -> ()
  func.call @external(%A) : (memref<4xf32>) -> ()
  func.return
}
func.func private @external(memref<4xf32>)
