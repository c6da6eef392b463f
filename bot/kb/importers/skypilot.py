"""Import GPU instance prices from a SkyPilot catalog CSV into knowledge price-offer dicts.

SkyPilot (skypilot-org/skypilot-catalog) keeps one ``catalogs/v7/<cloud>/vms.csv`` per cloud.
What this module relies on, as read in the catalog and in SkyPilot's own code:

* Columns differ in order per cloud, so they are read by header name, never by position:
  AWS ``InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,
  Region,AvailabilityZone``; GCP ``InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,
  GpuInfo,Region,AvailabilityZone,Price,SpotPrice``; Lambda ``InstanceType,AcceleratorName,
  AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice`` (no zone column).
* ``GpuInfo`` is a Python-literal dict (``{'Gpus': [{'Name': 'H100', ..., 'MemoryInfo':
  {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}``), read with :func:`ast.literal_eval`.
  ``SizeInMiB`` is *per GPU*; ``TotalGpuMemoryInMiB`` is wrong in some catalogs (Lambda gives
  the per-GPU figure), so it is not used. Clouds report usable MiB (AWS: 22888 MiB for a 24 GB L4).
* ``AcceleratorCount`` is written as a float (``8.0``).
* GCP prices the host VM and the GPUs as **separate rows**
  (sky/catalog/data_fetchers/fetch_gcp.py, ``get_catalog_df``): a VM row has an ``InstanceType``
  (``a3-highgpu-8g``) and empty accelerator columns; a GPU row has an empty ``InstanceType`` and
  ``AcceleratorName``/``AcceleratorCount`` (``H100``, ``8``), with ``Price`` = per-GPU SKU price x
  count. Which accelerator a GPU machine type carries comes from SkyPilot's table
  ``_ACC_INSTANCE_TYPE_DICTS`` in sky/catalog/gcp_catalog.py (copied as
  :data:`GCP_HOST_ACCELERATORS`). A whole-instance price is VM row + GPU row **in the same region
  and zone**, the same join SkyPilot's ``list_accelerators`` makes. GPUs with no fixed host
  (T4, V100, P100, P4, K80 on N1 VMs of your choice) are skipped with a warning.
* Some prices are blank (AWS ``p5e.48xlarge``: Capacity Blocks only).

Region policy: one offer per (instance type, region). Within a region the zones (AWS
``AvailabilityZone``) are collapsed to the cheapest zone's price (on-demand prices are normally
equal across zones; spot prices differ and the cheapest is kept, as SkyPilot's
``get_hourly_cost`` does). ``region_policy="cheapest"`` keeps only the cheapest region per
instance type and pricing model; ``regions=`` restricts the regions read.
"""

from __future__ import annotations

import ast
import csv
import io
import math
import re
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from bot.errors import AdvisorError
from bot.kb.loader import KnowledgeBase, normalize_name
from bot.kb.schema import PriceOffer

__all__ = [
    "GCP_HOST_ACCELERATORS",
    "SKYPILOT_GPU_CANDIDATES",
    "CatalogImportError",
    "ImportResult",
    "import_skypilot_csv",
]

RegionPolicy = Literal["each", "cheapest"]

#: GCP machine type -> (SkyPilot accelerator name, GPU count) for machine types that come with
#: their GPUs. Copied from ``_ACC_INSTANCE_TYPE_DICTS`` in skypilot-org/skypilot
#: sky/catalog/gcp_catalog.py ("If A100 is used, host VM type must be A2; if L4 is used, VM
#: type must be G2"). Extend it when SkyPilot adds machine types.
GCP_HOST_ACCELERATORS: dict[str, tuple[str, int]] = {
    "a2-highgpu-1g": ("A100", 1),
    "a2-highgpu-2g": ("A100", 2),
    "a2-highgpu-4g": ("A100", 4),
    "a2-highgpu-8g": ("A100", 8),
    "a2-megagpu-16g": ("A100", 16),
    "a2-ultragpu-1g": ("A100-80GB", 1),
    "a2-ultragpu-2g": ("A100-80GB", 2),
    "a2-ultragpu-4g": ("A100-80GB", 4),
    "a2-ultragpu-8g": ("A100-80GB", 8),
    "g2-standard-4": ("L4", 1),
    "g2-standard-8": ("L4", 1),
    "g2-standard-12": ("L4", 1),
    "g2-standard-16": ("L4", 1),
    "g2-standard-32": ("L4", 1),
    "g2-standard-24": ("L4", 2),
    "g2-standard-48": ("L4", 4),
    "g2-standard-96": ("L4", 8),
    "a3-highgpu-1g": ("H100", 1),
    "a3-highgpu-2g": ("H100", 2),
    "a3-highgpu-4g": ("H100", 4),
    "a3-highgpu-8g": ("H100", 8),
    "a3-megagpu-8g": ("H100-MEGA", 8),
    "a3-ultragpu-8g": ("H200", 8),
    "a4-highgpu-8g": ("B200", 8),
}

#: SkyPilot accelerator name (normalized with :func:`normalize_name`) -> candidate knowledge GPU
#: ids, the default first. The catalog's ``GpuInfo`` memory and form-factor words in the instance
#: type (``pcie``, ``sxm``, ``nvl``) choose among them. Names not listed here are looked up in the
#: knowledge base's ids, names, aliases and ``default_for`` names.
SKYPILOT_GPU_CANDIDATES: dict[str, tuple[str, ...]] = {
    "h100": ("h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb"),
    "h100mega": ("h100-sxm-80gb",),
    "h200": ("h200-sxm-141gb", "h200-nvl-141gb"),
    "b200": ("b200-180gb",),
    "gh200": ("gh200-96gb", "gh200-144gb"),
    "a100": ("a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-40gb", "a100-pcie-80gb"),
    "a10080gb": ("a100-sxm-80gb", "a100-pcie-80gb"),
    "a10040gb": ("a100-sxm-40gb", "a100-pcie-40gb"),
    "v100": ("v100-sxm-16gb", "v100-sxm-32gb", "v100-pcie-16gb", "v100-pcie-32gb"),
    "v10032gb": ("v100-sxm-32gb", "v100-pcie-32gb"),
    "l4": ("l4-24gb",),
    "l40s": ("l40s-48gb",),
    "l40": ("l40-48gb",),
    "a10g": ("a10g-24gb",),
    "a10": ("a10-24gb",),
    "t4": ("t4-16gb",),
    "t4g": ("t4-16gb",),
    "p100": ("p100-pcie-16gb",),
    "p4": ("p4-8gb",),
    "k80": ("k80-24gb",),
    "a40": ("a40-48gb",),
    "a6000": ("rtx-a6000-48gb",),
    # Lambda's gpu_1x_rtx6000 is the Turing Quadro RTX 6000 (24 GB), not the RTX 6000 Ada
    # (refdata-notes.md section 7).
    "rtx6000": ("quadro-rtx-6000-24gb",),
    "rtx6000ada": ("rtx-6000-ada-48gb",),
    "mi300x": ("mi300x-192gb",),
}

#: A GpuInfo memory size within this fraction of a candidate's ``memory_gb`` (compared as GiB,
#: since clouds report MiB and vendors round GiB to "GB") selects that candidate. 10% admits the
#: usable-memory figures clouds report (22888 MiB for a 24 GB L4 is 7% low) and keeps 80 GB apart
#: from 94 GB.
MEMORY_MATCH_TOLERANCE = 0.10

_FORM_FACTOR_WORDS = ("pcie", "sxm", "nvl")
_REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
_OPTIONAL_COLUMNS = ("SpotPrice", "AvailabilityZone", "GpuInfo")
_PRICE_DECIMALS = 5  # SkyPilot's fetchers round prices to 5 decimals (PRICE_ROUNDING)
_KEBAB = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")


class CatalogImportError(AdvisorError):
    """The CSV cannot be read as a SkyPilot catalog (file missing, no header, required column absent).

    Attributes:
        missing: required column names that the header lacks (empty for other problems).
    """

    def __init__(self, message: str, missing: list[str] | None = None):
        self.missing = list(missing or [])
        super().__init__(message)


@dataclass(frozen=True)
class ImportResult:
    """What :func:`import_skypilot_csv` produced.

    Attributes:
        offers: on-demand offers, dicts in the knowledge price-offer format (``PriceOffer``
            fields: provider, instance_type, gpu, gpu_count, price_per_hour_usd (USD/hour for the
            whole instance), pricing_model ``"on_demand"``, region, as_of, source,
            gpu_variant_verified, [vm_part_usd, gpu_part_usd for GCP], notes), sorted by
            (instance_type, region). Each one validates with ``PriceOffer.model_validate``.
        spot_offers: the same for ``SpotPrice`` (pricing_model ``"spot"``), where non-blank.
        warnings: one line per problem, naming CSV line numbers (the header is line 1).
        rows_read: data rows read from the CSV.
    """

    offers: list[dict[str, Any]]
    spot_offers: list[dict[str, Any]]
    warnings: list[str]
    rows_read: int

    @property
    def all_offers(self) -> list[dict[str, Any]]:
        """``offers + spot_offers``, e.g. to write one provider's ``offers:`` list."""
        return [*self.offers, *self.spot_offers]


@dataclass
class _Row:
    line: int
    instance_type: str
    accelerator: str
    count_text: str
    gpu_info: str
    price: float | None
    spot: float | None
    region: str
    zone: str


@dataclass
class _ZoneOffer:
    """One zone's whole-instance price (for GCP: VM row + GPU row)."""

    instance_type: str
    region: str
    zone: str
    accelerator: str
    count_text: str
    gpu_info: str
    lines: list[int]
    price: float | None
    spot: float | None
    vm_part: float | None = None
    gpu_part: float | None = None
    vm_spot: float | None = None
    gpu_spot: float | None = None
    blank_parts: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _GpuChoice:
    gpu_id: str
    verified: bool
    note: str | None


# --------------------------------------------------------------------------- public API


def import_skypilot_csv(
    path_or_text: str | Path,
    provider: str,
    kb: KnowledgeBase,
    as_of: date | None = None,
    *,
    source: str | None = None,
    region_policy: RegionPolicy = "each",
    regions: Collection[str] | None = None,
) -> ImportResult:
    """Turn a SkyPilot ``vms.csv`` into knowledge price offers (pure: reads, never writes).

    Args:
        path_or_text: a :class:`~pathlib.Path`, a path string, or the CSV text itself (a string
            containing a newline is taken as CSV text).
        provider: knowledge provider id written into every offer (``"aws"``, ``"gcp"``,
            ``"lambda"``); kebab-case, like the ``knowledge/prices/<provider>.yaml`` file name.
        kb: the knowledge base whose GPU ids, names and aliases resolve accelerator names.
        as_of: date of the catalog snapshot; ``None`` marks an undated snapshot (the loader and
            answers flag it).
        source: the ``source`` written into each offer; default: the path as given, or
            ``"SkyPilot catalog CSV (pasted text)"`` for text.
        region_policy: ``"each"`` (default) keeps one offer per (instance type, region);
            ``"cheapest"`` keeps only the cheapest region per (instance type, pricing model),
            ties broken by region name.
        regions: if given, only rows in these regions are read.

    Returns:
        :class:`ImportResult`. Rows without an accelerator (CPU VMs) are ignored silently,
        except GCP host-VM rows, which are summed with their GPU rows. Skipped with a warning:
        blank or non-positive ``Price`` (the warning names the CSV lines), unknown accelerators
        (one warning per name), fractional GPU counts, GCP GPU rows with no fixed host VM or no
        VM row in the same zone, TPUs, and offers that fail ``PriceOffer`` validation (e.g. a
        per-GPU price outside 0.01-200 USD/hour). A blank ``SpotPrice`` just means no spot offer.

    Raises:
        CatalogImportError: the file does not exist, the text has no header, a required
            column (InstanceType, AcceleratorName, AcceleratorCount, Price, Region) is missing,
            or ``provider`` is not kebab-case.
    """
    if not _KEBAB.match(provider or ""):
        raise CatalogImportError(f"provider {provider!r} must be a kebab-case knowledge provider id such as 'aws'")
    if region_policy not in ("each", "cheapest"):
        raise CatalogImportError(f"region_policy must be 'each' or 'cheapest', not {region_policy!r}")
    text, default_source = _read_text(path_or_text)
    warnings: list[str] = []
    rows = _parse_rows(text, warnings)
    rows_read = len(rows)
    if regions is not None:
        wanted = set(regions)
        rows = [r for r in rows if r.region in wanted]
        if not rows:
            warnings.append(f"no rows in region(s) {', '.join(sorted(wanted))}")

    zone_offers = _zone_offers(rows, warnings)
    resolver = _GpuResolver(kb)
    on_demand: list[dict[str, Any]] = []
    spot: list[dict[str, Any]] = []
    unknown: dict[str, list[_ZoneOffer]] = defaultdict(list)

    groups: dict[tuple[str, str], list[_ZoneOffer]] = defaultdict(list)
    for zo in zone_offers:
        groups[(zo.instance_type, zo.region)].append(zo)

    for (instance_type, region), group in sorted(groups.items()):
        first = group[0]
        lines = sorted({line for zo in group for line in zo.lines})
        where = f"{_lines(lines)} ({instance_type}, {region})"
        gpu_count = _gpu_count(first.count_text)
        if gpu_count is None:
            warnings.append(f"{where}: AcceleratorCount {first.count_text!r} is not a whole number of GPUs; skipped")
            continue
        choice = resolver.resolve(first.accelerator, instance_type, _memory_mib(first.gpu_info), warnings)
        if choice is None:
            unknown[first.accelerator].extend(group)
            continue
        common = {
            "provider": provider,
            "instance_type": instance_type,
            "gpu": choice.gpu_id,
            "gpu_count": gpu_count,
            "region": region,
            "as_of": as_of,
            "source": source or default_source,
            "gpu_variant_verified": choice.verified,
        }
        variant_notes = [choice.note] if choice.note else []

        priced = [zo for zo in group if zo.price is not None]
        if not priced:
            blank = sorted({part for zo in group for part in zo.blank_parts}) or ["Price"]
            warnings.append(f"{where}: {' and '.join(blank)} blank; no on-demand offer")
        else:
            best = min(priced, key=lambda zo: (zo.price, zo.zone))
            notes = [*variant_notes, *_zone_spread_note(priced, "price", "on-demand")]
            offer = _offer(common, "on_demand", best.price, best.vm_part, best.gpu_part, notes)
            _keep(offer, where, on_demand, warnings)

        spotted = [zo for zo in group if zo.spot is not None]
        if spotted:
            best = min(spotted, key=lambda zo: (zo.spot, zo.zone))
            notes = [*variant_notes]
            if len(spotted) > 1:
                notes.append(f"Spot price of the cheapest of {len(spotted)} zones in this catalog snapshot "
                             f"({best.zone or region}); spot prices move often.")
            offer = _offer(common, "spot", best.spot, best.vm_spot, best.gpu_spot, notes)
            _keep(offer, where, spot, warnings)

    for name, group in sorted(unknown.items()):
        instances = sorted({zo.instance_type for zo in group})
        lines = sorted({line for zo in group for line in zo.lines})
        warnings.append(
            f"unknown accelerator {name!r} ({_lines(lines)}; instance type(s) {', '.join(instances[:5])}"
            f"{', ...' if len(instances) > 5 else ''}): no knowledge GPU matches; skipped"
        )

    if region_policy == "cheapest":
        on_demand = _cheapest_region(on_demand)
        spot = _cheapest_region(spot)
    return ImportResult(on_demand, spot, warnings, rows_read)


# --------------------------------------------------------------------------- reading


def _read_text(path_or_text: str | Path) -> tuple[str, str]:
    if isinstance(path_or_text, str) and ("\n" in path_or_text or "\r" in path_or_text):
        return path_or_text, "SkyPilot catalog CSV (pasted text)"
    path = Path(path_or_text)
    try:
        return path.read_text(encoding="utf-8-sig"), str(path_or_text)
    except OSError as exc:
        raise CatalogImportError(f"cannot read SkyPilot catalog {str(path)!r}: {exc.strerror or exc}") from exc


def _parse_rows(text: str, warnings: list[str]) -> list[_Row]:
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    header = next(reader, None)
    if not header or not any(cell.strip() for cell in header):
        raise CatalogImportError("the SkyPilot catalog CSV is empty (no header line)")
    index = {cell.strip().lower(): i for i, cell in enumerate(header)}
    missing = [col for col in _REQUIRED_COLUMNS if col.lower() not in index]
    if missing:
        raise CatalogImportError(
            f"not a SkyPilot catalog: the header lacks {', '.join(missing)} "
            f"(header: {', '.join(c.strip() for c in header)})",
            missing,
        )
    cols = {col: index.get(col.lower()) for col in (*_REQUIRED_COLUMNS, *_OPTIONAL_COLUMNS)}

    def cell(values: list[str], col: str) -> str:
        i = cols[col]
        return values[i].strip() if i is not None and i < len(values) else ""

    rows: list[_Row] = []
    for values in reader:
        line = reader.line_num
        if not any(v.strip() for v in values):
            continue
        instance_type = cell(values, "InstanceType")
        rows.append(_Row(
            line=line,
            instance_type=instance_type,
            accelerator=cell(values, "AcceleratorName"),
            count_text=cell(values, "AcceleratorCount"),
            gpu_info=cell(values, "GpuInfo"),
            price=_price(cell(values, "Price"), "Price", line, instance_type, warnings),
            spot=_price(cell(values, "SpotPrice"), "SpotPrice", line, instance_type, warnings),
            region=cell(values, "Region"),
            zone=cell(values, "AvailabilityZone"),
        ))
    return rows


def _price(text: str, column: str, line: int, instance_type: str, warnings: list[str]) -> float | None:
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        warnings.append(f"line {line} ({instance_type or 'GPU row'}): {column} {text!r} is not a number; treated as blank")
        return None
    if math.isnan(value):
        return None
    if value <= 0:
        warnings.append(f"line {line} ({instance_type or 'GPU row'}): {column} {text} is not positive; treated as blank")
        return None
    return value


def _gpu_count(text: str) -> int | None:
    try:
        value = float(text)
    except ValueError:
        return None
    if value < 1 or value != int(value):
        return None
    return int(value)


def _memory_mib(gpu_info: str) -> int | None:
    """Per-GPU memory from a GpuInfo literal (``Gpus[0].MemoryInfo.SizeInMiB``), or None."""
    if not gpu_info or not gpu_info.startswith("{"):
        return None
    try:
        info = ast.literal_eval(gpu_info)
        size = info["Gpus"][0]["MemoryInfo"]["SizeInMiB"]
    except (ValueError, SyntaxError, TypeError, KeyError, IndexError, MemoryError, RecursionError):
        return None
    return int(size) if isinstance(size, int | float) and size > 0 else None


def _lines(lines: Iterable[int]) -> str:
    lines = list(lines)
    shown = ", ".join(str(n) for n in lines[:6]) + (", ..." if len(lines) > 6 else "")
    return f"line{'s' if len(lines) > 1 else ''} {shown}"


# --------------------------------------------------------------------------- zone offers


def _zone_offers(rows: list[_Row], warnings: list[str]) -> list[_ZoneOffer]:
    """Per-zone whole-instance prices: direct GPU-instance rows, plus GCP VM + GPU row pairs."""
    out: list[_ZoneOffer] = []
    gpu_rows: dict[tuple[str, int, str, str], _Row] = {}
    gpu_only: list[_Row] = []
    vm_rows: list[_Row] = []
    for row in rows:
        if row.instance_type and row.accelerator:
            out.append(_ZoneOffer(row.instance_type, row.region, row.zone, row.accelerator, row.count_text,
                                  row.gpu_info, [row.line], row.price, row.spot,
                                  blank_parts=[] if row.price is not None else ["Price"]))
        elif row.accelerator:
            gpu_only.append(row)
            count = _gpu_count(row.count_text)
            if count is not None:
                gpu_rows.setdefault((normalize_name(row.accelerator), count, row.region, row.zone), row)
        elif row.instance_type in GCP_HOST_ACCELERATORS:
            vm_rows.append(row)

    used: set[int] = set()
    unmatched_vm: dict[tuple[str, str], list[int]] = defaultdict(list)
    for vm in vm_rows:
        acc, count = GCP_HOST_ACCELERATORS[vm.instance_type]
        gpu = gpu_rows.get((normalize_name(acc), count, vm.region, vm.zone))
        if gpu is None:
            if gpu_rows:  # a catalog with GPU rows: this host VM's GPUs are not offered in this zone
                unmatched_vm[(vm.instance_type, vm.region)].append(vm.line)
            continue
        used.add(gpu.line)
        blank = [part for part, value in (("host VM Price", vm.price), ("GPU Price", gpu.price)) if value is None]
        total = round(vm.price + gpu.price, _PRICE_DECIMALS) if not blank else None
        spot = (round(vm.spot + gpu.spot, _PRICE_DECIMALS)
                if vm.spot is not None and gpu.spot is not None else None)
        out.append(_ZoneOffer(vm.instance_type, vm.region, vm.zone, gpu.accelerator, gpu.count_text,
                              gpu.gpu_info, [vm.line, gpu.line], total, spot,
                              vm_part=vm.price, gpu_part=gpu.price, vm_spot=vm.spot, gpu_spot=gpu.spot,
                              blank_parts=blank))

    matched_pairs = {(zo.instance_type, zo.region) for zo in out}
    for (instance_type, region), lines in sorted(unmatched_vm.items()):
        if (instance_type, region) in matched_pairs:
            continue  # matched in another zone of the region
        acc, count = GCP_HOST_ACCELERATORS[instance_type]
        warnings.append(f"{_lines(lines)} ({instance_type}, {region}): no {acc} x{count} GPU row in the same zone; "
                        "cannot price the whole instance, skipped")

    host_keys = {(normalize_name(a), c) for a, c in GCP_HOST_ACCELERATORS.values()}
    tpu_lines: list[int] = []
    no_host: dict[str, list[int]] = defaultdict(list)
    no_vm: dict[str, list[int]] = defaultdict(list)
    for row in gpu_only:
        if row.line in used:
            continue
        if row.accelerator.lower().startswith("tpu-"):
            tpu_lines.append(row.line)
        elif (normalize_name(row.accelerator), _gpu_count(row.count_text)) in host_keys:
            no_vm[f"{row.accelerator} x{row.count_text}"].append(row.line)
        else:
            no_host[row.accelerator].append(row.line)
    for name, lines in sorted(no_host.items()):
        warnings.append(f"{_lines(lines)}: GPU-only rows for {name} have no fixed host VM in the catalog "
                        "(GCP attaches them to an N1 VM of the user's choice); skipped")
    for name, lines in sorted(no_vm.items()):
        warnings.append(f"{_lines(lines)}: {name} GPU rows have no matching host VM row in the same zone; skipped")
    if tpu_lines:
        warnings.append(f"{_lines(tpu_lines)}: {len(tpu_lines)} TPU row(s) skipped (not GPUs)")
    return out


def _zone_spread_note(priced: list[_ZoneOffer], attr: str, label: str) -> list[str]:
    values = sorted({getattr(zo, attr) for zo in priced})
    if len(values) <= 1:
        return []
    return [f"The {label} price differs by zone in this region ({values[0]}-{values[-1]} USD/h); "
            "the cheapest zone's is kept."]


# --------------------------------------------------------------------------- offers


def _offer(common: dict[str, Any], pricing_model: str, price: float, vm_part: float | None,
           gpu_part: float | None, notes: list[str]) -> dict[str, Any]:
    offer = dict(common)
    offer["price_per_hour_usd"] = round(price, _PRICE_DECIMALS)
    offer["pricing_model"] = pricing_model
    if vm_part is not None and gpu_part is not None:
        offer["vm_part_usd"] = vm_part
        offer["gpu_part_usd"] = gpu_part
        notes = [*notes, f"GCP bills the host VM and the GPUs separately: VM {vm_part} + GPUs {gpu_part} "
                         f"= {offer['price_per_hour_usd']} USD/h."]
    offer["notes"] = notes
    order = ("provider", "instance_type", "gpu", "gpu_count", "price_per_hour_usd", "pricing_model", "region",
             "as_of", "source", "gpu_variant_verified", "vm_part_usd", "gpu_part_usd", "notes")
    return {key: offer[key] for key in order if key in offer}


def _keep(offer: dict[str, Any], where: str, out: list[dict[str, Any]], warnings: list[str]) -> None:
    try:
        PriceOffer.model_validate(offer)
    except ValidationError as exc:
        problems = "; ".join(err["msg"].removeprefix("Value error, ") for err in exc.errors())
        warnings.append(f"{where}: {offer['pricing_model']} offer rejected by the knowledge schema: {problems}")
        return
    out.append(offer)


def _cheapest_region(offers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_instance: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for offer in offers:
        by_instance[offer["instance_type"]].append(offer)
    kept = []
    for instance_type in sorted(by_instance):
        group = by_instance[instance_type]
        best = dict(min(group, key=lambda o: (o["price_per_hour_usd"], o["region"])))
        if len(group) > 1:
            best["notes"] = [*best["notes"], f"Cheapest of {len(group)} regions in the catalog "
                                             "(region policy 'cheapest')."]
        kept.append(best)
    return kept


# --------------------------------------------------------------------------- GPU names


class _GpuResolver:
    """Maps a SkyPilot accelerator name (+ GpuInfo memory, instance-type words) to a GPU id."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self.by_name: dict[str, str] = {}
        for gpu in kb.gpus.values():
            for name in (gpu.id, gpu.name, *gpu.aliases, *gpu.default_for):
                self.by_name.setdefault(normalize_name(name), gpu.id)
        self._warned: set[tuple[str, int | None]] = set()

    def candidates(self, accelerator: str) -> list[str]:
        key = normalize_name(accelerator)
        listed = [g for g in SKYPILOT_GPU_CANDIDATES.get(key, ()) if g in self.kb.gpus]
        if listed:
            return listed
        found = self.by_name.get(key)
        return [found] if found else []

    def resolve(self, accelerator: str, instance_type: str, memory_mib: int | None,
                warnings: list[str]) -> _GpuChoice | None:
        candidates = self.candidates(accelerator)
        if not candidates:
            return None
        plausible = list(candidates)
        stated_form = None
        words = normalize_name(instance_type)
        for word in _FORM_FACTOR_WORDS:
            if word in words:
                narrowed = [g for g in plausible if f"-{word}-" in g]
                if narrowed:
                    plausible, stated_form = narrowed, word
                    break
        memory_gib = memory_mib / 1024 if memory_mib else None
        if memory_gib is not None:
            def gap(gpu_id: str) -> float:
                size = self.kb.gpus[gpu_id].memory_gb
                return abs(size - memory_gib) / size

            close = [g for g in plausible if gap(g) <= MEMORY_MATCH_TOLERANCE]
            if close:
                best_gap = min(gap(g) for g in close)
                plausible = [g for g in close if gap(g) == best_gap]
            elif (accelerator, memory_mib) not in self._warned:
                self._warned.add((accelerator, memory_mib))
                warnings.append(
                    f"accelerator {accelerator!r}: GpuInfo gives {memory_mib} MiB per GPU, which matches none of "
                    f"{', '.join(plausible)}; using {plausible[0]}"
                )
        chosen = plausible[0]
        verified = len(plausible) == 1
        note = None
        if not verified:
            others = ", ".join(g for g in plausible[1:])
            memory_text = f", {memory_mib} MiB per GPU" if memory_mib else ""
            note = (f"Catalog GPU name {accelerator!r}{memory_text}: form factor not stated, {chosen} assumed "
                    f"(also possible: {others}).")
        elif stated_form is None and len(candidates) > 1 and memory_mib:
            note = f"Catalog GPU name {accelerator!r}; GpuInfo memory {memory_mib} MiB per GPU selects {chosen}."
        return _GpuChoice(chosen, verified, note)
