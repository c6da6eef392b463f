"""Load and validate the knowledge base from a directory of YAML files.

Layout of a knowledge directory::

    gpus.yaml           {gpus: [Gpu, ...], unlisted: [UnlistedGpu, ...]}
    models.yaml         {models: [Model, ...]}
    claims.yaml         {article: Article, constants: {key: ClaimConstant}, claims: [Claim, ...]}
    benchmarks.yaml     {benchmarks: [Benchmark, ...]}
    instances.yaml      {instances: [InstanceType, ...]}  (instances without a price row)
    prices/<id>.yaml    PriceFile, one per provider (offers and the instance sizes it rents)
    prices/common/exchange_rates.yaml   {exchange_rates: [ExchangeRate, ...]} (CNY prices -> USD)
    prices/common/<catalog>.yaml        CatalogNames: a live catalog's GPU and provider names (gpuhunt)
    engines.yaml        {engines: [Engine, ...]}  (documented serving-engine defaults)
    markets.yaml        {markets: [Market, ...], rules: [MarketRule, ...]}  (US export rules, China-market parts)

Files are parsed with libyaml's C loader and validated entry by entry, so one broken entry
does not hide the others. Line numbers are only worked out (by composing the YAML node
tree) for files that have errors, which keeps the normal path fast.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from bot.errors import KnowledgeError, KnowledgeIssue
from bot.kb.claims import resolve_operand
from bot.kb.schema import (
    Article,
    Benchmark,
    CatalogNames,
    Claim,
    ClaimConstant,
    ClaimFile,
    ClosedModel,
    Engine,
    ExchangeRate,
    ExchangeRateFile,
    Feature,
    Gpu,
    InstanceType,
    Market,
    MarketRule,
    Model,
    ModelFamily,
    Policy,
    PriceFile,
    PriceMention,
    PriceMentionFile,
    PriceOffer,
    PriceStandIn,
    UnlistedGpu,
    UnpricedProvider,
    UnpricedProviderFile,
)

__all__ = [
    "KnowledgeBase",
    "default_knowledge_dir",
    "get_knowledge",
    "load_knowledge",
    "normalize_name",
    "set_knowledge",
    "yaml_line",
]

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
ENV_VAR = "GPU_ADVISOR_KNOWLEDGE"


def normalize_name(text: str) -> str:
    """Unicode NFKC, lower-case, and drop spaces, hyphens and underscores (``"H100-SXM"`` -> ``"h100sxm"``).

    NFKC makes full-width forms typed with Chinese input methods equal to ASCII (``"Ａ１００"`` ->
    ``"a100"``). This is the key under which aliases must be unique.
    """
    return re.sub(r"[\s_\-]+", "", unicodedata.normalize("NFKC", text).lower())


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
        unlisted: accelerators users name that have no sourced figures (names known, no data).
        claims: claim id -> Claim (the H100 article's claims), in file order.
        claim_constants: the sourced constants claims' ratios may use.
        article: the article the claims come from (``None`` without a claims file).
        model_families: family word -> other names users give it (``models.yaml`` ``families``).
        closed_models: model families whose weights are not published (``models.yaml`` ``closed``).
        policy: the advice policy (``policy.yaml``), or ``None`` for a knowledge directory without one.
        features: feature id -> Feature (``features.yaml``): what FlashAttention-2, MIG... need.
        markets: market id -> Market (``markets.yaml``); market_rules: what sources state about selling GPUs into
            each market (US export rules for mainland China, China-market parts), in file order.
        exchange_rates: exchange-rate id -> ExchangeRate (prices published in CNY).
        catalogs: catalog name (``"gpuhunt"``) -> how its GPU and provider names map to ours.
        engines: engine id -> Engine (documented defaults of vLLM, TensorRT-LLM, ...).
        unpriced_providers: provider id -> UnpricedProvider (clouds users name that have no price rows).
        price_mentions: GPU id -> secondary-source price figures for GPUs no tracked cloud lists (never offers).
        price_stand_ins: GPU id -> the nearest priced GPU, shown labelled as that card.
    """

    directory: Path
    gpus: dict[str, Gpu]
    models: dict[str, Model]
    providers: dict[str, PriceFile]
    offers: tuple[PriceOffer, ...]
    benchmarks: dict[str, Benchmark]
    instances: tuple[InstanceType, ...] = ()
    unlisted: tuple[UnlistedGpu, ...] = ()
    claims: dict[str, Claim] = field(default_factory=dict)
    claim_constants: dict[str, ClaimConstant] = field(default_factory=dict)
    article: Article | None = None
    model_families: dict[str, tuple[str, ...]] = field(default_factory=dict)
    closed_models: tuple[ClosedModel, ...] = ()
    policy: Policy | None = None
    features: dict[str, Feature] = field(default_factory=dict)
    markets: dict[str, Market] = field(default_factory=dict)
    market_rules: list[MarketRule] = field(default_factory=list)
    exchange_rates: dict[str, ExchangeRate] = field(default_factory=dict)
    catalogs: dict[str, CatalogNames] = field(default_factory=dict)
    unpriced_providers: dict[str, UnpricedProvider] = field(default_factory=dict)
    engines: dict[str, Engine] = field(default_factory=dict)
    price_mentions: dict[str, tuple[PriceMention, ...]] = field(default_factory=dict)
    price_stand_ins: dict[str, PriceStandIn] = field(default_factory=dict)
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

    families: dict[str, tuple[str, ...]] = {}
    if isinstance(models_raw, dict) and models_raw.get("families") is not None:
        for _index, fam in _validate_entries(ModelFamily, model_path, "families", models_raw, out):
            families[fam.family] = tuple(fam.aliases)
    closed_rows = (_validate_entries(ClosedModel, model_path, "closed", models_raw, out)
                   if isinstance(models_raw, dict) and models_raw.get("closed") is not None else [])

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

    for index, gpu in gpu_rows:
        if gpu.aftermarket_of is not None and gpu.aftermarket_of not in gpus and gpu.aftermarket_of not in out.invalid_ids:
            out.add(gpu_path, ["gpus", index, "aftermarket_of"], "aftermarket_of",
                    f"unknown GPU id {gpu.aftermarket_of!r} (entry {gpu.id})")
    unlisted_rows = (_validate_entries(UnlistedGpu, gpu_path, "unlisted", gpus_raw, out)
                     if isinstance(gpus_raw, dict) and "unlisted" in gpus_raw else [])
    for index, item in unlisted_rows:
        for ident in item.nearest:
            if ident not in gpus and ident not in out.invalid_ids:
                out.add(gpu_path, ["unlisted", index, "nearest"], "nearest",
                        f"unknown GPU id {ident!r} (unlisted {item.name})")

    owner: dict[str, str] = {}
    _check_aliases(((("gpu", gpu_path, "gpus", i, [g.id, g.name, *g.aliases, *g.default_for]) for i, g in gpu_rows)),
                   out, owner)
    _check_aliases(((("unlisted", gpu_path, "unlisted", i, [u.name, *u.aliases]) for i, u in unlisted_rows)),
                   out, owner)
    _check_aliases(((("model", model_path, "models", i, [m.id, m.name, *m.aliases, *m.default_for])
                     for i, m in model_rows)), out, {})

    providers: dict[str, PriceFile] = {}
    offers: list[PriceOffer] = []
    price_files: list[tuple[Path, PriceFile]] = []
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
        price_files.append((path, pf))
        for index, offer in enumerate(pf.offers):
            if offer.gpu not in gpus and offer.gpu not in out.invalid_ids and not gpus_unreadable:
                out.add(path, ["offers", index, "gpu"], "gpu",
                        f"unknown GPU id {offer.gpu!r} (instance {offer.instance_type})")
            offers.append(offer)
    rates = _load_exchange_rates(price_dir / "common" / "exchange_rates.yaml", out)
    for path, pf in price_files:
        _check_price_file(path, pf, rates, gpus, gpus_unreadable, out)
        if pf.regional_of is not None and pf.regional_of not in providers:
            out.add(path, ["regional_of"], "regional_of", f"unknown provider {pf.regional_of!r}")
    catalogs = _load_catalog_names(price_dir / "common", gpus, gpus_unreadable, out)
    unpriced = _load_unpriced(price_dir / "common" / "unpriced_providers.yaml", price_files, out)
    mentions, stand_ins = _load_price_mentions(price_dir / "common" / "price_mentions.yaml", gpus, gpus_unreadable,
                                               unpriced, out)

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

    article, constants, claims = _load_claims(root / "claims.yaml", gpus, offers, out,
                                              skip_gpus=gpus_unreadable, skip_offers=not price_dir.is_dir())

    policy = None
    policy_path = root / "policy.yaml"
    policy_raw = _read(policy_path, out) if policy_path.exists() else None
    if policy_raw is not None:
        try:
            policy = Policy.model_validate(policy_raw)
        except ValidationError as exc:
            for err in exc.errors():
                loc = list(err["loc"])
                out.add(policy_path, loc, ".".join(str(p) for p in loc), err["msg"].removeprefix("Value error, "))
        if policy is not None and not gpus_unreadable:
            for where, gpu_id in policy.gpu_ids():
                if gpu_id not in gpus and gpu_id not in out.invalid_ids:
                    section, name = where.split(".")
                    out.add(policy_path, [section, name], where, f"unknown GPU id {gpu_id!r}")

    features: dict[str, Feature] = {}
    feat_path = root / "features.yaml"
    feat_raw = _read(feat_path, out) if feat_path.exists() else None
    for index, feat in _validate_entries(Feature, feat_path, "features", feat_raw, out) if feat_raw else []:
        for g in feat.gpus:
            if g not in gpus and g not in out.invalid_ids and not gpus_unreadable:
                out.add(feat_path, ["features", index, "gpus"], "gpus", f"unknown GPU id {g!r} (feature {feat.id})")
        features[feat.id] = feat

    markets, market_rules = _load_markets(root / "markets.yaml", gpus, out, check_gpus=not gpus_unreadable)

    for index, closed in closed_rows:
        for key in ("alternatives", "small_alternatives"):
            for ident in getattr(closed, key):
                if ident not in models and ident not in out.invalid_ids and not models_unreadable:
                    out.add(model_path, ["closed", index, key], key, f"unknown model id {ident!r} (closed {closed.name})")

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
    return KnowledgeBase(root, gpus, models, providers, tuple(offers), benchmarks, tuple(instances),
                         engines=engines, features=features, markets=markets, market_rules=market_rules,
                         unlisted=tuple(u for _, u in unlisted_rows), claims=claims,
                         claim_constants=constants, article=article, model_families=families, policy=policy,
                         closed_models=tuple(c for _, c in closed_rows),
                         exchange_rates=rates, catalogs=catalogs, unpriced_providers=unpriced,
                         price_mentions=mentions, price_stand_ins=stand_ins)


def _load_markets(path: Path, gpus: dict, out: _Collector, *, check_gpus: bool) -> tuple[dict, list]:
    """Validate ``markets.yaml`` (optional): markets, and rules that name known markets and GPU ids.

    Returns:
        ``(markets, rules)``: market id -> Market, and the rules in file order (empty without the file).
    """
    raw = _read(path, out) if path.exists() else None
    if not raw:
        return {}, []
    markets = {m.id: m for _i, m in _validate_entries(Market, path, "markets", raw, out)}
    rules = []
    for index, rule in _validate_entries(MarketRule, path, "rules", raw, out):
        if rule.market not in markets:
            out.add(path, ["rules", index, "market"], "market", f"unknown market id {rule.market!r}")
        for g in rule.gpus:
            if check_gpus and g not in gpus and g not in out.invalid_ids:
                out.add(path, ["rules", index, "gpus"], "gpus", f"unknown GPU id {g!r}")
        rules.append(rule)
    return markets, rules


def _load_claims(
    path: Path, gpus: dict[str, Gpu], offers: list[PriceOffer], out: _Collector, *, skip_gpus: bool,
    skip_offers: bool,
) -> tuple[Article | None, dict[str, ClaimConstant], dict[str, Claim]]:
    """Validate ``claims.yaml`` (optional) and cross-check it against GPUs and prices.

    Cross-checks: unique claim ids; every GPU a claim names exists; every ratio operand resolves
    to a non-null figure (GPU field, constant or price offer) and both sides of a ratio have the
    same unit. Each problem is reported at the line of the offending field.
    """
    if not path.exists():
        return None, {}, {}
    raw = _read(path, out)
    if raw is None:
        return None, {}, {}
    try:
        header = ClaimFile.model_validate(raw)
    except ValidationError as exc:
        for err in exc.errors():
            loc = list(err["loc"])
            if loc and loc[0] == "claims" and len(loc) > 1:
                continue  # entries are validated one by one below
            out.add(path, loc, ".".join(str(p) for p in loc) or "(file)", err["msg"].removeprefix("Value error, "))
        header = None
    constants = dict(header.constants) if header else {}
    rows = _validate_entries(Claim, path, "claims", raw, out)
    claims: dict[str, Claim] = {}
    for index, claim in rows:
        if claim.id in claims:
            out.add(path, ["claims", index, "id"], "id", f"duplicate claim id {claim.id!r}")
        claims[claim.id] = claim
        for g, ident in enumerate(claim.gpus):
            if ident not in gpus and ident not in out.invalid_ids and not skip_gpus:
                out.add(path, ["claims", index, "gpus", g], "gpus", f"unknown GPU id {ident!r} (claim {claim.id})")
        for r, ratio in enumerate(claim.ratios):
            units = []
            for side in ("numerator", "denominator"):
                op = getattr(ratio, side)
                if (op.gpu is not None and (skip_gpus or op.gpu in out.invalid_ids)) or (
                        op.provider is not None and skip_offers) or (op.constant is not None and header is None):
                    continue
                try:
                    units.append(resolve_operand(op, gpus, constants, offers).unit)
                except ValueError as exc:
                    key = "field" if op.gpu is not None else "constant" if op.constant is not None else "instance_type"
                    out.add(path, ["claims", index, "ratios", r, side, key], f"ratios.{ratio.id}.{side}",
                            f"{exc} (claim {claim.id})")
            if len(units) == 2 and units[0] != units[1]:
                out.add(path, ["claims", index, "ratios", r], f"ratios.{ratio.id}",
                        f"numerator is in {units[0]} but denominator in {units[1]} (claim {claim.id})")
    return (header.article if header else None), constants, claims


# --------------------------------------------------------------------------- prices: rates, shapes, catalogs

#: A CNY row's USD price must equal CNY / rate to this relative tolerance (the rows keep 5-6 decimals).
_FX_TOLERANCE = 5e-4
#: Catalog memory sizes within this fraction of a mapping's ``memory_gb`` match it: gpuhunt's own
#: tolerance for imprecise memory reports (``gpuhunt.correct_gpu_memory_gib``, 7%).
CATALOG_MEMORY_TOLERANCE = 0.07


def _validated_file(path: Path, model, out: _Collector):
    """``model`` validated from the YAML file ``path``; ``None`` (errors as file:line: field: message) when the
    file is missing, unreadable or invalid."""
    if not path.exists():
        return None
    raw = _read(path, out)
    if raw is None:
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        for err in exc.errors():
            loc = list(err["loc"])
            out.add(path, loc, ".".join(str(p) for p in loc), err["msg"].removeprefix("Value error, "))
        return None


def _load_unpriced(path: Path, price_files, out: _Collector) -> dict[str, UnpricedProvider]:
    """Named clouds without price rows; an id that has a price file is reported (it would hide its prices)."""
    file = _validated_file(path, UnpricedProviderFile, out)
    priced = {pf.provider for _, pf in price_files}
    result: dict[str, UnpricedProvider] = {}
    for index, item in enumerate(file.providers if file else []):
        if item.id in priced or item.id in result:
            out.add(path, ["providers", index, "id"], "id", f"provider {item.id!r} is priced or listed twice")
        result[item.id] = item
    return result


def _load_price_mentions(path: Path, gpus: dict[str, Gpu], gpus_unreadable: bool,
                         unpriced: dict[str, UnpricedProvider], out: _Collector
                         ) -> tuple[dict[str, tuple[PriceMention, ...]], dict[str, PriceStandIn]]:
    """Secondary-source price figures and stand-ins per GPU (an optional file); unknown GPU and provider ids and
    a GPU given two figures for one provider are reported."""
    if not path.exists():
        return {}, {}
    file = _validated_file(path, PriceMentionFile, out)
    mentions: dict[str, list[PriceMention]] = {}
    stand_ins: dict[str, PriceStandIn] = {}
    for index, m in enumerate(file.mentions if file else []):
        if m.gpu not in gpus and not gpus_unreadable:
            out.add(path, ["mentions", index, "gpu"], "gpu", f"unknown GPU id {m.gpu!r}")
        if m.provider is not None and m.provider not in unpriced:
            out.add(path, ["mentions", index, "provider"], "provider",
                    f"unknown provider id {m.provider!r} (unpriced_providers.yaml)")
        if m.provider is not None and any(o.provider == m.provider for o in mentions.get(m.gpu, [])):
            out.add(path, ["mentions", index, "provider"], "provider",
                    f"a second figure for {m.gpu!r} at {m.provider!r}: one figure per GPU and provider")
        mentions.setdefault(m.gpu, []).append(m)
    for index, st in enumerate(file.stand_ins if file else []):
        for key in ("gpu", "nearest"):
            if getattr(st, key) not in gpus and not gpus_unreadable:
                out.add(path, ["stand_ins", index, key], key, f"unknown GPU id {getattr(st, key)!r}")
        stand_ins[st.gpu] = st
    return {k: tuple(v) for k, v in mentions.items()}, stand_ins


def _load_exchange_rates(path: Path, out: _Collector) -> dict[str, ExchangeRate]:
    file = _validated_file(path, ExchangeRateFile, out)
    result: dict[str, ExchangeRate] = {}
    for index, rate in enumerate(file.exchange_rates if file else []):
        if rate.id in result:
            out.add(path, ["exchange_rates", index, "id"], "id", f"duplicate exchange rate id {rate.id!r}")
        result[rate.id] = rate
    return result

def _check_price_file(path: Path, pf: PriceFile, rates: dict[str, ExchangeRate], gpus: dict[str, Gpu],
                      gpus_unreadable: bool, out: _Collector) -> None:
    """CNY rows against their exchange rate; instance shapes against the GPUs and the rows."""
    for index, offer in enumerate(pf.offers):
        if offer.fx_rate is None:
            continue
        rate = rates.get(offer.fx_rate)
        if rate is None:
            out.add(path, ["offers", index, "fx_rate"], "fx_rate",
                    f"unknown exchange rate {offer.fx_rate!r} (prices/common/exchange_rates.yaml)")
            continue
        if rate.currency != offer.currency:
            out.add(path, ["offers", index, "fx_rate"], "fx_rate",
                    f"exchange rate {rate.id!r} converts {rate.currency}, the row is in {offer.currency}")
            continue
        if offer.price_per_hour_usd is not None and offer.price_per_hour_cny is not None:
            expected = offer.price_per_hour_cny / rate.per_usd
            if abs(offer.price_per_hour_usd - expected) > _FX_TOLERANCE * expected:
                out.add(path, ["offers", index, "price_per_hour_usd"], "price_per_hour_usd",
                        f"{offer.price_per_hour_usd} USD is not {offer.price_per_hour_cny} CNY / {rate.per_usd} "
                        f"= {expected:.5f} (exchange rate {rate.id})")
    for index, shape in enumerate(pf.shapes):
        if shape.gpu not in gpus:
            if not gpus_unreadable and shape.gpu not in out.invalid_ids:
                out.add(path, ["shapes", index, "gpu"], "gpu", f"unknown GPU id {shape.gpu!r}")
            continue
        if not shape.complete:
            continue
        for o_index, offer in enumerate(pf.offers):
            if offer.gpu == shape.gpu and offer.gpu_count not in shape.gpu_counts:
                out.add(path, ["offers", o_index, "gpu_count"], "gpu_count",
                        f"{offer.instance_type} has {offer.gpu_count} GPUs, but shapes says {pf.provider_name} rents "
                        f"{shape.gpu} only as {shape.gpu_counts}")


def _load_catalog_names(directory: Path, gpus: dict[str, Gpu], gpus_unreadable: bool,
                        out: _Collector) -> dict[str, CatalogNames]:
    result: dict[str, CatalogNames] = {}
    for path in sorted(directory.glob("*.yaml")) if directory.is_dir() else []:
        if path.name in ("exchange_rates.yaml", "unpriced_providers.yaml", "price_mentions.yaml"):
            continue  # the other common files; every remaining one maps a live catalog
        raw = _read(path, out)
        if raw is None:
            continue
        try:
            names = CatalogNames.model_validate(raw)
        except ValidationError as exc:
            for err in exc.errors():
                loc = list(err["loc"])
                out.add(path, loc, ".".join(str(p) for p in loc), err["msg"].removeprefix("Value error, "))
            continue
        if names.catalog != path.stem:
            out.add(path, ["catalog"], "catalog", f"catalog {names.catalog!r} does not match the file name")
        seen: set[tuple[str, float]] = set()
        for index, entry in enumerate(names.gpus):
            key = (entry.name, entry.memory_gb)
            if key in seen:
                out.add(path, ["gpus", index], "name", f"{entry.name} {entry.memory_gb:g} GB is mapped twice")
            seen.add(key)
            for where, gpu_id in [(["gpus", index, "gpu"], entry.gpu)] + [
                    (["gpus", index, "by_instance", i, "gpu"], rule.gpu) for i, rule in enumerate(entry.by_instance)]:
                gpu = gpus.get(gpu_id)
                if gpu is None:
                    if not gpus_unreadable and gpu_id not in out.invalid_ids:
                        out.add(path, where, "gpu", f"unknown GPU id {gpu_id!r}")
                elif abs(gpu.memory_gb - entry.memory_gb) > CATALOG_MEMORY_TOLERANCE * entry.memory_gb:
                    out.add(path, where, "gpu", f"{gpu_id} has {gpu.memory_gb:g} GB, the catalog's {entry.name} has "
                                                f"{entry.memory_gb:g} GB: memory selects the variant")
        catalogs = [p.catalog for p in names.providers]
        for dup in sorted({c for c in catalogs if catalogs.count(c) > 1}):
            out.add(path, ["providers"], "providers", f"catalog provider {dup!r} is listed twice")
        result[names.catalog] = names
    return result


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


def yaml_line(path: Path, keys: Sequence[Any]) -> int:
    """1-based line of the entry at ``keys`` (mapping keys and list indices) in the YAML file ``path``.

    For error messages of other validated YAML files (the parser's lexicon); 0 when unknown.
    """
    return _LineMap(path).line(keys)
