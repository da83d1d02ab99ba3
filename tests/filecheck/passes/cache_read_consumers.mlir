// RUN: xtir-opt %s -p 'cache-read{block=second index=0 scope="shared"}' | filecheck %s --check-prefix=ALL
// RUN: xtir-opt %s -p 'cache-read{block=second index=0 scope="shared" consumers=second}' | filecheck %s --check-prefix=NAMED
// RUN: not xtir-opt %s -p 'cache-read{block=second index=0 scope="shared" consumers=first,other}' 2>&1 | filecheck %s --check-prefix=NOT_A_READER
// cache-read's consumers: by default (TVM's consumer_blocks=None) every block of the
// scope that reads the buffer reads the cache; `consumers=` redirects only the blocks
// listed. A is an input (nothing writes it): as in TVM, its copy runs first, at the start
// of the body, whichever blocks consume it.

// ALL:      %A_shared = block.alloc : memref<8xf32, "shared">
// ALL-NEXT: block.for %ax0 = 0 to 8 "ax0" {
// ALL-NEXT:   block.block "A_shared"(%v0 = spatial(8, %ax0)) {
// ALL:      block.block "first"
// ALL-NEXT:   %a = block.load %A_shared[%vi] : memref<8xf32, "shared">
// ALL:      block.block "other"
// ALL-NEXT:   %z = arith.constant
// ALL:      block.block "second"(%vi_2 = spatial(8, %j)) {
// ALL-NEXT:   %a_1 = block.load %A_shared[%vi_2] : memref<8xf32, "shared">

// NAMED:      block.for %ax0 = 0 to 8 "ax0" {
// NAMED-NEXT:   block.block "A_shared"
// NAMED:      block.block "first"
// NAMED-NEXT:   %a = block.load %A[%vi] : memref<8xf32>
// NAMED:      block.block "second"(%vi_2 = spatial(8, %j)) {
// NAMED-NEXT:   %a_1 = block.load %A_shared[%vi_2] : memref<8xf32, "shared">

// NOT_A_READER: {{.*}}cache_read_consumers.mlir:[[# @LINE + 9]]:5: error: 'block.block' op cache-read: block "other" does not read A; it cannot be a consumer of its cache
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "first"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %k = 0 to 8 "k" {
    block.block "other"(%vi = spatial(8, %k)) {
      %z = arith.constant 0.000000e+00 : f32
      block.store %z, %D[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "second"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}
