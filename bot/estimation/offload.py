"""The decode speed bound of a model partly offloaded to system RAM.

Generating one token reads every weight once (batch 1, decode is memory bound): the part on the GPU from its memory,
the part offloaded from system RAM, one after the other (the layers run in order). So the time per token is at least

    t = bytes on the GPU / GPU memory bandwidth + bytes offloaded / host bandwidth

where the host bandwidth is the GPU's PCIe link when the engine copies the offloaded layers to the GPU for each
forward pass (vLLM ``--cpu-offload-gb``, Hugging Face accelerate), or the system RAM's bandwidth when the CPU computes
them (llama.cpp and Ollama layers beyond ``-ngl``); ``knowledge/efficiency.yaml`` ``host_links`` holds both, with the
PCI-SIG and JEDEC figures. The speed is at most ``1 / t`` tokens/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.estimation.efficiency import EfficiencyTable, HostLink
from bot.estimation.results import EstimationError
from bot.kb.schema import Gpu

__all__ = ["OffloadPath", "offload_decode_bound_tps", "offload_paths"]

#: The PCIe generation assumed for a GPU whose ``pcie_gen`` the knowledge base lacks: Gen4, the link of the A100,
#: L40S and the RTX 30/40 series.
DEFAULT_PCIE_GEN = 4


@dataclass(frozen=True)
class OffloadPath:
    """One way the offloaded weights are read each token, and the speed bound it gives.

    Attributes:
        runs_on: ``cpu`` (computed by the CPU from system RAM) or ``gpu`` (copied to the GPU over PCIe).
        link: the host link (its label, GB/s and source).
        offload_s: seconds per token reading the offloaded bytes over ``link`` at its full bandwidth.
        bound_tps: the most tokens/s with the GPU's part added (``1 / (gpu_s + offload_s)``).
        typical_tps: the same at the share of the link's bandwidth a decode typically reaches
            (``HostLink.achieved_fraction``; the bound itself for the measured PCIe figures).
    """

    runs_on: Literal["cpu", "gpu"]
    link: HostLink
    offload_s: float
    bound_tps: float
    typical_tps: float


def offload_decode_bound_tps(gpu_gb: float, offloaded_gb: float, gpu_bandwidth_gb_s: float,
                             host_bandwidth_gb_s: float) -> float:
    """The most tokens/s one stream decodes with ``offloaded_gb`` of weights in system RAM.

    Args:
        gpu_gb: weights (and anything else read each token) held on the GPUs, GB (>= 0).
        offloaded_gb: weights read from system RAM each token, GB (>= 0).
        gpu_bandwidth_gb_s: the GPUs' memory bandwidth, GB/s (> 0).
        host_bandwidth_gb_s: the bandwidth the offloaded bytes are read at, GB/s (> 0): the PCIe link, or the
            system RAM when the CPU computes those layers.

    Returns:
        ``1 / (gpu_gb / gpu_bandwidth_gb_s + offloaded_gb / host_bandwidth_gb_s)``, tokens/s (see the module
        docstring).

    Raises:
        EstimationError: a negative size, no bytes at all, or a bandwidth that is not positive.
    """
    if gpu_gb < 0 or offloaded_gb < 0 or gpu_gb + offloaded_gb <= 0:
        raise EstimationError(f"bytes on the GPU {gpu_gb} GB and offloaded {offloaded_gb} GB must be >= 0, not both 0")
    if gpu_bandwidth_gb_s <= 0 or host_bandwidth_gb_s <= 0:
        raise EstimationError(f"bandwidths {gpu_bandwidth_gb_s} and {host_bandwidth_gb_s} GB/s must be positive")
    return 1.0 / (gpu_gb / gpu_bandwidth_gb_s + offloaded_gb / host_bandwidth_gb_s)


def offload_paths(eff: EfficiencyTable, gpu: Gpu, gpu_gb: float, offloaded_gb: float, *, gpu_count: int = 1,
                  runs_on: Literal["cpu", "gpu"] | None = None,
                  host_memory: Literal["ddr4", "ddr5"] | None = None) -> list[OffloadPath]:
    """The speed bound of each way the offloaded weights may be read, slowest first.

    Args:
        eff: the efficiency table (its ``host_links``).
        gpu: the GPU holding the rest (its ``memory_bandwidth_gb_s`` and ``pcie_gen``).
        gpu_gb: GB held on the GPUs. offloaded_gb: GB in system RAM.
        gpu_count: GPUs sharing ``gpu_gb`` (their bandwidths add up: the most optimistic reading, a bound).
        runs_on: where the engine runs offloaded layers (``knowledge/engines.yaml`` ``offload_runs_on``); ``None``
            gives both ways.
        host_memory: the system memory the user named; ``None`` gives every dual-channel figure.

    Returns:
        :class:`OffloadPath` rows: ``cpu`` ones for each matching ``ram`` link, a ``gpu`` one for the PCIe link of
        the GPU's generation (:data:`DEFAULT_PCIE_GEN` when unknown; the nearest generation the table has). Empty
        when the table has no host links.
    """
    gpu_bw = gpu.memory_bandwidth_gb_s * max(1, gpu_count)
    gpu_s = gpu_gb / gpu_bw
    links: list[tuple[Literal["cpu", "gpu"], HostLink]] = []
    if runs_on in (None, "cpu"):
        links += [("cpu", x) for x in eff.host_links.values()
                  if x.kind == "ram" and host_memory in (None, x.memory_type)]
    pcie = [x for x in eff.host_links.values() if x.kind == "pcie" and x.pcie_gen]
    if runs_on in (None, "gpu") and pcie:
        gen = gpu.pcie_gen or DEFAULT_PCIE_GEN
        links.append(("gpu", min(pcie, key=lambda x: (abs((x.pcie_gen or 0) - gen), -(x.pcie_gen or 0)))))
    out = []
    for where, link in links:
        offload_s = offloaded_gb / link.bandwidth_gb_s
        typical_s = offload_s / link.achieved_fraction
        out.append(OffloadPath(where, link, offload_s, 1.0 / (gpu_s + offload_s) if gpu_s + offload_s > 0 else 0.0,
                               1.0 / (gpu_s + typical_s) if gpu_s + typical_s > 0 else 0.0))
    return sorted(out, key=lambda p: p.bound_tps)
