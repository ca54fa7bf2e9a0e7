"""Layouts of a replica in a plan, and why one beats another (notebook 05).

For a mixture-of-experts model every GPU count ``n > 1`` is tried three ways
(:mod:`wattgpu_lite.specs.layout`): ``TPn`` (every layer split), ``TPn·EPn`` (whole experts on the
tensor-parallel GPUs) and ``DPn·EPn`` (experts over n GPUs, data-parallel attention). A dense model
has one layout per count. The columns that say why one wins:

- ``comm_share``: share of a decode step spent in collectives (all-reduces, all-to-alls) at the
  plan's load; ``layout_share``: in the layout's whole term (with the expert groups and the
  replicated weights; :mod:`wattgpu_lite.energy.symbolic_parallel`);
  both from :func:`~wattgpu_lite.hybrid.predict.chain.step_shares`;
- ``weights_per_gpu_gb``: the weights each GPU holds (replicas of attention count);
- ``max_batch``: the sequences the KV cache holds (an MLA cache is copied on every TP GPU);
- ``layout_why``: for the best layout of each (GPU, count), its energy and the share beside the
  runner-up's.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np
import pandas as pd

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.predict.chain import check_num_gpus
from wattgpu_lite.selection.inputs import check_gpu_counts
from wattgpu_lite.specs.layout import Parallel, as_layout, layout_of


def layouts_for(model, count: int) -> list[Parallel]:
    """The layouts of ``count`` GPUs tried for ``model``: TP, and for a MoE TP·EP and DP·EP."""
    if not model.is_moe or count == 1:
        return [Parallel(tp=count)]
    return [Parallel(tp=count), Parallel(tp=count, ep=count), Parallel(ep=count)]


def layout_why(table) -> np.ndarray:
    """For the best layout of each (GPU, count) with rivals: why it wins, else '' (one text per
    row of ``table``, a frame or a dict of columns). Within each (GPU, count), plans meeting the
    SLA first, then by energy (ties: table order)."""
    energy = np.asarray(table["energy_per_token_j"], dtype=float)
    meets = np.asarray(table["meets_sla"])
    groups: dict[tuple, list[int]] = {}
    keys = zip(
        np.asarray(table["gpu"]).tolist(), np.asarray(table["num_gpus"]).tolist(), strict=True
    )
    for i, key in enumerate(keys):
        if np.isfinite(energy[i]):
            groups.setdefault(key, []).append(i)
    cols = {
        c: np.asarray(table[c])
        for c in ("layout", "comm_share", "layout_share", "weights_per_gpu_gb", "max_batch")
    }
    why = np.full(len(energy), "", dtype=object)
    for rows in groups.values():
        if len(rows) < 2:
            continue
        b, s = sorted(rows, key=lambda i: (not meets[i], energy[i]))[:2]  # stable: table order
        why[b] = (
            f"{cols['layout'][b]} beats {cols['layout'][s]}: "
            f"{energy[b]:.3g} vs {energy[s]:.3g} J/token; "
            f"collectives {cols['comm_share'][b]:.0%} vs {cols['comm_share'][s]:.0%} and layout "
            f"term {cols['layout_share'][b]:.0%} vs {cols['layout_share'][s]:.0%} of a step; "
            f"{cols['weights_per_gpu_gb'][b]:.0f} vs {cols['weights_per_gpu_gb'][s]:.0f} GB "
            f"weights per GPU; KV holds {cols['max_batch'][b]:.0f} vs {cols['max_batch'][s]:.0f} "
            "sequences"
        )
    return why


def deployments(model, devices, gpu_counts, layouts=None) -> tuple[list, pd.DataFrame]:
    """(valid (GPU, layout) pairs, a table of the refused ones with why): every layout of
    :func:`~wattgpu_lite.selection.layouts.layouts_for` each count (or the ``layouts`` given)
    must split heads and experts evenly, and several GPUs need the interconnect bandwidth.
    The answer depends on the specs alone (frozen, hashable records), so it is kept per (model,
    GPUs, layouts) (:func:`_deployments`; the refused table is shared: read it, do not change
    it)."""
    valid, refused = _deployments(
        model, tuple(devices), tuple(_tried_layouts(model, gpu_counts, layouts))
    )
    return list(valid), refused


@lru_cache(maxsize=64)
def _deployments(model, devices: tuple, tried: tuple) -> tuple[tuple, pd.DataFrame]:
    """:func:`deployments` of the layouts ``tried``: each pair checked by the one layout check
    (:func:`~wattgpu_lite.hybrid.predict.chain.check_num_gpus`)."""
    valid, refused = [], []
    for g in devices:
        for lay in tried:
            try:
                valid.append((g, check_num_gpus(lay, model, g)))
            except InvalidInputError as err:
                refused.append((g.name, lay.num_gpus, lay.label, lay.tp, lay.ep, str(err)))
    columns = ["gpu", "num_gpus", "layout", "tp", "ep", "why_not"]
    if not refused:
        return tuple(valid), pd.DataFrame([], columns=columns)
    return tuple(valid), pd.DataFrame({c: [r[i] for r in refused] for i, c in enumerate(columns)})


def _tried_layouts(model, gpu_counts, layouts) -> list[Parallel]:
    """The layouts a ranking tries: those given, else every layout of every count."""
    if layouts is not None:
        if isinstance(layouts, str) or not isinstance(layouts, Iterable):  # a lone Parallel
            raise InvalidInputError(
                f"layouts must be a list of wl.Parallel, got {layouts!r:.80} "
                f"({type(layouts).__name__}); pass e.g. layouts=[wl.Parallel(tp=8)]"
            )
        tried = [layout_of(parallel=p) for p in layouts]
        if not tried:
            raise InvalidInputError("layouts is empty: give e.g. [wl.Parallel(tp=8)]")
        return tried
    counts = check_gpu_counts(gpu_counts)
    return [lay for n in counts for lay in layouts_for(model, as_layout(n).num_gpus)]
