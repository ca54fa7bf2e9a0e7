"""A long table's configurations are built once (row_arrays.build_once) and any part of its
rows gathered from them: the same Rows and KV capacities, to the bit, as building that part on its
own."""

from __future__ import annotations

import numpy as np

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.energy.uniques import Coded, unique_by_identity
from wattgpu_lite.specs.layout import Parallel


def test_a_part_gathered_from_the_whole_is_the_part_built_alone():
    rng = np.random.default_rng(4)
    n = 600
    llms = [wl.llm(x) for x in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B")]
    gpus = [wl.gpu(x) for x in ("L4", "H100 SXM", "MI300X")]
    args = ([llms[k] for k in rng.integers(0, 2, n)], [gpus[k] for k in rng.integers(0, 3, n)],
            rng.integers(10, 3000, n).astype(float), rng.integers(10, 900, n).astype(float))  # fmt: skip
    named = {"num_gpus": [Parallel(int(k)) for k in rng.choice([1, 2, 4], n)],
             "weights": list(rng.choice([None, "fp8", "int4"], n)),
             "kv_cache": list(rng.choice(["auto", "fp8"], n)),
             "engine": list(rng.choice(["vllm", "sglang"], n)),
             "max_num_seqs": rng.choice([16.0, 256.0], n)}  # fmt: skip
    whole = R.build_once(*args, **named)
    part = np.sort(rng.choice(n, 250, replace=False))
    cut = lambda a: a[part] if isinstance(a, np.ndarray) else [a[i] for i in part]  # noqa: E731
    alone = R.build(*map(cut, args), **{k: cut(v) for k, v in named.items()})
    rows, cap = whole.rows(part)
    assert np.array_equal(cap, alone[1]) and (cap > 0).any()
    for name, value in rows.__dict__.items():
        other = alone[0].__dict__[name]
        pairs = zip(value, other, strict=True) if isinstance(value, tuple) else [(value, other)]
        assert all(np.array_equal(a, b, equal_nan=True) for a, b in pairs), name
    assert R.build(*args, **named)[1].tolist() == whole.cap.tolist()
    coded = {k: Coded(*unique_by_identity(a)) if isinstance(a, list) else a for k, a in named.items()}  # fmt: skip
    assert isinstance(R.layouts_per_row(coded["num_gpus"], n), Coded)
    kept = R.build_once(*args, **coded)  # layouts and formats as codes (predict_many's): same rows
    assert np.array_equal(kept.code, whole.code) and np.array_equal(kept.cap, whole.cap)
    for name, value in kept.arrays.items():
        assert np.array_equal(value, whole.arrays[name], equal_nan=True), name
    # rows grouped by the caller (predict_many's checks): a configuration per group, even when
    # two groups name equal ones (here every row its own group); the same rows
    for groups in (whole.code * 7 + 3, np.arange(n)[::-1]):
        grouped = R.build_once(*args, **coded, groups=groups)
        assert len(grouped.arrays["n_layers"]) == len(np.unique(groups))
        rows, cap = grouped.rows(part)
        assert np.array_equal(cap, alone[1])
        for name, value in rows.__dict__.items():
            other = alone[0].__dict__[name]
            pairs = zip(value, other, strict=True) if isinstance(value, tuple) else [(value, other)]
            assert all(np.array_equal(a, b, equal_nan=True) for a, b in pairs), name


def test_capacities_are_kv_capacity_seqs_row_by_row():
    """Each configuration's KV blocks once, then the rows' sequences at once: each row's
    kv_capacity_seqs, with the engine's default limit or a limit per row."""
    from wattgpu_lite.energy.occupancy import kv_capacity_seqs

    rng = np.random.default_rng(5)
    n = 300
    llm, gpus = wl.llm("meta-llama/Llama-3.1-8B-Instruct"), [wl.gpu("L4"), wl.gpu("A30")]
    pick, t_in, t_out = rng.integers(0, 2, n), rng.integers(10, 6000, n), rng.integers(10, 900, n)
    engines = list(rng.choice(["vllm", "sglang", "tensorrt-llm"], n))
    for limit in (None, rng.choice([8.0, 64.0, 4096.0], n)):
        _, cap = R.build([llm] * n, [gpus[k] for k in pick], t_in, t_out, engine=engines,
                         max_num_seqs=limit)  # fmt: skip
        one = [kv_capacity_seqs(llm, gpus[pick[i]], t_in[i], t_out[i], num_gpus=1, engine=engines[i],
                                max_num_seqs=None if limit is None else limit[i])
               for i in range(n)]  # fmt: skip
        assert cap.tolist() == [float(x) for x in one] and len(set(cap)) > 5


def _arrays_equal(a: tuple, b: tuple) -> bool:
    """The Rows and capacities of two builds, every array equal to the bit (NaN equal)."""
    (rows_a, cap_a), (rows_b, cap_b) = a, b
    flat = []
    for name, value in rows_a.__dict__.items():
        other = rows_b.__dict__[name]
        flat += zip(value, other, strict=True) if isinstance(value, tuple) else [(value, other)]
    return np.array_equal(cap_a, cap_b) and all(np.array_equal(x, y, equal_nan=True)
                                                for x, y in flat)  # fmt: skip


def test_a_configuration_kept_from_a_call_is_never_another_configurations():
    """The configurations' arrays are kept between calls (a warm predict): equal results with
    a cold and a warm cache, and a GPU, LLM, layout, format or engine that differs in one value
    (a user's copy under another name included) never reads another's entry."""
    from dataclasses import replace

    llm, gpu = wl.llm("meta-llama/Llama-3.1-8B-Instruct"), wl.gpu("H100 SXM")
    faster = replace(gpu, name="H100 SXM (custom)", bandwidth_gbs=gpu.bandwidth_gbs * 1.5)
    shallower = replace(llm, name="mine", n_layers=16)
    calls = [((llm,), (gpu,), 1, None, None, None), ((llm,), (faster,), 1, None, None, None),
             ((shallower,), (gpu,), 1, None, None, None), ((llm,), (gpu,), 2, None, None, None),
             ((llm,), (gpu,), 1, ["fp8"], None, None), ((llm,), (gpu,), 1, None, "fp8", None),
             ((llm,), (gpu,), 1, None, None, "sglang")]  # fmt: skip
    R._configured.cache_clear()
    cold = []
    for m, g, n, w, kv, eng in calls:
        cold.append(
            R.build(list(m), list(g), 700.0, 300.0, num_gpus=n, weights=w, kv_cache=kv, engine=eng)
        )
        R._configured.cache_clear()
    for k, (m, g, n, w, kv, eng) in enumerate(calls * 2):  # every entry kept, then read again
        warm = R.build(
            list(m), list(g), 700.0, 300.0, num_gpus=n, weights=w, kv_cache=kv, engine=eng
        )
        assert _arrays_equal(warm, cold[k % len(calls)]), calls[k % len(calls)]
    for i, a in enumerate(cold):  # the configurations differ: no entry could stand for another
        assert not any(_arrays_equal(a, b) for b in cold[i + 1 :]), calls[i]
    assert R._configured.cache_info().hits >= len(calls)


def test_a_long_tables_configurations_are_kept_one_by_one_and_never_shared_writable():
    """More configurations than a list kept (CACHED_UP_TO): each configuration's numbers are
    kept on their own (_configured_one), immutable; every build gets arrays of its own, so a
    caller that writes into them changes no later build."""
    llms = [wl.llm(x) for x in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B")]
    gpus = [wl.gpu(x) for x in wl.gpus()["name"]]
    pairs = [(m, g) for m in llms for g in gpus]
    assert len(pairs) > R.CACHED_UP_TO
    args = ([m for m, _ in pairs], [g for _, g in pairs], 500.0, 200.0)
    wl.clear_caches()
    cold = R.build_once(*args)
    assert R._configured_one.cache_info().currsize == len(pairs)
    row = R._configured_one((llms[0], gpus[0], Parallel(1), (None, None, None)))
    assert isinstance(row, tuple) and hash(row) is not None  # numbers and tuples: immutable
    for a in cold.arrays.values():
        a[...] = -1  # the caller's own arrays
    warm = R.build_once(*args)
    assert R._configured_one.cache_info().hits >= len(pairs)
    wl.clear_caches()
    fresh = R.build_once(*args)
    assert R._configured_one.cache_info().currsize == len(pairs)
    for k, a in warm.arrays.items():
        assert np.array_equal(a, fresh.arrays[k], equal_nan=True) and (a != -1).any(), k
    assert np.array_equal(warm.cap, fresh.cap)
