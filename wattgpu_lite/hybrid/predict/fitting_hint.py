"""How many GPUs a model that does not fit needs: the hint a CapacityError of ``wl.predict`` adds.

    fewest_gpus_that_fit(model, device, "bf16", 15, t_out=180)   # -> 2, or None
    fitting_hint(model, device, layout, "bf16", t_in=15, t_out=180)   # "try num_gpus=2 (...)"

Both use the kit's one memory rule (:func:`~wattgpu_lite.energy.occupancy.kv_capacity_seqs`).
"""

from __future__ import annotations

from wattgpu_lite.energy.occupancy import kv_capacity_seqs
from wattgpu_lite.energy.request import check_num_gpus
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.specs.layout import MAX_GPUS, Parallel


def fewest_gpus_that_fit(
    model,
    device,
    weights: str,
    t_in: int,
    *,
    t_out: int,
    start: int = 1,
    kv_cache=None,
    engine=None,
) -> int | None:
    """The fewest tensor-parallel GPUs above ``start`` (and at most MAX_GPUS) on which ``model``
    runs at all, by the kit's one memory rule: the KV cache of the replica (at ``kv_cache``, in
    the ``engine``'s share of memory) holds at least one sequence of ``t_in`` + ``t_out`` tokens
    beside the weights (:func:`~wattgpu_lite.energy.occupancy.kv_capacity_seqs` ≥ 1), and the
    layout splits the heads evenly (:func:`check_num_gpus`); None when no count does."""
    for n in range(start + 1, MAX_GPUS + 1):
        try:
            check_num_gpus(n, model, device)
        except InvalidInputError:
            continue
        if (
            kv_capacity_seqs(
                model,
                device,
                t_in,
                t_out,
                num_gpus=n,
                weights=weights,
                kv_cache=kv_cache,
                engine=engine,
            )
            >= 1
        ):
            return n
    return None


def fitting_hint(
    model, device, layout: Parallel, weights: str, *, t_in: int, t_out: int, req=None
) -> str:
    """The hint "try num_gpus=N" when N GPUs of ``device`` hold what ``layout`` does not, or ""."""
    kv, eng = (None, None) if req is None else (req.kv_cache, req.engine)
    if (
        kv_capacity_seqs(
            model, device, t_in, t_out, num_gpus=layout, weights=weights, kv_cache=kv, engine=eng
        )
        >= 1
    ):
        return ""
    n = fewest_gpus_that_fit(
        model, device, weights, t_in, t_out=t_out, start=layout.num_gpus, kv_cache=kv, engine=eng
    )
    return "" if n is None else f"try num_gpus={n} ({n} × {device.name}, tensor parallel)"
