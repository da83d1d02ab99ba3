// RUN: xtir-opt %s --split-input-file -p 'cache-write{func=main block=B index=0 scope="local" consumers=C}' --verify-diagnostics
// A call taking B may read and write it, as far as cache-write can tell: it may not sit in the
// nest of block "B" (it would see B before the write-back) nor in "B" (it would not see the
// cache), and a consumer after it must read B.

func.func @helper(%B: memref<8xf32>, %H: memref<8xf32>) {
  func.return
}
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>, %H: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op cache-write: func.call also accesses B in the loop nest of block "B"}}
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
    // expected-note @+1 {{this access of B}}
    func.call @helper(%B, %H) : (memref<8xf32>, memref<8xf32>) -> ()
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

// "C" runs after a call taking B: the call may write B, so "C" must read B, not the cache.
func.func @helper(%B: memref<8xf32>, %H: memref<8xf32>) {
  func.return
}
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>, %H: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.call @helper(%B, %H) : (memref<8xf32>, memref<8xf32>) -> ()
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{consumer block "C" reads B after func.call, which takes B, may write it; its cache holds what block "B" wrote}}
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A call in block "B" itself would go on using B, which "B" no longer writes.
func.func @helper(%B: memref<8xf32>, %H: memref<8xf32>) {
  func.return
}
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>, %H: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op cache-write: B is passed to func.call in block "B", which would go on using it instead of the cache}}
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
      // expected-note @+1 {{this use of B}}
      func.call @helper(%B, %H) : (memref<8xf32>, memref<8xf32>) -> ()
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
