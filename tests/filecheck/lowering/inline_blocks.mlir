// RUN: xtir-opt %s -p inline-blocks | filecheck %s
// inline-blocks, the first stage of lower-blocks: every block is replaced by its body, its
// iteration variables by their bindings (in the indices of the accesses), its predicate
// and its init by scf.if guards. The loops, accesses and allocations stay block dialect:
// the form compact-buffers and the checks work on. Each access records its block's name.

// CHECK-LABEL: func.func @matmul(%A: memref<8x8xf32>, %B: memref<10xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c10 = arith.constant 10 : index
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %k = 0 to 8 "k" {
// CHECK-NEXT:        %0 = arith.cmpi eq, %k, %c0 : index
// CHECK-NEXT:        scf.if %0 {
// CHECK-NEXT:          %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:          block.store %zero, %A[%i, 0] {xtir.block = "rowsum"} : memref<8x8xf32>
// CHECK-NEXT:        }{xtir.init}
// CHECK-NEXT:        %a = block.load %A[%i, %k] {xtir.block = "rowsum"} : memref<8x8xf32>
// CHECK-NEXT:        block.store %a, %A[%i, 0] {xtir.block = "rowsum"} : memref<8x8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    block.for %o = 0 to 3 "o" {
// CHECK-NEXT:      block.for %n = 0 to 4 "n" {
// CHECK-NEXT:        %1 = arith.muli %o, %c4 : index
// CHECK-NEXT:        %2 = arith.addi %1, %n : index
// CHECK-NEXT:        %3 = arith.cmpi slt, %2, %c10 : index
// CHECK-NEXT:        scf.if %3 {
// CHECK-NEXT:          %b = block.load %B[%o * 4 + %n] {xtir.block = "tail"} : memref<10xf32>
// CHECK-NOT:     block.block
func.func @matmul(%A: memref<8x8xf32>, %B: memref<10xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 8 "k" {
      block.block "rowsum"(%vi = spatial(8, %i), %vk = reduce(8, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %A[%vi, 0] : memref<8x8xf32>
        }
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        block.store %a, %A[%vi, 0] : memref<8x8xf32>
      }
    }
  }
  block.for %o = 0 to 3 "o" {
    block.for %n = 0 to 4 "n" {
      block.block "tail"(%v = spatial(10, %o * 4 + %n)) where(%o * 4 + %n < 10) {
        %b = block.load %B[%v] : memref<10xf32>
        block.store %b, %B[%v] : memref<10xf32>
      }
    }
  }
  func.return
}
