// RUN: xtir-opt %s --split-input-file -p lower-blocks,lower-to-gpu --verify-diagnostics
// What lower-to-gpu refuses of a double-buffered shared buffer (block.alloc {double_buffer_scope}).

// Marked by hand (the primitive refuses it: double_buffer_invalid.mlir): the fetch is computed at
// a thread-bound loop, so no serial loop fetches and reads the tile.
builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    // expected-error @+1 {{'memref.alloca' op lower-to-gpu: double-buffered A_shared is not fetched and read in one serial loop}}
    %A_shared = block.alloc {double_buffer_scope} : memref<64x64xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
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

// Marked by hand (the primitive refuses it too): two 32 KiB tiles exceed a block's shared memory.
builtin.module {
  func.func @main(%A: memref<64x4096xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc {double_buffer_scope} : memref<64x4096xf32, "shared">
    // expected-error @+1 {{'scf.for' op lower-to-gpu: the kernel uses 65536 bytes of shared memory per block (largest: A_shared double-buffered, 65536 bytes); a block has at most 49152 (48 KiB)}}
    block.for %i0 = 0 to 1 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 64 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 32 "k_0" {
          block.for %ax0 = 0 to 64 "ax0" bind("threadIdx.x") {
            block.for %ax1 = 0 to 128 "ax1" {
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
