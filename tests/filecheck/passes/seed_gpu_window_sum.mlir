// RUN: xtir-opt %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},test-block-regions' | filecheck %s --check-prefix=BIND
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},cache-read{block=B index=0 scope="shared"},test-block-regions' | filecheck %s --check-prefix=CACHE_READ
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},cache-read{block=B index=0 scope="shared"},compute-at{block=A_shared loop=i_1},test-block-regions' | filecheck %s --check-prefix=COMPUTE_AT
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},cache-read{block=B index=0 scope="shared"},compute-at{block=A_shared loop=i_1},split{loop=ax0 factors=-1,128},bind{loop=ax0_1 thread="threadIdx.x"},test-block-regions' | filecheck %s --check-prefix=COOP_FETCH

// Seed 002 (6.1.4), the window sum with a shared-memory cache and cooperative
// fetching. Matches TVM 0.27's output (../shared/reference/tvm/ir/gpu_window_0*.tvmscript.txt)
// up to syntax; the thread block of 128 threads reads a window of 130 elements.
//   i0, i1 = sch.split(i, [None, 128]); bind blockIdx.x, threadIdx.x     -> BIND
//   A_shared = sch.cache_read(block_B, 0, "shared")                       -> CACHE_READ
//   sch.compute_at(A_shared, i1)                                          -> COMPUTE_AT
//   ax0, ax1 = sch.split(ax, [None, 128]); sch.bind(ax1, "threadIdx.x")   -> COOP_FETCH

// BIND: func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
// BIND-NEXT: block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// BIND-NEXT:   block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// BIND-NEXT:     block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// BIND-NEXT:       %a0 = block.load %A[%vi] : memref<1026xf32>
// BIND-NEXT:       %a1 = block.load %A[%vi + 1] : memref<1026xf32>
// BIND-NEXT:       %a2 = block.load %A[%vi + 2] : memref<1026xf32>
// BIND-NEXT:       %s01 = arith.addf %a0, %a1 : f32
// BIND-NEXT:       %sum = arith.addf %s01, %a2 : f32
// BIND-NEXT:       block.store %sum, %B[%vi] : memref<1024xf32>
// BIND-NEXT:     } attributes {reads = ["A[vi:vi + 3]"], writes = ["B[vi]"]}
// BIND-NEXT:   }
// BIND-NEXT: }
// BIND-NEXT: func.return

// CACHE_READ: func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
// CACHE_READ-NEXT: %A_shared = block.alloc : memref<1026xf32, "shared">
// CACHE_READ-NEXT: block.for %ax0 = 0 to 1026 "ax0" {
// CACHE_READ-NEXT:   block.block "A_shared"(%v0 = spatial(1026, %ax0)) {
// CACHE_READ-NEXT:     %0 = block.load %A[%v0] : memref<1026xf32>
// CACHE_READ-NEXT:     block.store %0, %A_shared[%v0] : memref<1026xf32, "shared">
// CACHE_READ-NEXT:   } attributes {reads = ["A[v0]"], writes = ["A_shared[v0]"]}
// CACHE_READ-NEXT: }
// CACHE_READ-NEXT: block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// CACHE_READ-NEXT:   block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// CACHE_READ-NEXT:     block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// CACHE_READ-NEXT:       %a0 = block.load %A_shared[%vi] : memref<1026xf32, "shared">
// CACHE_READ-NEXT:       %a1 = block.load %A_shared[%vi + 1] : memref<1026xf32, "shared">
// CACHE_READ-NEXT:       %a2 = block.load %A_shared[%vi + 2] : memref<1026xf32, "shared">
// CACHE_READ-NEXT:       %s01 = arith.addf %a0, %a1 : f32
// CACHE_READ-NEXT:       %sum = arith.addf %s01, %a2 : f32
// CACHE_READ-NEXT:       block.store %sum, %B[%vi] : memref<1024xf32>
// CACHE_READ-NEXT:     } attributes {reads = ["A_shared[vi:vi + 3]"], writes = ["B[vi]"]}
// CACHE_READ-NEXT:   }
// CACHE_READ-NEXT: }
// CACHE_READ-NEXT: func.return

// COMPUTE_AT: func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
// COMPUTE_AT-NEXT: %A_shared = block.alloc : memref<1026xf32, "shared">
// COMPUTE_AT-NEXT: block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// COMPUTE_AT-NEXT:   block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// COMPUTE_AT-NEXT:     block.for %ax0 = 0 to 130 "ax0" {
// COMPUTE_AT-NEXT:       block.block "A_shared"(%v0 = spatial(1026, %i0 * 128 + %ax0)) {
// COMPUTE_AT-NEXT:         %0 = block.load %A[%v0] : memref<1026xf32>
// COMPUTE_AT-NEXT:         block.store %0, %A_shared[%v0] : memref<1026xf32, "shared">
// COMPUTE_AT-NEXT:       } attributes {reads = ["A[v0]"], writes = ["A_shared[v0]"]}
// COMPUTE_AT-NEXT:     }
// COMPUTE_AT-NEXT:     block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// COMPUTE_AT-NEXT:       %a0 = block.load %A_shared[%vi] : memref<1026xf32, "shared">
// COMPUTE_AT-NEXT:       %a1 = block.load %A_shared[%vi + 1] : memref<1026xf32, "shared">
// COMPUTE_AT-NEXT:       %a2 = block.load %A_shared[%vi + 2] : memref<1026xf32, "shared">
// COMPUTE_AT-NEXT:       %s01 = arith.addf %a0, %a1 : f32
// COMPUTE_AT-NEXT:       %sum = arith.addf %s01, %a2 : f32
// COMPUTE_AT-NEXT:       block.store %sum, %B[%vi] : memref<1024xf32>
// COMPUTE_AT-NEXT:     } attributes {reads = ["A_shared[vi:vi + 3]"], writes = ["B[vi]"]}
// COMPUTE_AT-NEXT:   }
// COMPUTE_AT-NEXT: }
// COMPUTE_AT-NEXT: func.return

// COOP_FETCH: func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
// COOP_FETCH-NEXT: %A_shared = block.alloc : memref<1026xf32, "shared">
// COOP_FETCH-NEXT: block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// COOP_FETCH-NEXT:   block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// COOP_FETCH-NEXT:     block.for %ax00 = 0 to 2 "ax0_0" {
// COOP_FETCH-NEXT:       block.for %ax01 = 0 to 128 "ax0_1" bind("threadIdx.x") {
// COOP_FETCH-NEXT:         block.block "A_shared"(%v0 = spatial(1026, %i0 * 128 + %ax00 * 128 + %ax01)) where(%ax00 * 128 + %ax01 < 130) {
// COOP_FETCH-NEXT:           %0 = block.load %A[%v0] : memref<1026xf32>
// COOP_FETCH-NEXT:           block.store %0, %A_shared[%v0] : memref<1026xf32, "shared">
// COOP_FETCH-NEXT:         } attributes {reads = ["A[v0]"], writes = ["A_shared[v0]"]}
// COOP_FETCH-NEXT:       }
// COOP_FETCH-NEXT:     }
// COOP_FETCH-NEXT:     block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// COOP_FETCH-NEXT:       %a0 = block.load %A_shared[%vi] : memref<1026xf32, "shared">
// COOP_FETCH-NEXT:       %a1 = block.load %A_shared[%vi + 1] : memref<1026xf32, "shared">
// COOP_FETCH-NEXT:       %a2 = block.load %A_shared[%vi + 2] : memref<1026xf32, "shared">
// COOP_FETCH-NEXT:       %s01 = arith.addf %a0, %a1 : f32
// COOP_FETCH-NEXT:       %sum = arith.addf %s01, %a2 : f32
// COOP_FETCH-NEXT:       block.store %sum, %B[%vi] : memref<1024xf32>
// COOP_FETCH-NEXT:     } attributes {reads = ["A_shared[vi:vi + 3]"], writes = ["B[vi]"]}
// COOP_FETCH-NEXT:   }
// COOP_FETCH-NEXT: }
// COOP_FETCH-NEXT: func.return

// MyModuleWindowSun of seed 002: a window sum over 3 neighbours, float32,
// B[vi] = A[vi] + A[vi + 1] + A[vi + 2] with A of 1026 and B of 1024 elements.
func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.block "B"(%vi = spatial(1024, %i)) {
      %a0 = block.load %A[%vi] : memref<1026xf32>
      %a1 = block.load %A[%vi + 1] : memref<1026xf32>
      %a2 = block.load %A[%vi + 2] : memref<1026xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<1024xf32>
    }
  }
  func.return
}
