"""``wl.compare``: GPU against GPU for one LLM and load — energy and ITL ratios, how sure.

    wl.compare("meta-llama/Llama-3.1-8B-Instruct", gpus=["A30", "A100 SXM4 40GB"], rate_qps=2)

Each GPU's plan comes from the ranking's plan path (:func:`~wattgpu_lite.selection.rank.
rank_gpus`, source 'hybrid', no SLA: the replicas the load needs); the reference is the plan with
the least energy per token (or ``reference=``). Ratios are plan / reference, with the paired
interval of :mod:`~wattgpu_lite.selection.paired` where both plans are calibrated, else the
unpaired one from the two absolute intervals, and the row says which. The verdict reads the
energy interval: "better" (all of it below 1), "worse" (all above), "within the noise" (it
contains 1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.jsonio import dumps, json_safe
from wattgpu_lite.selection.paired import verdict
from wattgpu_lite.selection.rank import rank_gpus
from wattgpu_lite.selection.ratios import regime_of, vs_reference, why_not_calibrated
from wattgpu_lite.specs.layout import layout_of
from wattgpu_lite.specs.resolve import resolve_gpu
from wattgpu_lite.specs.workload import request_tokens

SCHEMA_VERSION = 1
NO_SLA_MS = 1e6  # the ranking's largest SLA: every plan is sized for the load alone
JSON_DIGITS = 6  # significant figures in to_json, as every --json of the CLI
ROW_FIELDS = (
    "gpu",
    "plan",
    "num_gpus",
    "replicas",
    "energy_per_token_j",
    "itl_s",
    "energy_ratio",
    "energy_ratio_lo",
    "energy_ratio_hi",
    "itl_ratio",
    "itl_ratio_lo",
    "itl_ratio_hi",
    "interval",
    "verdict",
    "itl_verdict",
    "note",
)


@dataclass(frozen=True)
class Comparison:
    """Plans of one LLM and load, each against the reference (ratios with intervals at
    ``level``). ``rows``: one dict per GPU with :data:`ROW_FIELDS`; ``inputs``: the load and
    tokens used; ``defaults``: where each token count came from."""

    llm: str
    reference: str
    regime: str
    level: float
    inputs: dict[str, Any]
    rows: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = ()
    defaults: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per GPU, the columns :data:`ROW_FIELDS`."""
        return pd.DataFrame(list(self.rows), columns=list(ROW_FIELDS))

    def to_dict(self) -> dict[str, Any]:
        """Plain values, ``schema_version`` and ``kind`` first, ``defaults`` last."""
        body = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        body = {**body, "rows": list(self.rows), "notes": list(self.notes)}
        return {"schema_version": SCHEMA_VERSION, "kind": "compare", **body}

    def to_json(self, indent: int | None = 2) -> str:
        """Strict JSON, numbers to 6 significant figures: what ``compare --json`` prints."""
        return dumps(json_safe(self.to_dict(), number=_six_figures), indent=indent)


def _six_figures(_key: str, x: float) -> float:
    return x if x.is_integer() else float(f"{x:.{JSON_DIGITS}g}")


def compare(
    llm,
    gpus=None,
    *,
    rate_qps: float | None = None,
    batch: float | None = None,
    scenario: str | None = None,
    t_in: int | None = None,
    t_out: int | None = None,
    level: float = 0.8,
    num_gpus: int = 1,
    weights: str | None = None,
    parallel=None,
    reference: str | None = None,
    workload: str | None = None,
) -> Comparison:
    """``llm`` on each of ``gpus`` (two or more) at one load (as ``wl.predict``: ``rate_qps``,
    ``batch`` or ``scenario``; ``num_gpus`` or ``parallel`` per replica, ``weights``), each
    plan's energy per token and ITL over the reference's (the least energy, or ``reference``).
    ``gpus``: names (a list, or one text "A,B"), or as ``wl.rank_gpus``' ``candidates`` — None
    for its default GPUs, "all", "measured". ``workload``: the named workload (data/workloads.csv,
    default watt-counts) giving the token counts not passed, echoed in ``defaults``."""
    keyword = gpus is None or (isinstance(gpus, str) and gpus.strip().lower() in KEYWORDS)
    names = gpus if keyword else check_gpus(gpus)
    given = {"t_in": t_in, "t_out": t_out}
    t_in, t_out, echo = request_tokens(t_in, t_out, workload)
    defaults = {k: v for k, v in echo.items() if given.get(k) is None}  # what the kit chose
    lay = layout_of(num_gpus, parallel)  # checked by name, and given once (as wl.predict's)
    layout = {"layouts": [lay]} if parallel is not None else {"gpu_counts": (lay.num_gpus,)}
    table = rank_gpus(
        llm,
        rate_qps=rate_qps,
        batch=batch,
        scenario=scenario,
        t_in=t_in,
        t_out=t_out,
        level=level,
        candidates=names,
        weights=weights,
        itl_sla_ms=NO_SLA_MS,
        **layout,
    )
    plans = best_per_gpu(table)
    ref = _reference(plans, reference)
    vs = vs_reference(plans, ref, checks.check_level(level))
    rows = tuple(_row(plans.loc[g], vs.loc[g]) for g in plans.index)
    head = table.iloc[0]
    inputs = json_safe(
        {
            k: head[k]
            for k in ("scenario", "rate_qps", "batch", "t_in", "t_out", "weights", "num_gpus")
        }
    )
    return Comparison(
        str(head["llm"]),
        ref,
        regime_of(float(head["rate_qps"])),
        float(level),
        inputs=inputs,
        rows=rows,
        notes=_notes(vs),
        defaults=defaults,
    )


KEYWORDS = ("all", "measured")  # rank_gpus' candidate sets, besides its default (None)


def check_gpus(gpus) -> list:
    """Two or more distinct GPUs (a list, or one text "A,B"), resolved (a catalog name, a spec, its
    file), as rank_gpus' candidates, which take each once and refuse two specs of one name;
    InvalidInputError for fewer, UnknownGPUError (close matches) for a name no catalog knows."""
    if not isinstance(gpus, str | Iterable) or isinstance(gpus, dict):  # one spec: one GPU
        raise InvalidInputError(
            f"gpus must be two or more GPUs, got {gpus!r:.60}; pass e.g. gpus=['A30', 'L4'] or "
            "'A30,L4', 'all', 'measured', or None for today's GPUs"
        )
    items = gpus.split(",") if isinstance(gpus, str) else list(gpus)
    named = [g.strip() if isinstance(g, str) else g for g in items]
    found = [resolve_gpu(g) for g in named if not (isinstance(g, str) and g == "")]
    if len({g.name for g in found}) < 2:
        names = [g.name for g in found]
        raise InvalidInputError(f"gpus: give two or more different GPUs to compare, got {names}")
    return found


def best_per_gpu(table: pd.DataFrame) -> pd.DataFrame:
    """Per GPU its least-energy plan that serves the load (else its first row: why not), by
    GPU name."""
    ok = table["fits"] & table["meets_sla"]
    first = table[ok].sort_values("energy_per_token_j").drop_duplicates("gpu")
    rest = table[~table["gpu"].isin(first["gpu"])].drop_duplicates("gpu")
    return pd.concat([first, rest]).set_index("gpu", drop=False)


def _reference(plans: pd.DataFrame, reference: str | None) -> str:
    served = plans.dropna(subset=["energy_per_token_j"])
    if served.empty:
        raise InvalidInputError(
            "no GPU of gpus can serve this load: "
            + "; ".join(f"{g}: {w}" for g, w in zip(plans["gpu"], plans["why_not"], strict=True))
        )
    if reference is None:
        return str(served["energy_per_token_j"].idxmin())
    name = resolve_gpu(reference).name
    if name not in served.index:  # compared but refused (its why_not), or not compared at all
        why = plans.loc[name, "why_not"] if name in plans.index else "it is not among gpus"
        raise InvalidInputError(
            f"reference {reference!r} is not a GPU compared here that serves "
            f"the load ({why}); pass one of {list(served.index)}"
        )
    return name


def _row(plan: pd.Series, vs: pd.Series) -> dict[str, Any]:
    """One GPU's row of :data:`ROW_FIELDS`."""
    lo, hi = vs["energy_ratio_lo"], vs["energy_ratio_hi"]
    word = "reference" if vs["interval"] == "reference" else verdict(lo, hi)
    t_word = (
        ""
        if vs["interval"] == "reference"
        else verdict(vs["itl_ratio_lo"], vs["itl_ratio_hi"], ("faster", "slower"))
    )
    why = why_not_calibrated(plan.get("basis"), float(plan["replicas"]))
    note = plan["why_not"] or (
        f"unpaired interval: the paired one is not calibrated for it ({why})"
        if vs["interval"] == "unpaired"
        else ""
    )
    return {
        "gpu": plan["gpu"],
        "plan": plan["layout"],
        "num_gpus": int(plan["num_gpus"]),
        "replicas": _count(plan["replicas"]),
        **{k: float(plan[k]) for k in ("energy_per_token_j", "itl_s")},
        **vs.to_dict(),
        "verdict": word,
        "itl_verdict": t_word,
        "note": str(note),
    }


def _count(value: float) -> int | None:
    """A whole number of replicas (None where the plan has none: it cannot serve)."""
    return None if value != value else int(value)


def _notes(vs: pd.DataFrame) -> tuple[str, ...]:
    """Which intervals the rows carry, in words."""
    kinds = set(vs["interval"]) - {"reference"}
    notes = []
    if "unpaired" in kinds:
        notes.append(
            "rows marked 'unpaired' lie outside the paired calibration: their interval "
            "is the ratio of the two absolute intervals, wider and not calibrated as a "
            "ratio"
        )
    if "none" in kinds:
        notes.append("rows marked 'none' have no interval")
    return tuple(notes)
