"""xtir dialects: block (TensorIR), accel (tensor intrinsics), tensor (graph level)."""
