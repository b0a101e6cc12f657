"""Tests of headroom_probe, run under python3 against the stand-in torch of probe/tests/standin.

Each test runs a small script in a fresh interpreter (the probe installs itself on import, from the
environment), then reads the JSON lines it wrote. From the repository root:

    python3 -m unittest discover -s probe/tests -p 'test_*.py' -v
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROBE_DIR = HERE.parent
STANDIN = HERE / "standin"
MIB = 2**20
SEGMENT = 20 * MIB
CONTEXT = 500 * MIB


def run_script(source, log=None, env=None, timeout=30):
    """Runs `source` with the probe and the stand-in torch importable; returns the CompletedProcess."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("HEADROOM_LOG", "RANK", "WORLD_SIZE", "LOCAL_RANK")}
    full_env["PYTHONPATH"] = os.pathsep.join([str(PROBE_DIR), str(STANDIN)])
    if log is not None:
        full_env["HEADROOM_LOG"] = str(log)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(source)],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def read_events(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line]


class ProbeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.log = Path(self.dir.name) / "probe.jsonl"

    def tearDown(self):
        self.dir.cleanup()

    def assertRan(self, result, code=0):
        self.assertEqual(result.returncode, code, msg="stdout:\n%s\nstderr:\n%s" % (result.stdout, result.stderr))

    def test_no_op_when_headroom_log_is_unset(self):
        result = run_script(
            """
            import sys
            hook = sys.excepthook
            import headroom_probe
            assert not headroom_probe.enabled()
            assert sys.excepthook is hook, "hook installed without HEADROOM_LOG"
            headroom_probe.step(1, loss=1.0)
            with headroom_probe.phase("eval"):
                pass
            headroom_probe.set_phase("save")
            headroom_probe.record_exception(ValueError("x"))
            assert "torch" not in sys.modules, "the probe imported torch"
            print("ok")
            """,
            env={"TMPDIR": self.dir.name},
        )
        self.assertRan(result)
        self.assertEqual(result.stdout, "ok\n")
        self.assertEqual(os.listdir(self.dir.name), [])

    def test_start_names_the_installed_bitsandbytes_without_importing_it(self):
        site = Path(self.dir.name) / "site"
        info = site / "bitsandbytes-0.42.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bitsandbytes\nVersion: 0.42.0\n")
        peft = site / "peft-0.10.0.dist-info"
        peft.mkdir()
        (peft / "METADATA").write_text("Metadata-Version: 2.1\nName: peft\nVersion: 0.10.0\n")
        result = run_script(
            """
            import sys, torch, headroom_probe
            headroom_probe.step(1, loss=1.0)
            assert "bitsandbytes" not in sys.modules, "the probe imported bitsandbytes"
            """,
            log=self.log,
            env={"PYTHONPATH": os.pathsep.join([str(PROBE_DIR), str(STANDIN), str(site)])},
        )
        self.assertRan(result)
        start = read_events(self.log)[0]
        self.assertEqual(start["bitsandbytes"], "0.42.0")
        # The packages a framework profile reads, by distribution name, read from their metadata.
        self.assertEqual(start["packages"]["bitsandbytes"], "0.42.0")
        self.assertEqual(start["packages"]["peft"], "0.10.0")
        self.assertNotIn("numpy", start["packages"])

    def test_step_events_carry_the_step_peak_and_reset_it(self):
        result = run_script(
            """
            import torch, headroom_probe
            torch.cuda.standin_allocate(1000 * 2**20)          # weights
            torch.cuda.standin_allocate(300 * 2**20)           # activations
            torch.cuda.standin_free(300 * 2**20)
            headroom_probe.step(1, loss=2.5, lr=1e-4, batch_size=4, seq_len=512)
            torch.cuda.standin_allocate(100 * 2**20)
            torch.cuda.standin_free(100 * 2**20)
            headroom_probe.step(2, loss=2.25)
            assert torch.cuda.calls["synchronize"] == 0
            """,
            log=self.log,
        )
        self.assertRan(result)
        events = read_events(self.log)
        self.assertEqual([e["event"] for e in events], ["start", "device", "step", "step", "end"])
        start, device, first, second, end = events
        self.assertEqual(start["v"], 1)
        self.assertEqual(start["torch"], "2.5.1+standin")
        self.assertEqual(start["cuda"], "12.4")
        self.assertEqual((start["rank"], start["localRank"], start["worldSize"]), (0, 0, 1))
        self.assertEqual(start["argv"], ["-c"])
        self.assertEqual(
            device,
            {
                **{k: device[k] for k in ("t", "pid")},
                "v": 1,
                "event": "device",
                "rank": 0,
                "localRank": 0,
                "worldSize": 1,
                "index": 0,
                "name": "NVIDIA H200",
                "totalBytes": 143771 * MIB,
                "uuid": "GPU-00000000-0000-0000-0000-000000000000",
            },
        )
        self.assertEqual(first["step"], 1)
        self.assertEqual((first["loss"], first["lr"], first["batchSize"], first["seqLen"]), (2.5, 1e-4, 4, 512))
        self.assertEqual(first["phase"], "train")
        self.assertIsNone(first["durationS"])
        self.assertEqual(
            first["devices"],
            [
                {
                    "index": 0,
                    "allocatedBytes": 1000 * MIB,
                    "reservedBytes": 1300 * MIB,
                    "peakAllocatedBytes": 1300 * MIB,
                    "peakReservedBytes": 1300 * MIB,
                    "inactiveSplitBytes": 300 * MIB,
                    "numAllocRetries": 0,
                    "numOoms": 0,
                }
            ],
        )
        # The second step's peak is its own (1100 MiB), not the run's (1300 MiB): peaks were reset.
        self.assertEqual(second["devices"][0]["peakAllocatedBytes"], 1100 * MIB)
        self.assertEqual(second["devices"][0]["peakReservedBytes"], 1300 * MIB)
        self.assertIsNone(second["lr"])
        self.assertGreaterEqual(second["durationS"], 0)
        self.assertEqual(end["reason"], "exit")
        self.assertEqual(end["steps"], 2)
        self.assertEqual(len({e["pid"] for e in events}), 1)

    def test_phase_changes_are_recorded_with_the_peak_of_the_phase_that_ended(self):
        result = run_script(
            """
            import torch, headroom_probe
            torch.cuda.standin_allocate(100 * 2**20)
            headroom_probe.step(1)
            with headroom_probe.phase("eval"):
                torch.cuda.standin_allocate(40 * 2**20)
                torch.cuda.standin_free(40 * 2**20)
            headroom_probe.set_phase("save")
            """,
            log=self.log,
        )
        self.assertRan(result)
        phases = [e for e in read_events(self.log) if e["event"] == "phase"]
        self.assertEqual(
            [(e["phase"], e["previous"], e["step"]) for e in phases],
            [("eval", "train", 1), ("train", "eval", 1), ("save", "train", 1)],
        )
        self.assertEqual(phases[0]["devices"][0]["peakAllocatedBytes"], 100 * MIB)
        self.assertEqual(phases[1]["devices"][0]["peakAllocatedBytes"], 140 * MIB)

    def test_an_uncaught_oom_is_written_with_its_text_and_the_peak_since_the_last_step(self):
        result = run_script(
            """
            import torch, headroom_probe
            torch.cuda.standin_allocate(60 * 2**30)
            headroom_probe.step(1, loss=1.0)
            with headroom_probe.phase("eval"):
                torch.cuda.standin_allocate(50 * 2**30)
                torch.cuda.standin_allocate(50 * 2**30)
            """,
            log=self.log,
        )
        self.assertRan(result, code=1)
        # The user still sees the traceback (the previous hook runs after ours).
        self.assertIn("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 GiB.", result.stderr)
        events = read_events(self.log)
        self.assertEqual([e["event"] for e in events], ["start", "device", "step", "phase", "oom", "end"])
        oom = events[4]
        self.assertEqual(oom["type"], "torch.cuda.OutOfMemoryError")
        self.assertEqual(
            oom["message"],
            "CUDA out of memory. Tried to allocate 50.00 GiB. GPU 0 has a total capacity of 140.40 GiB of which "
            "29.91 GiB is free. Including non-PyTorch memory, this process has 110.49 GiB memory in use. Of the "
            "allocated memory 110.00 GiB is allocated by PyTorch, and 0.00 MiB is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
            "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        )
        self.assertTrue(oom["traceback"].startswith("Traceback (most recent call last):\n"))
        self.assertIn('File "<string>", line 7, in <module>', oom["traceback"])
        self.assertTrue(oom["traceback"].endswith(oom["message"] + "\n"))
        self.assertEqual((oom["phase"], oom["step"], oom["thread"]), ("eval", 1, None))
        self.assertEqual(
            oom["devices"],
            [
                {
                    "index": 0,
                    "allocatedBytes": 110 * 2**30,
                    "reservedBytes": 110 * 2**30,
                    "peakAllocatedBytes": 110 * 2**30,
                    "peakReservedBytes": 110 * 2**30,
                    "inactiveSplitBytes": 0,
                    "numAllocRetries": 0,
                    "numOoms": 1,
                }
            ],
        )
        self.assertEqual(events[5]["reason"], "oom")

    def test_other_uncaught_exceptions_and_thread_exceptions_are_recorded(self):
        result = run_script(
            """
            import threading, headroom_probe
            def worker():
                raise KeyError("missing column")
            thread = threading.Thread(target=worker, name="loader")
            thread.start(); thread.join()
            headroom_probe.step(1)
            raise ValueError("bad batch")
            """,
            log=self.log,
        )
        self.assertRan(result, code=1)
        events = read_events(self.log)
        self.assertEqual([e["event"] for e in events], ["start", "exception", "step", "exception", "end"])
        self.assertEqual((events[1]["type"], events[1]["thread"]), ("KeyError", "loader"))
        self.assertEqual(events[1]["message"], "'missing column'")
        self.assertEqual((events[3]["type"], events[3]["message"], events[3]["step"]), ("ValueError", "bad batch", 1))
        # torch was never imported: no devices, and no device event.
        self.assertEqual(events[3]["devices"], [])
        self.assertEqual(events[4]["reason"], "exception")

    def test_a_caught_oom_can_be_recorded_and_a_chained_one_counts_as_oom(self):
        result = run_script(
            """
            import torch, headroom_probe
            try:
                torch.cuda.standin_allocate(200 * 2**30)
            except torch.OutOfMemoryError as error:
                headroom_probe.record_exception(error)
            try:
                try:
                    torch.cuda.standin_allocate(200 * 2**30)
                except RuntimeError as error:
                    raise RuntimeError("batch 12 failed") from error
            except RuntimeError as wrapped:
                headroom_probe.record_exception(wrapped, phase="eval")
            """,
            log=self.log,
        )
        self.assertRan(result)
        events = [e for e in read_events(self.log) if e["event"] in ("oom", "exception")]
        self.assertEqual([(e["event"], e["thread"]) for e in events], [("oom", "MainThread"), ("oom", "MainThread")])
        self.assertEqual(events[1]["message"], "batch 12 failed")
        self.assertEqual(events[1]["phase"], "eval")
        self.assertIn("The above exception was the direct cause", events[1]["traceback"])
        # A caught exception does not make the process's end an OOM.
        self.assertEqual(read_events(self.log)[-1]["reason"], "exit")

    def test_non_finite_and_odd_values_stay_valid_json(self):
        result = run_script(
            """
            import headroom_probe
            headroom_probe.step(1, loss=float("nan"), lr=float("inf"))
            headroom_probe.step("2", loss="not a number", batch_size="eight")
            """,
            log=self.log,
        )
        self.assertRan(result)
        steps = [e for e in read_events(self.log) if e["event"] == "step"]
        self.assertEqual((steps[0]["loss"], steps[0]["lossText"], steps[0]["lr"]), (None, "nan", None))
        self.assertEqual((steps[1]["step"], steps[1]["loss"], steps[1]["lossText"], steps[1]["batchSize"]), (2, None, "not a number", None))

    def test_a_writer_that_died_mid_line_does_not_corrupt_the_next_records(self):
        # A first process dies in the middle of a write (simulated: half a line, then os._exit).
        result = run_script(
            """
            import os, headroom_probe
            headroom_probe.step(1)
            real_write = os.write
            def dying_write(fd, data):
                real_write(fd, bytes(data)[: len(data) // 2])
                os._exit(9)
            os.write = dying_write
            headroom_probe.step(2)
            """,
            log=self.log,
        )
        self.assertRan(result, code=9)
        text = self.log.read_text()
        self.assertFalse(text.endswith("\n"))
        # The next writer (a restart, another process) starts on a fresh line.
        self.assertRan(run_script("import headroom_probe\nheadroom_probe.step(3)\n", log=self.log))
        lines = self.log.read_text().split("\n")
        self.assertEqual(lines[-1], "")
        parsed, broken = [], []
        for line in lines[:-1]:
            try:
                parsed.append(json.loads(line))
            except ValueError:
                broken.append(line)
        self.assertEqual(len(broken), 1)
        self.assertTrue(broken[0].startswith('{"v":1,"event":"step"'))
        self.assertEqual([e.get("step") for e in parsed if e["event"] == "step"], [1, 3])

    def test_a_log_that_cannot_be_written_warns_once_and_never_stops_training(self):
        missing = Path(self.dir.name) / "no-such-folder" / "probe.jsonl"
        result = run_script(
            """
            import headroom_probe
            for i in range(3):
                headroom_probe.step(i)
            print("trained")
            """,
            log=missing,
        )
        self.assertRan(result)
        self.assertEqual(result.stdout, "trained\n")
        self.assertEqual(result.stderr.count("headroom_probe: cannot write"), 1)
        self.assertIn("recording stopped", result.stderr)

    def test_several_ranks_write_their_own_files(self):
        procs = []
        for rank in range(3):
            env = {k: v for k, v in os.environ.items() if k != "HEADROOM_LOG"}
            env.update(
                PYTHONPATH=os.pathsep.join([str(PROBE_DIR), str(STANDIN)]),
                HEADROOM_LOG=str(self.log),
                RANK=str(rank),
                LOCAL_RANK=str(rank % 2),
                WORLD_SIZE="3",
                STANDIN_DEVICE_COUNT="2",
            )
            source = (
                "import torch, headroom_probe\n"
                "torch.cuda.set_device(%d)\n"
                "torch.cuda.standin_allocate((%d + 1) * 2**20)\n"
                "for s in range(1, 4):\n"
                "    headroom_probe.step(s, loss=1.0 / s)\n" % (rank % 2, rank)
            )
            procs.append(subprocess.Popen([sys.executable, "-c", source], env=env))
        for proc in procs:
            self.assertEqual(proc.wait(timeout=30), 0)
        self.assertEqual(
            sorted(os.listdir(self.dir.name)), ["probe.rank0.jsonl", "probe.rank1.jsonl", "probe.rank2.jsonl"]
        )
        for rank in range(3):
            events = read_events(Path(self.dir.name) / ("probe.rank%d.jsonl" % rank))
            self.assertEqual({(e["rank"], e["localRank"], e["worldSize"]) for e in events}, {(rank, rank % 2, 3)})
            steps = [e for e in events if e["event"] == "step"]
            self.assertEqual([s["step"] for s in steps], [1, 2, 3])
            # Only the device this rank allocated on is reported.
            self.assertEqual(
                [(d["index"], d["allocatedBytes"]) for d in steps[0]["devices"]], [(rank % 2, (rank + 1) * MIB)]
            )

    def test_log_path_per_rank(self):
        sys.path.insert(0, str(PROBE_DIR))
        try:
            import headroom_probe  # noqa: PLC0415 - HEADROOM_LOG is unset here: a no-op import
        finally:
            sys.path.remove(str(PROBE_DIR))
        self.assertIsNone(headroom_probe.log_path(env={}))
        self.assertEqual(headroom_probe.log_path(env={"HEADROOM_LOG": "/r/p.jsonl"}), "/r/p.jsonl")
        self.assertEqual(
            headroom_probe.log_path(env={"HEADROOM_LOG": "/r/p.jsonl", "RANK": "5", "WORLD_SIZE": "8"}),
            "/r/p.rank5.jsonl",
        )
        self.assertEqual(
            headroom_probe.log_path(env={"HEADROOM_LOG": "/r/p.jsonl", "RANK": "0", "WORLD_SIZE": "1"}), "/r/p.jsonl"
        )
        self.assertEqual(
            headroom_probe.log_path(env={"HEADROOM_LOG": "/r/log", "SLURM_PROCID": "2", "SLURM_NTASKS": "4"}),
            "/r/log.rank2",
        )

    def test_trainer_callback_without_transformers(self):
        result = run_script(
            """
            import torch, headroom_probe
            from types import SimpleNamespace as NS
            cb = headroom_probe.HeadroomCallback()
            args, control = NS(per_device_train_batch_size=8), NS()
            torch.cuda.standin_allocate(2**20)
            cb.on_train_begin(args, NS(global_step=0), control)      # any other event is accepted
            cb.on_log(args, NS(global_step=0), control, logs={"loss": 0.75, "learning_rate": 2e-5})
            cb.on_step_end(args, NS(global_step=1), control)
            cb.on_prediction_step(args, NS(global_step=1), control)
            cb.on_prediction_step(args, NS(global_step=1), control)
            cb.on_evaluate(args, NS(global_step=1), control, metrics={})
            cb.on_save(args, NS(global_step=1), control)
            """,
            log=self.log,
        )
        self.assertRan(result)
        events = read_events(self.log)
        step = next(e for e in events if e["event"] == "step")
        self.assertEqual((step["step"], step["loss"], step["lr"], step["batchSize"]), (1, 0.75, 2e-5, 8))
        self.assertEqual(
            [(e["phase"], e["previous"]) for e in events if e["event"] == "phase"],
            [("eval", "train"), ("train", "eval"), ("save", "train"), ("train", "save")],
        )


if __name__ == "__main__":
    unittest.main()
