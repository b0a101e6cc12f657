"""What HEADROOM_SNAPSHOT costs in the probe, as far as the stand-in torch (probe/tests/standin) can
show it; writes bench/results/probe-snapshot.md. Run: npm run bench:probe-snapshot

What it measures, in child processes so each starts clean:
  1. headroom_probe.step() with recording on and off: the probe's own work per step. Recording adds
     none to it (the history lives in PyTorch's allocator, not in the probe), and this checks it.
  2. The dump: the probe's pickle.dump of a snapshot holding N trace entries with stacks of 24 frames
     (frame dicts shared between entries, as torch's symbolizer returns them), for N up to the default
     bound of 100,000: the time an OOM's dump takes before the process dies, and the file's size.

What it cannot measure: PyTorch's own cost of recording each allocation (the stack capture in
c10/cuda/CUDACachingAllocator.cpp; PyTorch's notes put it at about 2 us per allocation,
docs/source/torch_cuda_memory.rst) and of building the snapshot (torch.cuda.memory._snapshot()); the
stand-in's allocator is Python, so timing its allocations would time the stand-in. Those need a GPU.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STANDIN = os.path.join(ROOT, "probe", "tests", "standin")
PROBE = os.path.join(ROOT, "probe")
RESULTS = os.path.join(ROOT, "bench", "results", "probe-snapshot.md")

STEP_SCRIPT = """
import json, time, torch, headroom_probe
torch.cuda.standin_allocate(2**30)
n = %d
t0 = time.perf_counter()
for i in range(n):
    headroom_probe.step(i, loss=1.0)
print(json.dumps({"us": (time.perf_counter() - t0) / n * 1e6}))
"""

DUMP_SCRIPT = """
import json, os, time, torch, headroom_probe
from torch.cuda import memory
frames = [{"filename": "/sp/torch/nn/modules/module.py", "line": 1500 + k, "name": "_call_impl"} for k in range(24)]
n = %d
memory._trace.extend(
    {"action": "alloc" if i %% 2 == 0 else "free_completed", "addr": i * 512, "size": 512, "stream": 0,
     "time_us": i, "frames": frames}
    for i in range(n)
)
t0 = time.perf_counter()
path = headroom_probe.dump_snapshot()
print(json.dumps({"s": time.perf_counter() - t0, "bytes": os.path.getsize(path)}))
"""


def run(script, snapshot, log):
    env = dict(os.environ)
    env.update({"PYTHONPATH": os.pathsep.join([STANDIN, PROBE]), "HEADROOM_LOG": log})
    if snapshot:
        env["HEADROOM_SNAPSHOT"] = snapshot
    else:
        env.pop("HEADROOM_SNAPSHOT", None)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(fn, repeats=5):
    return min(fn() for _ in range(repeats))


def main():
    tmp = tempfile.mkdtemp(prefix="headroom-probe-snapshot-")
    log = os.path.join(tmp, "probe.jsonl")
    steps = 2000
    off = best(lambda: run(STEP_SCRIPT % steps, None, log)["us"])
    on = best(lambda: run(STEP_SCRIPT % steps, "1", log)["us"])
    dumps = []
    for n in (1_000, 10_000, 100_000):
        r = [run(DUMP_SCRIPT % n, "1", log) for _ in range(3)]
        dumps.append((n, min(x["s"] for x in r), r[0]["bytes"]))
    lines = [
        "# The probe's allocator-snapshot recording (stand-in torch)",
        "",
        "Run: npm run bench:probe-snapshot (bench/probe_snapshot.py), Python %s on %s."
        % (sys.version.split()[0], sys.platform),
        "Best of 5 runs for the step, of 3 for each dump. PyTorch's own recording cost (about 2 us per",
        "allocation by its notes) and `_snapshot()` are not in these figures: they need a GPU.",
        "",
        "| figure | HEADROOM_SNAPSHOT off | HEADROOM_SNAPSHOT=1 |",
        "| --- | --- | --- |",
        "| `headroom_probe.step()`, per call | %.1f us | %.1f us |" % (off, on),
        "",
        "The step's difference is noise: recording adds no work to the probe's step. The dump runs once,",
        "from PyTorch's out-of-memory observer (or at exit), with the trace bounded by HEADROOM_SNAPSHOT.",
        "",
        "| trace entries (24-frame stacks) | the probe's dump (pickle.dump, write, rename) | file |",
        "| --- | --- | --- |",
    ]
    for n, s, size in dumps:
        shown = "%.1f MiB" % (size / 2**20) if size >= 2**20 else "%.0f KiB" % (size / 2**10)
        lines.append("| %s | %.3f s | %s |" % (format(n, ","), s, shown))
    lines.append("")
    with open(RESULTS, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
