"""Lowering from the block dialect to scf/memref/arith, then to the llvm dialect, and the JIT."""
