"""The upstream Watt Counts subset: download (pinned sha256) and parse into the runs table.

The upstream file (github.com/maufadel/wattgpu @ 4e010359, data/watt_counts_subset.csv,
Apache-2.0) has one row per run with per-request lists of TTFT, e2e latency, prompt and generated
tokens. From them we compute the paper's exact server ITL, the mean over requests of
(e2e - TTFT)/(tokens - 1) [s/token] (requests with < 2 tokens have no inter-token gap and are
left out, as in the authors' notebook). Everything else is derived as in the shipped table.
"""

from __future__ import annotations

import hashlib
import os
import urllib.request
from collections.abc import Collection
from pathlib import Path

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import read_csv
from wattgpu_lite.errors import DataFileError
from wattgpu_lite.runs.schema import ITL_SERVER_EXACT, runs_table
from wattgpu_lite.runs.table import load, validate

UPSTREAM_COMMIT = "4e010359c167ac8c65b55aabd1aafbf765ae5d91"
UPSTREAM_URL = (
    f"https://raw.githubusercontent.com/maufadel/wattgpu/{UPSTREAM_COMMIT}"
    "/data/watt_counts_subset.csv"
)
UPSTREAM_SHA256 = "280510e119b2ea75105f5fa46f4813930045cf90d027d3834813c022568740ba"
UPSTREAM_NAME = "watt_counts_subset.csv"
UPSTREAM_MAX_BYTES = 512 * 2**20  # the per-request lists make it far larger than the shipped table
LIST_COLUMNS = (
    "time_to_first_token_seconds_events",
    "e2e_request_latency_seconds_events",
    "request_generation_tokens",
    "request_prompt_tokens",
)
SCALAR_COLUMNS = (
    "model",
    "gpu_type",
    "lambda_qps",
    "generation_tokens_total",
    "measurement_duration",
    "gpu_energy",
    "gpu_0_power_draw_watts_mean",
)


def parse_list(text: str) -> np.ndarray:
    """A list written as text, e.g. ``"[0.5, 1.25, 3]"``, as a float array (``"[]"`` -> empty)."""
    body = str(text).strip().removeprefix("[").removesuffix("]").strip()
    return np.array([float(x) for x in body.split(",")] if body else [], dtype=float)


def server_itl_s(e2e_s: np.ndarray, ttft_s: np.ndarray, tokens: np.ndarray) -> float:
    """Mean over requests with >= 2 tokens of (e2e - TTFT)/(tokens - 1) [s/token]; NaN if none."""
    ok = tokens >= 2
    return float(np.mean((e2e_s[ok] - ttft_s[ok]) / (tokens[ok] - 1))) if ok.any() else np.nan


def _read(source: str | Path | pd.DataFrame) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        df = source
    else:
        df = read_csv(
            source,
            what="upstream Watt Counts file",
            sha256=None,
            max_bytes=UPSTREAM_MAX_BYTES,
            index_col=0,
        )
    missing = [c for c in (*SCALAR_COLUMNS, *LIST_COLUMNS) if c not in df.columns]
    if missing:
        raise DataFileError(f"{UPSTREAM_NAME}: missing upstream columns {missing}")
    return df


def _lists(df: pd.DataFrame) -> dict[str, pd.Series]:
    lists = {c: df[c].map(parse_list) for c in LIST_COLUMNS}
    lengths = pd.DataFrame({c: s.map(len) for c, s in lists.items()})
    uneven = lengths.nunique(axis=1) > 1
    if uneven.any():
        raise DataFileError(
            f"{UPSTREAM_NAME}: per-request lists of different lengths in rows "
            f"{list(df.index[uneven])[:5]}; the file is damaged, download it again"
        )
    return lists


def aggregates(df: pd.DataFrame, dense_llms: Collection[str]) -> pd.DataFrame:
    """Per-run aggregates (the input of wattcounts.runs_table) from upstream rows."""
    lists = _lists(df)
    e2e, ttft = (
        lists["e2e_request_latency_seconds_events"],
        lists["time_to_first_token_seconds_events"],
    )
    tokens = lists["request_generation_tokens"]
    gen_total = df["generation_tokens_total"].astype(float)
    return pd.DataFrame(
        {
            "llm": df["model"],
            "gpu_smi_name": df["gpu_type"],
            "lambda_qps": df["lambda_qps"],
            "n_requests": tokens.map(len),
            "prompt_tokens": lists["request_prompt_tokens"].map(np.mean),
            "generated_tokens": tokens.map(np.mean),
            "power_w": df["gpu_0_power_draw_watts_mean"],
            "duration_s": df["measurement_duration"],
            "e2e_latency_s": e2e.map(np.mean),
            "throughput_tps": gen_total / df["measurement_duration"],
            "tokens_per_j": gen_total / df["gpu_energy"],
            "itl_server_s": [
                server_itl_s(a, b, c) for a, b, c in zip(e2e, ttft, tokens, strict=True)
            ],
            "itl_server_definition": ITL_SERVER_EXACT,
            "dense": df["model"].isin(set(dense_llms)),
        }
    )


def _shipped_dense_llms(llms: Collection[str]) -> set[str]:
    shipped = load()
    unknown = sorted(set(llms) - set(shipped["llm"]))
    if unknown:
        raise DataFileError(
            f"{UPSTREAM_NAME}: LLMs {unknown} are not in watt_counts_runs.csv, so "
            "their dense flag is unknown; pass dense_llms=[...] to parse_upstream"
        )
    return set(shipped.loc[shipped["dense"], "llm"])


def parse_upstream(
    source: str | Path | pd.DataFrame, dense_llms: Collection[str] | None = None
) -> pd.DataFrame:
    """The runs table (schema of data/watt_counts_runs.csv) from the upstream file or frame.

    Server ITL is the paper's exact one (:func:`server_itl_s`); ``dense_llms`` defaults to the
    dense flags of the shipped table. Rows must be in the upstream (measurement) order.
    """
    df = _read(source)
    dense = _shipped_dense_llms(df["model"]) if dense_llms is None else dense_llms
    return validate(runs_table(aggregates(df, dense)), UPSTREAM_NAME)


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/wattgpu_lite`` (default ``~/.cache/wattgpu_lite``)."""
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "wattgpu_lite"


def fetch_url(url: str, dest: Path) -> None:
    """Download ``url`` to ``dest`` (network; not exercised by the tests)."""
    with urllib.request.urlopen(url, timeout=120) as response:
        dest.write_bytes(response.read())


def download_upstream(cache_dir: str | Path | None = None) -> pd.DataFrame:
    """Fetch the upstream file once into the cache, verify its sha256, and parse it.

    A checksum mismatch deletes the file and raises DataFileError.
    """
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{UPSTREAM_COMMIT[:8]}_{UPSTREAM_NAME}"
    if not path.is_file():
        fetch_url(UPSTREAM_URL, path)
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != UPSTREAM_SHA256:
        path.unlink()
        raise DataFileError(
            f"{UPSTREAM_NAME}: checksum mismatch (sha256 expected "
            f"{UPSTREAM_SHA256}, got {actual}); the download was deleted. "
            f"Retry, or fetch {UPSTREAM_URL} by hand into {folder}."
        )
    return parse_upstream(path)
