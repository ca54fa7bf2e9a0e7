"""The serving engine and its documented defaults; the KV cache's format; the concurrency limit.

An engine (data/engines.csv, each row citing the engine's own documentation or source) carries
the defaults the kit reads from it:

    engines()                 # the table: max_num_seqs, chunked_prefill, cuda_graphs, ... source
    engine("sglang")          # -> Engine(max_num_seqs=2048, gpu_memory_share=0.88, ...)
    kv_cache_bits("fp8")      # 8.0 bits per cached K or V element; "auto" (the default) 16.0
    check_max_num_seqs(64)    # 64; a positive whole number, or InvalidInputError

``vllm`` is the default: the kit's constants were fitted on the Watt Counts runs, served by vLLM
(``max_num_seqs`` 256, ``gpu_memory_utilization`` 0.9), and on published rows of other harnesses,
most of them served by vLLM too. Another engine changes what the kit takes
from its defaults — the concurrency limit and the memory share its KV cache gets — not the speed
of its kernels, which the kit does not model (a prediction's notes say so).

The KV cache's format: "auto" is what vLLM, SGLang and TensorRT-LLM do by default — the model's
dtype, 16 bits for bf16/fp16 weights and for quantised ones (whose activations, and so K and V,
stay 16-bit); "bf16" and "fp16" say so explicitly; "fp8" stores K and V in 8 bits, halving the
KV bytes written and read per token and doubling the tokens a KV cache of the same size holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv, restore_hint
from wattgpu_lite.errors import DataFileError, InvalidInputError, UnknownNameError, close_matches

DEFAULT_ENGINE = "vllm"  # the engine of the Watt Counts runs the constants were fitted on
DEFAULT_KV_CACHE = "auto"
ENGINES_FILE = "engines.csv"
ENGINE_COLUMNS = (
    "engine",
    "max_num_seqs",
    "concurrency_arg",
    "chunked_prefill",
    "cuda_graphs",
    "kv_cache_dtype",
    "gpu_memory_share",
    "memory_share_of",
    "memory_arg",
    "version",
    "source",
)
#: what an engine's memory share is a share of: the GPU's memory (vLLM, SGLang), or the memory
#: left free after the weights (TensorRT-LLM's free_gpu_memory_fraction)
MEMORY_SHARE_OF = ("total", "free")
#: bits per cached K or V element of each KV-cache format ("auto": the model's 16-bit dtype)
KV_CACHE_BITS = {"auto": 16.0, "bf16": 16.0, "fp16": 16.0, "fp8": 8.0}
KV_CACHE_ALIASES = {
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "fp8_e4m3": "fp8",
    "fp8_e5m2": "fp8",
}
MAX_NUM_SEQS_MAX = 65_536  # sequences in flight per replica: far beyond any engine's default


class UnknownEngineError(UnknownNameError):
    kind = "engine"
    hint = (
        "See wattgpu_lite.specs.engine.engines() (data/engines.csv) for the engines the kit "
        "knows: vllm (the default), sglang, tensorrt-llm."
    )


@dataclass(frozen=True)
class Engine:
    """One serving engine's documented defaults: its concurrency limit (``max_num_seqs``, named
    ``concurrency_arg`` by the engine), chunked prefill and CUDA graphs on by default, its default
    KV-cache format, the share of memory it takes (``gpu_memory_share`` of the GPU's memory, or of
    the memory left after the weights when ``memory_share_of`` is "free", named ``memory_arg``),
    the version read, and the citation."""

    name: str
    max_num_seqs: int
    concurrency_arg: str
    chunked_prefill: bool
    cuda_graphs: bool
    kv_cache_dtype: str
    gpu_memory_share: float
    memory_share_of: str
    memory_arg: str
    version: str
    source: str

    def defaults_text(self) -> str:
        """The defaults in words, as a prediction's note quotes them."""
        free = self.memory_share_of == "free"
        share = "of the memory left after the weights" if free else "of GPU memory"
        return (
            f"{self.concurrency_arg} {self.max_num_seqs}, {self.memory_arg} "
            f"{self.gpu_memory_share:g} {share}, KV cache {self.kv_cache_dtype}, chunked "
            f"prefill {'on' if self.chunked_prefill else 'off'}, CUDA graphs "
            f"{'on' if self.cuda_graphs else 'off'}"
        )


@cache
def _table() -> pd.DataFrame:
    """data/engines.csv checked: its columns, one row per engine, a positive whole concurrency
    limit, a memory share in (0, 1] of a known kind, a known KV format, booleans, a source."""
    table = read_csv(data_dir() / ENGINES_FILE, keep_default_na=False)
    fix = restore_hint(ENGINES_FILE)
    if tuple(table.columns) != ENGINE_COLUMNS:
        raise DataFileError(
            f"{ENGINES_FILE}: columns {list(table.columns)}, expected {list(ENGINE_COLUMNS)}; {fix}"
        )
    if not table["engine"].is_unique or (table["source"].astype(str).str.strip() == "").any():
        raise DataFileError(f"{ENGINES_FILE}: an engine twice or a row without source; {fix}")
    for row in table.itertuples():
        ok = (
            isinstance(row.max_num_seqs, int | np.integer)
            and row.max_num_seqs >= 1
            and 0 < float(row.gpu_memory_share) <= 1
            and row.memory_share_of in MEMORY_SHARE_OF
            and row.kv_cache_dtype in KV_CACHE_BITS
            and all(isinstance(b, bool | np.bool_) for b in (row.chunked_prefill, row.cuda_graphs))
        )
        if not ok:
            raise DataFileError(
                f"{ENGINES_FILE}: row {row.engine!r}: max_num_seqs a whole number "
                "≥ 1, gpu_memory_share in (0, 1], memory_share_of one of "
                f"{MEMORY_SHARE_OF}, kv_cache_dtype one of {sorted(KV_CACHE_BITS)}, "
                f"chunked_prefill and cuda_graphs true/false; {fix}"
            )
    return table


def engines() -> pd.DataFrame:
    """The engines of data/engines.csv with their documented defaults, one row each (a copy)."""
    return _table().copy()


@cache
def _by_key() -> dict[str, Engine]:
    """Every row of :func:`_table` as an :class:`Engine`, by its name in lower case."""
    return {
        str(r["engine"]).lower(): Engine(
            str(r["engine"]),
            int(r["max_num_seqs"]),
            str(r["concurrency_arg"]),
            bool(r["chunked_prefill"]),
            cuda_graphs=bool(r["cuda_graphs"]),
            kv_cache_dtype=str(r["kv_cache_dtype"]),
            gpu_memory_share=float(r["gpu_memory_share"]),
            memory_share_of=str(r["memory_share_of"]),
            memory_arg=str(r["memory_arg"]),
            version=str(r["version"]),
            source=str(r["source"]),
        )
        for _, r in _table().iterrows()
    }


def engine(name: str | Engine | None = None) -> Engine:
    """The engine ``name`` (None: :data:`DEFAULT_ENGINE`; case, spaces and "_" for "-" ignored;
    an :class:`Engine` passes); UnknownEngineError with the close matches for any other name."""
    return _engine_named(name)


def _engine_named(name) -> Engine:
    """:func:`engine` (a function of its own, for callers whose argument is named ``engine``)."""
    if isinstance(name, Engine):
        return name
    key = DEFAULT_ENGINE if name is None else str(name).strip().lower().replace("_", "-")
    hit = _by_key().get({"trt-llm": "tensorrt-llm", "trtllm": "tensorrt-llm"}.get(key, key))
    if hit is None:
        raise UnknownEngineError(str(name), _table()["engine"])
    return hit


def canonical_kv_cache(kv_cache: str | None = None) -> str:
    """The KV-cache format ``kv_cache`` names ("auto", "bf16", "fp16", "fp8"; None: "auto";
    vLLM's spellings "bfloat16", "float16", "fp8_e4m3", "fp8_e5m2" too); InvalidInputError listing
    the allowed values and the close matches for anything else."""
    if kv_cache is None:
        return DEFAULT_KV_CACHE
    key = str(kv_cache).strip().lower()
    fmt = KV_CACHE_ALIASES.get(key, key)
    if not isinstance(kv_cache, str) or fmt not in KV_CACHE_BITS:
        near = close_matches(str(kv_cache), [*KV_CACHE_BITS, *KV_CACHE_ALIASES], n=3)
        raise InvalidInputError(
            f"kv_cache {kv_cache!r} is not a KV-cache format; close matches: "
            f"{', '.join(repr(m) for m in near) or 'none'}. Pass one of {list(KV_CACHE_BITS)} "
            "('auto', the default: the model's 16-bit dtype; 'fp8': 8-bit K and V)."
        )
    return fmt


def kv_cache_bits(kv_cache: str | None = None) -> float:
    """Bits per cached K or V element of the KV-cache format ``kv_cache`` (None: "auto", 16)."""
    return KV_CACHE_BITS[canonical_kv_cache(kv_cache)]


def kv_bytes_scale(kv_cache: str | None = None) -> float:
    """The KV bytes per token of ``kv_cache`` over those of the 16-bit cache the catalogs give
    (``LLM.kv_bytes_per_token``): 1 for "auto", 0.5 for "fp8"."""
    return kv_cache_bits(kv_cache) / KV_CACHE_BITS[DEFAULT_KV_CACHE]


def check_max_num_seqs(max_num_seqs, chosen: str | Engine | None = None) -> int:
    """The engine's concurrency limit: ``max_num_seqs`` if given (a whole number in
    [1, :data:`MAX_NUM_SEQS_MAX`]), else the default of the engine ``chosen``; InvalidInputError
    for anything else (a bool, a float, zero or less, text)."""
    if max_num_seqs is None:
        return engine(chosen).max_num_seqs
    whole = isinstance(max_num_seqs, int | np.integer) and not isinstance(max_num_seqs, bool)
    if not whole or not 1 <= max_num_seqs <= MAX_NUM_SEQS_MAX:
        raise InvalidInputError(
            f"max_num_seqs must be a whole number in [1, {MAX_NUM_SEQS_MAX}] (the sequences the "
            f"engine runs at once), got {max_num_seqs!r}; pass e.g. max_num_seqs=256, or leave it "
            "out for the engine's default"
        )
    return int(max_num_seqs)


def check_serving(kv_cache=None, engine=None, max_num_seqs=None) -> tuple[str, str, int]:
    """(KV-cache format, engine name, concurrency limit) checked: ``kv_cache`` one of "auto",
    "bf16", "fp16", "fp8" (None: "auto"), ``engine`` one of data/engines.csv (None: "vllm";
    UnknownEngineError with close matches), ``max_num_seqs`` a whole number ≥ 1 (None: the
    engine's default); InvalidInputError naming the value and the allowed ones."""
    chosen = _engine_named(engine)
    return canonical_kv_cache(kv_cache), chosen.name, check_max_num_seqs(max_num_seqs, chosen)
