"""The exceptions a user of the kit can meet, each with a message that says what to do.

Every error the kit raises on bad input derives from :class:`WattGPUError`, so a caller can catch
one class. Each subclass also derives from the matching builtin (``KeyError``, ``ValueError``) so
ordinary Python habits keep working.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class WattGPUError(Exception):
    """Base class of every error the kit raises on purpose."""

    def __str__(self) -> str:  # KeyError quotes its message; we do not want that
        return str(self.args[0]) if self.args else ""


MAX_NAME = 200  # characters of a name worth matching and quoting in a message


def close_matches(name: str, choices: Iterable[str], n: int = 5) -> list[str]:
    """Names in ``choices`` that look like ``name`` (case-insensitive), best first."""
    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    hits = [
        lowered[h] for h in difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.4)
    ]
    sub = [c for c in choices if name.lower() in c.lower() and c not in hits]
    return hits + sub[: max(0, n - len(hits))]


class UnknownNameError(WattGPUError, KeyError):
    """A name that is not in a catalog; the message lists close matches."""

    kind = "name"
    hint = ""

    def __init__(self, name: str, choices: Iterable[str], note: str = ""):
        self.name = name
        self.matches = close_matches(name, choices) if len(name) <= MAX_NAME else []
        near = ", ".join(repr(m) for m in self.matches) if self.matches else "none"
        shown = name if len(name) <= MAX_NAME else f"{name[:MAX_NAME]}…"
        msg = f"unknown {self.kind} {shown!r}. {note}Close matches: {near}. {self.hint}"
        super().__init__(msg.strip())


class UnknownGPUError(UnknownNameError):
    kind = "GPU"
    hint = "See wl.gpus() for the catalog, or build one with wl.GPU.from_spec({...})."


class UnknownLLMError(UnknownNameError):
    kind = "LLM"
    hint = (
        "See wl.llms() for the catalog and wl.llm_aliases() for checkpoint ids; for any other "
        "model pass its config.json: wl.LLM.from_hf_config('path/to/config.json') in Python, "
        "--llm path/to/config.json on the command line."
    )


class UnsupportedModelError(WattGPUError, ValueError):
    """A model the kit cannot describe honestly: MoE, quantised, or without attention."""


class ConfigError(WattGPUError, ValueError):
    """A Hugging Face config.json that lacks a field the kit needs, or has a nonsensical value."""


class SpecError(WattGPUError, ValueError):
    """A GPU spec with a missing, mistyped or out-of-range field."""


class InvalidInputError(WattGPUError, ValueError):
    """A workload argument out of range: tokens, batch, rate, SLA, scenario."""


class DataFileError(WattGPUError, ValueError):
    """A data file whose checksum, columns, dtypes or value ranges are not what the kit expects."""


class NoFeasibleGPUError(WattGPUError, ValueError):
    """No candidate GPU can hold the model (or meet the request): the message says why for each."""


class CapacityError(WattGPUError, ValueError):
    """A load one replica cannot serve (rate beyond its capacity, a batch above its KV cache, or
    weights that do not fit); the message gives the capacity and what to do."""


class MissingExtraError(WattGPUError, ImportError):
    """A feature whose third-party packages are in an optional extra that is not installed; the
    message names the extra and the pip command (``pip install 'wattgpu-lite[train]'``)."""


#: third-party module -> (the extra that installs it, its name on PyPI)
MODULE_EXTRAS = {
    "xgboost": ("train", "xgboost"),
    "sklearn": ("train", "scikit-learn"),
    "scipy": ("train", "scipy"),
    "tqdm": ("train", "tqdm"),
    "joblib": ("train", "joblib"),
    "sympy": ("lab", "sympy"),
    "matplotlib": ("lab", "matplotlib"),
    "seaborn": ("lab", "seaborn"),
    "ipywidgets": ("lab", "ipywidgets"),
    "IPython": ("lab", "ipython"),
}


def missing_extra(what: str, err: ImportError) -> MissingExtraError | None:
    """The MissingExtraError for ``err`` if it is a module of an extra that is not installed
    (``None`` for any other import error)."""
    top = (err.name or "").split(".")[0]
    if top not in MODULE_EXTRAS:
        return None
    extra, dist = MODULE_EXTRAS[top]
    return MissingExtraError(
        f"{what} needs the [{extra}] extra ({dist} is not installed): "
        f"pip install 'wattgpu-lite[{extra}]'"
    )


def require(module: str, extra: str, what: str):
    """Import ``module`` (e.g. ``"xgboost"``) and return it, or raise :class:`MissingExtraError`:
    "``what`` needs the [extra] extra (… is not installed): pip install 'wattgpu-lite[extra]'". A
    module needed by only some functions of a core module is imported through this, where it is
    used; ``extra`` must be the one :data:`MODULE_EXTRAS` names for it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as err:
        found = missing_extra(what, err)
        if found is None or MODULE_EXTRAS[module.split(".")[0]][0] != extra:
            raise  # one of the package's own imports failed, or the extra is misnamed here
        raise found from None
