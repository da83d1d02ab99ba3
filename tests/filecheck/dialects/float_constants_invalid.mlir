// RUN: not xtir-opt %s --split-input-file 2>&1 | filecheck %s
// A float constant its type cannot hold is refused at the literal. xDSL packed it with
// `struct` and raised OverflowError (f16 past 65504, f32 past 3.4e38), read a literal past the
// double range as infinity, read `-0x1 : f16` as -1.0 and could not print f80 constants.
// (MLIR rounds 1.0e10 : f16 to infinity; xtir asks for infinity in hexadecimal, 0x7C00.)

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:23: error: floating point value 1.0e10 is out of range for f16 (largest finite value 65504)
  %c = arith.constant 1.0e10 : f16
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:23: error: floating point value -65520.0 is out of range for f16
  %c = arith.constant -65520.0 : f16
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:23: error: floating point value 100000 is out of range for f16
  %c = arith.constant 100000 : f16
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:23: error: floating point value 1.0e39 is out of range for f32 (largest finite value 3.40282e+38)
  %c = arith.constant 1.0e39 : f32
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:23: error: floating point value too large
  %c = arith.constant 1.0e400 : f64
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:23: error: hexadecimal float literal 0x1FFFF has more bits than f16
  %c = arith.constant 0x1FFFF : f16
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:23: error: a hexadecimal float literal gives the bits of the value; it takes no minus sign
  %c = arith.constant -0x3C00 : f16
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:23: error: f80 constants are not supported (xDSL cannot print them)
  %c = arith.constant 1.0 : f80
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:3: error: a value is out of range for its type (float too large to pack with e format)
  %c = arith.constant dense<[1.0, 1.0e10]> : tensor<2xf16>
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:35: error: floating point value too large
  %c = arith.constant dense<[1.0, -1.0e400]> : tensor<2xf64>
  func.return
}

// -----

func.func @main() {
  // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:3: error: Integer value 300 is out of range for type i8
  %c = arith.constant dense<300> : tensor<2xi8>
  func.return
}

// -----

func.func @main(%C: memref<4xf16>) {
  block.for %i = 0 to 4 "i" {
    block.block "C"(%vi = spatial(4, %i)) {
      // CHECK: float_constants_invalid.mlir:[[# @LINE + 1]]:27: error: floating point value 1.0e10 is out of range for f16
      %c = arith.constant 1.0e10 : f16
      block.store %c, %C[%vi] : memref<4xf16>
    }
  }
  func.return
}
