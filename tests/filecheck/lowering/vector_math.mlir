// RUN: xtir-opt %s -p convert-math-to-llvm | filecheck %s
// math.exp and math.erf on f32 and f16 are computed in double precision from llvm arith and
// intrinsics that LLVM's loop vectorizer widens (lowering/vector_math.py), multiply-adds as
// llvm.fmuladd (fused only where the CPU has FMA), rounded once to f32, or to f16 through f32
// rounded to odd, nan passed through; on f64 they stay libm's (llvm.exp, erf).

// CHECK-LABEL: func.func @exp_erf(%x: f32, %h: f16, %d: f64) -> (f32, f16, f64, f64) {
// CHECK-NEXT:    %e = llvm.fpext %x : f32 to f64
// CHECK-NEXT:    %[[LOW:.*]] = llvm.mlir.constant(-1.040000e+02 : f64) : f64
// CHECK-NEXT:    %[[MAX:.*]] = llvm.call_intrinsic "llvm.maxnum.f64"(%e, %[[LOW]])
// CHECK-NEXT:    %[[HIGH:.*]] = llvm.mlir.constant(8.900000e+01 : f64) : f64
// CHECK-NEXT:    %[[D:.*]] = llvm.call_intrinsic "llvm.minnum.f64"(%[[MAX]], %[[HIGH]])
// CHECK-NEXT:    %[[MAGIC:.*]] = llvm.mlir.constant(0x4338000000000000 : f64) : f64
// CHECK-NEXT:    %[[LOG2E:.*]] = llvm.mlir.constant(1.4426950408889634 : f64) : f64
// CHECK-NEXT:    %[[SHIFTED:.*]] = llvm.call_intrinsic "llvm.fmuladd.f64"(%[[D]], %[[LOG2E]], %[[MAGIC]])
// CHECK-NEXT:    %[[N:.*]] = llvm.fsub %[[SHIFTED]], %[[MAGIC]] : f64
// CHECK-NEXT:    %[[LN2HI:.*]] = llvm.mlir.constant(0.69314718036912382 : f64) : f64
// CHECK-NEXT:    %[[NLN2HI:.*]] = llvm.fmul %[[N]], %[[LN2HI]] : f64
// CHECK-NEXT:    %[[RHI:.*]] = llvm.fsub %[[D]], %[[NLN2HI]] : f64
// CHECK-NEXT:    %[[LN2LO:.*]] = llvm.mlir.constant(-1.9082149292705877e-10 : f64) : f64
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.fmuladd.f64"(%[[N]], %[[LN2LO]], %[[RHI]])
// CHECK-NOT:     "llvm.fma.f64"
// CHECK:         %[[BITS:.*]] = llvm.bitcast %[[SHIFTED]] : f64 to i64
// CHECK:         %[[SCALE:.*]] = llvm.bitcast %{{.*}} : i64 to f64
// CHECK-NEXT:    %[[Y:.*]] = llvm.fmul %{{.*}}, %[[SCALE]] : f64
// CHECK-NEXT:    %[[Y32:.*]] = llvm.fptrunc %[[Y]] : f64 to f32
// CHECK-NEXT:    %[[NAN:.*]] = llvm.fcmp "uno" %x, %x : f32
// CHECK-NEXT:    %[[EXP:.*]] = llvm.select %[[NAN]], %x, %[[Y32]] : i1, f32
// CHECK-NEXT:    %[[ERF:.*]] = llvm.fpext %[[EXP]] : f32 to f64
// CHECK-NEXT:    %[[ABS:.*]] = llvm.call_intrinsic "llvm.fabs.f64"(%[[ERF]])
// CHECK:         %[[A:.*]] = llvm.call_intrinsic "llvm.minnum.f64"(%[[ABS]], %{{.*}})
// CHECK:         %[[SPLIT:.*]] = llvm.mlir.constant(1.000000e+00 : f64) : f64
// CHECK-NEXT:    %[[BELOW:.*]] = llvm.fcmp "olt" %[[A]], %[[SPLIT]] : f64
// CHECK-NEXT:    %[[MAG:.*]] = llvm.select %[[BELOW]], %{{.*}}, %{{.*}} : i1, f64
// CHECK-NEXT:    %[[SIGNED:.*]] = llvm.call_intrinsic "llvm.copysign.f64"(%[[MAG]], %[[ERF]])
// CHECK-NEXT:    %[[R32:.*]] = llvm.fptrunc %[[SIGNED]] : f64 to f32
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "uno" %[[EXP]], %[[EXP]] : f32
// CHECK-NEXT:    %[[R:.*]] = llvm.select %{{.*}}, %[[EXP]], %[[R32]] : i1, f32
// CHECK-NEXT:    %eh = llvm.fpext %h : f16 to f64
// CHECK:         %[[HSCALE:.*]] = llvm.bitcast %{{.*}} : i64 to f64
// CHECK-NEXT:    %[[HY:.*]] = llvm.fmul %{{.*}}, %[[HSCALE]] : f64
// CHECK-NEXT:    %[[HNEAR:.*]] = llvm.fptrunc %[[HY]] : f64 to f32
// CHECK-NEXT:    %[[HBACK:.*]] = llvm.fpext %[[HNEAR]] : f32 to f64
// CHECK-NEXT:    %[[HBITS:.*]] = llvm.bitcast %[[HNEAR]] : f32 to i32
// CHECK-NEXT:    %[[HABSBACK:.*]] = llvm.call_intrinsic "llvm.fabs.f64"(%[[HBACK]])
// CHECK-NEXT:    %[[HABSY:.*]] = llvm.call_intrinsic "llvm.fabs.f64"(%[[HY]])
// CHECK-NEXT:    %[[HAWAY:.*]] = llvm.fcmp "ogt" %[[HABSBACK]], %[[HABSY]] : f64
// CHECK-NEXT:    %[[HAWAY32:.*]] = llvm.zext %[[HAWAY]] : i1 to i32
// CHECK-NEXT:    %[[HINEXACT:.*]] = llvm.fcmp "one" %[[HBACK]], %[[HY]] : f64
// CHECK-NEXT:    %[[HINEXACT32:.*]] = llvm.zext %[[HINEXACT]] : i1 to i32
// CHECK-NEXT:    %[[HZERO:.*]] = llvm.sub %[[HBITS]], %[[HAWAY32]] : i32
// CHECK-NEXT:    %[[HODD:.*]] = llvm.or %[[HZERO]], %[[HINEXACT32]] : i32
// CHECK-NEXT:    %[[H32:.*]] = llvm.bitcast %[[HODD]] : i32 to f32
// CHECK-NEXT:    %[[H16:.*]] = llvm.fptrunc %[[H32]] : f32 to f16
// CHECK-NEXT:    %{{.*}} = llvm.fcmp "uno" %h, %h : f16
// CHECK-NEXT:    %[[RH:.*]] = llvm.select %{{.*}}, %h, %[[H16]] : i1, f16
// CHECK-NEXT:    %ed = llvm.call_intrinsic "llvm.exp.f64"(%d) : (f64) -> f64
// CHECK-NEXT:    %rd = llvm.call @erf(%d) : (f64) -> f64
// CHECK-NEXT:    func.return %[[R]], %[[RH]], %ed, %rd : f32, f16, f64, f64
// CHECK:       llvm.func @erf(f64) -> f64
func.func @exp_erf(%x: f32, %h: f16, %d: f64) -> (f32, f16, f64, f64) {
  %e = math.exp %x : f32
  %r = math.erf %e : f32
  %eh = math.exp %h : f16
  %ed = math.exp %d : f64
  %rd = math.erf %d : f64
  func.return %r, %eh, %ed, %rd : f32, f16, f64, f64
}
