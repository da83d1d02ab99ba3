// RUN: python %S/Inputs/nest.py regions 127 | xtir-opt | filecheck %s --check-prefix=REGIONS-OK
// RUN: python %S/Inputs/nest.py regions 128 | not xtir-opt 2>&1 | filecheck %s --check-prefix=REGIONS
// RUN: python %S/Inputs/nest.py parens 255 | xtir-opt | filecheck %s --check-prefix=PARENS-OK
// RUN: python %S/Inputs/nest.py parens 256 | not xtir-opt 2>&1 | filecheck %s --check-prefix=PARENS
// RUN: python %S/Inputs/nest.py types 64 | xtir-opt | filecheck %s --check-prefix=TYPES-OK
// RUN: python %S/Inputs/nest.py types 65 | not xtir-opt 2>&1 | filecheck %s --check-prefix=TYPES
// RUN: python %S/Inputs/nest.py aliases 600 | not xtir-opt 2>&1 | filecheck %s --check-prefix=ALIASES
// Input nested past xtir's limits (xtir/source_limits.py: 128 levels of `{`, 256 of `(` and `[`)
// is refused at the bracket that opens the level too many, before parsing; within the limits it
// parses and prints. Deeper input used to end in a RecursionError (exit 2).

// REGIONS-OK: block.block "b0"() {
// REGIONS: {{.*}}:129:{{[0-9]+}}: error: nesting deeper than 128 levels of regions ('{') is not supported
// REGIONS-NOT: Traceback

// PARENS-OK: block.load %A[0]
// PARENS: {{.*}}:3:275: error: nesting deeper than 256 levels of parentheses or brackets is not supported
// PARENS-NOT: Traceback

// Types nest without brackets the scan counts (`tuple<` is no bracket, and `<` also compares in
// predicates), and type aliases nest them without any nesting in the text: the parsed module
// is checked for 64 levels of types and attributes inside one another. Deeper types used to
// parse and then end in a RecursionError when printed, built or evaluated.
// TYPES-OK: block.block "b"() where(%i < 2) {
// TYPES-OK-NEXT: %x = "test.op"() : () -> tuple<tuple<
// TYPES: {{.*}}:4:1: error: 'test.op' op types or attributes nested deeper than 64 levels are not supported
// TYPES-NOT: Traceback
// ALIASES: {{.*}}:602:1: error: 'func.func' op types or attributes nested deeper than 64 levels are not supported
// ALIASES-NOT: Traceback
