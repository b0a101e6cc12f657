#!/usr/bin/env bash
# The same scenarios twice in one device call, with PyTorch's default caching allocator and with
# expandable segments: how much of reserved − allocated the advice "PYTORCH_CUDA_ALLOC_CONF=
# expandable_segments:True" takes back. Rows go to results/, not bench/data/: the estimator models the
# default allocator. Usage on the device: bash bench/gpu/device-expandable.sh   (writes into $OUT)
set -u -o pipefail
out=${OUT:?OUT must name the folder whose files come back}
for conf in default expandable; do
  if [ "$conf" = expandable ]; then export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; fi
  PYTHONUNBUFFERED=1 python3 bench/gpu/measure.py --scenarios bench/gpu/expandable-scenarios.jsonl \
    --id-prefix "h200x-$conf" --out "$out/expandable-$conf.jsonl" --budget-seconds 150 2>&1 | tee "$out/expandable-$conf.log"
done
