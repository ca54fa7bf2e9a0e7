"""The ``--num-gpus``, ``--tp`` and ``--ep`` flags: the layout of a replica (:class:`wattgpu_lite.Parallel`).

``--num-gpus 4``: 4 tensor-parallel GPUs per replica. ``--tp 4``: every layer split over 4 GPUs.
``--ep 8``: the experts over 8 GPUs with data-parallel attention. ``--tp 8 --ep 8``: whole experts
on the 8 tensor-parallel GPUs. The same flags, with the same help and defaults, for ``estimate``,
``predict`` and ``explain``; ``rank`` takes ``--tp``/``--ep`` (one layout instead of every layout
of ``--gpu-counts``).
"""

from __future__ import annotations

import argparse


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
