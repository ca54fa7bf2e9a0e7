"""Build data/gpus.csv from the shared reference spec tables (not run by the tests).

    .venv/bin/python data/scripts/build_gpus.py [REFERENCE_DIR]

REFERENCE_DIR (default ../shared/reference) holds wattgpu/gpu_features.csv (WattGPU @ 4e010359,
';'-separated, TechPowerUp columns + NVIDIA dense tensor TFLOPS) and specs/gpus.csv (vendor
datasheets + TechPowerUp). The 8 measured GPUs take every value from their WattGPU row (the specs
the measurements were taken against); FP8 and form factor, which that row lacks, come from
specs/gpus.csv. Other GPUs come from specs/gpus.csv; transistor counts of the same die from WattGPU.
See data/SOURCES.md for what disagrees.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "gpus.csv"
REF = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference")
WG = "WattGPU gpu_features.csv @4e010359 (TechPowerUp {url}; dense tensor TFLOPS from NVIDIA)"

# catalog name -> (WattGPU gpu_type = nvidia-smi name, specs/gpus.csv name, form factor)
MEASURED = {
    "V100 SXM2 32GB": ("Tesla V100-SXM2-32GB", "V100 SXM2 32GB", "SXM2"),
    "T4": ("Tesla T4", "T4", "PCIe"),
    "A100 SXM4 40GB": ("NVIDIA A100-SXM4-40GB", "A100 SXM4 40GB", "SXM4"),
    "A30": ("NVIDIA A30", "A30", "PCIe"),
    "L40S": ("NVIDIA L40S", "L40S", "PCIe"),
    "L4": ("NVIDIA L4", "L4", "PCIe"),
    "H100 NVL": ("NVIDIA H100 NVL", "H100 NVL", "PCIe"),
    "H200 NVL": ("NVIDIA H200", "H200 NVL", "PCIe"),
}
# catalog name -> (specs/gpus.csv name, form factor, nvidia-smi / common aliases)
OTHERS = {
    "V100 PCIe 16GB": ("V100 PCIe 16GB", "PCIe", "Tesla V100-PCIE-16GB"),
    "V100 PCIe 32GB": ("V100 PCIe 32GB", "PCIe", "Tesla V100-PCIE-32GB"),
    "V100 SXM2 16GB": ("V100 SXM2 16GB", "SXM2", "Tesla V100-SXM2-16GB"),
    "A10": ("A10", "PCIe", "NVIDIA A10"),
    "A10G": ("A10G", "PCIe", "NVIDIA A10G"),
    "A40": ("A40", "PCIe", "NVIDIA A40"),
    "A100 PCIe 40GB": ("A100 PCIe 40GB", "PCIe", "NVIDIA A100-PCIE-40GB"),
    "A100 PCIe 80GB": ("A100 PCIe 80GB", "PCIe", "NVIDIA A100 80GB PCIe"),
    "A100 SXM4 80GB": ("A100 SXM4 80GB", "SXM4", "NVIDIA A100-SXM4-80GB"),
    "L40": ("L40", "PCIe", "NVIDIA L40"),
    "RTX 6000 Ada": ("RTX 6000 Ada", "PCIe", "NVIDIA RTX 6000 Ada Generation"),
    "H100 PCIe": ("H100 PCIe", "PCIe", "NVIDIA H100 PCIe"),
    "H100 SXM": ("H100 SXM5 80GB", "SXM5", "NVIDIA H100 80GB HBM3|H100|H100 SXM5 80GB"),
    "H200 SXM": ("H200 SXM 141GB", "SXM5", "H200 SXM 141GB"),
    "GH200": ("GH200 (Hopper GPU of Grace Hopper superchip)", "Superchip", "GH200 144GB"),
    "B200": ("B200 (HGX)", "SXM6", "NVIDIA B200"),
    "MI210": ("MI210", "PCIe", "AMD Instinct MI210"),
    "MI250": ("MI250", "OAM", "AMD Instinct MI250"),
    "MI250X": ("MI250X", "OAM", "AMD Instinct MI250X"),
    "MI300X": ("MI300X", "OAM", "AMD Instinct MI300X"),
}
# GPUs only WattGPU lists (consumer boards, not measured): catalog name -> WattGPU gpu_type
WATTGPU_ONLY = {"RTX 3090": "NVIDIA GeForce RTX 3090", "RTX 4090": "NVIDIA GeForce RTX 4090"}
# values specs/gpus.csv leaves as ranges or alternatives: the one we keep (see SOURCES.md)
GH200_CHOICE = dict(memory_gb=144, bandwidth_gbs=4900, memory_type="HBM3e", tdp_w=1000)


def process_nm(text: str) -> float:
    """TechPowerUp's convention: TSMC 4N/4NP -> 5/4 nm, '12nm FFN' -> 12, '5nm + 6nm' -> 5."""
    if "4NP" in text:
        return 4.0
    if "4N" in text:
        return 5.0
    return float(re.search(r"(\d+)\s*nm", text).group(1))


def first_number(value) -> float:
    """The first number in a cell ('32 (4 MB/XCD) + ...' -> 32); NaN if there is none."""
    hit = re.search(r"\d+(\.\d+)?", str(value))
    return float(hit.group(0)) if hit and str(value) != "nan" else float("nan")


def wattgpu_row(row: pd.Series, spec: pd.Series | None, name: str, form: str) -> dict:
    """A catalog row from a WattGPU (TechPowerUp) row; FP8 from the specs row when there is one."""
    fp8 = first_number(spec["fp8_dense_tflops"]) if spec is not None else float("nan")
    return {
        "name": name, "vendor": row.manufacturer, "architecture": row.architecture,
        "release_year": int(row.release_year), "process_nm": float(row.process_size_nm),
        "base_clock_mhz": row.base_clock_mhz, "boost_clock_mhz": row.boost_clock_mhz,
        "memory_gb": row.memory_size_gb, "memory_type": row.memory_type,
        "bandwidth_gbs": row.memory_bandwidth_gb_s, "bus_width_bits": int(row.memory_bus_bits),
        "l2_cache_mb": row.l2_cache_mb, "sm_count": int(row.streaming_multiprocessors),
        "tensor_cores": int(row.tensor_cores), "transistors_m": row.transistor_count_m,
        "tdp_w": float(row.thermal_design_power_w), "fp16_tflops": float(row.tensor_tflops),
        "fp8_tflops": fp8, "form_factor": form, "smi_name": row.gpu_type,
        "source": WG.format(url=row.tpu_url) + ("; FP8: specs/gpus.csv" if fp8 == fp8 else ""),
    }  # fmt: skip


def spec_row(spec: pd.Series, name: str, form: str, transistors: dict[str, float]) -> dict:
    """A catalog row from specs/gpus.csv; transistors from a WattGPU row with the same die."""
    die = str(spec.chip).split()[0]
    return {
        "name": name, "vendor": spec.vendor.split()[0], "architecture": spec.architecture,
        "release_year": int(spec.release_year), "process_nm": process_nm(spec.process_node),
        "base_clock_mhz": first_number(spec.base_clock_mhz),
        "boost_clock_mhz": first_number(spec.boost_clock_mhz),
        "memory_gb": first_number(spec.memory_gb),
        "memory_type": str(spec.memory_type).split(" (")[0].split(" /")[0],
        "bandwidth_gbs": first_number(spec.memory_bw_gbs),
        "bus_width_bits": first_number(spec.memory_bus_bits),
        "l2_cache_mb": first_number(spec.l2_cache_mb), "sm_count": int(spec.sm_cu_count),
        "tensor_cores": int(spec.tensor_matrix_cores), "transistors_m": transistors.get(die),
        "tdp_w": first_number(spec.tdp_w), "fp16_tflops": float(spec.fp16_bf16_dense_tflops),
        "fp8_tflops": first_number(spec.fp8_dense_tflops), "form_factor": form, "smi_name": "",
        "source": "specs/gpus.csv: " + spec.source
        + (f"; transistors: TechPowerUp {die} via WattGPU" if die in transistors else ""),
    }  # fmt: skip


def build() -> pd.DataFrame:
    wg = pd.read_csv(REF / "wattgpu/gpu_features.csv", sep=";").set_index("gpu_type", drop=False)
    specs = pd.read_csv(REF / "specs/gpus.csv").set_index("name", drop=False)
    transistors = dict(zip(wg.gpu_name, wg.transistor_count_m, strict=True))
    rows = []
    for name, (smi, spec_name, form) in MEASURED.items():
        row = wattgpu_row(wg.loc[smi], specs.loc[spec_name], name, form)
        rows.append(row | {"measured": True, "aliases": f"{smi}|{wg.loc[smi].gpu_db_name}"})
    for name, (spec_name, form, aliases) in OTHERS.items():
        row = spec_row(specs.loc[spec_name], name, form, transistors)
        rows.append(row | {"measured": False, "aliases": aliases})
    for name, smi in WATTGPU_ONLY.items():
        row = wattgpu_row(wg.loc[smi], None, name, "PCIe")
        rows.append(row | {"measured": False, "smi_name": "", "aliases": smi})
    out = pd.DataFrame(rows).set_index("name", drop=False)
    for key, value in GH200_CHOICE.items():
        out.loc["GH200", key] = value
    return out


if __name__ == "__main__":
    table = build()
    cols = [c for c in table.columns if c not in ("aliases", "source")] + ["aliases", "source"]
    table[cols].to_csv(OUT, index=False)
    print(f"{len(table)} GPUs ({int(table.measured.sum())} measured) -> {OUT}")
