// RUN: xtir-opt %s -p convert-arith-to-llvm,convert-math-to-llvm | filecheck %s
// convert-arith-to-llvm and convert-math-to-llvm (stages of convert-to-llvm, after
// convert-types-to-llvm: the values are i64 already): one llvm op per arith op, or a short
// expansion (floor division: divide, then step by one where the remainder says so, its 0
// and 1 once per function); float adds and multiplies may contract into FMAs; math ops
// call LLVM intrinsics, or libm, but exp and erf on f16 / f32, which are computed in double
// precision (vector_math.mlir). to_llvm.mlir shows more ops through the pipeline.

// CHECK-LABEL: func.func @f(%a: i64, %b: i64, %x: f32) -> (i64, f32) {
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %c4 = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %q = llvm.sdiv %a, %c4 : i64
// CHECK-NEXT:    %q_1 = llvm.srem %a, %c4 : i64
// CHECK-NEXT:    %q_2 = llvm.icmp "ne" %q_1, %[[ZERO]] : i64
// CHECK-NEXT:    %q_3 = llvm.xor %q_1, %c4 : i64
// CHECK-NEXT:    %q_4 = llvm.icmp "slt" %q_3, %[[ZERO]] : i64
// CHECK-NEXT:    %q_5 = llvm.and %q_2, %q_4 : i1
// CHECK-NEXT:    %q_6 = llvm.sub %q, %[[ONE]] : i64
// CHECK-NEXT:    %q_7 = llvm.select %q_5, %q_6, %q : i1, i64
// CHECK-NEXT:    %r = llvm.sdiv %b, %c4 : i64
// CHECK:         %[[SUM:.*]] = llvm.add %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %y = llvm.fmul %x, %x {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    %e = llvm.fpext %y : f32 to f64
// CHECK:         %[[E:.*]] = llvm.select %{{.*}}, %y, %{{.*}} : i1, f32
// CHECK-NEXT:    %t = llvm.call @tanhf(%[[E]]) : (f32) -> f32
// CHECK-NEXT:    func.return %[[SUM]], %t : i64, f32
// CHECK:       llvm.func @tanhf(f32) -> f32
func.func @f(%a: i64, %b: i64, %x: f32) -> (i64, f32) {
  %c4 = arith.constant 4 : i64
  %q = arith.floordivsi %a, %c4 : i64
  %r = arith.floordivsi %b, %c4 : i64
  %s = arith.addi %q, %r overflow<nsw> : i64
  %y = arith.mulf %x, %x : f32
  %e = math.exp %y : f32
  %t = math.tanh %e : f32
  func.return %s, %t : i64, f32
}
