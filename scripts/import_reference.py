"""One-time import of the sourced reference dataset into ``knowledge/``.

Usage: ``python scripts/import_reference.py ../shared/reference knowledge``

This is a development tool, not part of the product: after the import, ``knowledge/`` is
the source of truth and is edited by hand (a new GPU is a YAML entry). It keeps every
source, every ``derived:`` mark (as the entry's ``derived`` map) and every recorded
conflict, maps field names to the knowledge schema's unit-bearing names, and adds the
curated ids and user-typed aliases of ``gpu_names.py``.
"""

from __future__ import annotations

import re
import sys
from datetime import date
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from gpu_names import CUDA_GPUS_SOURCE, GPU_NAMES  # noqa: E402

AS_OF = date(2026, 11, 29)  # the day these figures were copied and checked against their sources


class _Dumper(yaml.SafeDumper):
    pass


def _str_presenter(dumper, data):
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _str_presenter)


def dump(path: Path, header: str, data) -> None:
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)
    path.write_text(header + text, encoding="utf-8")
    print(f"wrote {path}")


# ----------------------------------------------------------------------------- GPUs

def _derived_comments(path: Path) -> list[dict[str, str]]:
    """For each `- name:` entry, the fields whose trailing comment marks them derived."""
    out: list[dict[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(r"^\s*- name:", line):
            out.append({})
            continue
        m = re.match(r"^\s+([a-z0-9_]+):\s*[^#]*#\s*(.*derived.*)$", line)
        if m and out:
            out[-1][m.group(1)] = m.group(2).strip()
    return out


_FIELD_MAP = {
    "tf32_tensor_tflops_dense": "tf32",
    "fp8_tensor_tflops_dense": "fp8",
    "int8_tensor_tops_dense": "int8",
    "int4_tensor_tops_dense": "int4",
    "fp4_tensor_tflops_dense": "fp4",
    "fp64_tensor_tflops": "fp64",
}


def _supported(g: dict, cc: float | None, dense: dict) -> list[str]:
    unsupported = set(g.get("unsupported") or [])
    nvidia = g["vendor"] == "NVIDIA"
    out = ["fp32"]
    if dense.get("fp64") or g.get("fp64_tflops"):
        out.insert(0, "fp64")
    # Feature gates (estimation-notes.md): tf32/bf16 from Ampere (8.0), FP8 from Ada (8.9),
    # FP4 from Blackwell (10.0); fp16 arithmetic from 5.3.
    if (cc or 0) >= 8.0 and nvidia or (not nvidia and "tf32" not in unsupported and dense.get("tf32")):
        out.append("tf32")
    if (nvidia and (cc or 0) >= 8.0) or (not nvidia and "bf16" not in unsupported and dense.get("bf16")):
        out.append("bf16")
    if not nvidia or (cc or 0) >= 5.3:
        out.append("fp16")
    if "fp8" not in unsupported and ((nvidia and (cc or 0) >= 8.9) or (not nvidia and dense.get("fp8"))):
        out.append("fp8")
    if (nvidia and (cc or 0) >= 6.1) or (not nvidia and dense.get("int8")):
        out.append("int8")
    if dense.get("int4"):
        out.append("int4")
    if (nvidia and (cc or 0) >= 10.0) or dense.get("fp4"):
        out.append("fp4")
    return out


def convert_gpus(ref: Path, out: Path) -> dict[str, str]:
    entries = []
    name_to_id: dict[str, str] = {}
    for fname in ("gpu_specs.yaml", "gpu_specs_extra.yaml"):
        data = yaml.safe_load((ref / fname).read_text(encoding="utf-8"))["gpus"]
        derived_all = _derived_comments(ref / fname)
        for g, derived_raw in zip(data, derived_all, strict=True):
            gid, segment, cc_str, aliases, default_for = GPU_NAMES[g["name"]]
            name_to_id[g["name"]] = gid
            cc_str = g.get("compute_capability") or cc_str
            cc_str = f"{float(cc_str):.1f}" if cc_str is not None else None
            cc = float(cc_str) if cc_str else None
            dense: dict[str, float | None] = {}
            for src, dst in _FIELD_MAP.items():
                if g.get(src) is not None:
                    dense[dst] = g[src]
            dense["fp32"] = g.get("fp32_matrix_tflops") or g.get("fp32_tflops")
            both = g.get("bf16_fp16_tensor_tflops_dense")
            dense["fp16"] = g.get("fp16_tensor_tflops_dense") or both
            dense["bf16"] = g.get("bf16_tensor_tflops_dense") or both
            supported = _supported(g, cc, dense)
            order = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")
            dense = {k: dense[k] for k in order if dense.get(k) is not None and (k in supported or k == "fp64")}
            notes = list(g.get("notes") or [])
            for extra in ("fp16_vector_tflops", "int8_dp4a_tops", "fp6_tensor_tflops_dense", "nvlink_c2c_gbps",
                          "module_power_watts_range", "cpu_memory", "fp8_tensor_fp16acc_tflops_dense"):
                if g.get(extra) is not None:
                    notes.append(f"{extra}: {g[extra]}")
            if "int8_dp4a_tops" in g:
                notes.append("INT8 runs through DP4A (vector dot-product) only; there is no INT8 tensor path.")
            derived = {}
            key_map = {"bf16_fp16_tensor_tflops_dense": "dense_tflops.bf16",
                       "fp16_tensor_fp16acc_tflops_dense": "fp16_accumulate_tflops",
                       "memory_bandwidth_gbps": "memory_bandwidth_gb_s",
                       "nvlink_gbps": "nvlink_gb_s", "fp64_tflops": "fp64_vector_tflops"}
            for k, v in derived_raw.items():
                derived[key_map.get(k, f"dense_tflops.{_FIELD_MAP[k]}" if k in _FIELD_MAP else k)] = v
            sources = [s if isinstance(s, str) else "; ".join(f"{k}: {v}" for k, v in s.items())
                       for s in g["sources"]]  # a ": " inside an unquoted source made YAML read a mapping
            if g.get("compute_capability") is None and cc_str:
                sources.append(CUDA_GPUS_SOURCE)
            launch_year = g.get("launch_year")
            if launch_year is None:
                launch_year = {"H20": 2024, "GH200 144GB (HBM3e)": 2024}[g["name"]]
                derived["launch_year"] = "from the entry's notes/sources (null in the reference table)"
            entry = {
                "id": gid,
                "name": g["name"],
                "vendor": g["vendor"].split(" ")[0],  # "Intel (Habana)" -> "Intel"
                "architecture": g["architecture"],
                "compute_capability": cc_str,
                "memory_gb": g["memory_gb"],
                "memory_type": g.get("memory_type"),
                "memory_bandwidth_gb_s": g["memory_bandwidth_gbps"],
                "fp64_vector_tflops": g.get("fp64_tflops"),
                "dense_tflops": dense,
                "sparse_tflops": dict(g.get("sparse_figures_quoted") or {}),
                "fp16_accumulate_tflops": g.get("fp16_tensor_fp16acc_tflops_dense"),
                "supported_precisions": supported,
                "unsupported": list(g.get("unsupported") or []),
                "nvlink_gb_s": g.get("nvlink_gbps"),
                "interconnect": g.get("interconnect"),
                "pcie_gen": g.get("pcie_gen"),
                "tdp_watts": g.get("tdp_watts"),
                "form_factor": g.get("form_factor") or "not stated",
                "segment": segment,
                "launch_year": launch_year,
                "transistors_billion": g.get("transistors_billion"),
                "aliases": aliases,
                "default_for": default_for,
                "sources": sources,
                "as_of": AS_OF,
                "derived": derived,
                "notes": notes,
            }
            entries.append({k: v for k, v in entry.items() if v not in (None, [], {})})
    header = (
        "# GPU specifications for GPU Advisor.\n"
        "# Copied from the sourced reference dataset (gpu_specs.yaml + gpu_specs_extra.yaml); see each entry's sources.\n"
        "# Units: memory_gb GB (10^9 B), memory_bandwidth_gb_s GB/s, *_tflops TFLOPS (int8/int4: TOPS), tdp_watts W,\n"
        "# nvlink_gb_s total bidirectional GB/s per GPU. dense_tflops are WITHOUT 2:4 sparsity (datasheet headlines are\n"
        "# sparse = 2x dense; kept apart in sparse_tflops). `derived` says which figures are arithmetic on a sourced one.\n"
        "# as_of: the date the figures were last checked against their sources.\n"
    )
    dump(out / "gpus.yaml", header, {"gpus": entries})
    return name_to_id


# ----------------------------------------------------------------------------- models

_ID_OVERRIDES = {"GPT-3 175B (paper architecture)": "gpt-3-175b", "Command R+ (104B)": "command-r-plus", "Llama 2 34B (unreleased)": "llama-2-34b"}

# What users type beyond the names and Hugging Face repos (questions-dev.yaml, Ollama library tags).
_EXTRA_MODEL_ALIASES = {
    "llama-1-7b": ["LLaMA 7B", "llama1 7b", "llama-7b"],
    "llama-1-13b": ["LLaMA 13B", "llama1 13b", "llama-13b"],
    "llama-1-33b": ["LLaMA 33B", "LLaMA 30B", "llama1 33b", "llama-30b"],
    "llama-1-65b": ["LLaMA 65B", "llama1 65b", "llama-65b", "guanaco 65b"],
    "llama-2-7b": ["llama2:7b", "llama2 7b"],
    "llama-2-13b": ["llama2:13b", "llama2 13b"],
    "llama-2-70b": ["llama2:70b", "llama2 70b"],
    "llama-3-8b": ["llama3:8b", "llama3 8b"],
    "llama-3-70b": ["llama3:70b", "llama3 70b"],
    "llama-3.1-8b": ["llama3.1:8b"],
    "llama-3.1-70b": ["llama3.1:70b"],
    "llama-3.1-405b": ["llama3.1:405b"],
    "llama-3.2-1b": ["llama3.2:1b"],
    "llama-3.2-3b": ["llama3.2:3b"],
    "llama-3.3-70b": ["llama3.3:70b", "llama3.3"],
    "mixtral-8x7b": ["mixtral:8x7b", "dolphin-mixtral", "mixtral 8x7"],
    "mixtral-8x22b": ["mixtral:8x22b"],
    "mistral-7b-v0.3": ["mistral:7b"],
    "qwen2-72b": ["qwen2:72b"],
    "qwen2-7b": ["qwen2:7b"],
    "qwen2.5-72b": ["qwen2.5:72b"],
    "qwen2.5-32b": ["qwen2.5:32b"],
    "qwen2.5-14b": ["qwen2.5:14b"],
    "qwen2.5-7b": ["qwen2.5:7b"],
    "deepseek-r1": ["deepseek-r1:671b"],
    "deepseek-v3": ["deepseek-v3:671b"],
    "gemma-7b": ["gemma:7b"],
    "gemma-2-9b": ["gemma2:9b"],
    "gemma-2-27b": ["gemma2:27b"],
    "phi-3-mini": ["phi3:mini", "phi3"],
    "phi-3-medium": ["phi3:medium"],
    "code-llama-34b": ["codellama:34b", "CodeLlama 34B"],
    "code-llama-7b": ["codellama:7b", "CodeLlama 7B"],
    "code-llama-13b": ["codellama:13b", "CodeLlama 13B"],
    "code-llama-70b": ["codellama:70b", "CodeLlama 70B"],
    "gpt-oss-20b": ["gpt-oss:20b"],
    "gpt-oss-120b": ["gpt-oss:120b"],
    "mpt-7b": ["MPT-7B"],
    "whisper-large-v3": ["whisper large", "whisper-large"],
    "falcon-40b": ["falcon:40b"],
    "falcon-180b": ["falcon:180b"],
    "tinyllama-1.1b": ["tinyllama"],
}


def model_id(name: str) -> str:
    if name in _ID_OVERRIDES:
        return _ID_OVERRIDES[name]
    base = re.sub(r"\s*\(.*?\)\s*", " ", name).strip()
    slug = re.sub(r"[^a-z0-9.]+", "-", base.lower()).strip("-")
    return slug.replace("[", "").replace("]", "")


def _sliding(m: dict) -> tuple[int | None, int | None]:
    layout = (m.get("attention_layout") or "").lower()
    layers = m["num_hidden_layers"]
    if "chunked local attention" in layout:
        return 8192, layers - layers // 4  # every 4th layer global (attention_layout)
    if "sliding_window_pattern 6" in layout:
        return m["sliding_window"], layers - layers // 6
    if "alternating" in layout and m.get("sliding_window"):
        return m["sliding_window"], layers // 2
    if m.get("sliding_window") and ("on all" in layout or "all layers" in layout) and "full attention" not in layout:
        return m["sliding_window"], layers
    return None, None


_NATIVE = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}


def convert_models(ref: Path, out: Path) -> dict[str, str]:
    data = yaml.safe_load((ref / "models.yaml").read_text(encoding="utf-8"))
    entries = []
    name_to_id = {}
    seen_alias: dict[str, str] = {}

    def add_aliases(mid: str, raw: list[str]) -> list[str]:
        keep = []
        for a in raw:
            a = re.sub(r"\s*\(.*?\)\s*$", "", a).strip()
            key = re.sub(r"[\s_\-]+", "", a.lower())
            if not a or key == re.sub(r"[\s_\-]+", "", mid):
                continue
            if key in seen_alias:
                if seen_alias[key] != mid:
                    print(f"  alias {a!r} of {mid} already names {seen_alias[key]}; dropped")
                continue
            seen_alias[key] = mid
            keep.append(a)
        return keep

    for kind, rows in (("llm", data["llm_models"]), ("non_llm", data["non_llm_models"])):
        for m in rows:
            mid = model_id(m["name"])
            name_to_id[m["name"]] = mid
            raw_aliases = [m["name"], re.sub(r"\s*\(.*?\)", "", m["name"]).strip()]
            for repo in [m.get("hf_repo")] + list(m.get("hf_repo_variants") or []):
                if repo:
                    repo = re.sub(r"\s*\(.*?\)", "", repo).strip()
                    raw_aliases += [repo, repo.split("/")[-1]]
            raw_aliases += _EXTRA_MODEL_ALIASES.get(mid, [])
            params = m.get("params_total") or m.get("params_from_config") or m.get("params_approx")
            basis = m.get("params_total_basis") or m.get("params_approx_basis")
            if m.get("params_total") is None and m.get("params_from_config"):
                basis = "computed from the config (params_from_config); no published exact total"
            notes = list(m.get("notes") or [])
            null_reasons = m.get("null_reasons") or {}
            for k, v in null_reasons.items():
                notes.append(f"{k} is null: {v}")
            gaps = {f: null_reasons.get(f, "not in the sources consulted")
                    for f in ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                              "vocab_size") if kind == "llm" and m.get(f) is None}
            entry: dict = {
                "id": mid,
                "name": m["name"],
                "family": m["family"],
                "kind": kind,
                "hf_repo": m.get("hf_repo"),
                "params_total_b": params / 1e9,
                "params_active_b": (m["params_active"] / 1e9) if m.get("params_active") else None,
                "params_basis": basis,
                "params_from_config_b": (m["params_from_config"] / 1e9) if m.get("params_from_config") else None,
            }
            if kind == "llm":
                sw, swl = _sliding(m)
                entry.update({
                    "num_hidden_layers": m["num_hidden_layers"],
                    "hidden_size": m["hidden_size"],
                    "num_attention_heads": m["num_attention_heads"],
                    "num_key_value_heads": m["num_key_value_heads"],
                    "head_dim": m.get("head_dim") or m.get("head_dim_effective"),
                    "intermediate_size": m.get("intermediate_size"),
                    "moe_intermediate_size": m.get("moe_intermediate_size"),
                    "vocab_size": m.get("vocab_size"),
                    "max_position_embeddings": m.get("max_position_embeddings"),
                    "sliding_window": sw,
                    "sliding_window_layers": swl,
                    "attention_layout": m.get("attention_layout"),
                    "num_local_experts": m.get("num_local_experts") or m.get("n_routed_experts"),
                    "num_experts_per_tok": m.get("num_experts_per_tok"),
                    "n_shared_experts": m.get("n_shared_experts"),
                    "kv_lora_rank": m.get("kv_lora_rank"),
                    "q_lora_rank": m.get("q_lora_rank"),
                    "qk_rope_head_dim": m.get("qk_rope_head_dim"),
                    "qk_nope_head_dim": m.get("qk_nope_head_dim"),
                    "v_head_dim": m.get("v_head_dim"),
                    "tie_word_embeddings": m.get("tie_word_embeddings"),
                    "native_precision": _NATIVE.get(m.get("torch_dtype") or "", None),
                    "kv_cache_bytes_per_token_bf16": m.get("kv_cache_bytes_per_token_bf16"),
                })
                if mid in ("deepseek-v3", "deepseek-r1"):
                    entry["native_precision"] = "fp8"  # entry notes: weights ship as FP8 e4m3 block-scaled
                if mid.startswith("gpt-oss"):
                    entry["native_precision"] = "mxfp4"  # entry notes: MoE weights ship in MXFP4
            else:
                entry["typical_fp16_weight_gb"] = m["typical_fp16_weight_bytes"] / 1e9
                entry["runtime_memory_hint"] = m.get("runtime_memory_hint")
                if m.get("components"):
                    notes.append("components: " + "; ".join(f"{k}: {v}" for k, v in m["components"].items() if v))
            entry.update({
                "release_date": str(m["release_date"]) if m.get("release_date") else None,
                "license": m.get("license"),
                "hf_repo_variants": [re.sub(r"\s*\(.*?\)", "", r).strip() for r in m.get("hf_repo_variants") or []],
                "aliases": add_aliases(mid, raw_aliases),
                "sources": list(m["sources"]),
                "as_of": AS_OF,
                "architecture_gaps": gaps,
                "conflicts": [str(c) for c in m.get("conflicts") or []],
                "notes": notes,
            })
            entries.append({k: v for k, v in entry.items() if v not in (None, [], {})})
    header = (
        "# Model architectures for GPU Advisor (LLMs and a few non-LLM models).\n"
        "# Copied from the sourced reference dataset (models.yaml). Field names follow Hugging Face config.json.\n"
        "# params_total_b / params_active_b are billions of parameters (exact where published; params_basis says).\n"
        "# sliding_window_layers = how many layers use sliding-window/chunked attention (from attention_layout).\n"
        "# kv_cache_bytes_per_token_bf16 is the reference's derived figure, kept as a cross-check.\n"
        "# as_of: the date the figures were last checked against their sources.\n"
    )
    dump(out / "models.yaml", header, {"models": entries})
    return name_to_id


# ----------------------------------------------------------------------------- prices

_PROVIDERS = {
    "AWS": ("aws", ["amazon", "amazon web services", "ec2"]),
    "GCP": ("gcp", ["google cloud", "google", "gce"]),
    "Azure": ("azure", ["microsoft azure"]),
    "Lambda": ("lambda", ["lambda labs", "lambdalabs", "lambda cloud"]),
    "Paperspace": ("paperspace", ["digitalocean paperspace"]),
    "CoreWeave": ("coreweave", ["core weave"]),
    "RunPod": ("runpod", ["run pod"]),
    "Vast.ai": ("vast", ["vast.ai", "vastai"]),
    "Oracle OCI": ("oci", ["oracle", "oracle cloud"]),
    "DigitalOcean": ("digitalocean", ["digital ocean", "do"]),
}

_LABEL_TO_GPU = {"RTX 5090": "rtx-5090-32gb", "GB200 (Grace-Blackwell)": "gb200-186gb"}


def convert_prices(ref: Path, out: Path, gpu_ids: dict[str, str]) -> None:
    data = yaml.safe_load((ref / "cloud_prices.yaml").read_text(encoding="utf-8"))
    by_provider: dict[str, list] = {}
    for p in data["prices"]:
        pid = _PROVIDERS[p["provider"]][0]
        gpu = gpu_ids[p["gpu"]] if p["gpu"] else _LABEL_TO_GPU[p["gpu_label_in_source"]]
        model = (p.get("pricing_model") or "").lower()
        notes = [p["notes"]] if p.get("notes") else []
        offer = {
            "provider": pid,
            "instance_type": p["instance_type"],
            "gpu": gpu,
            "gpu_count": p["gpu_count"],
            "price_per_hour_usd": p["price_per_hour_usd"],
            "pricing_model": "commitment" if "commitment" in model else "on_demand",
            "commitment_term": "3 years" if "3-year" in model else None,
            "marketplace": True if "marketplace" in model else None,
            "condition": "page footnote ** not captured in the transcription" if "conditional" in model else None,
            "unavailable": None,
            "region": p.get("region"),
            "as_of": p.get("as_of"),
            "source": p["source"],
            "extra_sources": p.get("extra_sources"),
            "gpu_variant_verified": False if p.get("gpu_variant_verified") is False else None,
            "vm_part_usd": p.get("vm_part_usd"),
            "gpu_part_usd": p.get("gpu_part_usd"),
            "notes": notes,
        }
        if p["price_per_hour_usd"] is None:
            offer["unavailable"] = (p.get("notes") or "no price in the source")[:200]
        if p.get("gpu_label_in_source"):
            notes.append(f"GPU as labelled in the source: {p['gpu_label_in_source']}")
        if offer["as_of"] is None:
            offer["as_of"] = None  # undated catalog snapshot: flagged as stale in answers
        by_provider.setdefault(pid, []).append({k: v for k, v in offer.items() if v not in ([], {}) and
                                                (v is not None or k in ("as_of", "price_per_hour_usd"))})
    (out / "prices").mkdir(exist_ok=True)
    snapshots = data["catalog_snapshots"]
    for display, (pid, aliases) in _PROVIDERS.items():
        offers = by_provider.get(pid, [])
        notes = [f"{k}: {v['source']}" + (f" ({v['known_bounds']})" if v.get("known_bounds") else "")
                 for k, v in snapshots.items() if k.split("_")[0] == pid or (pid == "oci" and k.startswith("oci"))]
        header = (
            f"# {display} GPU prices for GPU Advisor. USD per hour for the WHOLE instance (all gpu_count GPUs);\n"
            "# price per GPU-hour is derived by the loader. pricing_model: on_demand | spot | commitment.\n"
            "# as_of: null marks an undated catalog snapshot (SkyPilot catalog read at a known commit, date not\n"
            "# recorded); answers flag it. Copied from the sourced reference dataset (cloud_prices.yaml).\n"
        )
        dump(out / "prices" / f"{pid}.yaml", header,
             {"provider": pid, "provider_name": display, "aliases": aliases, "notes": notes, "offers": offers})


# ----------------------------------------------------------------------------- benchmarks

_BENCH_GPU = {
    "A100-80GB": "a100-sxm-80gb", "H100-80GB": "h100-sxm-80gb", "A100": "a100-sxm-80gb",
    "A100-80GB (1600 Gbps RoCE)": "a100-sxm-80gb", "H100-SXM5-80GB (Eos)": "h100-sxm-80gb",
    "H100-SXM-80GB (DGX H100)": "h100-sxm-80gb", "A100-SXM4-80GB": "a100-sxm-80gb",
    "H100 80GB HBM3": "h100-sxm-80gb", "H100": "h100-sxm-80gb", "H100 80GB": "h100-sxm-80gb",
    "RTX 4090": "rtx-4090-24gb", "A100 80GB": "a100-sxm-80gb", "A100-SXM4-40GB": "a100-sxm-40gb",
}
_BENCH_MODEL = {
    "Llama 2 7B": "llama-2-7b", "Llama 2 13B": "llama-2-13b", "Llama 2 70B": "llama-2-70b",
    "Llama 3 405B": "llama-3.1-405b", "OPT-175B": "opt-175b", "BLOOM 176B": "bloom-176b", "MPT 7B": "mpt-7b",
    "GPT-3 175B (MLPerf segment)": "gpt-3-175b", "Llama 2 70B (llama2-70b-99.9)": "llama-2-70b",
    "Llama 3 8B": "llama-3-8b", "LLaMA 7B": "llama-1-7b", "Llama 3.3 70B Instruct": "llama-3.3-70b",
    "CodeLlama 7B (llama arch)": "code-llama-7b", "LLaMA 65B (Guanaco)": "llama-1-65b",
    "Llama 2 7B Chat (GGUF)": "llama-2-7b", "Llama 2 70B (GGUF)": "llama-2-70b",
}


def convert_benchmarks(ref: Path, out: Path) -> None:
    rows = yaml.safe_load((ref / "benchmarks-calibration.yaml").read_text(encoding="utf-8"))
    entries = []
    for b in rows:
        e = dict(b)
        e["model_id"] = _BENCH_MODEL.get(b["model"])
        e["gpu_id"] = _BENCH_GPU.get(b["gpu"])
        e["date"] = str(b["date"])
        e["source"] = str(b["source"])
        e["conditions"] = {k: v for k, v in (b.get("conditions") or {}).items()}
        order = ["id", "kind", "model", "model_id", "params_b", "gpu", "gpu_id", "gpu_count", "precision",
                 "framework", "conditions", "metric", "value", "unit", "source", "date", "notes"]
        entries.append({k: e.get(k) for k in order if e.get(k) not in (None, {}, [])})
    header = (
        "# Published measurements for calibrating GPU Advisor's efficiency factors and for bench/accuracy.py.\n"
        "# Copied from the sourced reference dataset (benchmarks-calibration.yaml). model/gpu are as the source\n"
        "# wrote them; model_id/gpu_id resolve them to knowledge entries. 'derived' in notes marks arithmetic.\n"
    )
    dump(out / "benchmarks.yaml", header, {"benchmarks": entries})


def main() -> None:
    ref, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    gpu_ids = convert_gpus(ref, out)
    convert_models(ref, out)
    convert_prices(ref, out, gpu_ids)
    convert_benchmarks(ref, out)


if __name__ == "__main__":
    main()
