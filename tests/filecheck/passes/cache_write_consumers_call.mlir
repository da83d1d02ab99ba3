// RUN: xtir-opt %s -p 'cache-write{func=main block=B index=0 scope="local" consumers=C}' | filecheck %s
// A call taking B after the consumers is an access of B like a block's: the write-back runs
// before it (so @helper reads what "B" wrote), not at the end of the function.

// CHECK:      func.func @main
// CHECK:      block.block "C"
// CHECK-NEXT:   %b = block.load %B_local[%vi{{.*}}] : memref<8xf32, "local">
// CHECK:      block.block "B_local"
// CHECK:      func.call @helper(%B, %H)
func.func @helper(%B: memref<8xf32>, %H: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "H"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %H[%vi] : memref<8xf32>
    }
  }
  func.return
}
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>, %H: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.call @helper(%B, %H) : (memref<8xf32>, memref<8xf32>) -> ()
  func.return
}
