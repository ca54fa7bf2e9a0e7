"""One checked request (:mod:`wattgpu_lite.energy.request`) behind every entry point: the same bad
input gets the same error, with the same message, from ``wl.predict``, ``wl.explain``,
``wl.estimate_energy``, ``wl.rank_gpus`` and the CLI's commands (where the field applies); and
each call builds its :class:`Request` once."""

from __future__ import annotations

import numpy as np
import pytest

import wattgpu_lite as wl
from tests.cli_runner import run_cli
from wattgpu_lite.energy.request import Request, check_asked, check_request
from wattgpu_lite.errors import WattGPUError
from wattgpu_lite.face.cli.messages import for_shell

LLAMA, GPU = "meta-llama/Llama-3.1-8B-Instruct", "H100 SXM"  # 32 attention heads
FLAGS = {"t_in": "--t-in", "batch": "--batch", "weights": "--weights", "engine": "--engine",
         "kv_cache": "--kv-cache", "max_num_seqs": "--max-num-seqs", "num_gpus": "--num-gpus",
         "scenario": "--scenario", "level": "--level"}  # fmt: skip
# (the bad input, the entry points it applies to: the load-free estimate has no scenario or level)
ALL, LOADED = ("predict", "explain", "estimate", "rank"), ("predict", "explain", "rank")
BAD = [
    ({"t_in": 0}, ALL),
    ({"batch": -1.0}, ALL),  # a float, as --batch reads it
    ({"weights": "fp7"}, ALL),
    ({"engine": "vlm"}, ALL),
    ({"kv_cache": "fp9"}, ALL),
    ({"max_num_seqs": 0}, ALL),
    ({"num_gpus": 3}, ALL),  # tp=3 does not split 32 heads
    ({"scenario": "offlin"}, LOADED),
    ({"level": 0.9999}, LOADED),
    ({"t_in": 0, "weights": "fp7"}, ALL),  # the first check in predict's order speaks
    ({"batch": -1.0, "t_in": 0}, ALL),
]


def _load(bad: dict) -> dict:
    """A good load unless ``bad`` gives one."""
    return {} if {"batch", "scenario"} & set(bad) else {"rate_qps": 0.1}


def _python(entry: str, bad: dict) -> BaseException:
    """The error the Python entry point raises for ``bad`` (a good request otherwise)."""
    kw = dict(bad)
    if entry == "rank":
        counts = kw.pop("num_gpus", 1)
        kw |= {"candidates": [GPU], "gpu_counts": (counts,), "itl_sla_ms": 50}
    call = {"predict": lambda: wl.predict(LLAMA, GPU, **_load(bad), **kw),
            "explain": lambda: wl.explain(LLAMA, GPU, **_load(bad), **kw),
            "estimate": lambda: wl.estimate_energy(LLAMA, GPU, **kw),
            "rank": lambda: wl.rank_gpus(LLAMA, **_load(bad), **kw)}[entry]  # fmt: skip
    with pytest.raises(WattGPUError) as caught:
        call()
    return caught.value


def _cli(entry: str, bad: dict, capsys) -> tuple[int, str]:
    """(exit code, stderr) of the CLI command for ``bad``."""
    head = {
        "rank": ["--itl-sla-ms", "50", "--gpus", GPU, "--gpu-counts", str(bad.get("num_gpus", 1))]
    }
    argv = [entry, "--llm", LLAMA, *head.get(entry, ["--gpu", GPU])]
    argv += (
        []
        if entry == "estimate"
        else [w for k, v in _load(bad).items() for w in ("--rate-qps", str(v))]
    )
    for key, value in bad.items():
        if not (entry == "rank" and key == "num_gpus"):
            argv += [FLAGS[key], str(value)]
    code, _, err = run_cli(argv, capsys)
    return code, err.strip()


@pytest.mark.parametrize(("bad", "entries"), BAD, ids=[str(b) for b, _ in BAD])
def test_the_same_bad_input_gets_the_same_message_everywhere(bad, entries, capsys):
    said = _python("predict", bad)
    for entry in entries:
        err = _python(entry, bad)
        assert type(err) is type(said), (entry, err)
        if entry == "rank" and "num_gpus" in bad:  # every plan refused: each plan's reason
            assert str(said) in str(err) and str(err).startswith("no layout of gpu_counts (3,)")
        else:
            assert str(err) == str(said), entry
    shell = for_shell(" ".join(str(said).split()))
    for entry in entries:
        code, err = _cli(entry, bad, capsys)
        assert code == 2 and err.startswith("error: ") and shell in err, (entry, err)


def _counted(monkeypatch) -> list[Request]:
    """Every :class:`Request` built from now on."""
    built: list[Request] = []
    init = Request.__init__

    def counted(self, *args, **kwargs):
        init(self, *args, **kwargs)
        built.append(self)

    monkeypatch.setattr(Request, "__init__", counted)
    return built


@pytest.mark.parametrize(
    "call",
    [
        lambda: wl.predict(LLAMA, GPU, rate_qps=0.5, t_in=500, t_out=300),
        lambda: wl.explain(LLAMA, GPU, batch=8),
        lambda: wl.estimate_energy(LLAMA, GPU, batch=8, num_gpus=2, kv_cache="fp8"),
        lambda: wl.rank_gpus(LLAMA, rate_qps=2.0, itl_sla_ms=50, candidates=["L4", GPU]),
    ],
    ids=["predict", "explain", "estimate_energy", "rank_gpus"],
)
def test_each_entry_point_builds_one_request(call, monkeypatch):
    built = _counted(monkeypatch)
    call()
    assert len(built) == 1
    assert built[0].llm.name == LLAMA


def test_the_cli_builds_one_request(monkeypatch, capsys):
    built = _counted(monkeypatch)
    code, _, err = run_cli(
        ["predict", "--llm", LLAMA, "--gpu", GPU, "--scenario", "offline"], capsys
    )
    assert code == 0, err
    assert [(r.gpu.name, r.offline, r.level) for r in built] == [(GPU, True, 0.8)]


def test_a_request_owns_its_fields():
    """The resolved LLM and GPU, the layout, the formats, the load rule and the level."""
    model, device = wl.llm(LLAMA), wl.gpu(GPU)
    req = check_request(model, device, num_gpus=2, scenario="offline", kv_cache="fp8", level=0.9)
    assert (req.llm, req.gpu, req.layout) == (model, device, wl.Parallel(tp=2))
    assert (req.weights, req.kv_cache, req.engine, req.max_num_seqs) == ("bf16", "fp8", "vllm", 256)
    assert req.offline and req.level == 0.9 and req.serving_args()["kv_cache"] == "fp8"
    assert req.batch_at(np.array([1000.0])) == 500.0  # offline: 1,000 prompts, half in flight
    ranked = check_asked(model, batch=8, t_in=100, t_out=50)  # a ranking's: its plans name GPUs
    assert (ranked.gpu, ranked.layout, ranked.level, ranked.batch) == (None, None, None, 8.0)
    assert ranked.batch_at(np.array([4.0])) == 8.0 and ranked.serving_args() == {}
