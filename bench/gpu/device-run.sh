#!/usr/bin/env bash
# One device call: the H200 harness over the default grid, plus real nvidia-smi samples for
# Headroom's parsers (env capture's query, and the monitor's two sampling loops while training runs).
# Usage on the device machine: bash bench/gpu/device-run.sh [BUDGET_SECONDS]   (writes into $OUT)
set -u -o pipefail
out=${OUT:?OUT must name the folder whose files come back}
budget=${1:-400}
{
  echo "# nvidia-smi"; nvidia-smi
  echo "# nvidia-smi --query-gpu=index,name,memory.total,driver_version,compute_cap,mig.mode.current,pcie.link.gen.max,pcie.link.width.max --format=csv"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,compute_cap,mig.mode.current,pcie.link.gen.max,pcie.link.width.max --format=csv
  echo "# python3 -m pip list"; python3 -m pip list 2>/dev/null | grep -iE '^(torch|transformers|peft|accelerate|bitsandbytes|nvidia-ml-py|flash)' 
} >"$out/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=timestamp,index,uuid,name,memory.total,memory.reserved,memory.used,memory.free,utilization.gpu \
  --format=csv,noheader,nounits -lms 1000 >"$out/smi-gpu-loop.csv" 2>&1 &
gpu_loop=$!
nvidia-smi --query-compute-apps=timestamp,gpu_uuid,pid,process_name,used_gpu_memory \
  --format=csv,noheader,nounits -lms 500 >"$out/smi-apps-loop.csv" 2>&1 &
apps_loop=$!
PYTHONUNBUFFERED=1 python3 bench/gpu/measure.py --grid default --out "$out/h200-measurements.jsonl" \
  --budget-seconds "$budget" 2>&1 | tee "$out/measure.log"
status=$?
kill "$gpu_loop" "$apps_loop" 2>/dev/null
exit $status
