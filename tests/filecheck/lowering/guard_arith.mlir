// RUN: xtir-opt %s --split-input-file -p lower-blocks,guard-arith | filecheck %s
// guard-arith (run by xtir.build before convert-to-llvm): an integer division whose divisor may be
// 0 (or -1 under the smallest value, signed) and a shift whose amount may reach the width compute
// with a safe operand (1, 0) instead of trapping, and report the real operands on the run-time
// error channel (@xtir_runtime_error(site, a, b)); the built function raises the evaluator's
// message after the call (tests/test_runtime_errors.py). Constants that make the op defined leave
// it alone. lower-blocks names the block on each such op, for the message.

// CHECK-LABEL: func.func @divide
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[IS_ZERO:.*]] = arith.cmpi eq, %b, %[[ZERO]] : i32
// CHECK-NEXT:    %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:    %[[IS_MIN:.*]] = arith.cmpi eq, %a, %[[MIN]] : i32
// CHECK-NEXT:    %[[M1:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[IS_M1:.*]] = arith.cmpi eq, %b, %[[M1]] : i32
// CHECK-NEXT:    %[[OVERFLOW:.*]] = arith.andi %[[IS_MIN]], %[[IS_M1]] : i1
// CHECK-NEXT:    %[[BAD:.*]] = arith.ori %[[IS_ZERO]], %[[OVERFLOW]] : i1
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[BAD]], %[[ONE]], %b : i32
// CHECK-NEXT:    scf.if %[[BAD]] {
// CHECK-NEXT:      %[[SITE:.*]] = arith.constant {{[0-9]+}} : index
// CHECK-NEXT:      %[[A:.*]] = arith.index_cast %a : i32 to index
// CHECK-NEXT:      %[[B:.*]] = arith.index_cast %b : i32 to index
// CHECK-NEXT:      func.call @xtir_runtime_error(%[[SITE]], %[[A]], %[[B]]) {xtir.runtime_error} : (index, index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    %q = arith.divsi %a, %[[SAFE]] {xtir.block = "D"} : i32
// CHECK:         %[[U_BAD:.*]] = arith.cmpi eq, %b, %{{.*}} : i32
// CHECK-NEXT:    %[[U_ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[U_SAFE:.*]] = arith.select %[[U_BAD]], %[[U_ONE]], %b : i32
// CHECK-NEXT:    scf.if %[[U_BAD]] {
// CHECK:         %r = arith.remui %a, %[[U_SAFE]] {xtir.block = "D"} : i32
// The divisor 2 is never 0 nor -1; -1 can overflow unless the dividend is a constant other than the smallest.
// CHECK:         %h = arith.divsi %a, %c2 {xtir.block = "D"} : i32
// CHECK:         %[[N_SAFE:.*]] = arith.select
// CHECK:         %n = arith.divsi %a, %[[N_SAFE]] {xtir.block = "D"} : i32
// CHECK:         %k = arith.divsi %c5, %m1 {xtir.block = "D"} : i32
func.func @divide(%A: memref<4xi32>, %B: memref<4xi32>, %C: memref<4xi32>) {
  block.for %i = 0 to 4 "i" {
    block.block "D"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xi32>
      %b = block.load %B[%vi] : memref<4xi32>
      %q = arith.divsi %a, %b : i32
      %r = arith.remui %a, %b : i32
      %c2 = arith.constant 2 : i32
      %h = arith.divsi %a, %c2 : i32
      %m1 = arith.constant -1 : i32
      %n = arith.divsi %a, %m1 : i32
      %c5 = arith.constant 5 : i32
      %k = arith.divsi %c5, %m1 : i32
      %s1 = arith.addi %q, %r : i32
      %s2 = arith.addi %h, %n : i32
      %s3 = arith.addi %s1, %s2 : i32
      %s = arith.addi %s3, %k : i32
      block.store %s, %C[%vi] : memref<4xi32>
    }
  }
  func.return
}

// -----

// A shift by an amount read as unsigned: 64 or more (a negative amount too) is out.

// CHECK-LABEL: func.func @shift
// CHECK:         %[[WIDTH:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[BAD:.*]] = arith.cmpi uge, %n, %[[WIDTH]] : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[BAD]], %[[ZERO]], %n : index
// CHECK-NEXT:    scf.if %[[BAD]] {
// CHECK-NEXT:      %[[SITE:.*]] = arith.constant {{[0-9]+}} : index
// CHECK-NEXT:      func.call @xtir_runtime_error(%[[SITE]], %x, %n) {xtir.runtime_error} : (index, index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = arith.shli %x, %[[SAFE]] : index
// CHECK:         %t = arith.shrsi %x, %c63 : index
// CHECK:       func.func private @xtir_runtime_error(index, index, index) -> () attributes {xtir.runtime_error}
func.func @shift(%x: index, %n: index) -> index {
  %s = arith.shli %x, %n : index
  %c63 = arith.constant 63 : index
  %t = arith.shrsi %x, %c63 : index
  %r = arith.addi %s, %t : index
  func.return %r : index
}
