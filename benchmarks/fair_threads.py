"""Imported first by every script that times xtir's parallel code beside numpy or torch in one
process: it shortens how long each runtime's idle worker threads spin after a call.

On a machine with as many cores as threads, a pool that spins keeps a core from the next
call of another pool. Measured here (2 cores, 1024³ f32 matmul): after one numpy call,
OpenBLAS's idle workers spun long enough to halve every xtir call that followed (134 against
317 GFLOP/s, for 50 ms and more); after an xtir call, libgomp's spun through the next numpy
call (185 against 314). With these settings each ran at its own speed in any order.

OpenBLAS and libgomp read them once, when they load: importing this after numpy (or after a
first parallel xtir call) changes nothing. Values already set in the environment are kept.
"""

import os

SPIN_LIMITS = {
    "OPENBLAS_THREAD_TIMEOUT": "4",  # 2^4 cycles, OpenBLAS's least
    "GOMP_SPINCOUNT": "10000",  # libgomp's default is 300,000 spins
}

for _name, _value in SPIN_LIMITS.items():
    os.environ.setdefault(_name, _value)
