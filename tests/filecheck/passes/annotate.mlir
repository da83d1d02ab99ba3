// RUN: xtir-opt %s -p 'annotate{loop=i key=pragma_unroll_explicit value=4},annotate{block=sum key="meta_schedule.tiling_structure" value="SSR"},annotate{loop=k key=flag value=true},annotate{loop=k key=stage value="1"}' | filecheck %s
// RUN: xtir-opt %s -p 'annotate{loop=i key=pragma_unroll_explicit value=4},annotate{loop=i key=pragma_unroll_explicit value=8}' | filecheck %s --check-prefix=REPLACE
// RUN: xtir-opt %s -p 'annotate{block=sum key=c value=3},split{loop=i factors=-1,4},annotate{loop=i_0 key=a value=1},annotate{loop=k key=b value=2},reorder{loops=k,i_1}' | filecheck %s --check-prefix=SCHEDULE
// RUN: not xtir-opt %s -p 'annotate{loop=k key=b value=2},fuse{loops=i,k}' 2>&1 | filecheck %s --check-prefix=FUSE
// RUN: not xtir-opt %s -p 'annotate{loop=i key=a value=1},split{loop=i factors=2,-1}' 2>&1 | filecheck %s --check-prefix=SPLIT
// RUN: xtir-opt %s -p 'annotate{block=sum key=c value=3},split{loop=k factors=4,-1},blockize{loop=k_1}' | filecheck %s --check-prefix=BLOCKIZE
// annotate (TVM's sch.annotate) sets one key of a loop's or a block's annotations:
// integers become i64, true/false i1, anything else (quoted numbers included) a string.

// CHECK:      block.for %i = 0 to 8 "i" annotations {pragma_unroll_explicit = 4 : i64} {
// CHECK-NEXT:   block.for %k = 0 to 16 "k" annotations {flag = true, stage = "1"} {
// CHECK-NEXT:     block.block "sum"(%vi = spatial(8, %i), %vk = reduce(16, %k)) annotations {meta_schedule.tiling_structure = "SSR"} {

// A second value for a key replaces the first.
// REPLACE: block.for %i = 0 to 8 "i" annotations {pragma_unroll_explicit = 8 : i64} {

// Later primitives keep annotations: reorder moves them with their loops, and a block
// rebuilt by split keeps its own.
// SCHEDULE:      block.for %i0 = 0 to 2 "i_0" annotations {a = 1 : i64} {
// SCHEDULE-NEXT:   block.for %k = 0 to 16 "k" annotations {b = 2 : i64} {
// SCHEDULE-NEXT:     block.for %i1 = 0 to 4 "i_1" {
// SCHEDULE-NEXT:       block.block "sum"(%vi = spatial(8, %i0 * 4 + %i1), %vk = reduce(16, %k)) annotations {c = 3 : i64} {

// split and fuse refuse an annotated loop, as TVM's do: the new loops would not have it.
// FUSE: error: 'block.for' op fuse: loop "k" has annotation "b"; split and fuse take loops without them: split and fuse first, then bind or annotate (TVM: The primitive can't be applied because the loop has annotation or thread binding)
// SPLIT: error: 'block.for' op split: loop "i" has annotation "a"; split and fuse take loops without them

// blockize: the inner block keeps its annotations, the new outer block has none.
// BLOCKIZE:      block.block "sum_o"(%vi_o = spatial(8, %i), %vk_o = reduce(4, %k0)) {
// BLOCKIZE-NEXT:   block.for %k1 = 0 to 4 "k_1" {
// BLOCKIZE-NEXT:     block.block "sum"(%vk_i = reduce(4, %k1)) annotations {c = 3 : i64} {

func.func @main(%A: memref<8x16xf32>, %S: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 16 "k" {
      block.block "sum"(%vi = spatial(8, %i), %vk = reduce(16, %k)) {
        %s = block.load %S[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x16xf32>
        %t = arith.addf %s, %a : f32
        block.store %t, %S[%vi] : memref<8xf32>
      }
    }
  }
  func.return
}
