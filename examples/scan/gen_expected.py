#!/usr/bin/env python3
"""Writes examples/scan's input and expected output at its default n (65536), as raw
little-endian u32: keys.u32 (random keys 0..999, seed 34) and expected_out.u32 (their exclusive
prefix sum mod 2^32). Independent of both APIs: what the Vulkan row on lavapipe is verified
against where no CUDA row runs. Run from anywhere: python3 examples/scan/gen_expected.py"""
import os
import random
import struct

N = 65536
here = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(34)
keys = [rng.randrange(1000) for _ in range(N)]
out, run = [], 0
for k in keys:
    out.append(run)
    run = (run + k) & 0xFFFFFFFF
with open(os.path.join(here, "keys.u32"), "wb") as f:
    f.write(struct.pack("<%dI" % N, *keys))
with open(os.path.join(here, "expected_out.u32"), "wb") as f:
    f.write(struct.pack("<%dI" % N, *out))
