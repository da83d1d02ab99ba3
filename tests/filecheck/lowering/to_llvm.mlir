// RUN: xtir-opt %s --split-input-file -p convert-to-llvm | filecheck %s
// convert-to-llvm: scf/memref/arith/func (the output of lower-blocks) → the llvm dialect.
// Memrefs become noalias pointers addressed with getelementptr (no ptrtoint arithmetic),
// index becomes i64, scf.for becomes blocks and branches.
// Float adds and multiplies carry `contract`, so LLVM may fuse them into FMAs (-ffp-contract=fast).

// CHECK-LABEL: llvm.func @xtir.vadd(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}, %C: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:    %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %c1024 = llvm.mlir.constant(1024) : i64
// CHECK-NEXT:    %c1 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%c0 : i64)
// CHECK-NEXT:  ^[[HEAD]](%i: i64):
// CHECK-NEXT:    %[[COND:.*]] = llvm.icmp "slt" %i, %c1024 : i64
// CHECK-NEXT:    llvm.cond_br %[[COND]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %A_ptr = llvm.getelementptr inbounds %A[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %a = llvm.load %A_ptr : !llvm.ptr -> f32
// CHECK-NEXT:    %B_ptr = llvm.getelementptr inbounds %B[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %b = llvm.load %B_ptr : !llvm.ptr -> f32
// CHECK-NEXT:    %sum = llvm.fadd %a, %b {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    %C_ptr = llvm.getelementptr inbounds %C[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %sum, %C_ptr : f32, !llvm.ptr
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %i, %c1 : i64
// CHECK-NEXT:    llvm.br ^[[HEAD]](%[[NEXT]] : i64)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    llvm.return
func.func @vadd(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1024 step %c1 {
    %a = memref.load %A[%i] : memref<1024xf32>
    %b = memref.load %B[%i] : memref<1024xf32>
    %sum = arith.addf %a, %b : f32
    memref.store %sum, %C[%i] : memref<1024xf32>
  } {xtir.loop_name = "i"}
  func.return
}

// -----

// A 2-D access is linearized with the row-major strides (constant indices folded in), its
// constants (the stride 32, the offset 3) taken from the function's prologue; a
// loop-carried value becomes a block argument of the loop header.

// CHECK-LABEL: llvm.func @xtir.row_sum(%A: !llvm.ptr {llvm.noalias}, %S: !llvm.ptr {llvm.noalias}) {
// CHECK:         %c3 = llvm.mlir.constant(3) : i64
// CHECK:         %c32 = llvm.mlir.constant(32) : i64
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%c0, %zero : i64, f32)
// CHECK-NEXT:  ^[[HEAD]](%k: i64, %acc: f32):
// CHECK:         %[[ROW:.*]] = llvm.mul %k, %c32 overflow<nsw> : i64
// CHECK-NEXT:    %[[LIN:.*]] = llvm.add %[[ROW]], %c3 overflow<nsw> : i64
// CHECK-NEXT:    %A_ptr = llvm.getelementptr inbounds %A[%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %a = llvm.load %A_ptr : !llvm.ptr -> f32
// CHECK-NEXT:    %next = llvm.fadd %acc, %a {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK:         llvm.br ^[[HEAD]](%{{.*}}, %next : i64, f32)
// CHECK:         %S_ptr = llvm.getelementptr inbounds %S[0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %acc, %S_ptr : f32, !llvm.ptr
func.func @row_sum(%A: memref<16x32xf32>, %S: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = memref.load %A[%k, %c3] : memref<16x32xf32>
    %next = arith.addf %acc, %a : f32
    scf.yield %next : f32
  } {xtir.loop_name = "k"}
  memref.store %sum, %S[%c0] : memref<1xf32>
  func.return
}

// -----

// A scratch buffer (its scope means nothing on a CPU) is one alloca of its element count in
// the entry block, however deep the loop that allocates it.

// CHECK-LABEL: llvm.func @xtir.scratch(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(512) : i64
// CHECK-NEXT:    %tile = llvm.alloca %[[N]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK:       ^bb2:
// CHECK-NOT:     llvm.alloca
// CHECK:         %tile_ptr = llvm.getelementptr inbounds %tile[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %x, %tile_ptr : f32, !llvm.ptr
func.func @scratch(%A: memref<64x32xf32>, %B: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %tile = memref.alloca() : memref<16x32xf32, "global.A_reg">
    %x = memref.load %A[%i, %c1] : memref<64x32xf32>
    %r = arith.remsi %i, %c16 : index
    memref.store %x, %tile[%r, %c0] : memref<16x32xf32, "global.A_reg">
    %y = memref.load %tile[%r, %c0] : memref<16x32xf32, "global.A_reg">
    memref.store %y, %B[%i, %c1] : memref<64x32xf32>
  } {xtir.loop_name = "i_0"}
  func.return
}

// -----

// A parallel loop is outlined into a function that runs this thread's share of the
// iterations; its captured values travel through an array of 8-byte slots to the wrapper
// that GOMP_parallel calls on every thread. Constants are cloned, not captured.

// CHECK-LABEL: llvm.func @xtir.fill(%A: !llvm.ptr {llvm.noalias}, %V: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(2) : i64
// CHECK-NEXT:    %omp_data = llvm.alloca %[[N]] x !llvm.ptr {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK:         %x = llvm.load %V_ptr : !llvm.ptr -> f32
// CHECK-NEXT:    %[[S0:.*]] = llvm.getelementptr inbounds %omp_data[0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %x, %[[S0]] : f32, !llvm.ptr
// CHECK-NEXT:    %[[S1:.*]] = llvm.getelementptr inbounds %omp_data[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.store %A, %[[S1]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[FN:.*]] = llvm.mlir.addressof @xtir.fill_i_0_parallel_omp : !llvm.ptr
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @GOMP_parallel(%[[FN]], %omp_data, %[[ZERO]], %[[ZERO]]) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
// CHECK-NEXT:  llvm.func internal @xtir.fill_i_0_parallel(%{{.*}}: f32, %{{.*}}: !llvm.ptr {llvm.noalias}) {
// CHECK:         %c256 = llvm.mlir.constant(256) : i64
// CHECK:         llvm.call @omp_get_thread_num() : () -> i32
// CHECK:         llvm.call @omp_get_num_threads() : () -> i32
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%lo : i64)
// CHECK-NEXT:  ^[[HEAD]](%i: i64):
// CHECK-NEXT:    %{{.*}} = llvm.icmp "slt" %i, %hi : i64
// CHECK:         llvm.store
// CHECK:       llvm.func internal @xtir.fill_i_0_parallel_omp(%omp_data{{.*}}: !llvm.ptr) {
// CHECK-NEXT:    %[[L0:.*]] = llvm.getelementptr inbounds %omp_data{{.*}}[0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[V0:.*]] = llvm.load %[[L0]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[L1:.*]] = llvm.getelementptr inbounds %omp_data{{.*}}[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[V1:.*]] = llvm.load %[[L1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.call @xtir.fill_i_0_parallel(%[[V0]], %[[V1]]) : (f32, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
// CHECK-DAG:   llvm.func @omp_get_thread_num() -> i32
// CHECK-DAG:   llvm.func @omp_get_num_threads() -> i32
// CHECK-DAG:   llvm.func @GOMP_parallel(!llvm.ptr, !llvm.ptr, i32, i32)
func.func @fill(%A: memref<256xf32>, %V: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %x = memref.load %V[%c0] : memref<1xf32>
  scf.for %i = %c0 to %c256 step %c1 {
    memref.store %x, %A[%i] : memref<256xf32>
  } {xtir.loop_name = "i_0", xtir.loop_kind = "parallel"}
  func.return
}

// -----

// Only the outermost parallel loop of a nest runs in parallel; the inner one is serial.

// CHECK-LABEL: llvm.func @xtir.nested
// CHECK-COUNT-1: llvm.call @GOMP_parallel
// CHECK-NOT:   llvm.call @GOMP_parallel
// CHECK-LABEL: llvm.func internal @xtir.nested_i_parallel(
// CHECK-NOT:   GOMP_parallel
// CHECK:       llvm.func internal @xtir.nested_i_parallel_omp(
func.func @nested(%A: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %one, %A[%i, %j] : memref<8x8xf32>
    } {xtir.loop_name = "j", xtir.loop_kind = "parallel"}
  } {xtir.loop_name = "i", xtir.loop_kind = "parallel"}
  func.return
}

// -----

// An unrolled loop with a constant trip count is unrolled in the IR; the constant indices
// fold into the getelementptr.

// CHECK-LABEL: llvm.func @xtir.unrolled(%A: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:    %A_ptr = llvm.getelementptr inbounds %A[0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %one, %A_ptr : f32, !llvm.ptr
// CHECK-NEXT:    %A_ptr_1 = llvm.getelementptr inbounds %A[1] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %one, %A_ptr_1 : f32, !llvm.ptr
// CHECK-NEXT:    %A_ptr_2 = llvm.getelementptr inbounds %A[2] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %one, %A_ptr_2 : f32, !llvm.ptr
// CHECK-NEXT:    %A_ptr_3 = llvm.getelementptr inbounds %A[3] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %one, %A_ptr_3 : f32, !llvm.ptr
// CHECK-NEXT:    llvm.return
func.func @unrolled(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %one, %A[%i] : memref<4xf32>
  } {xtir.loop_name = "i_1", xtir.loop_kind = "unrolled"}
  func.return
}

// -----

// An unrolled loop too big to unroll in the IR asks LLVM to unroll it by the largest count
// within the budget (2048 ops; the body is 2 ops). With dynamic bounds it asks for a full unroll.

// CHECK-LABEL: llvm.func @xtir.big_unroll
// CHECK:         llvm.br ^{{.*}} {xtir.loop_annotation = {name = "i", unroll_count = 1024 : i32}}
func.func @big_unroll(%A: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4096 step %c1 {
    memref.store %one, %A[%i] : memref<4096xf32>
  } {xtir.loop_name = "i", xtir.loop_kind = "unrolled"}
  func.return
}

// -----

// CHECK-LABEL: llvm.func @xtir.dynamic_unroll
// CHECK:         llvm.br ^{{.*}} {xtir.loop_annotation = {name = "i", unroll = "full"}}
func.func @dynamic_unroll(%A: memref<4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %one, %A[%i] : memref<4096xf32>
  } {xtir.loop_name = "i", xtir.loop_kind = "unrolled"}
  func.return
}

// -----

// A vectorized loop keeps its annotation on its back edge; the JIT turns it into
// llvm.loop.vectorize.enable metadata.

// CHECK-LABEL: llvm.func @xtir.vectorized
// CHECK:         %d = llvm.fmul %a, %a {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%{{.*}} : i64) {xtir.loop_annotation = {name = "i_1", vectorize = true}}
func.func @vectorized(%A: memref<64xf32>, %B: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %A[%i] : memref<64xf32>
    %d = arith.mulf %a, %a : f32
    memref.store %d, %B[%i] : memref<64xf32>
  } {xtir.loop_name = "i_1", xtir.loop_kind = "vectorized"}
  func.return
}

// -----

// scf.if with a result, integer division rounding down, and index casts.

// CHECK-LABEL: llvm.func @xtir.select_and_divide
// CHECK:         %q = llvm.sdiv %s, %c3 : i64
// CHECK-NEXT:    %[[R:.*]] = llvm.srem %s, %c3 : i64
// CHECK:         %[[Q:.*]] = llvm.select %{{.*}}, %{{.*}}, %q : i1, i64
// CHECK-NEXT:    %pos = llvm.icmp "sge" %[[Q]], %c0 : i64
// CHECK-NEXT:    llvm.cond_br %pos, ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK-NEXT:    %f = llvm.sitofp %[[Q]] : i64 to f32
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]](%f : f32)
// CHECK-NEXT:  ^[[ELSE]]:
// CHECK-NEXT:    %z = llvm.mlir.constant(-1.000000e+00 : f32) : f32
// CHECK-NEXT:    llvm.br ^[[JOIN]](%z : f32)
// CHECK-NEXT:  ^[[JOIN]](%v: f32):
func.func @select_and_divide(%A: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %m1 = arith.constant -1 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %s = arith.addi %i, %m1 : index
    %q = arith.floordivsi %s, %c3 : index
    %pos = arith.cmpi sge, %q, %c0 : index
    %v = scf.if %pos -> (f32) {
      %n = arith.index_cast %q : index to i64
      %f = arith.sitofp %n : i64 to f32
      scf.yield %f : f32
    } else {
      %z = arith.constant -1.0 : f32
      scf.yield %z : f32
    }
    memref.store %v, %A[%i] : memref<8xf32>
  } {xtir.loop_name = "i"}
  func.return
}

// -----

// Each constant is in the function once, not once per access: the three accesses share the
// stride 32 (and the offset 2), and a floor division's 0 and 1 are shared with them.

// CHECK-LABEL: llvm.func @xtir.shared_constants(
// CHECK-COUNT-1: llvm.mlir.constant(32) : i64
// CHECK-NOT:     llvm.mlir.constant(32) : i64
// CHECK-NOT:     llvm.mlir.constant(2) : i64
// CHECK-NOT:     llvm.mlir.constant(0) : i64
// CHECK-NOT:     llvm.mlir.constant(1) : i64
// CHECK:         llvm.return
func.func @shared_constants(%A: memref<16x32xf32>, %B: memref<16x32xf32>, %i: index, %j: index) {
  %c2 = arith.constant 2 : index
  %a = memref.load %A[%i, %j] : memref<16x32xf32>
  %b = memref.load %B[%j, %i] : memref<16x32xf32>
  %s = arith.addf %a, %b : f32
  memref.store %s, %A[%j, %c2] : memref<16x32xf32>
  %q = arith.floordivsi %i, %c2 : index
  %r = arith.floordivsi %j, %c2 : index
  memref.store %s, %B[%q, %r] : memref<16x32xf32>
  func.return
}
