"""The links a replica's collectives cross: the node's own link, and the network between nodes.

Inside one link domain (``gpu.link_domain_gpus``: an HGX baseboard's 8, an NVL72 rack's 72, a
bridge's 2 or 4) the GPUs talk over NVLink, Infinity Fabric or PCIe
(:func:`link_bytes_per_s`, :func:`link_kind`). A replica of more GPUs spans several such nodes
joined by the scale-out network: one NIC per GPU, its rate per direction and source in
``data/scaleout_links.csv`` (:func:`scaleout_bytes_per_s`), its per-hop latency NCCL's
(``link_hop_latency_us`` / ``physical:net``). :func:`node_split` gives the nodes a tensor and an
expert group span (the ``N_TP``, ``N_EP`` of :mod:`wattgpu_lite.energy.symbolic_parallel`), or
refuses with the reason where no scale-out link is documented (:func:`check_link_domain`) —
never NVLink across nodes. Pipeline parallelism is not modelled.
"""

from __future__ import annotations

import math
from functools import cache

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.energy import coefficients
from wattgpu_lite.errors import DataFileError, InvalidInputError

UNKNOWN_DOMAIN_GPUS = 8  # a spec without link_domain_gpus: one 8-GPU server, the common largest
SCALEOUT_FILE = "scaleout_links.csv"
#: the deployment fields of a replica inside one node: no network crossed (its terms are 0)
ONE_NODE = {"tp_nodes": 1.0, "ep_nodes": 1.0, "net_bytes_s": 1.0, "net_hop_latency_s": 0.0}


def link_kind(gpu) -> str:
    """ "pcie" for a card whose GPU-to-GPU path is PCIe, else "nvlink" (or Infinity Fabric)."""
    return "pcie" if str(gpu.interconnect).upper().startswith("PCIE") else "nvlink"


def link_bytes_per_s(gpu) -> float:
    """Per-direction GPU-to-GPU bandwidth (B/s): a bidirectional figure is halved."""
    gbs = gpu.interconnect_gbs
    if gbs is None or not math.isfinite(gbs):
        no = f"GPU {gpu.name!r} has no interconnect bandwidth (interconnect_gbs) in its spec, so"
        fix = "num_gpus=1 or build the GPU with wl.GPU.from_spec({..., 'interconnect_gbs': ...})"
        raise InvalidInputError(
            f"{no} a multi-GPU estimate cannot time its all-reduces; use {fix}."
        )
    return gbs * 1e9 / (2.0 if gpu.interconnect_direction == "bidirectional" else 1.0)


@cache
def _scaleout_gbps() -> dict[str, float]:
    """{catalog GPU name: scale-out Gb/s per GPU per direction} of data/scaleout_links.csv."""
    table = read_csv(data_dir() / SCALEOUT_FILE)
    missing = {"gpu", "gbps_per_gpu", "source"} - set(table.columns)
    if missing:
        raise DataFileError(
            f"{SCALEOUT_FILE} lacks columns {sorted(missing)}; restore it from git."
        )
    return dict(zip(table["gpu"], table["gbps_per_gpu"].astype(float), strict=True))


def scaleout_bytes_per_s(gpu) -> float | None:
    """B/s per direction of one GPU's own NIC between nodes (Gb/s · 1e9 / 8), None where
    data/scaleout_links.csv documents none for ``gpu.name`` (a user's spec, a PCIe card)."""
    gbps = _scaleout_gbps().get(gpu.name)
    return None if gbps is None else gbps * 1e9 / 8.0


def _per_node(gpu) -> float:
    """GPUs one node's link joins: the spec's link_domain_gpus, else :data:`UNKNOWN_DOMAIN_GPUS`."""
    domain = gpu.link_domain_gpus
    return domain if domain is not None and math.isfinite(domain) else UNKNOWN_DOMAIN_GPUS


def check_link_domain(gpu, num_gpus: int) -> None:
    """Refuse a replica of more GPUs than one link domain joins where no scale-out link is
    documented (a bridge's 2 or 4 joined by PCIe, which is not modelled; a node without a row in
    data/scaleout_links.csv; a spec that does not give link_domain_gpus): t_AR = t_0 +
    hops·t_hop + bytes / B_link holds on that link only, never across nodes."""
    domain = gpu.link_domain_gpus
    known = domain is not None and math.isfinite(domain)
    if num_gpus <= _per_node(gpu) or (known and scaleout_bytes_per_s(gpu) is not None):
        return
    if known and domain >= UNKNOWN_DOMAIN_GPUS:  # a whole node: the network is what is missing
        raise InvalidInputError(
            f"{num_gpus} GPUs of {gpu.name!r} in one replica span more than one node: its "
            f"{gpu.interconnect} joins {domain:g} GPUs (data/gpus.csv, source_interconnect) and "
            f"no scale-out link between nodes is documented for it (data/{SCALEOUT_FILE} has no "
            f"row {gpu.name!r}: the network Gb/s per GPU and its source), so the all-reduces "
            "across nodes cannot be timed (never on the node's link; pipeline parallelism is "
            f"not modelled); use at most {domain:g} GPUs per replica and serve more replicas."
        )
    if known:
        cited = " (data/gpus.csv, source_interconnect)" if gpu.source_interconnect else ""
        said = f"its {gpu.interconnect} joins {domain:g} GPUs{cited}"
        fix = f"use at most {domain:g} GPUs per replica and serve more replicas"
    else:
        said = (
            f"its spec does not say how many GPUs its link joins (link_domain_gpus), so "
            f"the kit assumes one {UNKNOWN_DOMAIN_GPUS}-GPU server"
        )
        fix = (
            f"use at most {UNKNOWN_DOMAIN_GPUS} GPUs per replica, or give link_domain_gpus "
            "in the GPU's spec if its link joins more"
        )
    raise InvalidInputError(
        f"{num_gpus} GPUs of {gpu.name!r} in one replica span more than one link domain: "
        f"{said}. The kit times tensor-parallel all-reduces on that link only and has no model "
        f"of the slower link beyond it (between nodes, or PCIe between bridged cards); {fix}."
    )


def _nodes(group: int, per_node: float, gpu_name: str, what: str) -> float:
    """Nodes a group of ``group`` GPUs spans when each node holds ``per_node``: whole nodes, or a
    share of one that divides it (InvalidInputError otherwise: a group would straddle nodes)."""
    if group <= per_node and per_node % group == 0:
        return 1.0
    if group > per_node and group % per_node == 0:
        return group / per_node
    raise InvalidInputError(
        f"a {what} group of {group} GPUs of {gpu_name!r} does not fill whole {per_node:g}-GPU "
        f"nodes, nor divide one, so it would straddle nodes unevenly; use a {what} size that "
        f"divides {per_node:g} or is a multiple of it."
    )


def node_split(gpu, layout) -> dict[str, float]:
    """The deployment fields of ``layout`` (a :class:`~wattgpu_lite.specs.layout.Parallel`) on
    ``gpu``: :data:`ONE_NODE` inside one link domain; across nodes, the nodes the tensor and the
    expert group span, the GPU's scale-out B/s per direction and NCCL's network latency per hop
    (s). InvalidInputError where no scale-out link is documented (:func:`check_link_domain`)."""
    per_node = _per_node(gpu)
    if layout.num_gpus <= per_node:
        return dict(ONE_NODE)
    check_link_domain(gpu, layout.num_gpus)  # no documented network: refused with the reason
    hop_s = coefficients.value("link_hop_latency_us", "physical:net") * 1e-6
    return {
        "tp_nodes": _nodes(layout.tp, per_node, gpu.name, "tensor-parallel"),
        "ep_nodes": _nodes(layout.ep, per_node, gpu.name, "expert-parallel"),
        "net_bytes_s": scaleout_bytes_per_s(gpu),
        "net_hop_latency_s": hop_s,
    }
