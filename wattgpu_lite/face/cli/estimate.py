"""``estimate``: energy of one request by component (paper or physical mode).

python -m wattgpu_lite estimate --llm NAME|config.json --gpu NAME|spec.json --t-in 500 --t-out 500
                                [--batch 1] [--mode physical|paper] [--json]
"""

from __future__ import annotations

import argparse

from wattgpu_lite.face.cli import add_json_flag, emit, resolve_gpu, resolve_llm


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``estimate``."""
    p = sub.add_parser("estimate", help="energy of one request, by component (J and Wh)")
    p.add_argument(
        "--llm",
        required=True,
        help="catalog name (see `llms`) or path to a Hugging Face config.json",
    )
    p.add_argument(
        "--gpu",
        default="H100 NVL",
        help="catalog name (see `gpus`) or path to a GPU spec .json (default H100 NVL)",
    )
    p.add_argument(
        "--t-in", type=int, default=500, help="prompt tokens, a whole number >= 1 (default 500)"
    )
    p.add_argument(
        "--t-out", type=int, default=500, help="generated tokens, a whole number >= 1 (default 500)"
    )
    p.add_argument(
        "--batch",
        type=int,
        default=1,
        help="concurrent sequences, 1 to 4096 (physical mode; default 1)",
    )
    p.add_argument(
        "--mode",
        choices=("physical", "paper"),
        default="physical",
        help="physical (spec-sheet physics, default) or paper (Vartziotis et al.)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from wattgpu_lite.energy.estimate import components_j, estimate_energy

    llm, gpu = resolve_llm(args.llm), resolve_gpu(args.gpu)
    df = estimate_energy(llm, gpu, args.t_in, args.t_out, mode=args.mode, batch=args.batch)
    if args.json:
        comps = components_j(df)
        emit(df.attrs | {f"{k}_j": v for k, v in comps.items()}
             | {"total_wh": comps["total"] / 3600,
                "per_output_token_j": comps["total"] / args.t_out}, True)  # fmt: skip
    else:
        print(f"{df.attrs['llm']} on {df.attrs['gpu']} ({args.mode} mode), "
              f"{args.t_in} in / {args.t_out} out, batch {args.batch}")  # fmt: skip
        emit(df.round(6), False)
    return 0
