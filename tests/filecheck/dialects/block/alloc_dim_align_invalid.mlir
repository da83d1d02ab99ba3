// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// The block.alloc verifier checks the storage alignments storage-align records (buffer_dim_align):
// triples (axis, factor, offset) with the axis a dimension of the buffer, each axis once, a
// positive factor and an offset in [0, factor).

func.func @not_triples() {
  // expected-error @+1 {{'block.alloc' op buffer_dim_align of buffer %B must be an array of array<i64: axis, factor, offset>, got [array<i64: 0, 32>]}}
  %B = block.alloc {buffer_dim_align = [array<i64: 0, 32>]} : memref<4x4xf32>
  func.return
}

// -----

func.func @axis_past_the_rank() {
  // expected-error @+1 {{'block.alloc' op buffer_dim_align of buffer %B: axis 2 is not a dimension of the rank-2 buffer}}
  %B = block.alloc {buffer_dim_align = [array<i64: 2, 32, 1>]} : memref<4x4xf32>
  func.return
}

// -----

func.func @axis_twice() {
  // expected-error @+1 {{'block.alloc' op buffer_dim_align of buffer %B aligns an axis twice}}
  %B = block.alloc {buffer_dim_align = [array<i64: 0, 32, 1>, array<i64: 0, 8, 1>]} : memref<4x4xf32>
  func.return
}

// -----

func.func @offset_past_the_factor() {
  // expected-error @+1 {{'block.alloc' op buffer_dim_align of buffer %B: axis 0 needs factor > 0 and offset in [0, factor), got factor 8, offset 8}}
  %B = block.alloc {buffer_dim_align = [array<i64: 0, 8, 8>]} : memref<4x4xf32>
  func.return
}

// -----

func.func @not_an_array() {
  // expected-error @+1 {{'block.alloc' op buffer_dim_align of buffer %B must be an array of array<i64: axis, factor, offset>, got 1 : i64}}
  %B = block.alloc {buffer_dim_align = 1 : i64} : memref<4x4xf32>
  func.return
}
