#!/bin/sh
# Seed 001's tensorization walkthrough as one xtir-opt pipeline (examples/seed_tensorize.py
# is the same schedule through the Schedule API). Prints the IR: accel.tmm16 inside k_0.
pipeline=$(tr -d '\n' <<'END'
split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},
reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},
blockize{loop=i_1},
cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},
compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},
cache-write{block=matmul_o index=0 scope="global.accumulator"},
reverse-compute-at{block="C_global.accumulator" loop=j_0},
decompose-reduction{block=matmul_o loop=k_0},
tensorize{block=matmul_o_update intrin=tmm16}
END
)
exec xtir-opt "$(dirname "$0")/matmul.mlir" -p "$pipeline"
