#!/usr/bin/env bash
# The second device call: what the attention kernels are handed and pick (probe_attention.py), then
# the scenarios of check-scenarios.jsonl (torchtune's chunked loss, LoRA adapter dtypes, fp32 with
# grouped KV heads, and architectures the grid lacks). Writes into $OUT.
set -u -o pipefail
out=${OUT:?OUT must name the folder whose files come back}
budget=${1:-240}
PYTHONUNBUFFERED=1 timeout 120 python3 bench/gpu/probe_attention.py 2048 >"$out/attention-probe.jsonl" 2>"$out/attention-probe.log"
echo "attention probe: exit $?"; cut -c1-400 "$out/attention-probe.jsonl"; tail -5 "$out/attention-probe.log"
PYTHONUNBUFFERED=1 python3 bench/gpu/measure.py --scenarios bench/gpu/check-scenarios.jsonl --id-prefix h200c \
  --out "$out/h200-check-measurements.jsonl" --budget-seconds "$budget" 2>&1 | tee "$out/check.log"
