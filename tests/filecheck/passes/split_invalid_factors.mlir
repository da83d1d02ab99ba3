// RUN: not xtir-opt %s -p 'split{loop=i factors=-1,-1}' 2>&1 | filecheck %s --check-prefix=TWO-INFERRED
// RUN: not xtir-opt %s -p 'split{loop=i factors=0,16}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not xtir-opt %s -p 'split{loop=i factors=-4,16}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not xtir-opt %s -p 'split{loop=i factors=16}' 2>&1 | filecheck %s --check-prefix=ONE-FACTOR
// RUN: not xtir-opt %s -p 'split{loop=i factors=true,-1}' 2>&1 | filecheck %s --check-prefix=BOOL
// RUN: not xtir-opt %s -p 'split{loop=i factors=-1,18446744073709551616}' 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not xtir-opt %s -p 'split{loop=i factors=4611686018427387904,4}' 2>&1 | filecheck %s --check-prefix=HUGE-PRODUCT
// Bad factor lists for split, one RUN line each, all on the same loop.

func.func @main(%A: memref<1000xf32>) {
  // TWO-INFERRED: {{.*}}split_invalid_factors.mlir:[[# @LINE + 7]]:3: error: 'block.for' op split: at most one factor may be -1 (inferred)
  // ZERO:         {{.*}}split_invalid_factors.mlir:[[# @LINE + 6]]:3: error: 'block.for' op split: factors must be positive or -1, got 0, 16
  // NEGATIVE:     {{.*}}split_invalid_factors.mlir:[[# @LINE + 5]]:3: error: 'block.for' op split: factors must be positive or -1, got -4, 16
  // ONE-FACTOR:   {{.*}}split_invalid_factors.mlir:[[# @LINE + 4]]:3: error: 'block.for' op split: loop "i" needs at least two factors, got 1
  // BOOL:         {{.*}}split_invalid_factors.mlir:[[# @LINE + 3]]:3: error: 'block.for' op split: factors of loop "i" must be integers, got true, -1
  // HUGE:         {{.*}}split_invalid_factors.mlir:[[# @LINE + 2]]:3: error: 'block.for' op split: factor 18446744073709551616 of loop "i" does not fit in 64 bits (at most 9223372036854775807)
  // HUGE-PRODUCT: {{.*}}split_invalid_factors.mlir:[[# @LINE + 1]]:3: error: 'block.for' op split: the product of factors (18446744073709551616) does not fit in 64 bits (at most 9223372036854775807): the index of loop "i" would overflow
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}
