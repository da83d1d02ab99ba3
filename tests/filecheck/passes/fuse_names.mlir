// RUN: xtir-opt %s -p 'fuse{loops=i,j},split{loop=i_j_fused factors=-1,8},fuse{loops=i_j_fused_0,i_j_fused_1},split{loop=i_j_fused_0_i_j_fused_1_fused factors=4,-1},fuse{loops=i_j_fused_0_i_j_fused_1_fused_0,i_j_fused_0_i_j_fused_1_fused_1}' | filecheck %s
// RUN: xtir-opt %s -p 'fuse{loops=i,j},split{loop=i_j_fused factors=-1,8},fuse{loops=i_j_fused_0,i_j_fused_1},split{loop=i_j_fused_0_i_j_fused_1_fused factors=4,-1},fuse{loops=i_j_fused_0_i_j_fused_1_fused_0,i_j_fused_0_i_j_fused_1_fused_1},split{loop=i_fused_1 factors=-1,2},fuse{loops=i_fused_1_0,i_fused_1_1}' | filecheck %s --check-prefix=AGAIN
// Fused names as TVM spells them (`i_j_fused`, `i_j_fused_0_i_j_fused_1_fused`) double with
// every fuse of split loops; past 48 characters the fused loop is named by the first loop's
// root, `i_fused` (`i_fused_1` here: a loop has that name). The bindings stay as short:
// `8 * (f floordiv 8) + f mod 8` is `f`. (16 rounds of split and fuse made 59 MB of IR.)

// CHECK:      block.for %i_fused1 = 0 to 128 "i_fused_1" {
// CHECK-NEXT:   block.block "B"(%vi = spatial(8, %i_fused1 floordiv 16), %vj = spatial(16, %i_fused1 mod 16)) {
// CHECK:      block.for %k = 0 to 4 "i_fused" {

// AGAIN:      block.for %i_fused_1_0_i_fused_1_1_fused = 0 to 128 "i_fused_1_0_i_fused_1_1_fused" {
// AGAIN-NEXT:   block.block "B"(%vi = spatial(8, %i_fused_1_0_i_fused_1_1_fused floordiv 16), %vj = spatial(16, %i_fused_1_0_i_fused_1_1_fused mod 16)) {

func.func @main(%A: memref<8x16xf32>, %B: memref<8x16xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 16 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(16, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x16xf32>
        block.store %a, %B[%vi, %vj] : memref<8x16xf32>
      }
    }
  }
  block.for %k = 0 to 4 "i_fused" {
    block.block "C"(%vk = spatial(4, %k)) {
      %c = block.load %C[%vk] : memref<4xf32>
      block.store %c, %C[%vk] : memref<4xf32>
    }
  }
  func.return
}
