"""Load as a number: Little's law by hand, offline per-request vs aggregate ITL, rate/batch input."""

from __future__ import annotations

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.load import (
    aggregate_time_per_token_s,
    both_latencies,
    busy_fraction,
    check_load,
    in_flight,
    kv_capacity_seqs,
    littles_law_in_flight,
    nearest_scenario,
    offline_in_flight,
    per_request_itl_s,
    server_time_per_token_s,
)

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def test_littles_law_by_hand():
    # 0.33 req/s, 3 s each -> 0.99 requests in flight; busy 1 - e^-0.99
    assert littles_law_in_flight(0.33, 3.0) == pytest.approx(0.99)
    assert busy_fraction(0.99) == pytest.approx(1 - np.exp(-0.99))


def test_offline_conversion_per_request_vs_aggregate():
    # 1/throughput = 0.2 ms at 200 sequences in flight -> each request sees 40 ms between tokens
    assert per_request_itl_s(2e-4, 200) == pytest.approx(0.04)
    assert aggregate_time_per_token_s(0.04, 200) == pytest.approx(2e-4)
    itl, tpt = both_latencies([2e-4, 0.02], [True, False], [200.0, 0.5])
    np.testing.assert_allclose(itl, [0.04, 0.02])  # offline converted, server kept
    np.testing.assert_allclose(tpt, [2e-4, 0.04])


def test_server_time_per_token_is_one_over_throughput():
    # 0.1 req/s x 200 tokens = 20 tokens/s
    assert server_time_per_token_s(0.1, 200.0) == pytest.approx(0.05)


def test_offline_in_flight_is_capped_by_max_num_seqs_and_kv_blocks():
    big, small, m = wl.gpu("H200 NVL"), wl.gpu("L4"), wl.llm(LLAMA)
    assert kv_capacity_seqs(m, big, 15.0, 200.0) == 256.0
    # L4: (0.9 x 24 GB - FP16 weights) / (16 tokens x 128 KiB) blocks; a sequence of 15 + 2000/2
    # tokens holds ceil(1015 / 16) = 64 blocks
    blocks = np.floor((0.9 * 24e9 - 2 * m.params_b * 1e9) / (16 * m.kv_bytes_per_token))
    assert kv_capacity_seqs(m, small, 15.0, 2000.0) == np.floor(blocks / 64) < 256
    assert in_flight(m, small, 15.0, 2000.0, batch=500.0) == np.floor(blocks / 64)
    assert in_flight(m, big, 15.0, 200.0, batch=32.0) == 32.0


def test_offline_in_flight_is_the_run_mean_with_the_drain():
    m, big = wl.llm(LLAMA), wl.gpu("H200 NVL")
    # 1,000 prompts at 256 in flight, then the last wave drains: L = n b / (n + b)
    assert in_flight(m, big, 15.0, 200.0) == pytest.approx(1000 * 256 / 1256)
    assert offline_in_flight(256.0, 58.0) == pytest.approx(29.0)  # all at once: n / 2


def test_load_input_is_checked_and_mapped():
    with pytest.raises(InvalidInputError, match="not both"):
        check_load(0.1, 32)
    with pytest.raises(InvalidInputError, match="rate"):
        check_load(-1.0, None)
    assert nearest_scenario(0.1, np.nan) == "server_high"
    assert nearest_scenario(0.02, np.nan) == "server_low"
    assert nearest_scenario(np.nan, 32.0) == "offline"
