// RUN: xtir-opt %s -p 'set-scope{block=B index=0 scope="local"}' | filecheck %s
// RUN: xtir-opt %s -p 'set-scope{block=B index=0 scope="shared"}' | filecheck %s --check-prefix=SHARED
// RUN: xtir-opt %s -p 'set-scope{block=B index=0 scope="global.A_reg"}' | filecheck %s --check-prefix=TAGGED
// RUN: xtir-opt %s -p 'set-scope{block=B index=0 scope="global"}' | filecheck %s --check-prefix=SAME
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=0 factor=32 offset=1},set-scope{block=B index=0 scope="local"},set-scope{block=B index=0 scope="global"}' | filecheck %s --check-prefix=BACK

// set-scope (TVM's set_scope) changes the memory space of the allocation; the accesses follow it.
// The buffer's own scope changes nothing (TVM returns early); a storage alignment stays with the
// buffer, and "global" is the memref without a memory space, as block.alloc writes it.

// CHECK:       %B = block.alloc : memref<16x16xf32, "local">
// CHECK-NEXT:  block.for %i = 0 to 16 "i" {
// CHECK:       block.store %a, %B[%vi, %vj] : memref<16x16xf32, "local">
// CHECK:       %b = block.load %B[%vj_1, %vi_1] : memref<16x16xf32, "local">
// SHARED:      %B = block.alloc : memref<16x16xf32, "shared">
// TAGGED:      %B = block.alloc : memref<16x16xf32, "global.A_reg">
// SAME:        %B = block.alloc : memref<16x16xf32>
// SAME-NEXT:   block.for %i = 0 to 16 "i" {
// BACK:        %B = block.alloc {buffer_dim_align = [array<i64: 0, 32, 1>]} : memref<16x16xf32>
// BACK-NEXT:   block.for %i = 0 to 16 "i" {
builtin.module {
  func.func @main(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
    %B = block.alloc : memref<16x16xf32>
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.block "B"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
          %a = block.load %A[%vi, %vj] : memref<16x16xf32>
          block.store %a, %B[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    block.for %i2 = 0 to 16 "i2" {
      block.for %j2 = 0 to 16 "j2" {
        block.block "C"(%vi = spatial(16, %i2), %vj = spatial(16, %j2)) {
          %b = block.load %B[%vj, %vi] : memref<16x16xf32>
          block.store %b, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    func.return
  }
}
