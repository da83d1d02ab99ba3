// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// Loop extents, iteration domains and predicate bounds are i64: a literal that does not fit is
// refused where it is written. (2^63 used to be stored as -2^63 and reported as a negative
// extent; 2^64 as xDSL's "out of range for type i64", or a ValueError for a domain.)

func.func @extent_2_63(%A: memref<4xf32>) {
  // expected-error @+1 {{the loop extent 9223372036854775808 does not fit in 64 bits (at most 9223372036854775807)}}
  block.for %i = 0 to 9223372036854775808 "i" {
  }
  func.return
}

// -----

func.func @extent_2_64(%A: memref<4xf32>) {
  // expected-error @+1 {{the loop extent 18446744073709551616 does not fit in 64 bits (at most 9223372036854775807)}}
  block.for %i = 0 to 18446744073709551616 "i" {
  }
  func.return
}

// -----

func.func @domain_2_64(%A: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{the domain extent 18446744073709551616 does not fit in 64 bits (at most 9223372036854775807)}}
    block.block "B"(%vi = spatial(18446744073709551616, %i)) {
    }
  }
  func.return
}

// -----

func.func @where_bound_2_63(%A: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{the predicate bound 9223372036854775808 does not fit in 64 bits (at most 9223372036854775807)}}
    block.block "B"(%vi = spatial(4, %i)) where(%i < 9223372036854775808) {
    }
  }
  func.return
}

// -----

// The largest i64 is an extent like any other.
func.func @extent_int64_max(%A: memref<4xf32>) {
  block.for %i = 0 to 9223372036854775807 "i" {
  }
  func.return
}
