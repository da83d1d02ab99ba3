// RUN: python %S/Inputs/nest.py regions 127 | xtir-opt | filecheck %s --check-prefix=REGIONS-OK
// RUN: python %S/Inputs/nest.py regions 128 | not xtir-opt 2>&1 | filecheck %s --check-prefix=REGIONS
// RUN: python %S/Inputs/nest.py parens 255 | xtir-opt | filecheck %s --check-prefix=PARENS-OK
// RUN: python %S/Inputs/nest.py parens 256 | not xtir-opt 2>&1 | filecheck %s --check-prefix=PARENS
// Input nested past xtir's limits (xtir/source_limits.py: 128 levels of `{`, 256 of `(` and `[`)
// is refused at the bracket that opens the level too many, before parsing; within the limits it
// parses and prints. Deeper input used to end in a RecursionError (exit 2).

// REGIONS-OK: block.block "b"() {
// REGIONS: {{.*}}:129:19: error: nesting deeper than 128 levels of regions ('{') is not supported
// REGIONS-NOT: Traceback

// PARENS-OK: block.load %A[0]
// PARENS: {{.*}}:3:275: error: nesting deeper than 256 levels of parentheses or brackets is not supported
// PARENS-NOT: Traceback
