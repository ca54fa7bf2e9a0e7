"""Library messages, reworded for the shell: the library's errors name Python calls and keyword
arguments (``See wl.gpus()``, ``num_gpus=1``); the CLI's error printer says the command or flag
instead. The library stays as it is; each phrase below is replaced where it appears."""

from __future__ import annotations

import difflib

# (what the library says, what a shell user reads), applied in order
FOR_SHELL: tuple[tuple[str, str], ...] = (
    (
        "See wl.gpus() for the catalog, or build one with wl.GPU.from_spec({...}).",
        "Run `wattgpu-lite gpus` to list them, or pass a GPU spec file: --gpu path/to/spec.json.",
    ),
    (
        "See wl.llms() for the catalog and wl.llm_aliases() for checkpoint ids; for any other model "
        "pass its config.json: wl.LLM.from_hf_config('path/to/config.json') in Python, "
        "--llm path/to/config.json on the command line.",
        "Run `wattgpu-lite llms` to list them and `wattgpu-lite llms --aliases` for checkpoint ids; "
        "for any other model pass its config.json: --llm path/to/config.json.",
    ),
    (
        "use num_gpus=1 or build the GPU with wl.GPU.from_spec({..., 'interconnect_gbs': ...}).",
        'use --num-gpus 1, or add "interconnect_gbs" to the GPU\'s spec file (--gpu path/to/spec.json).',
    ),
    (
        "Use wl.predict (the physics backbone answers for it, with wider intervals) or pick a dense "
        "model from wl.llms().",
        "Use `wattgpu-lite predict` (the physics backbone answers for it, with wider intervals) or "
        "pick a dense model from `wattgpu-lite llms`.",
    ),
    (
        "Pass a lower rate_qps, or use more replicas (wl.rank_gpus plans them).",
        "Pass a lower --rate-qps, or use more replicas (`wattgpu-lite rank` plans them).",
    ),
    ("(wl.rank_gpus lists them)", "(`wattgpu-lite rank` lists them)"),
    ("; pass batch <= ", "; pass --batch <= "),
    ("; try num_gpus=", "; try --num-gpus "),
    ("(see GPU.from_spec's docstring)", "(`wattgpu-lite gpus --json` shows every field)"),
    ("e.g. parallel=wl.Parallel(tp=4) or wl.Parallel(ep=8).", "e.g. --tp 4 or --ep 8."),
    (
        "(or pass grid_gco2_per_kwh=, a grid intensity in gCO2e/kWh)",
        "(or pass --grid-gco2-per-kwh, a grid intensity in gCO2e/kWh)",
    ),
    # a request's checks (energy.request) name the keyword: the flag in the example instead
    ("e.g. t_in=500", "e.g. --t-in 500"),
    ("e.g. t_out=500", "e.g. --t-out 500"),
    ("e.g. batch=8", "e.g. --batch 8"),
    ("pass e.g. max_num_seqs=256", "pass e.g. --max-num-seqs 256"),
    ("pass e.g. num_gpus=1, 2, 4 or 8", "pass e.g. --num-gpus 1, 2, 4 or 8"),
    (  # --level 80 (a percentage) is the usual slip
        "pass level from 0.5 to 0.999, e.g. 0.8 or 0.9",
        "pass --level from 0.5 to 0.999, a fraction: --level 0.8 for an 80 % interval",
    ),
)


def for_shell(message: str) -> str:
    """``message`` with every Python-only phrase of FOR_SHELL replaced by its shell wording."""
    for python, shell in FOR_SHELL:
        message = message.replace(python, shell)
    return message


def unrecognized(words: list[str], options: list[str]) -> str:
    """argparse's message for ``words`` that no option of the command takes, with the close
    matches (difflib) of each mistyped long option among the command's own ``options``: argparse
    reads no prefix of an option (``allow_abbrev=False``), so ``--model`` gets its close match
    ``--model-dir`` named instead of being read as it."""
    hints = []
    for word in words:
        flag = word.split("=", 1)[0]
        near = difflib.get_close_matches(flag, options, n=2, cutoff=0.7) * flag.startswith("--")
        hints += [f"{flag}: did you mean {' or '.join(near)}?"] if near else []
    return f"unrecognized arguments: {' '.join(words)}" + "".join(f" ({h})" for h in hints)
