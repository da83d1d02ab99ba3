// RUN: xtir-opt %s -p 'cache-read{block=use index=0 scope="shared"},cache-read{block=use index=1 scope="shared"}' | filecheck %s --check-prefix=INPUTS
// RUN: xtir-opt %s -p 'cache-read{block=use index=2 scope="shared"}' | filecheck %s --check-prefix=WRITTEN
// Where cache-read puts its copy, as TVM's cache_read (seed 001 step 03a): the copy of an
// input of the function (nothing in it writes the buffer) goes at the start of the body,
// so the later cache_read's stage (B) comes before the earlier one's (A); the copy of a
// buffer the function writes (T) goes after its writer, just before the first consumer.

// INPUTS:      %A_shared = block.alloc
// INPUTS-NEXT: %B_shared = block.alloc
// INPUTS-NEXT: block.for %ax0 = 0 to 8 "ax0" {
// INPUTS-NEXT:   block.block "B_shared"
// INPUTS:      block.for %ax0_1 = 0 to 8 "ax0" {
// INPUTS-NEXT:   block.block "A_shared"
// INPUTS:      block.block "produce"
// INPUTS:      block.block "use"
// INPUTS-NEXT:   %a = block.load %A_shared

// WRITTEN:      block.block "produce"
// WRITTEN:      block.for %ax0 = 0 to 8 "ax0" {
// WRITTEN-NEXT:   block.block "T_shared"
// WRITTEN:      block.block "use"
// WRITTEN:        %t = block.load %T_shared
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
  %T = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "produce"(%vi = spatial(8, %i)) {
      %z = arith.constant 1.000000e+00 : f32
      block.store %z, %T[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "use"(%vj = spatial(8, %j)) {
      %a = block.load %A[%vj] : memref<8xf32>
      %b = block.load %B[%vj] : memref<8xf32>
      %t = block.load %T[%vj] : memref<8xf32>
      %ab = arith.addf %a, %b : f32
      %s = arith.addf %ab, %t : f32
      block.store %s, %C[%vj] : memref<8xf32>
    }
  }
  func.return
}
