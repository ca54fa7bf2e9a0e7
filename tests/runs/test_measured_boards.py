"""The hybrid describes each measured GPU by its board's datasheet (data/measured_boards.csv):
the Watt Counts "H200 NVL" runs were an H200 SXM, so the hybrid trains and evaluates them with the
H200 SXM row; the catalog's "H200 NVL" is NVIDIA's H200 NVL, and the WattGPU reproduction reads
the paper's own row (700 W, 4,890 GB/s) from data/paper_wattgpu_gpu_features.csv."""

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import training_runs as T
from wattgpu_lite.wattgpu.features import paper_gpu


def test_every_measured_gpu_has_a_board_and_only_the_h200_changes():
    boards = T.measured_boards()
    assert set(boards) == set(wl.measurements()["gpu"])
    assert {k: v for k, v in boards.items() if k != v} == {"H200 NVL": "H200 SXM"}


def test_the_h200_board_is_the_sxm_datasheet_the_catalog_the_nvl_and_wattgpu_the_paper_row():
    sxm, row, paper = T.board("H200 NVL"), wl.gpu("H200 NVL"), paper_gpu("H200 NVL")
    assert (sxm.name, sxm.tdp_w, sxm.fp16_tflops, sxm.fp8_tflops, sxm.bandwidth_gbs,
            sxm.memory_gb) == ("H200 SXM", 700.0, 989.0, 1979.0, 4800.0, 141.0)  # fmt: skip
    # NVIDIA H200 datasheet: H200 NVL up to 600 W, 4.8 TB/s, 1,671* TFLOPS FP16 with sparsity
    assert (row.tdp_w, row.fp16_tflops, row.bandwidth_gbs, row.measured) == (600.0, 835.0, 4800.0,
                                                                             True)  # fmt: skip
    # WattGPU gpu_features.csv @4e010359, row "NVIDIA H200" (TDP raised to 700 W by its authors)
    assert (paper.tdp_w, paper.fp16_tflops, paper.bandwidth_gbs) == (700.0, 835.0, 4890.0)


def test_the_evidence_the_power_exceeds_the_nvl_limit_and_stays_under_the_sxm_one():
    runs = wl.measurements()
    h200 = runs.loc[runs["gpu"] == "H200 NVL", "power_w"]
    assert 600 < h200.max() <= 700 and (h200 > 600).sum() > 100


def test_the_training_set_uses_the_board_and_keeps_the_measured_label():
    ts = T.watt_counts()
    names = {(label, g.name) for label, g in zip(ts.frame["gpu"], ts.gpus, strict=True)}
    assert ("H200 NVL", "H200 SXM") in names and not any(g == "H200 NVL" for _, g in names)
