// mlir-opt conventions of xtir-opt (issue 14); `FileCheck` is an alias of filecheck.
// RUN: xtir-opt - -p 'split{loop=i factors=-1,4}' < %s | FileCheck %s --check-prefix=STDIN
// RUN: xtir-opt %s --pass-pipeline='builtin.module(split{loop=i factors=-1,4},parallel{loop=i_0})' | FileCheck %s --check-prefix=ANCHOR
// RUN: not xtir-opt %s --pass-pipeline='builtin.module(func.func(split))' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,4},parallel{loop=i_0}' --time-passes --print-ir-before-all --print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: not xtir-opt %s -p splt 2>&1 | FileCheck %s --check-prefix=SPLT
// RUN: not xtir-opt %s -p decompose_reduction 2>&1 | FileCheck %s --check-prefix=UNDERSCORE
// RUN: not xtir-opt %s -p 'split{lop=i factors=-1,4}' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not xtir-opt %s -p 'split{loop=i factors=None,4}' 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: xtir-opt --help-pass split | FileCheck %s --check-prefix=HELP

func.func @main(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      %b = arith.addf %a, %a : f32
      block.store %b, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}

// STDIN: block.for %{{.*}} = 0 to 2 "i_0"
// ANCHOR: block.for %{{.*}} = 0 to 2 "i_0" parallel
// NESTED: error: --pass-pipeline: nested op anchors such as func.func(...) are not supported
// DUMP: IR Dump Before split{loop=i factors=-1,4}
// DUMP: time: {{.*}} ms  split{loop=i factors=-1,4}
// DUMP: IR Dump After split{loop=i factors=-1,4}
// DUMP: IR Dump Before parallel{loop=i_0}
// DUMP: IR Dump After parallel{loop=i_0}
// SPLT: unknown pass 'splt' (pass 1 of 1 in the pipeline); did you mean 'split'?
// UNDERSCORE: did you mean 'decompose-reduction'?
// OPTION: unknown option 'lop' for pass 'split' (pass 1 of 1 in the pipeline); did you mean 'loop'? Its options: loop, factors, func
// NONE: a split factor to infer is written -1 (TVM's None)
// HELP: split{loop=L factors=F0,F1,...}: split a loop into nested loops
// HELP: options:
// HELP-NEXT: func: str | None (default: None)
// HELP-NEXT: loop: str
