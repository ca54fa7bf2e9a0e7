"""The ``--num-gpus``, ``--tp`` and ``--ep`` flags: the layout of a replica (:class:`wattgpu_lite.Parallel`).

``--num-gpus 4``: 4 tensor-parallel GPUs per replica. ``--tp 4``: every layer split over 4 GPUs.
``--ep 8``: the experts over 8 GPUs with data-parallel attention. ``--tp 8 --ep 8``: whole experts
on the 8 tensor-parallel GPUs. The same flags, with the same help and defaults, for ``estimate``,
``predict`` and ``explain``; ``rank`` takes ``--tp``/``--ep`` (one layout instead of every layout
of ``--gpu-counts``). ``--expert-parallel`` (``estimate``'s until now) still reads, hidden, with a
deprecation line: it is ``--tp N --ep N`` for N = ``--num-gpus``.
"""

from __future__ import annotations

import argparse
import sys

from wattgpu_lite.errors import InvalidInputError

DEPRECATED_EXPERT_PARALLEL = ("note: --expert-parallel is deprecated and goes in wattgpu_lite "
                              "0.2.0; pass --tp {n} --ep {n} (the same layout)")  # fmt: skip


def add_num_gpus_flag(p: argparse.ArgumentParser, what: str = "") -> None:
    """Register ``--num-gpus`` (the ``num_gpus`` argument of the library; default 1) and the
    hidden, deprecated ``--expert-parallel``."""
    p.add_argument("--num-gpus", type=int, default=1,
                   help=f"GPUs per replica, tensor parallel{what} (default %(default)s; or "
                        "--tp/--ep)")  # fmt: skip
    p.add_argument("--expert-parallel", action="store_true", help=argparse.SUPPRESS)


def add_layout_flags(p: argparse.ArgumentParser, unset: str = "one GPU or --num-gpus") -> None:
    """Register ``--tp`` and ``--ep`` (default: not given, i.e. ``unset``: what the command
    does without them, in words that name only its own flags)."""
    p.add_argument("--tp", type=int, default=None,
                   help=f"tensor-parallel GPUs per attention group, e.g. --tp 4 "
                        f"(default: unset, i.e. {unset})")  # fmt: skip
    p.add_argument("--ep", type=int, default=None,
                   help="expert-parallel GPUs; above --tp, attention runs data-parallel "
                   "(e.g. --ep 8; default: unset, no expert parallelism)")  # fmt: skip


def expert_parallel(args: argparse.Namespace) -> bool:
    """Whether the deprecated ``--expert-parallel`` was given (its deprecation line, on stderr,
    says the flags to pass instead)."""
    given = bool(getattr(args, "expert_parallel", False))
    if given:
        n = getattr(args, "num_gpus", 1)
        print(DEPRECATED_EXPERT_PARALLEL.format(n=n), file=sys.stderr)
    return given


def layout_from(args: argparse.Namespace, expert: bool = True):
    """wl.Parallel from ``--tp``/``--ep`` — or, with ``expert``, from the deprecated
    ``--expert-parallel`` (``--tp N --ep N``, N = ``--num-gpus``) — or None when none was given."""
    from wattgpu_lite.specs.layout import Parallel

    if expert and getattr(args, "expert_parallel", False):
        n = getattr(args, "num_gpus", 1)
        if args.tp is not None or args.ep is not None:
            raise InvalidInputError("--expert-parallel (deprecated) with --tp/--ep: give the "
                                    f"layout once, e.g. --tp {n} --ep {n}")  # fmt: skip
        expert_parallel(args)
        return Parallel(tp=n, ep=n)
    if args.tp is None and args.ep is None:
        return None
    return Parallel(tp=1 if args.tp is None else args.tp, ep=1 if args.ep is None else args.ep)
