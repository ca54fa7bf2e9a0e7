"""How a replica is deployed: its layout (``--num-gpus``, ``--tp``, ``--ep``; a
:class:`wattgpu_lite.Parallel`), its served weights (``--weights``) and its serving engine
(``--kv-cache``, ``--engine``, ``--max-num-seqs``).

``--num-gpus 4``: 4 tensor-parallel GPUs per replica. ``--tp 4``: every layer split over 4 GPUs.
``--ep 8``: the experts over 8 GPUs with data-parallel attention. ``--tp 8 --ep 8``: whole experts
on the 8 tensor-parallel GPUs. The same flags, with the same help and defaults, for ``estimate``,
``predict`` and ``explain``; ``rank`` takes ``--tp``/``--ep`` (one layout instead of every layout
of ``--gpu-counts``).
"""

from __future__ import annotations

import argparse

from wattgpu_lite.specs.llm import WEIGHT_FORMATS

# the served weight formats, the common ones first, each once
WEIGHT_CHOICES = tuple(dict.fromkeys(("bf16", "fp8", "fp4", "int4", *sorted(WEIGHT_FORMATS))))


def add_num_gpus_flag(p: argparse.ArgumentParser, what: str = "") -> None:
    """Register ``--num-gpus`` (the ``num_gpus`` argument of the library; default 1)."""
    p.add_argument(
        "--num-gpus",
        type=int,
        default=1,
        help=f"GPUs per replica, tensor parallel{what} (default %(default)s; or --tp/--ep)",
    )


def add_layout_flags(p: argparse.ArgumentParser, unset: str = "one GPU or --num-gpus") -> None:
    """Register ``--tp`` and ``--ep`` (default: not given, i.e. ``unset``: what the command
    does without them, in words that name only its own flags)."""
    p.add_argument(
        "--tp",
        type=int,
        default=None,
        help=f"tensor-parallel GPUs per attention group, e.g. --tp 4 "
        f"(default: unset, i.e. {unset})",
    )
    p.add_argument(
        "--ep",
        type=int,
        default=None,
        help="expert-parallel GPUs; above --tp, attention runs data-parallel "
        "(e.g. --ep 8; default: unset, no expert parallelism)",
    )


def layout_from(args: argparse.Namespace):
    """wl.Parallel from ``--tp``/``--ep``, or None when neither was given."""
    from wattgpu_lite.specs.layout import Parallel

    if args.tp is None and args.ep is None:
        return None
    return Parallel(tp=1 if args.tp is None else args.tp, ep=1 if args.ep is None else args.ep)


def _lower(text: str) -> str:
    """A format name as the kit spells it (lower case, no surrounding spaces)."""
    return text.strip().lower()


def add_weights_flag(parser: argparse.ArgumentParser) -> None:
    """``--weights``: the served weight format (default: the model's own)."""
    parser.add_argument(
        "--weights",
        choices=WEIGHT_CHOICES,
        default=None,
        metavar="FORMAT",
        type=_lower,  # FP8 as fp8, as wl.estimate_energy(weights="FP8") reads it
        help=f"served weight format, one of {', '.join(WEIGHT_CHOICES)} "
        "(default: the model's own; fp4 = mxfp4)",
    )


def add_serving_flags(parser: argparse.ArgumentParser) -> None:
    """``--kv-cache``, ``--engine`` and ``--max-num-seqs``: how the request is served (the
    library checks each value and names the close matches of a misspelt one)."""
    parser.add_argument(
        "--kv-cache",
        default=None,
        metavar="FORMAT",
        help="KV-cache format: auto (default: the model's 16-bit dtype), bf16, "
        "fp16 or fp8 (half the KV bytes per token, twice the tokens held)",
    )
    parser.add_argument(
        "--engine",
        default=None,
        metavar="NAME",
        help="serving engine whose documented defaults are used (data/engines.csv): "
        "vllm (default; the kit's constants were fitted on it), sglang, "
        "tensorrt-llm",
    )
    parser.add_argument(
        "--max-num-seqs",
        type=int,
        default=None,
        metavar="N",
        help="the engine's concurrency limit, sequences in flight at most "
        "(default: the engine's, vLLM's 256)",
    )


def serving_inputs(args: argparse.Namespace) -> dict:
    """The serving flags as keywords of the library's functions."""
    return {"kv_cache": args.kv_cache, "engine": args.engine, "max_num_seqs": args.max_num_seqs}


def request_inputs(args: argparse.Namespace) -> dict:
    """The request's flags as keywords of predict, explain and compare: the load, the tokens and
    their workload, the level, the weight format and the layout."""
    load = {"rate_qps": args.rate_qps, "batch": args.batch, "scenario": args.scenario}
    tokens = {"t_in": args.t_in, "t_out": args.t_out, "workload": args.workload}
    deploy = {"num_gpus": args.num_gpus, "weights": args.weights, "parallel": layout_from(args)}
    return load | tokens | deploy | {"level": args.level}
