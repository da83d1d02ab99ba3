// RUN: xtir-opt %s | xtir-opt | filecheck %s
// RUN: xtir-opt %s -p 'split{loop="i j" factors=-1,2},fuse{loops="i j_0","i j_1"},reorder{loops="ü","a{b},c=d"},cache-read{block="B \"x\"" index=0 scope="global.my scope"}' | filecheck %s --check-prefix=SCHED
// Loop and block names are any strings (but `/` in a loop name: loop_names_invalid.mlir): a
// space, pipeline punctuation (in a scope's tag too), quotes and non-ASCII letters print, parse back and schedule; the
// loop variable's SSA name is the name with `_` for what SSA names cannot hold. (They used to
// end in xDSL's ValueError for an invalid name hint; `"\C3\BC"`, how xDSL prints `"ü"`, did
// not parse back.)

// CHECK:      block.for %i = 0 to 4 "i j" {
// CHECK-NEXT:   block.for %j = 0 to 4 "a{b},c=d" {
// CHECK-NEXT:     block.for %k = 0 to 4 "\C3\BC" {
// CHECK-NEXT:       block.block "B \22x\22"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = spatial(4, %k)) {

// SCHED:      %A_global_my_scope = block.alloc : memref<4x4x4xf32, "global.my scope">
// SCHED:      block.block "A_global.my scope"(
// SCHED:      block.for %i_j_0_i_j_1_fused = 0 to 4 "i j_0_i j_1_fused" {
// SCHED-NEXT:   block.for %_ = 0 to 4 "\C3\BC" {
// SCHED-NEXT:     block.for %a_b__c_d = 0 to 4 "a{b},c=d" {
// SCHED-NEXT:       block.block "B \22x\22"(
// SCHED:              block.load %A_global_my_scope[%vi, %vj, %vk]
func.func @main(%A: memref<4x4x4xf32>, %C: memref<4x4x4xf32>) {
  block.for %i = 0 to 4 "i j" {
    block.for %j = 0 to 4 "a{b},c=d" {
      block.for %k = 0 to 4 "ü" {
        block.block "B \22x\22"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = spatial(4, %k)) {
          %a = block.load %A[%vi, %vj, %vk] : memref<4x4x4xf32>
          block.store %a, %C[%vi, %vj, %vk] : memref<4x4x4xf32>
        }
      }
    }
  }
  func.return
}
