// RUN: xtir-opt %s --split-input-file -p 'pad-einsum{block=C padding=16,16,8}' --verify-diagnostics
// Each refusal leaves the IR as it was. TVM's own checks (the padding, the einsum pattern), then
// xtir's soundness checks: padding must not change a number of C.

// The padding has one entry per iteration variable (TVM's InvalidPaddingError).
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<20x12xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 12 "j" {
        // expected-error @+1 {{pad-einsum: the padding for block "C" is invalid: it should be a list of 2 positive integers (one per iteration variable), got [16, 16, 8]}}
        block.block "C"(%vi = spatial(20, %i), %vj = spatial(12, %j)) {
          %a = block.load %A[%vi, %vj] : memref<20x12xf32>
          block.store %a, %C[%vi, %vj] : memref<20x12xf32>
        }
      }
    }
    func.return
  }
}

// -----

// Not an einsum: A is read at vi + vk, not at iteration variables (TVM's NonEinsumError).
builtin.module {
  func.func @main(%A: memref<40x12xf32>, %C: memref<20x18xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 18 "j" {
        block.for %k = 0 to 12 "k" {
          // expected-error @+1 {{block "C" is not a computation of einsum pattern: it accesses A[vi + vk, vj mod 12], not one element indexed by iteration variables or constants}}
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(18, %j), %vk = reduce(12, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<20x18xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<20x18xf32>
            %a = block.load %A[%vi + %vk, %vj mod 12] : memref<40x12xf32>
            %sum = arith.addf %c, %a : f32
            block.store %sum, %C[%vi, %vj] : memref<20x18xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// Not an einsum: C is updated in place without an init, so it is read and written.
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<20x18xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 18 "j" {
        block.for %k = 0 to 12 "k" {
          // expected-error @+1 {{block "C" is not a computation of einsum pattern: C is both read and written}}
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(18, %j), %vk = reduce(12, %k)) {
            %c = block.load %C[%vi, %vj] : memref<20x18xf32>
            %a = block.load %A[%vi, %vk] : memref<20x12xf32>
            %sum = arith.addf %c, %a : f32
            block.store %sum, %C[%vi, %vj] : memref<20x18xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// A max reduction padded along k: the zeros would win over negative rows. TVM pads it.
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<20x18xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 18 "j" {
        block.for %k = 0 to 12 "k" {
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(18, %j), %vk = reduce(12, %k)) {
            block.init {
              %low = arith.constant -1.000000e+30 : f32
              block.store %low, %C[%vi, %vj] : memref<20x18xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<20x18xf32>
            %a = block.load %A[%vi, %vk] : memref<20x12xf32>
            %m = arith.maximumf %c, %a : f32
            // expected-error @+1 {{padding reduce variable %vk of block "C" is sound only for a sum C = C + a * b * ... of loads indexed by %vk and finite constants, which the zero padding makes add 0; it computes max(C[vi, vj], A[vi, vk])}}
            block.store %m, %C[%vi, %vj] : memref<20x18xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// A factor not indexed by k: at the padded k it is multiplied by 0, and inf * 0 is NaN.
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %W: memref<18xf32>, %C: memref<20x18xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 18 "j" {
        block.for %k = 0 to 12 "k" {
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(18, %j), %vk = reduce(12, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<20x18xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<20x18xf32>
            %a = block.load %A[%vi, %vk] : memref<20x12xf32>
            %w = block.load %W[%vj] : memref<18xf32>
            %aw = arith.mulf %a, %w : f32
            %sum = arith.addf %c, %aw : f32
            // expected-error @+1 {{in A[vi, vk] * W[vj], the factor W[vj] is not one}}
            block.store %sum, %C[%vi, %vj] : memref<20x18xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// An integer division: at the padded points the divisor is 0.
builtin.module {
  func.func @main(%A: memref<20x12xi32>, %B: memref<20x12xi32>, %C: memref<20x12x4xi32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 12 "j" {
        block.for %l = 0 to 4 "l" {
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(12, %j), %vl = spatial(4, %l)) {
            %a = block.load %A[%vi, %vj] : memref<20x12xi32>
            %b = block.load %B[%vi, %vj] : memref<20x12xi32>
            // expected-error @+1 {{block "C" divides (arith.divsi); at the padded points the divisor may be 0, which traps}}
            %q = arith.divsi %a, %b : i32
            block.store %q, %C[%vi, %vj, %vl] : memref<20x12x4xi32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// Loops split already: TVM would pad the domain but not the loops.
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<20x12xf32>) {
    block.for %i_0 = 0 to 5 "i_0" {
      block.for %i_1 = 0 to 4 "i_1" {
        block.for %j = 0 to 12 "j" {
          block.for %l = 0 to 1 "l" {
            // expected-error @+1 {{iteration variable %vi of block "C" is bound to i_0 * 4 + i_1, not to a loop of its own over 20; apply pad-einsum before the block's loops are transformed}}
            block.block "C"(%vi = spatial(20, %i_0 * 4 + %i_1), %vj = spatial(12, %j), %vl = spatial(1, %l)) {
              %a = block.load %A[%vi, %vj] : memref<20x12xf32>
              block.store %a, %C[%vi, %vj] : memref<20x12xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

// -----

// A loop shared with another block: padding it would run D outside its domain.
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<20x12xf32>, %D: memref<20xf32>) {
    // expected-error @+1 {{loop "i" also runs block "D"; padding it would run that block outside its domain}}
    block.for %i = 0 to 20 "i" {
      block.block "D"(%vi = spatial(20, %i)) {
        %z = arith.constant 0.000000e+00 : f32
        block.store %z, %D[%vi] : memref<20xf32>
      }
      block.for %j = 0 to 12 "j" {
        block.for %l = 0 to 1 "l" {
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(12, %j), %vl = spatial(1, %l)) {
            %a = block.load %A[%vi, %vj] : memref<20x12xf32>
            block.store %a, %C[%vi, %vj] : memref<20x12xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// A is wider than vj's domain: A_pad's guard would let through A's columns 12 and 13.
builtin.module {
  func.func @main(%A: memref<20x14xf32>, %C: memref<20x12x8xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 12 "j" {
        block.for %l = 0 to 8 "l" {
          // expected-error @+1 {{block "C" accesses A[vi, vj], dimension 1 of 14 elements, but %vj runs over 12; pad-einsum pads a buffer whose dimensions are the extents of the variables indexing them}}
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(12, %j), %vl = spatial(8, %l)) {
            %a = block.load %A[%vi, %vj] : memref<20x14xf32>
            block.store %a, %C[%vi, %vj, %vl] : memref<20x12x8xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// C is written at a constant column: the copy back would copy C_pad's unwritten columns.
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<20x12x4xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 12 "j" {
        block.for %l = 0 to 8 "l" {
          // expected-error @+1 {{block "C" accesses C[vi, vj, 0], dimension 2 at a constant, not an iteration variable}}
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(12, %j), %vl = spatial(8, %l)) {
            %a = block.load %A[%vi, %vj] : memref<20x12xf32>
            block.store %a, %C[%vi, %vj, 0] : memref<20x12x4xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// C is longer than vi's domain: the copy back would overwrite C's rows 20 to 23.
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<24x12x8xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 12 "j" {
        block.for %l = 0 to 8 "l" {
          // expected-error @+1 {{block "C" accesses C[vi, vj, vl], dimension 0 of 24 elements, but %vi runs over 20}}
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(12, %j), %vl = spatial(8, %l)) {
            %a = block.load %A[%vi, %vj] : memref<20x12xf32>
            block.store %a, %C[%vi, %vj, %vl] : memref<24x12x8xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// C is written on its diagonal only: the copy back would copy C_pad's unwritten elements.
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<20x20x8xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 12 "j" {
        block.for %l = 0 to 8 "l" {
          // expected-error @+1 {{block "C" accesses C[vi, vi, vl], dimension 1 at %vi again}}
          block.block "C"(%vi = spatial(20, %i), %vj = reduce(12, %j), %vl = spatial(8, %l)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vi, %vl] : memref<20x20x8xf32>
            }
            %c = block.load %C[%vi, %vi, %vl] : memref<20x20x8xf32>
            %a = block.load %A[%vi, %vj] : memref<20x12xf32>
            %sum = arith.addf %c, %a : f32
            block.store %sum, %C[%vi, %vi, %vl] : memref<20x20x8xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// A padded spatial variable that does not index C: the padded points would write C[vi, vl].
builtin.module {
  func.func @main(%A: memref<20x12xf32>, %C: memref<20x8xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 12 "j" {
        block.for %l = 0 to 8 "l" {
          // expected-error @+1 {{padded spatial variable %vj of block "C" does not index C[vi, vl]: the padded points would write its elements}}
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(12, %j), %vl = spatial(8, %l)) {
            %a = block.load %A[%vi, %vj] : memref<20x12xf32>
            block.store %a, %C[%vi, %vl] : memref<20x8xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// A count: C = C + 1 loads nothing indexed by k, so the padded steps would count too.
builtin.module {
  func.func @main(%C: memref<20x8xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %k = 0 to 12 "k" {
        block.for %l = 0 to 8 "l" {
          block.block "C"(%vi = spatial(20, %i), %vk = reduce(12, %k), %vl = spatial(8, %l)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vl] : memref<20x8xf32>
            }
            %c = block.load %C[%vi, %vl] : memref<20x8xf32>
            %one = arith.constant 1.000000e+00 : f32
            %sum = arith.addf %c, %one : f32
            // expected-error @+1 {{padding reduce variable %vk of block "C" is sound only for a sum C = C + a * b * ... of loads indexed by %vk and finite constants, which the zero padding makes add 0; 1.0 loads nothing, so the padded steps add it too}}
            block.store %sum, %C[%vi, %vl] : memref<20x8xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// C's outermost loop i (not padded) also runs P, the producer of A: A_pad's copy before the
// nest would read A before P writes it.
builtin.module {
  func.func @main(%X: memref<16x12xf32>, %C: memref<16x12x8xf32>) {
    %A = block.alloc : memref<16x12xf32>
    // expected-error @+1 {{loop "i" holds block "P" besides block "C"; pad-einsum copies the padded buffers before that nest and back after it, so it must hold block "C" alone}}
    block.for %i = 0 to 16 "i" {
      block.for %p = 0 to 12 "p" {
        block.block "P"(%pi = spatial(16, %i), %pj = spatial(12, %p)) {
          %x = block.load %X[%pi, %pj] : memref<16x12xf32>
          block.store %x, %A[%pi, %pj] : memref<16x12xf32>
        }
      }
      block.for %j = 0 to 12 "j" {
        block.for %l = 0 to 8 "l" {
          block.block "C"(%vi = spatial(16, %i), %vj = spatial(12, %j), %vl = spatial(8, %l)) {
            %a = block.load %A[%vi, %vj] : memref<16x12xf32>
            block.store %a, %C[%vi, %vj, %vl] : memref<16x12x8xf32>
          }
        }
      }
    }
    func.return
  }
}

// -----

// A widened load must still be indexed by the padded reduce variable: extf(W[vj]) is not zero at
// the padded k steps.
builtin.module {
  func.func @main(%A: memref<20x12xf16>, %W: memref<18xf16>, %C: memref<20x18xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 18 "j" {
        block.for %k = 0 to 12 "k" {
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(18, %j), %vk = reduce(12, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<20x18xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<20x18xf32>
            %a = block.load %A[%vi, %vk] : memref<20x12xf16>
            %w = block.load %W[%vj] : memref<18xf16>
            %wa = arith.extf %a : f16 to f32
            %ww = arith.extf %w : f16 to f32
            %aw = arith.mulf %wa, %ww : f32
            %sum = arith.addf %c, %aw : f32
            // expected-error @+1 {{the factor arith.extf(W[vj]) is not one}}
            block.store %sum, %C[%vi, %vj] : memref<20x18xf32>
          }
        }
      }
    }
    func.return
  }
}
