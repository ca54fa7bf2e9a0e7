"""The layout of one replica: tensor parallel, expert parallel, data-parallel attention.

``Parallel(tp=4)`` splits every layer over 4 GPUs (vLLM ``--tensor-parallel-size 4``).
``Parallel(tp=8, ep=8)`` keeps attention split over the 8 GPUs and places whole experts on them
(vLLM ``--tensor-parallel-size 8 --enable-expert-parallel``): no all-to-all, the MoE output is
combined by the same all-reduce as tensor parallelism. ``Parallel(ep=8)`` is the layout large MoE
deployments run (DeepSeek-V3 serving, vLLM ``--data-parallel-size 8 --enable-expert-parallel``):
each GPU runs attention for its own share of the sequences (data-parallel attention, ``ep / tp``
copies of the attention weights) and the experts are spread over the 8 GPUs, tokens reaching
them by an all-to-all dispatch and returning by an all-to-all combine.

The replica holds ``num_gpus = max(tp, ep)`` GPUs; ``dp_attention`` is ``ep > tp``.
"""

from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass

from wattgpu_lite.checks import check_flag
from wattgpu_lite.errors import InvalidInputError

MAX_GPUS = 64


def _whole(name: str, value) -> int:
    """A whole number in [1, MAX_GPUS], else InvalidInputError naming the field."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not ok or not 1 <= value <= MAX_GPUS:
        raise InvalidInputError(
            f"{name} must be a whole number of GPUs in [1, {MAX_GPUS}], "
            f"got {value!r}; e.g. num_gpus=4 or Parallel(tp=4)."
        )
    return int(value)


@dataclass(frozen=True)
class Parallel:
    """A replica's layout: ``tp`` GPUs share each attention (and dense) layer, ``ep`` GPUs share
    the routed experts (1: experts split like any layer). ``ep`` is 1, ``tp``, or a multiple of
    ``tp`` (then attention is data-parallel over ``ep / tp`` groups)."""

    tp: int = 1
    ep: int = 1

    def __post_init__(self) -> None:
        tp, ep = _whole("Parallel.tp", self.tp), _whole("Parallel.ep", self.ep)
        if ep > 1 and ep % tp:
            raise InvalidInputError(
                f"Parallel(tp={tp}, ep={ep}): ep must be 1, tp, or a multiple of tp (each "
                f"attention group of tp GPUs is one data-parallel rank of the expert group); "
                f"use ep={tp} or ep={tp * max(1, round(ep / tp))}."
            )
        if max(tp, ep) > MAX_GPUS:
            raise InvalidInputError(f"Parallel: at most {MAX_GPUS} GPUs per replica.")

    @property
    def num_gpus(self) -> int:
        """GPUs of the replica: max(tp, ep)."""
        return max(self.tp, self.ep)

    @property
    def dp(self) -> int:
        """Data-parallel attention groups: num_gpus / tp (1 without expert parallelism)."""
        return self.num_gpus // self.tp

    @property
    def dp_attention(self) -> bool:
        """Whether attention runs data-parallel (each group on its own sequences)."""
        return self.dp > 1

    @property
    def label(self) -> str:
        """Short text for tables: 'TP4', 'TP8·EP8', 'DP8·EP8'."""
        if self.ep == 1:
            return f"TP{self.tp}"
        data_parallel = f"DP{self.dp}" if self.tp == 1 else f"TP{self.tp}×DP{self.dp}"
        attn = f"TP{self.tp}" if self.dp == 1 else data_parallel
        return f"{attn}·EP{self.ep}"

    def to_dict(self) -> dict[str, int | bool]:
        return asdict(self) | {"num_gpus": self.num_gpus, "dp_attention": self.dp_attention}

    def check_for(self, llm) -> Parallel:
        """This layout if ``llm`` can run on it, else InvalidInputError naming the field and fix."""
        if llm.n_heads % self.tp:
            ok = [n for n in (1, 2, 4, 8, 16) if llm.n_heads % n == 0]
            raise InvalidInputError(
                f"tp={self.tp} (num_gpus or Parallel.tp): tensor parallelism splits the "
                f"{llm.n_heads} attention heads of "
                f"{llm.name!r} evenly, so tp must divide {llm.n_heads}; use tp in {ok}."
            )
        if self.ep > 1 and not llm.is_moe:
            raise InvalidInputError(
                f"ep={self.ep}: {llm.name!r} is dense (no experts to spread); "
                f"use Parallel(tp={self.num_gpus})."
            )
        if self.ep > 1 and self.ep > llm.n_experts:
            raise InvalidInputError(
                f"ep={self.ep}: expert parallelism needs at least as many "
                f"experts as GPUs; {llm.name!r} has {llm.n_experts}; use "
                f"ep <= {llm.n_experts} or tensor parallelism."
            )
        if self.ep > 1 and llm.n_experts % self.ep:
            ok = [n for n in (2, 4, 8, 16, 32, 64) if llm.n_experts % n == 0]
            raise InvalidInputError(
                f"ep={self.ep}: the {llm.n_experts} routed experts of {llm.name!r} are placed "
                f"evenly, so ep must divide {llm.n_experts}; use ep in {ok}."
            )
        return self


def as_layout(value, expert_parallel: bool = False) -> Parallel:
    """A Parallel from a Parallel or a GPU count (``num_gpus``: tensor parallel, or with
    ``expert_parallel`` experts over the same GPUs, ``Parallel(tp=n, ep=n)``)."""
    expert_parallel = check_flag("expert_parallel", expert_parallel)
    if isinstance(value, Parallel):
        return value
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise InvalidInputError(
            f"num_gpus must be a whole number of GPUs or a Parallel layout, "
            f"got {value!r}; e.g. num_gpus=4 or parallel=Parallel(tp=4)."
        )
    n = _whole("num_gpus", int(value))
    return Parallel(tp=n, ep=n if expert_parallel and n > 1 else 1)


def layout_of(num_gpus=1, parallel: Parallel | None = None, expert_parallel=False) -> Parallel:
    """The one layout from ``parallel=`` or the older ``num_gpus`` (+ ``expert_parallel``, a real
    boolean: ``"yes"`` or 1 is an InvalidInputError, not a guess)."""
    expert_parallel = check_flag("expert_parallel", expert_parallel)
    if parallel is None:
        return as_layout(num_gpus, expert_parallel)
    if not isinstance(parallel, Parallel):
        raise InvalidInputError(
            f"parallel must be a wl.Parallel, got {parallel!r}; e.g. "
            "parallel=wl.Parallel(tp=4) or wl.Parallel(ep=8)."
        )
    if num_gpus not in (1, parallel.num_gpus) or expert_parallel:
        drop = "expert_parallel (the Parallel's ep says it)" if expert_parallel else "num_gpus"
        raise InvalidInputError(
            f"give the layout once: parallel={parallel!r} (num_gpus "
            f"{parallel.num_gpus}) with num_gpus={num_gpus!r} and "
            f"expert_parallel={expert_parallel!r}; drop {drop}."
        )
    return parallel
