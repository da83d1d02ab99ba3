// RUN: xtir-opt %s --split-input-file -p convert-to-llvm --verify-diagnostics
// Names that cannot be symbols of machine code are refused before LLVM sees them (a
// non-ASCII one used to fail after MCJIT was set up, and take the process down with it);
// element types without lowering are refused: bf16 (llvmlite, which writes the LLVM IR, has no
// bfloat type), f80 and complex numbers (xDSL's translation raised a ValueError or its own error).

// expected-error @+1 {{mangle-symbols: function name 'fé' cannot be a symbol of machine code: use ASCII letters, digits, '_', '$' and '.', starting with a letter or '_'}}
func.func @"fé"(%A: memref<4xf32>) {
  func.return
}

// -----

// expected-error @+1 {{mangle-symbols: function name 'a b' cannot be a symbol of machine code}}
func.func @"a b"(%A: memref<4xf32>) {
  func.return
}

// -----

func.func @half(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.load %A[%c0] : memref<4xf32>
  // expected-error @+1 {{check-llvm-target: element type bf16 is not supported on the CPU}}
  %h = arith.truncf %a : f32 to bf16
  func.return
}

// -----

func.func @extended(%A: memref<4xf32>) {
  // expected-error @+1 {{check-llvm-target: element type f80 is not supported on the CPU (the backend compiles f16, f32, f64 and integers)}}
  %T = memref.alloca() : memref<4xf80>
  func.return
}

// -----

func.func @complex(%A: memref<4xf32>) {
  // expected-error @+1 {{check-llvm-target: element type complex<f32> is not supported on the CPU}}
  %T = memref.alloca() : memref<4xcomplex<f32>>
  func.return
}

// -----

// The run-time error channel's symbol is reserved: the reports of guard-arith and check-bounds
// are calls of it, made before mangle-symbols renames the module's own functions.
// expected-error @+1 {{mangle-symbols: function name "xtir_runtime_error" is reserved: compiled code reports run-time errors by calling the function of that name; rename the function}}
func.func @xtir_runtime_error(%s: index, %x: index, %y: index) {
  func.return
}
