"""WattGPU's case study asked of every source at every load, and serving plans read per GPU type.

    r = readings("meta-llama/Llama-3.1-8B-Instruct", itl_sla_ms=30)  # source x load x GPU
    claims(r)          # the paper's story (A30 picked, L4 too slow, T4 too small) per source, load
    agreement(r)       # each predictor beside the measured runs: same pick? power and ITL errors
    best_plans(wl.rank_gpus("openai/gpt-oss-120b", rate_qps=20, itl_sla_ms=50))  # one per GPU

A reading is one ``rank_gpus`` table. The hybrid is asked with one GPU per replica and the runs'
own token counts, so all four sources answer the question the runs measured.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.hybrid.predict.chain import measured_boards, predict
from wattgpu_lite.metrics import mdape_pct
from wattgpu_lite.runs.measurements import MEASURED_GPUS, SCENARIOS
from wattgpu_lite.selection.inputs import runs_tokens
from wattgpu_lite.selection.rank import rank_gpus
from wattgpu_lite.selection.verdict import verdict_rank
from wattgpu_lite.specs.layout import Parallel

READING_SOURCES: tuple[str, ...] = ("measured", "paper", "logo", "hybrid")
COLUMNS = [
    "gpu",
    "fits",
    "meets_sla",
    "rank",
    "power_w",
    "itl_ms",
    "energy_per_1k_tokens_j",
    "why_not",
]


def readings(
    llm, itl_sla_ms: float, sources=READING_SOURCES, scenarios=SCENARIOS, candidates=MEASURED_GPUS
) -> pd.DataFrame:
    """One row per (source, scenario, GPU): fits, meets_sla, rank, power_w, itl_ms, energy per
    1,000 tokens, why_not; plus ``runs_itl_ms``, the ITL as the runs define it (offline:
    1 / throughput, which the hybrid calls time per token; its own offline ITL is per request).
    The hybrid predicts each measured board (``measured_boards``) under the runs' GPU label."""
    t_in, t_out = runs_tokens(llm)
    boards = {label: board for label, board in measured_boards().items() if label in candidates}
    labels = {board: label for label, board in boards.items()}
    parts = []
    for source in sources:
        # the hybrid is asked about the board each run measured (data/measured_boards.csv: the
        # runs' "H200 NVL" was an H200 SXM), and its rows keep the runs' label
        names = [boards.get(c, c) for c in candidates] if source == "hybrid" else list(candidates)
        for scenario in scenarios:
            t = rank_gpus(
                llm,
                scenario=scenario,
                itl_sla_ms=itl_sla_ms,
                candidates=names,
                source=source,
                gpu_counts=(1,),
                t_in=t_in,
                t_out=t_out,
            )
            if source == "hybrid":
                t = t.assign(gpu=t["gpu"].replace(labels))
            aggregate = source == "hybrid" and scenario == "offline"
            runs_itl = t["time_per_token_s"] * 1e3 if aggregate else t["itl_ms"]
            parts.append(t[COLUMNS].assign(source=source, scenario=scenario, runs_itl_ms=runs_itl))
    return pd.concat(parts, ignore_index=True)[["source", "scenario", *COLUMNS, "runs_itl_ms"]]


def pick(table: pd.DataFrame):
    """The GPU ranked first (None when no GPU meets the SLA)."""
    first = table[table["rank"] == 1]
    return None if first.empty else first["gpu"].iloc[0]


def claims(r: pd.DataFrame, expected: str = "A30", slow: str = "L4", small: str = "T4"):
    """Per (source, scenario): the pick, and the case study's claims as True/False — the
    ``expected`` GPU is picked, ``slow`` holds the model and is answered too slow (a source that
    refuses to answer for it, an ITL below the physical floor, does not make the claim),
    ``small`` cannot hold the model."""
    rows = []
    for (source, scenario), t in r.groupby(["source", "scenario"], sort=False):
        g = t.set_index("gpu")
        rows.append(
            {
                "source": source,
                "scenario": scenario,
                "pick": pick(t),
                f"{expected} picked": pick(t) == expected,
                f"{slow} misses the SLA": bool(
                    g.loc[slow, "fits"]
                    and pd.notna(g.loc[slow, "itl_ms"])
                    and not g.loc[slow, "meets_sla"]
                ),
                f"{small} cannot hold it": not bool(g.loc[small, "fits"]),
            }
        )
    return pd.DataFrame(rows)


def agreement(r: pd.DataFrame, reference: str = "measured") -> pd.DataFrame:
    """Each source beside ``reference`` per scenario, over the GPUs both hold: same pick, how
    many of them the source answers (``answered``), how many of those get the same SLA verdict,
    MdAPE of power and of the runs' ITL (%) over those answered. The readings are
    the Watt Counts sources (measured, paper, logo), which carry no ITL interval: their verdicts
    (``meets_sla``) are at the ITL itself, the paper's rule, which the one verdict rule reduces
    to without an interval (:mod:`wattgpu_lite.selection.verdict`).

    The readings are answers (``rank_gpus`` tables), so a row a source refuses (logo's ITL below
    the physical floor) is not answered and leaves the errors: this compares what a user is told,
    not the published model's raw output, which ``wl.evaluate`` scores."""
    ref = r[r["source"] == reference].set_index(["scenario", "gpu"])
    rows = []
    for (source, scenario), t in r[r["source"] != reference].groupby(
        ["source", "scenario"], sort=False
    ):
        g = t.set_index(["scenario", "gpu"])
        held = g.index[g["fits"] & ref.loc[g.index, "fits"]]
        both = held[g.loc[held, "itl_ms"].notna().to_numpy()]  # answered: not refused
        verdicts = g.loc[both, "meets_sla"] == ref.loc[both, "meets_sla"]
        power = mdape_pct(ref.loc[both, "power_w"], g.loc[both, "power_w"])
        itl = mdape_pct(ref.loc[both, "runs_itl_ms"], g.loc[both, "runs_itl_ms"])
        rows.append(
            {
                "source": source,
                "scenario": scenario,
                "pick": pick(t),
                "reference_pick": pick(ref.loc[scenario].reset_index()),
                "answered": f"{len(both)} of {len(held)}",
                "same_verdicts": f"{int(verdicts.sum())} of {len(both)}",
                "power_mdape_pct": power,
                "itl_mdape_pct": itl,
            }
        )
    return pd.DataFrame(rows)


def best_plans(table: pd.DataFrame) -> pd.DataFrame:
    """One row per GPU type from a ranking of plans: its first plan in the ranking's order — its
    least-energy plan that meets the SLA at the ITL bound, else its least-energy plan that may
    meet it (at the estimate), else its least-energy plan that fits, else its refusal with the
    most GPUs per replica (the closest it came); in the ranking's order, ranked again among the
    GPU types."""
    group = verdict_rank(table["verdict"])
    energy = table["energy_per_1k_tokens_j"].fillna(np.inf)
    most = -table["num_gpus"] if "num_gpus" in table else 0  # a refusal: the most GPUs tried
    keys = table.assign(_g=group, _e=energy, _n=most).sort_values(["_g", "_e", "_n"], kind="stable")
    best = table.loc[sorted(keys.drop_duplicates("gpu").index)].reset_index(drop=True)
    rank = best["meets_sla"].cumsum().where(best["meets_sla"])  # ranks among GPU types
    return best.assign(rank=rank.astype("Int64"))


def sla_steps(table: pd.DataFrame) -> pd.DataFrame:
    """Where the least-energy pick changes as the ITL SLA loosens, exactly: a GPU becomes the
    pick at an SLA equal to its own ITL if it uses less energy than every faster GPU. Columns
    from_ms, gpu, energy (per 1,000 tokens), one row per step, tightest first."""
    ok = table[table["fits"] & table["itl_ms"].notna()].sort_values(["itl_ms", "gpu"])
    rows, best = [], np.inf
    for r in ok.itertuples():
        if r.energy_per_1k_tokens_j < best:
            best = r.energy_per_1k_tokens_j
            rows.append({"from_ms": r.itl_ms, "gpu": r.gpu, "energy": best})
    return pd.DataFrame(rows, columns=["from_ms", "gpu", "energy"])


def replica_sweep(
    llm,
    gpu,
    num_gpus: int,
    rate_qps: float,
    replicas,
    t_in: int,
    t_out: int,
    weights=None,
    parallel: Parallel | None = None,
) -> pd.DataFrame:
    """The same rate served by R replicas of ``num_gpus`` GPUs each, R in ``replicas``: each
    replica serves λ/R and draws P̄(λ/R), all are held, so the plan's energy per token is
    R · P̄(λ/R) / (λ · T_out). ``parallel``: the replica's layout (a plan's
    ``wl.Parallel(tp=..., ep=...)``; None: ``num_gpus`` GPUs tensor parallel). Columns replicas,
    rate_per_replica_qps, power_w, total_power_w, itl_ms, energy_per_1k_tokens_j (a replica past
    its capacity raises the kit's error)."""
    layout = {"num_gpus": num_gpus} if parallel is None else {"parallel": parallel}
    rows = []
    for r in replicas:
        p = predict(
            llm, gpu, rate_qps=rate_qps / r, t_in=t_in, t_out=t_out, weights=weights, **layout
        )
        rows.append(
            {
                "replicas": r,
                "rate_per_replica_qps": rate_qps / r,
                "power_w": p.power_w,
                "total_power_w": r * p.power_w,
                "itl_ms": p.itl_s * 1e3,
                "energy_per_1k_tokens_j": r * p.power_w / (rate_qps * t_out) * 1e3,
            }
        )
    return pd.DataFrame(rows)
