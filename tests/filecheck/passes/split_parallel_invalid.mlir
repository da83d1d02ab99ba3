// RUN: xtir-opt %s --split-input-file -p 'split{loop=ax0 factors=7,-1}' --verify-diagnostics
// A primitive that changes statements under a parallel loop must leave its iterations
// independent, as the build checks them (what the schedule accepts, the build compiles).

// The window sum with its shared copy computed under the parallel loop i: each iteration
// copies A[i:i + 3], which compact-buffers gives each iteration its own copy of. Split by
// 7 (under a predicate), the copy no longer has a tile compact-buffers can shrink it to:
// iterations would write the elements their neighbours read.
func.func @window_copy(%A: memref<12xf32>, %B: memref<10xf32>) {
  %A_shared = block.alloc : memref<12xf32, "shared">
  // expected-error @+1 {{'block.for' op split: after the change, parallel loop "i" would race: block "A_shared" writes an element of A_shared in iteration 0 of loop "i" that block "B" reads in iteration 1; its iterations must stay independent}}
  block.for %i = 0 to 10 "i" parallel {
    block.for %ax0 = 0 to 3 "ax0" {
      block.block "A_shared"(%v0 = spatial(12, %i + %ax0)) {
        %0 = block.load %A[%v0] : memref<12xf32>
        block.store %0, %A_shared[%v0] : memref<12xf32, "shared">
      }
    }
    block.block "B"(%vi = spatial(10, %i)) {
      %a0 = block.load %A_shared[%vi] : memref<12xf32, "shared">
      %a1 = block.load %A_shared[%vi + 1] : memref<12xf32, "shared">
      %a2 = block.load %A_shared[%vi + 2] : memref<12xf32, "shared">
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<10xf32>
    }
  }
  func.return
}
