// RUN: xtir-opt %s | xtir-opt | filecheck %s
// Float constants at the edges of their types: rounded to the nearest value (65519 is f16's
// 65504), infinity spelled in hexadecimal (bits), bf16 with f32's range.

// CHECK:      %0 = arith.constant 6.550400e+04 : f16
// CHECK-NEXT: %1 = arith.constant 0x7c00 : f16
// CHECK-NEXT: %2 = arith.constant 0xfc00 : f16
// CHECK-NEXT: %3 = arith.constant 3.40282347e+38 : f32
// CHECK-NEXT: %4 = arith.constant 9.999220e+09 : bf16
// CHECK-NEXT: %5 = arith.constant 1.7976931348623157e+308 : f64
func.func @main() {
  %0 = arith.constant 65519.0 : f16
  %1 = arith.constant 0x7C00 : f16
  %2 = arith.constant 0xFC00 : f16
  %3 = arith.constant 3.4028234e38 : f32
  %4 = arith.constant 1.0e10 : bf16
  %5 = arith.constant 1.7976931348623157e308 : f64
  func.return
}
