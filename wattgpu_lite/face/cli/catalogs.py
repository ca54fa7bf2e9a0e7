"""``gpus`` and ``llms``: list the catalogs, or show what the kit reads from a config.json.

python -m wattgpu_lite gpus [--json]
python -m wattgpu_lite llms [--json] [--llm NAME|config.json [--name NAME] | --aliases]
"""

from __future__ import annotations

import argparse

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face.cli import LLM_HELP, add_name_flag, add_output_flags, command, deliver
from wattgpu_lite.face.cli.output import Result, document, text_record, text_table

# columns of the readable tables (--json prints every field)
GPU_TABLE = [
    "name",
    "memory_gb",
    "memory_type",
    "bandwidth_gbs",
    "fp16_tflops",
    "tdp_w",
    "release_year",
    "measured",
]
LLM_TABLE = [
    "name",
    "model_type",
    "params_b",
    "params_nominal_b",
    "n_layers",
    "hidden_size",
    "n_heads",
    "n_kv_heads",
    "in_wattgpu",
]


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``gpus`` and ``llms``."""
    gpus = command(
        sub, "gpus", "list the GPU catalog (data/gpus.csv)", "wattgpu-lite gpus --output gpus.csv"
    )
    add_output_flags(gpus)
    gpus.set_defaults(func=run_gpus)
    llms = command(
        sub,
        "llms",
        "list the LLM catalog, or show what the kit reads of one model",
        "wattgpu-lite llms --llm mistralai/Mixtral-8x7B-v0.1",
    )
    add_output_flags(llms)
    llms.add_argument(
        "--llm",
        default=None,
        help=f"show what the kit reads of one model instead of the list: {LLM_HELP}",
    )
    add_name_flag(llms)
    llms.add_argument(
        "--aliases",
        action="store_true",
        help="list the checkpoint ids that share a catalog architecture "
        "(data/llm_aliases.csv), e.g. Qwen/Qwen3-235B-A22B-Instruct-2507",
    )
    llms.set_defaults(func=run_llms)


def run_gpus(args: argparse.Namespace) -> int:
    from wattgpu_lite.specs.catalog import gpus

    table = gpus()  # its to_document() is the JSON: wl.gpus().to_json() is `gpus --json`
    return deliver(Result(table.to_document(), text_table(table[GPU_TABLE], args.wide)), args)


def run_llms(args: argparse.Namespace) -> int:
    from wattgpu_lite.specs.catalog import llm_aliases, llms
    from wattgpu_lite.specs.resolve import resolve_llm

    if args.name is not None and args.llm is None:  # the listing would ignore it
        raise InvalidInputError(
            f"--name {args.name!r} names the model of --llm (a config.json): give --llm with "
            "it, or drop --name"
        )
    if args.aliases and args.llm is not None:  # one model would be shown, not the aliases
        raise InvalidInputError(
            "--aliases lists the checkpoint aliases and --llm shows one model: give one of them"
        )
    if args.llm is not None:
        model = resolve_llm(args.llm, args.name)
        understood = dict(model.__dict__) | {"kv_bytes_per_token": model.kv_bytes_per_token}
        return deliver(Result(document("llm_config", understood), text_record(understood)), args)
    if args.aliases:
        table = llm_aliases()
        view = text_table(table.drop(columns="source"), args.wide)
        return deliver(Result(table.to_document(), view), args)
    table = llms()
    return deliver(Result(table.to_document(), text_table(table[LLM_TABLE], args.wide)), args)
