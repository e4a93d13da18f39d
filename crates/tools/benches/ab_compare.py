#!/usr/bin/env python3
"""Interleaved A/B timing of two commands: robust when the machine is busy.

usage: ab_compare.py RUNS NAME_A CMD_A NAME_B CMD_B   (CMD as one shell-quoted string)
Alternates A and B (A,B,B,A,...) for RUNS rounds after one warm-up each, output to /dev/null,
and prints each one's median and minimum wall time and median CPU time (user+sys), and the
ratios A/B. CPU time is the fairer figure when other work loads the machine.
"""
import resource
import shlex
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1])
a_name, a_cmd, b_name, b_cmd = sys.argv[2], shlex.split(sys.argv[3]), sys.argv[4], shlex.split(sys.argv[5])


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


cpu_times = {}


def timed(cmd):
    c0, start = cpu(), time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    cpu_times.setdefault(id(cmd), []).append(cpu() - c0)
    return wall


timed(a_cmd)
timed(b_cmd)
a, b = [], []
for i in range(runs):
    order = [(a_cmd, a), (b_cmd, b)] if i % 2 == 0 else [(b_cmd, b), (a_cmd, a)]
    for cmd, out in order:
        out.append(timed(cmd))
ma, mb = statistics.median(a), statistics.median(b)
ca, cb = (statistics.median(cpu_times[id(c)][1:]) for c in (a_cmd, b_cmd))
print(f"{a_name}: wall median {ma * 1000:.1f} ms, min {min(a) * 1000:.1f} ms, cpu {ca * 1000:.1f} ms | "
      f"{b_name}: wall median {mb * 1000:.1f} ms, min {min(b) * 1000:.1f} ms, cpu {cb * 1000:.1f} ms | "
      f"{a_name}/{b_name}: wall {ma / mb:.2f} (median) {min(a) / min(b):.2f} (min), cpu {ca / cb:.2f}")
