// RUN: xtir-opt %s --split-input-file -p 'parallel{loop=f1}' --verify-diagnostics
// Fused loops over split ones that race (parallel_fused_split.mlir has the legal fetch): decided
// exactly from the digits of the loop (passes/analysis/digits.py), with the iterations that meet,
// where enumerating every point refused them only as undecidable (past 2^20 points).

// Rows are `E floordiv 16`, columns `E mod 8` of E = f0 * 32 + f1 * 4 + f2: E and E + 8 are one
// element, so iterations f1 and f1 + 2 copy into the same elements.
func.func @rows_of_16_columns_of_8(%A: memref<2048x2048xf32>, %S: memref<2048x2048xf32>) {
  block.for %b = 0 to 8192 "b" {
    block.for %k = 0 to 256 "k" {
      block.for %f0 = 0 to 8 "f0" {
        // expected-error @+1 {{'block.for' op parallel: block "fetch" writes an element of S in iteration 0 of loop "f1" that block "fetch" writes in iteration 2; its iterations are not independent}}
        block.for %f1 = 0 to 8 "f1" {
          block.for %f2 = 0 to 4 "f2" {
            block.block "fetch"(%vi = spatial(2048, (%b floordiv 64) * 16 + (%f0 * 32 + %f1 * 4 + %f2) floordiv 16),
                                %vj = spatial(2048, %k * 8 + (%f0 * 32 + %f1 * 4 + %f2) mod 8)) {
              %a = block.load %A[%vi, %vj] : memref<2048x2048xf32>
              block.store %a, %S[%vi, %vj] : memref<2048x2048xf32>
            }
          }
        }
      }
    }
  }
  func.return
}

// -----

// The fused block loop (named "f1" here, for the RUN line) binds only its row tile,
// b floordiv 64: the 64 iterations of each row tile copy into the same elements.
func.func @tile_bound_by_part_of_the_fused_loop(%A: memref<4096x2048xf32>, %S: memref<4096x2048xf32>) {
  // expected-error @+1 {{'block.for' op parallel: block "fetch" writes an element of S in iteration 0 of loop "f1" that block "fetch" writes in iteration 1; its iterations are not independent}}
  block.for %b = 0 to 8192 "f1" {
    block.for %k = 0 to 256 "k" {
      block.for %f0 = 0 to 8 "f0" {
        block.for %f1 = 0 to 8 "t" {
          block.for %f2 = 0 to 4 "f2" {
            block.block "fetch"(%vi = spatial(4096, (%b floordiv 64) * 32 + (%f0 * 32 + %f1 * 4 + %f2) floordiv 8),
                                %vj = spatial(2048, %k * 8 + (%f0 * 32 + %f1 * 4 + %f2) mod 8)) {
              %a = block.load %A[%vi, %vj] : memref<4096x2048xf32>
              block.store %a, %S[%vi, %vj] : memref<4096x2048xf32>
            }
          }
        }
      }
    }
  }
  func.return
}
