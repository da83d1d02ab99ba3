// RUN: xtir-opt %s | xtir-opt | filecheck %s
// RUN: xtir-opt %s --print-op-generic | xtir-opt | filecheck %s
// RUN: xtir-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// Loop and block annotations (TVM's `annotations`) print after the loop kind and after
// the block's predicate, and survive both the custom and the generic form. An empty
// dictionary is the same as no annotations.

builtin.module {
  func.func @main(%A: memref<16xf32>) {
    block.for %i = 0 to 16 "i" parallel annotations {pragma_unroll_explicit = 4 : i64, note = "x"} {
      block.block "B"(%vi = spatial(16, %i)) annotations {meta_schedule.cooperative_fetch = 1 : i64} {
        %a = block.load %A[%vi] : memref<16xf32>
        block.store %a, %A[%vi] : memref<16xf32>
      }
    }
    block.for %j = 0 to 16 "j" bind("threadIdx.x") annotations {flag = true} {
      block.block "C"(%vj = spatial(16, %j)) where(%j < 8) annotations {software_pipeline_stage = "0,0,1"} {
        %c = block.load %A[%vj] : memref<16xf32>
        block.store %c, %A[%vj] : memref<16xf32>
      }
    }
    block.for %k = 0 to 16 "k" annotations {} {
      block.block "D"(%vk = spatial(16, %k)) {
        %d = block.load %A[%vk] : memref<16xf32>
        block.store %d, %A[%vk] : memref<16xf32>
      }
    }
    func.return
  }
}

// CHECK:      block.for %i = 0 to 16 "i" parallel annotations {pragma_unroll_explicit = 4 : i64, note = "x"} {
// CHECK-NEXT:   block.block "B"(%vi = spatial(16, %i)) annotations {meta_schedule.cooperative_fetch = 1 : i64} {
// CHECK:      block.for %j = 0 to 16 "j" bind("threadIdx.x") annotations {flag = true} {
// CHECK-NEXT:   block.block "C"(%vj = spatial(16, %j)) where(%j < 8) annotations {software_pipeline_stage = "0,0,1"} {
// CHECK:      block.for %k = 0 to 16 "k" {
// CHECK-NEXT:   block.block "D"(%vk = spatial(16, %k)) {

// GENERIC: "block.for"() <{name = "i", extent = 16 : i64, kind = "parallel", annotations = {pragma_unroll_explicit = 4 : i64, note = "x"}}>
// GENERIC: "block.block"(%i) <{name = "B", {{.*}}annotations = {meta_schedule.cooperative_fetch = 1 : i64}}>
