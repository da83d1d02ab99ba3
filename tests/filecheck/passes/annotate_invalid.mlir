// RUN: not xtir-opt %s -p 'annotate{loop=j key=a value=1}' 2>&1 | filecheck %s --check-prefix=LOOP
// RUN: not xtir-opt %s -p 'annotate{block=S key=a value=1}' 2>&1 | filecheck %s --check-prefix=BLOCK
// RUN: not xtir-opt %s -p 'annotate{loop=i block=sum key=a value=1}' 2>&1 | filecheck %s --check-prefix=BOTH
// RUN: not xtir-opt %s -p 'annotate{key=a value=1}' 2>&1 | filecheck %s --check-prefix=NEITHER
// RUN: not xtir-opt %s -p 'annotate{loop=k key=a value=9223372036854775808}' 2>&1 | filecheck %s --check-prefix=BIG
// What annotate refuses: a handle that names nothing (the message lists the candidates),
// anything but exactly one of loop= and block=, and an integer past i64 (xDSL's
// VerifyException used to escape). Errors point at the function, or the annotated loop.

// LOOP: {{.*}}annotate_invalid.mlir:[[# @LINE + 4]]:1: error: 'func.func' op annotate: no loop named "j"; loops: i, k
// BLOCK: {{.*}}annotate_invalid.mlir:[[# @LINE + 3]]:1: error: 'func.func' op annotate: no block named "S"; blocks: sum
// BOTH: {{.*}}annotate_invalid.mlir:[[# @LINE + 2]]:1: error: 'func.func' op annotate: give exactly one of loop=NAME or block=NAME, got both loop= and block=
// NEITHER: {{.*}}annotate_invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op annotate: give exactly one of loop=NAME or block=NAME, got neither loop= nor block=
func.func @main(%A: memref<8x16xf32>, %S: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    // BIG: {{.*}}annotate_invalid.mlir:[[# @LINE + 1]]:5: error: 'block.for' op annotate: annotation a = 9223372036854775808 does not fit in 64 bits (at most 9223372036854775807)
    block.for %k = 0 to 16 "k" {
      block.block "sum"(%vi = spatial(8, %i), %vk = reduce(16, %k)) {
        %s = block.load %S[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x16xf32>
        %t = arith.addf %s, %a : f32
        block.store %t, %S[%vi] : memref<8xf32>
      }
    }
  }
  func.return
}
