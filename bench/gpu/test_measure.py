"""Tests of the H200 harness that run without torch or a GPU.

The harness runs with `--workload standin_workload` and the stand-in `torch` and `pynvml` of
bench/gpu/standin/, which simulate a caching allocator with a capacity, NVML's per-process figure
and a child that crashes, raises or hangs. Run from the repository root:

    python3 -m unittest discover -s bench/gpu -p 'test_*.py' -v
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
STANDIN = HERE / "standin"
for path in (str(STANDIN), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import export_models  # noqa: E402
import grid  # noqa: E402
import measure  # noqa: E402
import standin_workload  # noqa: E402

CATALOG = grid.load_catalog()
SMALL = {"model": "qwen2.5-0.5b", "precision": "bf16-true", "seqLen": 512}
GRID_BUDGET_S = 480


class GridTest(unittest.TestCase):
    def setUp(self) -> None:
        self.entries = grid.default_grid()
        self.scenarios = [entry.scenario for entry in self.entries]

    def test_size_is_between_40_and_60(self) -> None:
        self.assertGreaterEqual(len(self.entries), 40)
        self.assertLessEqual(len(self.entries), 60)

    def test_no_duplicates(self) -> None:
        keys = [json.dumps(scenario, sort_keys=True) for scenario in self.scenarios]
        self.assertEqual(len(keys), len(set(keys)))

    def test_every_scenario_is_valid_and_complete(self) -> None:
        for number, scenario in enumerate(self.scenarios, start=1):
            with self.subTest(number=number):
                self.assertEqual(grid.validate(scenario), [])
                self.assertEqual(scenario, grid.with_defaults(scenario))
                self.assertIn(scenario["model"], CATALOG)
                self.assertEqual(scenario["gpu"], grid.GPU_ID)
                self.assertTrue(self.entries[number - 1].reason)

    def test_enums_follow_scenario_md(self) -> None:
        for scenario in self.scenarios:
            self.assertIn(scenario["method"], ("full", "lora", "qlora", "freeze"))
            self.assertIn(scenario["precision"], ("fp32", "fp16-mixed", "bf16-mixed", "fp16-true", "bf16-true"))
            self.assertIn(scenario["attention"], ("eager", "sdpa", "flash"))
            self.assertIn(scenario["loss"], ("standard", "chunked", "fused"))
            self.assertIn(scenario["gradientCheckpointing"], ("none", "full", "selective"))
            self.assertIn(scenario["microBatchSize"], (1, 4))
            self.assertIn(scenario["seqLen"], (512, 2048, 8192))

    def test_baseline_comes_first(self) -> None:
        self.assertEqual(self.scenarios[0], grid.with_defaults(grid.BASELINE))
        self.assertTrue(self.entries[0].reason.startswith("baseline"))

    def test_baseline_variants_each_change_one_field(self) -> None:
        varied = set()
        for scenario in self.scenarios[1:13]:
            fields = grid.differing_fields(scenario, self.scenarios[0])
            if len(fields) == 1:
                varied |= fields
        expected = {"precision", "optimizer", "seqLen", "microBatchSize", "gradientCheckpointing", "loss", "attention"}
        self.assertLessEqual(expected | {"method"}, varied)

    def test_the_fused_optimizer_is_a_baseline_variant_kept_only_when_true(self) -> None:
        fused = [scenario for scenario in self.scenarios if scenario.get("fusedOptimizer")]
        self.assertEqual(len(fused), 1)
        self.assertEqual(grid.differing_fields(fused[0], self.scenarios[0]), {"fusedOptimizer"})
        self.assertIn("fused-adamw", grid.describe(fused[0]))
        self.assertNotIn("fusedOptimizer", grid.with_defaults({**grid.BASELINE, "fusedOptimizer": False}))

    def test_most_scenarios_differ_from_an_earlier_one_in_one_field(self) -> None:
        partnered = [bool(found) for found in grid._one_field_partners(self.entries)[1:]]
        self.assertGreaterEqual(sum(partnered) / len(partnered), 0.75)

    def test_estimated_total_fits_the_budget(self) -> None:
        total = sum(grid.estimate_seconds(s, CATALOG[s["model"]]) for s in self.scenarios)
        self.assertLess(total, GRID_BUDGET_S)
        for scenario in self.scenarios:
            seconds = grid.estimate_seconds(scenario, CATALOG[scenario["model"]])
            self.assertGreater(seconds, grid.PROCESS_OVERHEAD_S["fork"])

    def test_time_model_orders_obvious_cases(self) -> None:
        def seconds(**changes: object) -> float:
            scenario = grid.with_defaults({**grid.BASELINE, **changes})
            return grid.estimate_seconds(scenario, CATALOG[scenario["model"]])

        self.assertLess(seconds(), seconds(model="llama-3.1-8b"))
        self.assertLess(seconds(method="lora", lora=grid.LORA_QV), seconds())
        self.assertLess(seconds(), seconds(attention="eager"))
        self.assertLess(seconds(), seconds(gradientCheckpointing="full"))
        self.assertLess(seconds(), seconds(precision="fp32"))

    def test_list_cli_prints_every_scenario_and_the_total(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            grid.main(["--list"])
        lines = out.getvalue().splitlines()
        self.assertEqual(sum(line.startswith("#") for line in lines), len(self.entries))
        self.assertRegex(lines[-1], rf"^{len(self.entries)} scenarios, estimated \d+ s")

    def test_readme_shows_the_current_grid_and_total(self) -> None:
        readme = (HERE / "README.md").read_text()
        self.assertIn(grid.markdown_table(), readme)
        total = sum(grid.estimate_seconds(s, CATALOG[s["model"]]) for s in self.scenarios)
        self.assertIn(f"Estimated total: **{total:.0f} s**", readme)
        self.assertIn(f"{len(self.entries)} scenarios, chosen", readme)

    def test_validate_rejects_bad_scenarios(self) -> None:
        self.assertTrue(grid.validate(grid.with_defaults({**SMALL, "precision": "bf8"})))
        self.assertTrue(grid.validate(grid.with_defaults({**SMALL, "method": "qlora"})))
        self.assertTrue(grid.validate(grid.with_defaults({**SMALL, "seqLen": 0})))
        self.assertTrue(grid.validate(grid.with_defaults({**SMALL, "method": "lora", "lora": {"targets": []}})))
        self.assertEqual(
            grid.validate(grid.with_defaults({**SMALL, "offload": {"activations": "nvme"}})),
            ["offload.activations must be none or cpu"],
        )

    def test_activation_offload_is_built_around_checkpointed_layers_only(self) -> None:
        model = CATALOG[SMALL["model"]]
        offloaded = grid.with_defaults({**SMALL, "offload": {"activations": "cpu"}})
        self.assertIn("checkpointed layers only", measure.blocker(offloaded, model))
        checkpointed = {**offloaded, "gradientCheckpointing": "full"}
        self.assertIsNone(measure.blocker(checkpointed, model))
        self.assertTrue(grid.describe(checkpointed).endswith("ckpt=full sdpa loss=standard act->cpu"))
        self.assertIn("optimizer and parameter offload", measure.blocker(
            grid.with_defaults({**SMALL, "offload": {"optimizer": "cpu"}}), model))

    def test_catalog_holds_exactly_the_grid_and_check_models(self) -> None:
        self.assertEqual(set(CATALOG), set(grid.GRID_MODELS) | set(grid.CHECK_MODELS))
        self.assertEqual({s["model"] for s in self.scenarios}, set(grid.GRID_MODELS))
        for model in CATALOG.values():
            self.assertAlmostEqual(grid.approximate_params(model["config"]) / model["params"], 1, delta=0.01)

    def test_catalog_file_is_what_the_export_writes(self) -> None:
        on_disk = json.loads(export_models.OUTPUT.read_text())
        self.assertEqual(export_models.export(export_models.CATALOG), on_disk)


class MeasureTest(unittest.TestCase):
    """The harness end to end with the stand-in workload (children are forked, as on the device)."""

    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)

    def measure(self, partials: list[dict], *args: str, faults: dict | None = None, capacity: int | None = None):
        """Runs the harness on `partials`; returns (rows, error records, summary, stderr text)."""
        scenarios = self.tmp / "scenarios.jsonl"
        scenarios.write_text("".join(json.dumps(p) + "\n" for p in partials))
        out = self.tmp / "rows.jsonl"
        env = {standin_workload.FAULTS_ENV: json.dumps(faults or {})}
        if capacity is not None:
            env["STANDIN_CAPACITY_BYTES"] = str(capacity)
        stderr = io.StringIO()
        argv = ["--scenarios", str(scenarios), "--out", str(out), "--workload", "standin_workload", *args]
        with mock.patch.dict(os.environ, env), contextlib.redirect_stderr(stderr):
            summary = measure.main(argv)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        errors_path = out.with_suffix(".errors.jsonl")
        errors = [json.loads(line) for line in errors_path.read_text().splitlines()]
        return rows, errors, summary, stderr.getvalue()

    @staticmethod
    def expected(partial: dict) -> dict:
        scenario = grid.with_defaults(partial)
        return standin_workload.expected_peaks(scenario, CATALOG[scenario["model"]]["config"])

    def test_ok_scenarios_give_three_rows_with_the_exact_bytes(self) -> None:
        second = {**SMALL, "model": "llama-3.2-1b", "method": "lora", "lora": {"rank": 8, "targets": "all-linear"}}
        rows, errors, summary, _ = self.measure([SMALL, second])
        self.assertEqual(errors, [])
        self.assertEqual(summary.counts, {"ok": 2})
        ids = ["h200-001a", "h200-001r", "h200-001d", "h200-002a", "h200-002r", "h200-002d"]
        self.assertEqual([row["id"] for row in rows], ids)
        for row, partial in zip(rows, [SMALL] * 3 + [second] * 3):
            with self.subTest(id=row["id"]):
                self.assertEqual(set(row), {"id", "scenario", "measured", "source"})
                metric = row["measured"]["metric"]
                peak = self.expected(partial)[metric]
                self.assertEqual(
                    row["measured"], {"metric": metric, "peakBytes": peak, "outcome": "ok", "unitAmbiguous": False}
                )
                self.assertEqual(row["scenario"], grid.with_defaults({**partial, "gpu": grid.GPU_ID}))
                source = row["source"]
                self.assertEqual(source["ref"], "headroom bench/gpu/measure.py")
                self.assertEqual(source["quality"], "high")
                self.assertEqual(source["dataset"], "headroom H200 harness")
                self.assertEqual(source["originalValue"], row["measured"]["peakBytes"])
                self.assertIn("Stand-in GPU", source["notes"])
                self.assertIn("median step 0.010 s", source["notes"])
                self.assertEqual(source["harness"]["deviceMethod"], "nvml-process")
                self.assertEqual(source["harness"]["stepTimesS"], [0.01] * grid.STEPS)
                phases = {"load", "forward", "backward", "optimizer-step"}
                self.assertEqual(set(source["harness"]["phasePeaks"]), phases)

    def test_peak_phase_is_recorded(self) -> None:
        rows, _, _, _ = self.measure([SMALL])
        self.assertIn("allocated peak in phase backward", rows[0]["source"]["notes"])

    def test_oom_gives_one_row_and_the_harness_continues(self) -> None:
        huge = {**SMALL, "microBatchSize": 4, "seqLen": 8192}
        capacity = sum(standin_workload.plan(grid.with_defaults(SMALL), CATALOG["qwen2.5-0.5b"]["config"]).values()) * 2
        rows, errors, summary, stderr = self.measure([huge, SMALL], capacity=capacity)
        self.assertEqual(summary.counts, {"oom": 1, "ok": 1})
        self.assertEqual(errors, [])
        oom = rows[0]
        self.assertEqual(oom["id"], "h200-001d")
        self.assertEqual(
            oom["measured"], {"metric": "device", "peakBytes": None, "outcome": "oom", "unitAmbiguous": False}
        )
        self.assertEqual(oom["source"]["harness"]["oomPhase"], "forward")
        self.assertIsNone(oom["source"]["originalValue"])
        self.assertEqual([row["id"] for row in rows[1:]], ["h200-002a", "h200-002r", "h200-002d"])
        self.assertIn("OOM in forward", stderr)

    def test_crashing_and_raising_children_are_errors_and_the_harness_continues(self) -> None:
        crash = {**SMALL, "seqLen": 1024}
        raising = {**SMALL, "seqLen": 4096}
        faults = {"qwen2.5-0.5b:1024": "crash", "qwen2.5-0.5b:4096": "raise"}
        rows, errors, summary, stderr = self.measure([crash, raising, SMALL], faults=faults)
        self.assertEqual(summary.counts, {"error": 2, "ok": 1})
        self.assertEqual([row["id"] for row in rows], ["h200-003a", "h200-003r", "h200-003d"])
        self.assertEqual([(e["id"], e["status"]) for e in errors], [("h200-001", "error"), ("h200-002", "error")])
        self.assertIn(f"exited with code {standin_workload.CRASH_EXIT_CODE}", errors[0]["reason"])
        self.assertIn("ValueError: stand-in failure", errors[1]["reason"])
        self.assertEqual(errors[1]["scenario"], grid.with_defaults({**raising, "gpu": grid.GPU_ID}))
        self.assertIn("ERROR", stderr)

    def test_a_run_whose_first_scenarios_all_fail_gives_up(self) -> None:
        partials = [{**SMALL, "seqLen": seq} for seq in (1024, 2048, 4096, 512)]
        faults = {f"qwen2.5-0.5b:{seq}": "raise" for seq in (1024, 2048)}
        rows, errors, summary, stderr = self.measure(partials, "--give-up-after", "2", faults=faults)
        self.assertEqual(rows, [])
        self.assertEqual(summary.counts, {"error": 2, "given-up": 2})
        self.assertEqual(
            [(e["id"], e["status"]) for e in errors],
            [("h200-001", "error"), ("h200-002", "error"), ("h200-003", "given-up"), ("h200-004", "given-up")],
        )
        self.assertIn("giving up: not started: the first 2 scenarios all failed", stderr)

    def test_a_hanging_child_times_out_and_the_harness_continues(self) -> None:
        hang = {**SMALL, "seqLen": 1024}
        faults = {"qwen2.5-0.5b:1024": "hang"}
        rows, errors, summary, _ = self.measure([hang, SMALL], "--timeout-seconds", "1", faults=faults)
        self.assertEqual(summary.counts, {"timeout": 1, "ok": 1})
        self.assertEqual(errors[0]["status"], "timeout")
        self.assertEqual(len(rows), 3)

    def test_budget_stops_launching_scenarios(self) -> None:
        big = {**SMALL, "model": "llama-3.1-8b"}
        partials = [SMALL, {**SMALL, "seqLen": 1024}, big, SMALL]
        estimates = [grid.estimate_seconds(grid.with_defaults(p), CATALOG[p["model"]]) for p in partials]
        floor = measure.CALIBRATION_RANGE[0]
        # The first fits at calibration 1, the second at the floor calibration, the third does not.
        budget = estimates[0] + 0.3
        self.assertLess(floor * estimates[1] + 0.3, budget)
        self.assertGreater(floor * estimates[2], budget)
        rows, errors, summary, stderr = self.measure(partials, "--budget-seconds", str(budget))
        self.assertEqual(summary.counts, {"ok": 2, "budget": 2})
        self.assertEqual({row["id"][:-1] for row in rows}, {"h200-001", "h200-002"})
        self.assertEqual([(e["id"], e["status"]) for e in errors], [("h200-003", "budget"), ("h200-004", "budget")])
        self.assertIn("budget reached", stderr)

    def test_scenarios_it_cannot_build_are_skipped(self) -> None:
        multi = {**SMALL, "parallelism": {"strategy": "fsdp", "gpus": 4}}
        partials = [multi, SMALL]
        if importlib.util.find_spec("bitsandbytes") is None:
            partials.append({**SMALL, "method": "qlora", "quantization": "nf4"})
        rows, errors, summary, _ = self.measure(partials)
        self.assertEqual(summary.counts, {"skipped": len(partials) - 1, "ok": 1})
        self.assertTrue(all(e["status"] == "skipped" for e in errors))
        self.assertIn("several GPUs", errors[0]["reason"])
        if len(partials) == 3:
            self.assertIn("bitsandbytes", errors[1]["reason"])
        self.assertEqual(len(rows), 3)

    def test_progress_lines(self) -> None:
        _, _, _, stderr = self.measure([SMALL, SMALL])
        lines = stderr.splitlines()
        self.assertRegex(lines[0], r"^measure: 2 scenarios, estimated \d+ s, budget none, start method fork")
        first = r"^\[1/2\] h200-001 qwen2\.5-0\.5b full bf16-true .* -> ok alloc .* \| "
        self.assertRegex(lines[1], first + r".* elapsed \d+:\d\d ETA \d+:\d\d$")
        self.assertRegex(lines[-1], r"^measure: done in \d+:\d\d: 2 ok; 6 rows$")

    def test_falls_back_to_spawn_when_a_forked_child_cannot_start_cuda(self) -> None:
        with mock.patch.dict(os.environ, {"STANDIN_CUDA_INIT_FAILS": "1"}):
            rows, errors, _, stderr = self.measure([SMALL])
        self.assertIn("could not start CUDA", stderr)
        self.assertIn("start method spawn", stderr)
        self.assertEqual(errors, [])
        self.assertEqual(len(rows), 3)

    def test_spawned_children_measure_the_same(self) -> None:
        rows, errors, _, _ = self.measure([SMALL], "--start-method", "spawn")
        self.assertEqual(errors, [])
        self.assertEqual([row["measured"]["peakBytes"] for row in rows], list(self.expected(SMALL).values()))


if __name__ == "__main__":
    unittest.main()
