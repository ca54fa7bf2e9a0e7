"""``wl.rank_gpus`` refuses, by name, an input one of its sources would take and ignore, and a
``candidates`` or ``layouts`` that is no collection (they once ended in a bare TypeError):

- ``context_tokens`` is the context the Watt Counts sources' memory-fit check reserves; the
  hybrid source checks each plan at the request's own t_in + t_out, so a context_tokens given
  to it (``--context-tokens`` with ``--source hybrid``) once changed nothing, silently;
- ``layouts`` given to a Watt Counts source (which knows one GPU) once passed when empty, and
  the CLI dropped ``--weights``, ``--gpu-counts``, ``--tp``, ``--kv-cache``, ``--engine`` and
  ``--max-num-seqs`` for those sources (the library refuses them);
- ``gpu_counts`` beside ``layouts`` (which name the layouts tried) was ignored;
- a Watt Counts source gives no intervals: its ranking at ``level=0.95`` was the one at 0.8;
- two different GPU specs of one name in ``candidates``: the first was dropped.
"""

import pytest

import wattgpu_lite as wl
from tests.cli_runner import one_error_line, run_cli
from wattgpu_lite.errors import InvalidInputError

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"
ASK = {"scenario": "server_low", "itl_sla_ms": 50}


@pytest.mark.parametrize("context_tokens", [100_000, 8])
def test_hybrid_refuses_a_context_tokens_it_would_ignore(context_tokens):
    with pytest.raises(InvalidInputError) as err:
        wl.rank_gpus(LLAMA8, candidates=["L4"], context_tokens=context_tokens, **ASK)
    message = str(err.value)
    assert f"context_tokens={context_tokens}" in message and "t_in + t_out" in message


def test_hybrid_at_the_default_context_tokens_answers_as_without_it():
    given = wl.rank_gpus(LLAMA8, candidates=["L4"], context_tokens=1024, gpu_counts=(1,), **ASK)
    plain = wl.rank_gpus(LLAMA8, candidates=["L4"], gpu_counts=(1,), **ASK)
    assert given["energy_per_1k_tokens_j"].tolist() == plain["energy_per_1k_tokens_j"].tolist()


def test_cli_context_tokens_with_the_hybrid_source_is_one_error_line(capsys):
    argv = ["rank", "--llm", LLAMA8, "--itl-sla-ms", "50", "--scenario", "server_low",
            "--gpus", "L4", "--context-tokens", "100000"]  # fmt: skip
    one_error_line(*run_cli(argv, capsys), ["context_tokens=100000", "source='hybrid'"])


@pytest.mark.parametrize("source", ["measured", "paper", "logo"])
@pytest.mark.parametrize("layouts", [[], ()])
def test_watt_counts_sources_refuse_any_layouts(source, layouts):
    with pytest.raises(InvalidInputError, match="source='hybrid' for gpu_counts, layouts"):
        wl.rank_gpus(LLAMA8, source=source, layouts=layouts, **ASK)


@pytest.mark.parametrize("candidates", [True, 0, 2.5, float("nan")])
def test_candidates_that_are_no_gpus_are_refused_by_name(candidates):
    with pytest.raises(InvalidInputError, match=r"candidates must be GPUs, got .*candidates=\["):
        wl.rank_gpus(LLAMA8, candidates=candidates, **ASK)


@pytest.mark.parametrize("layouts", [wl.Parallel(tp=2), 2, "tp=2"])
def test_layouts_that_are_no_list_are_refused_by_name(layouts):
    with pytest.raises(InvalidInputError, match=r"layouts must be a list of wl.Parallel"):
        wl.rank_gpus(LLAMA8, candidates=["L4"], layouts=layouts, **ASK)


@pytest.mark.parametrize(
    "flags",
    [["--weights", "fp8"], ["--gpu-counts", "2"], ["--tp", "2"], ["--kv-cache", "fp8"],
     ["--engine", "sglang"], ["--max-num-seqs", "8"]],
)  # fmt: skip
def test_cli_plan_flags_reach_a_watt_counts_source_which_refuses_them(flags, capsys):
    argv = ["rank", "--llm", LLAMA8, "--itl-sla-ms", "50", "--scenario", "server_low",
            "--gpus", "L4", "--source", "measured", *flags]  # fmt: skip
    one_error_line(*run_cli(argv, capsys), ["source 'measured'", "source='hybrid'"])


def test_gpu_counts_beside_layouts_is_refused_not_ignored():
    with pytest.raises(InvalidInputError, match=r"give layouts or gpu_counts, not both"):
        wl.rank_gpus(LLAMA8, candidates=["L4"], layouts=[wl.Parallel(tp=2)], gpu_counts=(4,), **ASK)
    plan = wl.rank_gpus(LLAMA8, candidates=["L4"], layouts=[wl.Parallel(tp=2)], **ASK)
    assert plan["layout"].tolist() == ["TP2"]


@pytest.mark.parametrize("source", ["measured", "paper", "logo"])
def test_watt_counts_sources_refuse_a_level_they_have_no_interval_for(source):
    with pytest.raises(InvalidInputError, match=r"gives no intervals, so level=0.95 would be"):
        wl.rank_gpus(LLAMA8, source=source, level=0.95, **ASK)
    assert len(wl.rank_gpus(LLAMA8, source=source, level=0.8, **ASK)) > 0


SPEC = {"name": "Probe GPU", "release_year": 2024, "memory_gb": 48, "memory_type": "HBM3",
        "bandwidth_gbs": 2000, "tdp_w": 300, "fp16_tflops": 400}  # fmt: skip


def test_two_different_gpus_of_one_name_are_refused_not_one_dropped():
    twins = [SPEC, {**SPEC, "bandwidth_gbs": 500}]
    with pytest.raises(InvalidInputError, match=r"two different GPUs named 'Probe GPU'; give"):
        wl.rank_gpus(LLAMA8, candidates=twins, gpu_counts=(1,), **ASK)
    same = wl.rank_gpus(LLAMA8, candidates=[SPEC, dict(SPEC), "L4", "l4"], gpu_counts=(1,), **ASK)
    assert sorted(same["gpu"]) == ["L4", "Probe GPU"]
