// RUN: xtir-opt %s -p 'cache-write{block=B index=0 scope="local"}' | filecheck %s --check-prefix=ALL
// RUN: xtir-opt %s -p 'cache-write{block=B index=0 scope="local" consumers=C}' | filecheck %s --check-prefix=NAMED
// RUN: xtir-opt %s -p 'cache-write{block=B index=0 scope="local" consumers=C,D}' | filecheck %s --check-prefix=BOTH
// RUN: xtir-opt %s -p 'cache-write{block=B index=0 scope="local" consumers=D}' | filecheck %s --check-prefix=LATER
// cache-write's consumers (TVM's consumer_blocks): by default every consumer reads B after
// the write-back, which runs right after block "B"'s nest; the blocks listed read the cache
// instead, and the write-back moves down to just before the first block that reads B
// otherwise ("D"), or to the end of the function when all of them read the cache. A listed
// block may come after that read ("D" after "C"): nothing writes B in between, so the cache
// still holds what B does.

// ALL:      block.block "B"
// ALL:      block.store %{{.*}}, %B_local[%vi]
// ALL:      block.block "B_local"
// ALL:      block.block "C"
// ALL-NEXT:   %b = block.load %B[%vi{{.*}}] : memref<8xf32>
// ALL:      block.block "D"
// ALL-NEXT:   %b_1 = block.load %B[%vi{{.*}}] : memref<8xf32>

// NAMED:      block.block "B"
// NAMED:      block.block "C"
// NAMED-NEXT:   %b = block.load %B_local[%vi{{.*}}] : memref<8xf32, "local">
// NAMED:      block.block "B_local"
// NAMED:      block.block "D"
// NAMED-NEXT:   %b_1 = block.load %B[%vi{{.*}}] : memref<8xf32>

// BOTH:      block.block "C"
// BOTH-NEXT:   %b = block.load %B_local[%vi{{.*}}] : memref<8xf32, "local">
// BOTH:      block.block "D"
// BOTH-NEXT:   %b_1 = block.load %B_local[%vi{{.*}}] : memref<8xf32, "local">
// BOTH:      block.block "B_local"
// BOTH:      func.return

// LATER:      block.block "B_local"
// LATER:      block.block "C"
// LATER-NEXT:   %b = block.load %B[%vi{{.*}}] : memref<8xf32>
// LATER:      block.block "D"
// LATER-NEXT:   %b_1 = block.load %B_local[%vi{{.*}}] : memref<8xf32, "local">
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %two = arith.constant 2.000000e+00 : f32
      %c = arith.mulf %b, %two : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  block.for %k = 0 to 8 "k" {
    block.block "D"(%vi = spatial(8, %k)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %D[%vi] : memref<8xf32>
    }
  }
  func.return
}
