"""HEADROOM_SNAPSHOT: the probe records PyTorch's memory history and writes the snapshot on an OOM.

Run against the stand-in torch (probe/tests/standin), whose torch.cuda.memory keeps the arguments it
was given and whose allocator calls torch._C's out-of-memory observers before raising, as PyTorch's
does.
"""

import pickle
import unittest
from pathlib import Path

from test_probe import ProbeTest, read_events, run_script

OOM_SCRIPT = """
import torch, headroom_probe
torch.cuda.standin_allocate(60 * 2**30)
headroom_probe.step(1, loss=1.0)
torch.cuda.standin_allocate(50 * 2**30)
torch.cuda.standin_allocate(50 * 2**30)
"""


class SnapshotTest(ProbeTest):
    def snapshot_file(self, name="memory-snapshot.pickle"):
        return Path(self.dir.name) / name

    def test_off_unless_asked(self):
        result = run_script(OOM_SCRIPT, log=self.log)
        self.assertRan(result, code=1)
        self.assertFalse(self.snapshot_file().exists())
        self.assertNotIn("snapshot", [e["event"] for e in read_events(self.log)])

    def test_an_oom_writes_the_snapshot_as_the_allocator_saw_it_and_the_log_names_it(self):
        result = run_script(OOM_SCRIPT, log=self.log, env={"HEADROOM_SNAPSHOT": "1"})
        self.assertRan(result, code=1)
        events = read_events(self.log)
        kinds = [e["event"] for e in events]
        # The observer writes the snapshot before the exception unwinds: before the oom record.
        self.assertEqual(kinds, ["start", "device", "step", "snapshot", "oom", "end"])
        snap = events[3]
        self.assertEqual(snap["path"], str(self.snapshot_file().resolve()))
        self.assertEqual(snap["reason"], "oom")
        self.assertEqual(snap["entries"], 100_000)
        self.assertEqual(snap["step"], 1)
        self.assertEqual(snap["bytes"], self.snapshot_file().stat().st_size)
        data = pickle.loads(self.snapshot_file().read_bytes())
        # At the moment of failure: 110 GiB live, the failed 50 GiB request not among them.
        self.assertEqual(data["segments"][0]["allocated_size"], 110 * 2**30)
        actions = [e["action"] for e in data["device_traces"][0]]
        self.assertEqual(actions, ["alloc", "alloc", "oom"])

    def test_the_number_bounds_the_trace_and_torch_2_0_takes_the_legacy_form(self):
        script = """
        import torch, headroom_probe
        torch.cuda.standin_allocate(2**20)
        headroom_probe.step(1)
        print(torch.cuda.memory.history["calls"])
        """
        new = run_script(script, log=self.log, env={"HEADROOM_SNAPSHOT": "5000"})
        self.assertRan(new)
        self.assertIn("{'enabled': 'all', 'max_entries': 5000}", new.stdout)
        legacy = run_script(script, log=self.log, env={"HEADROOM_SNAPSHOT": "5000", "STANDIN_LEGACY_HISTORY": "1"})
        self.assertRan(legacy)
        self.assertIn("'enabled': True", legacy.stdout)
        self.assertIn("'trace_alloc_max_entries': 5000", legacy.stdout)
        huge = run_script(script, log=self.log, env={"HEADROOM_SNAPSHOT": "999999999999"})
        self.assertIn("'max_entries': 10000000", huge.stdout)

    def test_each_rank_writes_its_own_snapshot(self):
        result = run_script(OOM_SCRIPT, log=self.log, env={"HEADROOM_SNAPSHOT": "1", "RANK": "3", "WORLD_SIZE": "4"})
        self.assertRan(result, code=1)
        self.assertTrue(self.snapshot_file("memory-snapshot.rank3.pickle").exists())
        events = read_events(Path(self.dir.name) / "probe.rank3.jsonl")
        self.assertEqual([e["event"] for e in events].count("snapshot"), 1)

    def test_dump_snapshot_on_request(self):
        script = """
        import torch, headroom_probe
        torch.cuda.standin_allocate(2**30)
        print(headroom_probe.dump_snapshot())
        """
        result = run_script(script, log=self.log, env={"HEADROOM_SNAPSHOT": "1"})
        self.assertRan(result)
        self.assertEqual(result.stdout.strip(), str(self.snapshot_file().resolve()))
        self.assertEqual([e["reason"] for e in read_events(self.log) if e["event"] == "snapshot"], ["manual"])
        # Without HEADROOM_SNAPSHOT there is no history to dump.
        off = run_script(script, log=self.log)
        self.assertEqual(off.stdout.strip(), "None")

    def test_the_probe_imported_before_torch_records_from_its_import(self):
        script = """
        import headroom_probe
        import torch
        torch.cuda.standin_allocate(2**30)
        print(torch.cuda.memory.history["calls"])
        headroom_probe.step(1)
        """
        result = run_script(script, log=self.log, env={"HEADROOM_SNAPSHOT": "1"})
        self.assertRan(result)
        self.assertIn("'max_entries': 100000", result.stdout)
        data = pickle.loads(self.snapshot_file().read_bytes())
        # The allocation made before the first step is in the trace, with its stack.
        self.assertEqual([(e["action"], e["size"]) for e in data["device_traces"][0]], [("alloc", 2**30)])

    def test_a_process_that_wrote_none_writes_one_at_exit(self):
        script = """
        import torch, headroom_probe
        torch.cuda.standin_allocate(3 * 2**30)
        headroom_probe.step(1)
        """
        result = run_script(script, log=self.log, env={"HEADROOM_SNAPSHOT": "1"})
        self.assertRan(result)
        events = read_events(self.log)
        self.assertEqual([e["event"] for e in events][-2:], ["snapshot", "end"])
        snap = events[-2]
        self.assertEqual((snap["reason"], snap["step"]), ("exit", 1))
        data = pickle.loads(self.snapshot_file().read_bytes())
        self.assertEqual(data["segments"][0]["allocated_size"], 3 * 2**30)
        # An OOM's snapshot is not overwritten at exit: one snapshot event, the OOM's.
        Path(self.log).unlink()
        oom = run_script(OOM_SCRIPT, log=self.log, env={"HEADROOM_SNAPSHOT": "1"})
        self.assertRan(oom, code=1)
        self.assertEqual([e["reason"] for e in read_events(self.log) if e["event"] == "snapshot"], ["oom"])


if __name__ == "__main__":
    unittest.main()
