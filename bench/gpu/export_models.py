"""Writes bench/gpu/catalog-models.json: the Hugging Face config fields of the grid's models
and of the models check-scenarios.jsonl adds.

The harness builds each model from its Hugging Face config fields alone. This script takes them
from the repository's model catalog (data/catalog/models.json, the file scripts/import-catalog.ts
embeds) and keeps only the fields that decide tensor shapes or the attention computation. Run it
again after the catalog or `grid.GRID_MODELS` changes:

    python3 bench/gpu/export_models.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
OUTPUT = HERE / "catalog-models.json"
CATALOG = REPO_ROOT / "data" / "catalog" / "models.json"

sys.path.insert(0, str(HERE))
from grid import CHECK_MODELS, GRID_MODELS  # noqa: E402  (the grid owns the model lists)

MODELS = GRID_MODELS + CHECK_MODELS

# Catalog fields copied verbatim into the Hugging Face config (a null value is left out, so the
# config class default applies: e.g. head_dim = hidden_size / num_attention_heads).
CONFIG_FIELDS = (
    "model_type",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "max_position_embeddings",
    "tie_word_embeddings",
    "sliding_window",
    "attn_logit_softcapping",
    "final_logit_softcapping",
    "query_pre_attn_scalar",
)

# Catalog fields deliberately not copied, with the reason (written into the output file).
DROPPED_FIELDS = {
    "rope_theta": "changes no tensor shape or allocation",
    "rope_scaling": "changes no tensor shape; the catalog keeps only rope_type and factor, and "
    "Hugging Face's llama3 rope type also needs low_freq_factor and high_freq_factor",
    "torch_dtype": "the harness sets the weight dtype from each scenario's precision",
}


def hf_config(entry: dict) -> dict:
    """The Hugging Face config fields of one catalog entry."""
    config = {field: entry[field] for field in CONFIG_FIELDS if entry.get(field) is not None}
    # HF's `attention_bias` (q/k/v projection bias) is the catalog's architectureFlags.qkvBias.
    config["attention_bias"] = bool(entry["architectureFlags"]["qkvBias"])
    return config


def export(catalog_path: Path) -> dict:
    """The document written to catalog-models.json, built from the catalog at `catalog_path`."""
    raw = catalog_path.read_bytes()
    entries = {entry["id"]: entry for entry in json.loads(raw)}
    missing = [model for model in MODELS if model not in entries]
    if missing:
        raise SystemExit(f"models not in {catalog_path}: {', '.join(missing)}")
    return {
        "_source": {
            "generatedBy": "bench/gpu/export_models.py",
            "from": "data/catalog/models.json",
            "sha256": hashlib.sha256(raw).hexdigest(),
            "droppedFields": DROPPED_FIELDS,
        },
        "models": {
            model: {
                "hfRepo": entries[model]["hfRepo"],
                "params": entries[model]["params"]["total"],
                "config": hf_config(entries[model]),
            }
            for model in MODELS
        },
    }


def main() -> None:
    document = export(CATALOG)
    OUTPUT.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {OUTPUT.relative_to(REPO_ROOT)} ({len(document['models'])} models)")


if __name__ == "__main__":
    main()
