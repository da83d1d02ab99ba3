// RUN: xtir-opt %s --split-input-file -p 'cache-write{block=B index=0 scope="local" consumers=C}' --verify-diagnostics
// cache-write's consumers are refused where reading the cache would read other values than B:
// a block that does not read B, one that also writes it, one after another access of B, one
// before the writer, and any consumer of a cache that the writer fills only in part.

func.func @not_a_reader(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{'block.block' op cache-write: block "C" does not read B written by block "B"; it cannot be a consumer of its cache}}
    block.block "C"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

func.func @writes_too(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{consumer block "C" also writes B; its writes would go to the buffer the cache is written back over}}
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %s = arith.addf %b, %b : f32
      block.store %s, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// "W" overwrites B between "B" and "C": "C" must read W's values, which the cache does not hold.
func.func @after_another_writer(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %w = 0 to 4 "w" {
    block.block "W"(%vi = spatial(4, %w)) {
      %z = arith.constant 0.000000e+00 : f32
      block.store %z, %B[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{consumer block "C" reads B after block "W" writes it; its cache holds what block "B" wrote}}
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

func.func @before_the_writer(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{consumer block "C" runs before block "B" writes B}}
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// "B" writes B[0:4]: "C" reads B[4:8] too, which the cache never holds.
func.func @part(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{block "B" writes only part of B (0:4), so its consumer blocks could read elements of the cache it never wrote}}
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// "W" overwrites B by an intrinsic call (a write that is not a block.store).
func.func @after_an_intrinsic_writer(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) {
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.block "B"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
        %a = block.load %A[%vi, %vj] : memref<16x16xf32>
        block.store %a, %B[%vi, %vj] : memref<16x16xf32>
      }
    }
  }
  block.for %w = 0 to 1 "w" {
    block.block "W"(%vw = spatial(1, %w)) {
      accel.fill_zero %B[0 : 16, 0 : 16] : memref<16x16xf32>
    }
  }
  block.for %i2 = 0 to 16 "i" {
    block.for %j2 = 0 to 16 "j" {
      // expected-error @+1 {{consumer block "C" reads B after block "W" writes it}}
      block.block "C"(%vi = spatial(16, %i2), %vj = spatial(16, %j2)) {
        %b = block.load %B[%vi, %vj] : memref<16x16xf32>
        block.store %b, %C[%vi, %vj] : memref<16x16xf32>
      }
    }
  }
  func.return
}

// -----

// "C" reads B through an accel op, which reading the cache would not redirect.
func.func @read_by_accel(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) {
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.block "B"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
        %a = block.load %A[%vi, %vj] : memref<16x16xf32>
        block.store %a, %B[%vi, %vj] : memref<16x16xf32>
      }
    }
  }
  block.for %w = 0 to 1 "w" {
    // expected-error @+1 {{'block.block' op cache-write: B is accessed by accel ops in block "C"; cache before tensorize}}
    block.block "C"(%vw = spatial(1, %w)) {
      accel.dma_copy %C[0 : 16, 0 : 16], %B[0 : 16, 0 : 16] : memref<16x16xf32>, memref<16x16xf32>
    }
  }
  func.return
}
