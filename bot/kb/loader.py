"""Load and validate the knowledge base from a directory of YAML files.

Layout of a knowledge directory::

    gpus.yaml           {gpus: [Gpu, ...]}
    models.yaml         {models: [Model, ...]}
    benchmarks.yaml     {benchmarks: [Benchmark, ...]}
    instances.yaml      {instances: [InstanceType, ...]}  (instances without a price row)
    engines.yaml        {engines: [Engine, ...]}  (documented serving-engine defaults)
    prices/<id>.yaml    PriceFile, one per provider

Files are parsed with libyaml's C loader and validated entry by entry, so one broken entry
does not hide the others. Line numbers are only worked out (by composing the YAML node
tree) for files that have errors, which keeps the normal path fast.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from bot.errors import KnowledgeError, KnowledgeIssue
from bot.kb.schema import Benchmark, Engine, Gpu, InstanceType, Model, PriceFile, PriceOffer

__all__ = [
    "KnowledgeBase",
    "default_knowledge_dir",
    "get_knowledge",
    "load_knowledge",
    "normalize_name",
    "set_knowledge",
]

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
ENV_VAR = "GPU_ADVISOR_KNOWLEDGE"


def normalize_name(text: str) -> str:
    """Lower-case ``text`` and drop spaces, hyphens and underscores (``"H100-SXM"`` -> ``"h100sxm"``).

    This is the key under which aliases must be unique.
    """
    return re.sub(r"[\s_\-]+", "", text.lower())


def default_knowledge_dir() -> Path:
    """The knowledge directory to use when none is given.

    Returns:
        ``$GPU_ADVISOR_KNOWLEDGE`` when set; else the copy packaged in the wheel
        (``bot/knowledge``); else ``knowledge/`` at the source checkout's root.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    packaged = Path(__file__).resolve().parent.parent / "knowledge"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "knowledge"


@dataclass(frozen=True)
class KnowledgeBase:
    """Everything the advisor knows, validated and cross-checked.

    Attributes:
        directory: where it was loaded from.
        gpus: GPU id -> Gpu, in file order.
        models: model id -> Model, in file order.
        providers: provider id -> PriceFile.
        offers: every price offer of every provider.
        benchmarks: benchmark id -> Benchmark.
        instances: instance types without a price row.
        engines: engine id -> Engine (documented defaults of vLLM, TensorRT-LLM, ...).
    """

    directory: Path
    gpus: dict[str, Gpu]
    models: dict[str, Model]
    providers: dict[str, PriceFile]
    offers: tuple[PriceOffer, ...]
    benchmarks: dict[str, Benchmark]
    instances: tuple[InstanceType, ...] = ()
    engines: dict[str, Engine] = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def offers_for(self, gpu_id: str) -> list[PriceOffer]:
        """All offers (any pricing model) whose instances carry ``gpu_id``."""
        return self._offers_by_gpu.get(gpu_id, [])

    @cached_property
    def _offers_by_gpu(self) -> dict[str, list[PriceOffer]]:
        out: dict[str, list[PriceOffer]] = {}
        for offer in self.offers:
            out.setdefault(offer.gpu, []).append(offer)
        return out

    def price_dates(self) -> tuple[date | None, date | None, int]:
        """(oldest dated ``as_of``, newest dated ``as_of``, number of undated offers)."""
        dated = [o.as_of for o in self.offers if o.as_of]
        undated = sum(1 for o in self.offers if o.as_of is None)
        return (min(dated) if dated else None, max(dated) if dated else None, undated)


# --------------------------------------------------------------------------- line lookup

class _LineMap:
    """Maps a path of keys/indices inside a YAML file to a 1-based line number."""

    def __init__(self, path: Path):
        try:
            self.root = yaml.compose(path.read_text(encoding="utf-8"), Loader=_Loader)
        except yaml.YAMLError:
            self.root = None

    def line(self, keys: Sequence[Any]) -> int:
        node = self.root
        if node is None:
            return 0
        best = node.start_mark.line + 1
        for key in keys:
            child = None
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if k.value == str(key):
                        child = v if not isinstance(v, yaml.ScalarNode) else v
                        best = k.start_mark.line + 1
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
                child = node.value[key]
                best = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return best


class _Collector:
    """Collects issues, resolving line numbers lazily per file."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.issues: list[KnowledgeIssue] = []
        self._maps: dict[Path, _LineMap] = {}

        self.invalid_ids: set[str] = set()  # entries already reported, so references to them stay quiet

    def shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.directory.parent))
        except ValueError:
            return str(path)

    def add(self, path: Path, keys: Sequence[Any], fieldname: str, message: str) -> None:
        if path not in self._maps:
            self._maps[path] = _LineMap(path)
        self.issues.append(KnowledgeIssue(self.shown(path), self._maps[path].line(keys), fieldname, message))


def _read(path: Path, out: _Collector) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        out.issues.append(KnowledgeIssue(out.shown(path), (mark.line + 1) if mark else 0, "(yaml)", str(exc.problem)))
    except (OSError, yaml.YAMLError) as exc:
        out.issues.append(KnowledgeIssue(out.shown(path), 0, "(file)", str(exc)))
    return None


def _validate_entries(
    cls: type[BaseModel], path: Path, top: str, data: Any, out: _Collector
) -> list[tuple[int, Any]]:
    if not isinstance(data, dict) or not isinstance(data.get(top), list):
        out.add(path, [], top, f"expected a mapping with a list under '{top}'")
        return []
    result = []
    for index, raw in enumerate(data[top]):
        try:
            result.append((index, cls.model_validate(raw)))
        except ValidationError as exc:
            ident = raw.get("id") if isinstance(raw, dict) else None
            if ident:
                out.invalid_ids.add(str(ident))
            for err in exc.errors():
                loc = [p for p in err["loc"]]
                fieldname = ".".join(str(p) for p in loc) or "(entry)"
                msg = err["msg"].removeprefix("Value error, ")
                if ident:
                    msg += f" (entry {ident})"
                out.add(path, [top, index, *loc], fieldname, msg)
    return result


def _check_aliases(
    entries: Iterable[tuple[str, Path, str, int, list[str]]], out: _Collector, owner: dict[str, str]
) -> None:
    for kind, path, top, index, names in entries:
        for name in names:
            key = normalize_name(name)
            ident = names[0]
            prev = owner.get(key)
            if prev is not None and prev != f"{kind}:{ident}":
                out.add(path, [top, index], "aliases",
                        f"alias {name!r} of {kind} {ident} also names {prev.replace(':', ' ')}")
            owner[key] = f"{kind}:{ident}"


def load_knowledge(directory: str | Path | None = None) -> KnowledgeBase:
    """Load, validate and cross-check a knowledge directory.

    Args:
        directory: the knowledge directory; ``None`` means :func:`default_knowledge_dir`.

    Returns:
        The validated :class:`KnowledgeBase`.

    Raises:
        KnowledgeError: listing every problem as ``file:line: field: message``: YAML syntax,
            schema violations, duplicate ids, ambiguous aliases, prices or benchmarks that
            name an unknown GPU or model.
    """
    root = Path(directory) if directory is not None else default_knowledge_dir()
    out = _Collector(root)
    if not root.is_dir():
        raise KnowledgeError([KnowledgeIssue(str(root), 0, "(directory)", "knowledge directory not found")])

    gpu_path, model_path, bench_path = root / "gpus.yaml", root / "models.yaml", root / "benchmarks.yaml"
    gpus_raw = _read(gpu_path, out)
    models_raw = _read(model_path, out)
    # When a whole file is unreadable its entries are unknown, not missing: skip references to them.
    gpus_unreadable, models_unreadable = gpus_raw is None, models_raw is None
    gpu_rows = _validate_entries(Gpu, gpu_path, "gpus", gpus_raw, out) if gpus_raw is not None else []
    model_rows = _validate_entries(Model, model_path, "models", models_raw, out) if models_raw is not None else []

    gpus: dict[str, Gpu] = {}
    for index, gpu in gpu_rows:
        if gpu.id in gpus:
            out.add(gpu_path, ["gpus", index, "id"], "id", f"duplicate GPU id {gpu.id!r}")
        gpus[gpu.id] = gpu
    models: dict[str, Model] = {}
    for index, model in model_rows:
        if model.id in models:
            out.add(model_path, ["models", index, "id"], "id", f"duplicate model id {model.id!r}")
        models[model.id] = model

    owner: dict[str, str] = {}
    _check_aliases(((("gpu", gpu_path, "gpus", i, [g.id, g.name, *g.aliases, *g.default_for]) for i, g in gpu_rows)),
                   out, owner)
    _check_aliases(((("model", model_path, "models", i, [m.id, m.name, *m.aliases, *m.default_for])
                     for i, m in model_rows)), out, {})

    providers: dict[str, PriceFile] = {}
    offers: list[PriceOffer] = []
    price_dir = root / "prices"
    for path in sorted(price_dir.glob("*.yaml")) if price_dir.is_dir() else []:
        raw = _read(path, out)
        if raw is None:
            continue
        try:
            pf = PriceFile.model_validate(raw)
        except ValidationError as exc:
            for err in exc.errors():
                loc = list(err["loc"])
                out.add(path, loc, ".".join(str(p) for p in loc), err["msg"].removeprefix("Value error, "))
            continue
        if pf.provider != path.stem:
            out.add(path, ["provider"], "provider", f"provider {pf.provider!r} does not match the file name")
        providers[pf.provider] = pf
        for index, offer in enumerate(pf.offers):
            if offer.gpu not in gpus and offer.gpu not in out.invalid_ids and not gpus_unreadable:
                out.add(path, ["offers", index, "gpu"], "gpu",
                        f"unknown GPU id {offer.gpu!r} (instance {offer.instance_type})")
            offers.append(offer)

    benchmarks: dict[str, Benchmark] = {}
    bench_raw = _read(bench_path, out) if bench_path.exists() else {"benchmarks": []}
    for index, bench in _validate_entries(Benchmark, bench_path, "benchmarks", bench_raw, out) if bench_raw else []:
        if bench.gpu_id and bench.gpu_id not in gpus and bench.gpu_id not in out.invalid_ids and not gpus_unreadable:
            out.add(bench_path, ["benchmarks", index, "gpu_id"], "gpu_id", f"unknown GPU id {bench.gpu_id!r}")
        if (bench.model_id and bench.model_id not in models and bench.model_id not in out.invalid_ids
                and not models_unreadable):
            out.add(bench_path, ["benchmarks", index, "model_id"], "model_id",
                    f"unknown model id {bench.model_id!r}")
        if bench.model_id is None and bench.params_b is None:
            out.add(bench_path, ["benchmarks", index], "params_b", "needs model_id or params_b")
        benchmarks[bench.id] = bench

    instances: list[InstanceType] = []
    inst_path = root / "instances.yaml"
    inst_raw = _read(inst_path, out) if inst_path.exists() else None
    for index, inst in _validate_entries(InstanceType, inst_path, "instances", inst_raw, out) if inst_raw else []:
        if inst.gpu not in gpus and inst.gpu not in out.invalid_ids and not gpus_unreadable:
            out.add(inst_path, ["instances", index, "gpu"], "gpu", f"unknown GPU id {inst.gpu!r}")
        instances.append(inst)

    engines: dict[str, Engine] = {}
    eng_path = root / "engines.yaml"
    eng_raw = _read(eng_path, out) if eng_path.exists() else None
    eng_rows = _validate_entries(Engine, eng_path, "engines", eng_raw, out) if eng_raw else []
    for index, eng in eng_rows:
        if eng.id in engines:
            out.add(eng_path, ["engines", index, "id"], "id", f"duplicate engine id {eng.id!r}")
        engines[eng.id] = eng
    _check_aliases(((("engine", eng_path, "engines", i, [e.id, *e.aliases]) for i, e in eng_rows)), out, {})

    if out.issues:
        raise KnowledgeError(out.issues)
    return KnowledgeBase(root, gpus, models, providers, tuple(offers), benchmarks, tuple(instances), engines)


_lock = threading.Lock()
_current: KnowledgeBase | None = None


def get_knowledge() -> KnowledgeBase:
    """The process-wide knowledge base, loaded on first use from :func:`default_knowledge_dir`.

    Raises:
        KnowledgeError: when the default knowledge directory does not validate.
    """
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                _current = load_knowledge()
    return _current


def set_knowledge(kb: KnowledgeBase | None) -> None:
    """Replace the process-wide knowledge base (a reload), or clear it with ``None``."""
    global _current
    with _lock:
        _current = kb
