"""The ``--num-gpus``, ``--tp`` and ``--ep`` flags: the layout of a replica (:class:`wattgpu_lite.Parallel`).

``--num-gpus 4``: 4 tensor-parallel GPUs per replica. ``--tp 4``: every layer split over 4 GPUs.
``--ep 8``: the experts over 8 GPUs with data-parallel attention. ``--tp 8 --ep 8``: whole experts
on the 8 tensor-parallel GPUs. The same flags for ``estimate``, ``predict`` and ``explain``.
"""

from __future__ import annotations

import argparse


def add_num_gpus_flag(p: argparse.ArgumentParser, what: str = "") -> None:
    """Register ``--num-gpus`` (the ``num_gpus`` argument of the library; default 1)."""
    p.add_argument("--num-gpus", type=int, default=1,
                   help=f"GPUs per replica, tensor parallel{what} (default %(default)s; or "
                        "--tp/--ep)")  # fmt: skip


def add_layout_flags(p: argparse.ArgumentParser) -> None:
    """Register ``--tp`` and ``--ep`` (default: not given, i.e. one GPU or ``--num-gpus``)."""
    p.add_argument("--tp", type=int, default=None,
                   help="tensor-parallel GPUs per attention group, e.g. --tp 4 "
                   "(default: unset, i.e. one GPU or --num-gpus)")  # fmt: skip
    p.add_argument("--ep", type=int, default=None,
                   help="expert-parallel GPUs; above --tp, attention runs data-parallel "
                   "(e.g. --ep 8; default: unset, no expert parallelism)")  # fmt: skip


def layout_from(args: argparse.Namespace):
    """wl.Parallel from ``--tp``/``--ep``, or None when neither was given."""
    if args.tp is None and args.ep is None:
        return None
    from wattgpu_lite.specs.layout import Parallel

    return Parallel(tp=1 if args.tp is None else args.tp, ep=1 if args.ep is None else args.ep)
