// RUN: xtir-opt %s --split-input-file -p 'double-buffer{block=A_shared}' --verify-diagnostics
// What double-buffer refuses, on the row sum of double_buffer.mlir scheduled otherwise
// (the cache of another scope: double_buffer_invalid_local.mlir, _global.mlir).

// The fetch is not computed at a loop of its reader (no compute-at): one fetch of everything.
builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x64xf32, "shared">
    block.for %ax0 = 0 to 64 "ax0" {
      block.for %ax1 = 0 to 64 "ax1" {
        // expected-error @+1 {{'block.block' op double-buffer: block "A_shared" is not under a loop of the blocks reading A_shared; compute it at the reduction loop first (compute-at)}}
        block.block "A_shared"(%v0 = spatial(64, %ax0), %v1 = spatial(64, %ax1)) {
          %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
          block.store %0, %A_shared[%v0, %v1] : memref<64x64xf32, "shared">
        }
      }
    }
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 8 "k_0" {
          block.for %k1 = 0 to 8 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<64x64xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<64xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

// -----

// Computed at a thread-bound loop: no serial loop to pipeline.
builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x64xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      // expected-error @+1 {{'block.for' op double-buffer: loop "i_1" around the fetch of A_shared is bound to threadIdx.x; double buffering needs a serial loop whose iterations fetch one tile each}}
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %ax0 = 0 to 8 "ax0" bind("threadIdx.x") {
          block.for %ax1 = 0 to 64 "ax1" {
            block.block "A_shared"(%v0 = spatial(64, %i0 * 8 + %ax0), %v1 = spatial(64, %ax1)) {
              %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
              block.store %0, %A_shared[%v0, %v1] : memref<64x64xf32, "shared">
            }
          }
        }
        block.for %k0 = 0 to 8 "k_0" {
          block.for %k1 = 0 to 8 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<64x64xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<64xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

// -----

// Computed at a serial loop that is not a reduction loop of the reader (i_2, a row per iteration).
builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x64xf32, "shared">
    block.for %i0 = 0 to 1 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        // expected-error @+1 {{'block.for' op double-buffer: loop "i_2" is not a reduction loop of block "S", which reads A_shared; double buffering pipelines the tiles of a serial reduction loop}}
        block.for %i2 = 0 to 8 "i_2" {
          block.for %ax0 = 0 to 57 "ax0" {
            block.for %ax1 = 0 to 64 "ax1" {
              block.block "A_shared"(%v0 = spatial(64, %i0 * 64 + %i2 + %ax0), %v1 = spatial(64, %ax1)) {
                %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
                block.store %0, %A_shared[%v0, %v1] : memref<64x64xf32, "shared">
              }
            }
          }
          block.for %k = 0 to 64 "k" {
            block.block "S"(%vi = spatial(64, %i0 * 64 + %i1 * 8 + %i2), %vk = reduce(64, %k)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<64x64xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<64xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

// -----

// Two tiles of 64x128 floats: 64 KiB, more shared memory than a block has.
builtin.module {
  func.func @main(%A: memref<64x4096xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x4096xf32, "shared">
    block.for %i0 = 0 to 1 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 64 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 32 "k_0" {
          block.for %ax0 = 0 to 64 "ax0" bind("threadIdx.x") {
            block.for %ax1 = 0 to 128 "ax1" {
              // expected-error @+1 {{'block.block' op double-buffer: double-buffered, A_shared takes 2 x 32768 = 65536 bytes of shared memory; a block has at most 49152 (48 KiB)}}
              block.block "A_shared"(%v0 = spatial(64, %ax0), %v1 = spatial(4096, %k0 * 128 + %ax1)) {
                %0 = block.load %A[%v0, %v1] : memref<64x4096xf32>
                block.store %0, %A_shared[%v0, %v1] : memref<64x4096xf32, "shared">
              }
            }
          }
          block.for %k1 = 0 to 128 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 64 + %i1), %vk = reduce(4096, %k0 * 128 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<64x4096xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<64xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

// -----

// Double-buffered already.
builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc {double_buffer_scope} : memref<64x64xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 8 "k_0" {
          block.for %ax0 = 0 to 8 "ax0" {
            block.for %ax1 = 0 to 8 "ax1" bind("threadIdx.x") {
              // expected-error @+1 {{'block.block' op double-buffer: A_shared is double-buffered already}}
              block.block "A_shared"(%v0 = spatial(64, %i0 * 8 + %ax0), %v1 = spatial(64, %k0 * 8 + %ax1)) {
                %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
                block.store %0, %A_shared[%v0, %v1] : memref<64x64xf32, "shared">
              }
            }
          }
          block.for %k1 = 0 to 8 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<64x64xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<64xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

// -----

// The fetch indexes k by a floor mod, for which region relaxation gives no range: its tile is counted as the
// whole dimension (8 x 3072 floats, an upper bound; the mod is the identity here, the real tile 8 x 8), and the
// two such tiles exceed 48 KiB.
builtin.module {
  func.func @main(%A: memref<64x3072xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x3072xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 384 "k_0" {
          block.for %ax0 = 0 to 8 "ax0" {
            block.for %ax1 = 0 to 8 "ax1" bind("threadIdx.x") {
              // expected-error @+1 {{'block.block' op double-buffer: double-buffered, A_shared takes 2 x 98304 = 196608 bytes of shared memory; a block has at most 49152 (48 KiB)}}
              block.block "A_shared"(%v0 = spatial(64, %i0 * 8 + %ax0), %v1 = spatial(3072, (%k0 * 8 + %ax1) mod 3072)) {
                %0 = block.load %A[%v0, %v1] : memref<64x3072xf32>
                block.store %0, %A_shared[%v0, %v1] : memref<64x3072xf32, "shared">
              }
            }
          }
          block.for %k1 = 0 to 8 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(3072, %k0 * 8 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<64x3072xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<64xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

