// RUN: xtir-opt %s --split-input-file -p 'cache-write{block=first index=0 scope="local"}' --verify-diagnostics

// A consumer inside the same nest would read B before the write-back.
builtin.module {
  func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
    block.for %i = 0 to 8 "i" {
      // expected-error @+1 {{'block.block' op cache-write: block "second" also accesses B in the loop nest of block "first"}}
      block.block "first"(%vi = spatial(8, %i)) {
        %a = block.load %A[%vi] : memref<8xf32>
        block.store %a, %B[%vi] : memref<8xf32>
      }
      block.block "second"(%vi = spatial(8, %i)) {
        // expected-note @+1 {{this access of B}}
        %b = block.load %B[%vi] : memref<8xf32>
        block.store %b, %C[%vi] : memref<8xf32>
      }
    }
    func.return
  }
}


// -----

// An update without init (decompose-reduction ran first): it reads what "init" left in C,
// which the cache would not hold.
func.func @update_without_init(%A: memref<8x8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "init"(%vi = spatial(8, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %C[%vi] : memref<8xf32>
    }
  }
  block.for %i2 = 0 to 8 "i" {
    block.for %k = 0 to 8 "k" {
      // expected-error @+1 {{'block.block' op cache-write: block "first" reads C without an init that writes it first, so the cache C_local would start uninitialized; cache-write a reduction before decompose-reduction}}
      block.block "first"(%vi = spatial(8, %i2), %vk = reduce(8, %k)) {
        %c = block.load %C[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        %sum = arith.addf %c, %a : f32
        block.store %sum, %C[%vi] : memref<8xf32>
      }
    }
  }
  func.return
}

// -----

// Every other element: the box C[0:15] holds elements "first" never writes, which a
// write-back would overwrite with uninitialized ones.
func.func @strided(%A: memref<8xf32>, %C: memref<16xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op cache-write: block "first" writes 8 elements of C, not exactly the 15 of C[0:15]; the write-back from C_local copies a box of elements and would overwrite elements of C that block "first" never wrote}}
    block.block "first"(%v = spatial(8, %i)) {
      %a = block.load %A[%v] : memref<8xf32>
      block.store %a, %C[%v * 2] : memref<16xf32>
    }
  }
  func.return
}

// -----

// The diagonal of C.
func.func @diagonal(%A: memref<8xf32>, %C: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op cache-write: block "first" writes 8 elements of C, not exactly the 64 of C[0:8, 0:8]; the write-back from C_local copies a box of elements and would overwrite elements of C that block "first" never wrote}}
    block.block "first"(%v = spatial(8, %i)) {
      %a = block.load %A[%v] : memref<8xf32>
      block.store %a, %C[%v, %v] : memref<8x8xf32>
    }
  }
  func.return
}

// -----

// Two stores, columns 0 and 2: the box C[0:8, 0:3] has column 1 too.
func.func @two_columns(%A: memref<8xf32>, %C: memref<8x3xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op cache-write: block "first" writes 16 elements of C, not exactly the 24 of C[0:8, 0:3]; the write-back from C_local copies a box of elements and would overwrite elements of C that block "first" never wrote}}
    block.block "first"(%v = spatial(8, %i)) {
      %a = block.load %A[%v] : memref<8xf32>
      block.store %a, %C[%v, 0] : memref<8x3xf32>
      block.store %a, %C[%v, 2] : memref<8x3xf32>
    }
  }
  func.return
}

// -----

// The init writes C[vi + 1] for every vi, but the body only C[vi] for vi < 7: C[7] is
// outside what the body writes.
func.func @init_outside(%A: memref<8x4xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 7 "i" {
    block.for %k = 0 to 4 "k" {
      // expected-error @+1 {{'block.block' op cache-write: the init of block "first" writes C outside what its body writes; the write-back from C_local copies a box of elements and would overwrite elements of C that block "first" never wrote}}
      block.block "first"(%vi = spatial(7, %i), %vk = reduce(4, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<8xf32>
          block.store %zero, %C[%vi + 1] : memref<8xf32>
        }
        %c = block.load %C[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x4xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<8xf32>
      }
    }
  }
  func.return
}
