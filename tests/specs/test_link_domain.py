"""A replica never spans more GPUs than its link joins on that link: never NVLink across nodes.

The all-reduce time holds on the GPU's own link (NVLink, Infinity Fabric, a bridge, PCIe inside one
server); beyond the GPUs that link joins (``link_domain_gpus``) the traffic crosses the scale-out
network where ``data/scaleout_links.csv`` documents one (``tests/energy/test_scaleout.py``), and
elsewhere (a bridge's PCIe, a node without a documented network) every entry point refuses with
the reason, and a ranking lists the layout as refused rather than pricing it."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import links
from wattgpu_lite.errors import InvalidInputError

LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct"


def _domain(name: str) -> float:
    return wl.gpu(name).link_domain_gpus


def test_every_nvlink_or_infinity_fabric_gpu_says_how_many_gpus_it_joins_and_cites_it():
    """A GPU-to-GPU link (NVLink, a bridge, Infinity Fabric) has its domain from a document; a
    PCIe-only card may leave it blank (then one 8-GPU server is assumed, and said)."""
    table = wl.gpus()
    linked = table[table["interconnect"].str.contains("NVLink|Infinity Fabric")]
    assert linked["link_domain_gpus"].isna().sum() == 0
    assert (linked["link_domain_gpus"] >= 2).all()
    assert linked["source_interconnect"].str.contains("GPU|node|baseboard|card").all()


@pytest.mark.parametrize(("name", "joined"), [
    ("H100 SXM", 8),   # one HGX/DGX H100 baseboard
    ("B200", 8),       # one HGX/DGX B200 baseboard
    ("GB200", 72),     # one NVL72 rack: NVLink across its trays
    ("H100 NVL", 2),   # two cards on one NVLink bridge
    ("MI300X", 8),     # one AMD Instinct platform
])  # fmt: skip
def test_the_catalog_joins_what_the_documents_say(name, joined):
    assert _domain(name) == joined


def test_sixteen_gpus_of_a_node_without_a_documented_network_are_refused_with_the_fix():
    """V100 SXM2: one 8-GPU NVLink node, no scale-out link in data/scaleout_links.csv."""
    with pytest.raises(InvalidInputError) as err:
        wl.predict(LLAMA_70B, "V100 SXM2 32GB", num_gpus=16, batch=8)
    text = str(err.value)
    assert "'V100 SXM2 32GB'" in text and "joins 8 GPUs" in text
    assert "scaleout_links.csv has no row" in text and "Gb/s per GPU" in text
    assert "at most 8 GPUs per replica" in text and "pipeline parallelism is not modelled" in text


def test_an_nvl72_rack_serves_sixteen_gpus_as_one_replica():
    p16 = wl.predict(LLAMA_70B, "GB200", num_gpus=16, batch=8)
    p8 = wl.predict(LLAMA_70B, "GB200", num_gpus=8, batch=8)
    assert math.isfinite(p16.itl_s) and p16.power_w > p8.power_w  # twice the GPUs draw more


def test_a_bridged_pair_is_refused_at_four_and_served_at_two():
    assert math.isfinite(wl.predict(LLAMA_70B, "H100 NVL", num_gpus=2, batch=8).itl_s)
    with pytest.raises(InvalidInputError, match="joins 2 GPUs"):
        wl.estimate_energy(LLAMA_70B, "H100 NVL", num_gpus=4)


def test_a_spec_that_does_not_say_is_held_to_one_server():
    spec = {k: v for k, v in wl.gpu("H100 SXM").__dict__.items() if k != "link_domain_gpus"}
    mine = wl.GPU.from_spec(spec | {"name": "my H100", "measured": False})
    assert math.isnan(mine.link_domain_gpus)
    links.check_link_domain(mine, links.UNKNOWN_DOMAIN_GPUS)  # no error
    with pytest.raises(InvalidInputError, match="give link_domain_gpus"):
        links.check_link_domain(mine, 2 * links.UNKNOWN_DOMAIN_GPUS)
    with pytest.raises(InvalidInputError, match="give link_domain_gpus"):  # its name has no row
        wl.predict(LLAMA_70B, mine, num_gpus=16, batch=8)
    bigger = wl.GPU.from_spec(spec | {"name": "my rack", "measured": False,
                                      "link_domain_gpus": 32})  # fmt: skip
    links.check_link_domain(bigger, 32)
    links.check_link_domain(wl.gpu("H100 SXM"), 64)  # over nodes: data/scaleout_links.csv


def test_a_ranking_lists_layouts_beyond_the_link_as_refused_never_priced():
    table = wl.rank_gpus(LLAMA_70B, itl_sla_ms=100, batch=8, candidates=["H100 NVL", "H100 SXM"],
                         gpu_counts=(2, 4))  # fmt: skip
    nvl4 = table[(table["gpu"] == "H100 NVL") & (table["num_gpus"] == 4)]
    assert len(nvl4) == 1 and "joins 2 GPUs" in nvl4["why_not"].iloc[0]
    assert not (nvl4["energy_per_token_j"].notna() & (nvl4["energy_per_token_j"] > 0)).any()
    sxm4 = table[(table["gpu"] == "H100 SXM") & (table["num_gpus"] == 4)]
    assert sxm4["energy_per_token_j"].gt(0).all()


def test_a_batch_row_beyond_the_link_gets_its_own_status():
    frame = pd.DataFrame({"llm": [LLAMA_70B] * 2, "gpu": ["V100 SXM2 32GB"] * 2,
                          "num_gpus": [8, 16], "batch": [8, 8]})  # fmt: skip
    out = wl.predict_many(frame)
    assert out["status"].iloc[0] == "ok" and math.isfinite(out["itl_s"].iloc[0])
    assert out["status"].iloc[1] != "ok" and math.isnan(out["itl_s"].iloc[1])
    assert "joins 8 GPUs" in out["message"].iloc[1]
