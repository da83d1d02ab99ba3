// RUN: xtir-opt %s -p convert-types-to-llvm | filecheck %s
// convert-types-to-llvm (a stage of convert-to-llvm, after convert-memref-to-llvm): index
// becomes i64 and memref !llvm.ptr everywhere (signatures, block arguments, results,
// constants, declarations), so the later stages map ops one to one; an index_cast becomes
// its operand, or a sign extension / truncation.

// CHECK-LABEL: func.func @f(%A: !llvm.ptr, %n: i32) -> i32 {
// CHECK-NEXT:    %c0 = arith.constant 0 : i64
// CHECK-NEXT:    %c7 = arith.constant 7 : i64
// CHECK-NEXT:    %wide = arith.extsi %n : i32 to i64
// CHECK-NEXT:    %sum = arith.addi %wide, %c7 : i64
// CHECK-NEXT:    cf.br ^next(%c0 : i64)
// CHECK-NEXT:  ^next(%k: i64):
// CHECK-NEXT:    %same = arith.addi %k, %sum : i64
// CHECK-NEXT:    %narrow = arith.trunci %same : i64 to i32
// CHECK-NEXT:    func.call @g(%A, %same) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT:    func.return %narrow : i32
// CHECK:       func.func private @g(!llvm.ptr, i64) -> ()
func.func @f(%A: memref<4xf32>, %n: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %wide = arith.index_cast %n : i32 to index
  %sum = arith.addi %wide, %c7 : index
  cf.br ^next(%c0 : index)
^next(%k: index):
  %k64 = arith.index_cast %k : index to i64
  %back = arith.index_cast %k64 : i64 to index
  %same = arith.addi %back, %sum : index
  %narrow = arith.index_cast %same : index to i32
  func.call @g(%A, %same) : (memref<4xf32>, index) -> ()
  func.return %narrow : i32
}
func.func private @g(memref<4xf32>, index)
