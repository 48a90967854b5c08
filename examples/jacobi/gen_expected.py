#!/usr/bin/env python3
"""Writes examples/jacobi's input and expected output at its default n (65536) and repeat (50),
as raw little-endian f32: a.f32 (random in [0, 1), seed 34, the ends 0 and 1) and
expected_a.f32 (after 50 pairs of sweeps a -> b -> a). Each sweep is (x + y) * 0.5 in f32: the
sum of two f32 computed in f64 and rounded to f32 is the correctly rounded f32 sum, and halving is
exact, so this matches both APIs to the bit. Run: python3 examples/jacobi/gen_expected.py"""
import os
import random
import struct

N, REPEAT = 65536, 50
here = os.path.dirname(os.path.abspath(__file__))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


rng = random.Random(34)
a = [f32(rng.random()) for _ in range(N)]
a[0], a[-1] = 0.0, 1.0
start = list(a)
for _ in range(2 * REPEAT):
    a = [a[i] if i in (0, N - 1) else f32(f32(a[i - 1] + a[i + 1]) * 0.5) for i in range(N)]
with open(os.path.join(here, "a.f32"), "wb") as f:
    f.write(struct.pack("<%df" % N, *start))
with open(os.path.join(here, "expected_a.f32"), "wb") as f:
    f.write(struct.pack("<%df" % N, *a))
