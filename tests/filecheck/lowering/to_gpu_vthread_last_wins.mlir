// RUN: xtir-opt %s -p 'lower-blocks,lower-to-gpu' | filecheck %s

// Stores whose value uses the virtual thread but whose element does not (A[b, t], S[t]): each
// virtual thread stores in turn and the last one's value stays, as when loop "v" runs serially
// (A = 1.0, S = 3.0, O reading S after the vthread loop). Not a race: nothing else in the loop
// reads or writes A or S (that is refused, to_gpu_invalid.mlir @vthread_shared_race); before,
// both were refused as races.

func.func @main(%A: memref<4x4xf32>, %O: memref<4x4xf32>) {
  %S = block.alloc : memref<4xf32, "shared">
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "A"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %x = arith.index_cast %vu : index to i64
          %y = arith.sitofp %x : i64 to f32
          block.store %y, %A[%vb, %vt] : memref<4x4xf32>
        }
        block.block "S"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %x = arith.index_cast %vu : index to i64
          %y = arith.sitofp %x : i64 to f32
          %two = arith.constant 2.0 : f32
          %z = arith.addf %y, %two : f32
          block.store %z, %S[%vt] : memref<4xf32, "shared">
        }
      }
    }
    block.for %s = 0 to 4 "s" bind("threadIdx.x") {
      block.block "O"(%vb = spatial(4, %b), %vs = spatial(4, %s)) {
        %x = block.load %S[3 - %vs] : memref<4xf32, "shared">
        block.store %x, %O[%vb, %vs] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// CHECK: "gpu.func"() <{function_type = (memref<4x4xf32>, memref<4x4xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<4x4xf32>, %O: memref<4x4xf32>):
// CHECK-NEXT: %S = memref.alloca() : memref<4xf32, "shared">
// CHECK-NEXT: %b = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["b"]} : () -> index
// CHECK-NEXT: %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["t", "s"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %c_neg1 = arith.constant -1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: scf.for %u = %c0 to %c2 step %c1 {
// CHECK-NEXT: %x = arith.index_cast %u : index to i64
// CHECK-NEXT: %y = arith.sitofp %x : i64 to f32
// CHECK-NEXT: memref.store %y, %A[%b, %t] : memref<4x4xf32>
// CHECK-NEXT: } {xtir.loop_name = "v", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: scf.for %u_1 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %x_1 = arith.index_cast %u_1 : index to i64
// CHECK-NEXT: %y_1 = arith.sitofp %x_1 : i64 to f32
// CHECK-NEXT: %z = arith.addf %y_1, %two : f32
// CHECK-NEXT: memref.store %z, %S[%t] : memref<4xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "v", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %0 = arith.muli %t, %c_neg1 : index
// CHECK-NEXT: %1 = arith.addi %0, %c3 : index
// CHECK-NEXT: %x_2 = memref.load %S[%1] : memref<4xf32, "shared">
// CHECK-NEXT: memref.store %x_2, %O[%b, %t] : memref<4x4xf32>
// CHECK-NEXT: "gpu.return"() : () -> ()
