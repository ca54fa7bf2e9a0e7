"""Build data/gpus.csv from the shared reference spec tables and our fact table (not run by the tests).

    .venv/bin/python data/scripts/build_gpus.py [REFERENCE_DIR]     (from the repository root)

REFERENCE_DIR (default ../shared/reference) holds wattgpu/gpu_features.csv (WattGPU @ 4e010359,
';'-separated, TechPowerUp columns + NVIDIA dense tensor TFLOPS) and specs/gpus.csv (vendor
datasheets + TechPowerUp). The 8 measured GPUs take every value from their WattGPU row (the specs
the measurements were taken against), except the rows of DATASHEET_OVER_PAPER, where that row
contradicts the datasheet of the board it names: those take the datasheet row, and the paper's rows
of all 8 are written to data/paper_wattgpu_gpu_features.csv for the WattGPU reproduction. Form
factor, which WattGPU's rows lack, is set in MEASURED.
Other GPUs come from specs/gpus.csv; transistor counts of the same die from WattGPU.

data/scripts/gpu_facts_2026.csv (one row per GPU and field, each with its unit and source) then
adds the low-precision peaks (fp8_tflops, fp4_tflops, int8_tops, all dense), the interconnect
columns (with link_domain_gpus, the GPUs the link joins) and idle_power_w to every row, may correct other fields of the unmeasured rows (never of a
measured one), and is the only source of the rows listed in FACT_ONLY. Each fact's source lands in
`source_fp8` (FP8/FP4/INT8), `source_interconnect` or, for any other field, the row's `source`.
See data/SOURCES.md for what disagrees.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "gpus.csv"
PAPER_OUT = Path(__file__).resolve().parents[1] / "paper_wattgpu_gpu_features.csv"
FACTS = Path(__file__).resolve().parent / "gpu_facts_2026.csv"
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
# measured rows whose WattGPU values disagree with the datasheet their name cites: the catalog takes
# the datasheet row of specs/gpus.csv (the runs' GPU label and the measured flag stay); the paper's
# row, which WattGPU's features were computed against, goes to paper_wattgpu_gpu_features.csv.
# The "H200 NVL" of WattGPU is 700 W and 4,890 GB/s; NVIDIA's H200 NVL is up to 600 W at 4.8 TB/s.
DATASHEET_OVER_PAPER = ("H200 NVL",)
# the paper's own rows: WattGPU's columns that the reproduction reads (wattgpu.features.GPU_FIELDS)
PAPER_COLUMNS = ["name", "smi_name", "tdp_w", "base_clock_mhz", "boost_clock_mhz", "bandwidth_gbs",
                 "memory_gb", "memory_type", "fp16_tflops", "transistors_m", "release_year",
                 "source"]  # fmt: skip
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
# GPUs only the fact table describes: catalog name -> aliases
FACT_ONLY = {
    "B100": "NVIDIA B100|HGX B100",
    "GB200": "NVIDIA GB200|GB200 NVL72",
    "B300": "NVIDIA B300|HGX B300",
    "GB300": "NVIDIA GB300|GB300 NVL72",
    "MI325X": "AMD Instinct MI325X",
    "MI350X": "AMD Instinct MI350X",
    "MI355X": "AMD Instinct MI355X",
}
# values specs/gpus.csv leaves as ranges or alternatives: the one we keep (see SOURCES.md)
GH200_CHOICE = dict(memory_gb=144, bandwidth_gbs=4900, memory_type="HBM3e", tdp_w=1000)

# the fact table: its columns, the new catalog columns it fills, and the unit each field must carry
FACT_COLUMNS = ["gpu", "field", "value", "unit", "source", "note"]
LOW_PRECISION = ("fp8_tflops", "fp4_tflops", "int8_tops")
LINK = ("interconnect", "interconnect_gbs", "interconnect_direction", "link_domain_gpus")
NEW_COLUMNS = ("fp4_tflops", "int8_tops", *LINK, "idle_power_w")
UNITS = {
    "vendor": "", "architecture": "", "memory_type": "", "form_factor": "", "interconnect": "",
    "interconnect_direction": "", "release_year": "year", "process_nm": "nm", "base_clock_mhz": "MHz",
    "boost_clock_mhz": "MHz", "memory_gb": "GB", "bandwidth_gbs": "GB/s", "bus_width_bits": "bit",
    "l2_cache_mb": "MB", "sm_count": "CU", "tensor_cores": "count", "transistors_m": "million",
    "tdp_w": "W", "idle_power_w": "W", "fp16_tflops": "TFLOPS", "fp8_tflops": "TFLOPS",
    "fp4_tflops": "TFLOPS", "int8_tops": "TOPS", "interconnect_gbs": "GB/s",
    "link_domain_gpus": "GPUs",
}  # fmt: skip
TEXT_FIELDS = ("vendor", "architecture", "memory_type", "form_factor", "interconnect",
               "interconnect_direction")  # fmt: skip
DIRECTIONS = ("bidirectional", "unidirectional")
INT_COLUMNS = ("release_year", "sm_count", "tensor_cores")


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


def wattgpu_row(row: pd.Series, name: str, form: str) -> dict:
    """A catalog row from a WattGPU (TechPowerUp) row; FP8 and the rest come from the fact table."""
    return {
        "name": name, "vendor": row.manufacturer, "architecture": row.architecture,
        "release_year": int(row.release_year), "process_nm": float(row.process_size_nm),
        "base_clock_mhz": row.base_clock_mhz, "boost_clock_mhz": row.boost_clock_mhz,
        "memory_gb": row.memory_size_gb, "memory_type": row.memory_type,
        "bandwidth_gbs": row.memory_bandwidth_gb_s, "bus_width_bits": int(row.memory_bus_bits),
        "l2_cache_mb": row.l2_cache_mb, "sm_count": int(row.streaming_multiprocessors),
        "tensor_cores": int(row.tensor_cores), "transistors_m": row.transistor_count_m,
        "tdp_w": float(row.thermal_design_power_w), "fp16_tflops": float(row.tensor_tflops),
        "fp8_tflops": float("nan"), "form_factor": form, "smi_name": row.gpu_type,
        "source": WG.format(url=row.tpu_url),
    }  # fmt: skip


def spec_row(spec: pd.Series, name: str, form: str, transistors: dict[str, float]) -> dict:
    """A catalog row from specs/gpus.csv; transistors from a WattGPU row with the same die.

    FP8 is left to the fact table, which states for every GPU which vendor figure it halved."""
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
        "fp8_tflops": float("nan"), "form_factor": form, "smi_name": "",
        "source": "specs/gpus.csv: " + spec.source
        + (f"; transistors: TechPowerUp {die} via WattGPU" if die in transistors else ""),
    }  # fmt: skip


def read_facts(path: Path = FACTS) -> pd.DataFrame:
    """The fact table, checked: known fields, the unit each field must carry, a source on every row."""
    facts = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(facts.columns) != FACT_COLUMNS:
        raise ValueError(f"{path.name}: columns {list(facts.columns)}, expected {FACT_COLUMNS}")
    for i, fact in facts.iterrows():
        where = f"{path.name} line {i + 2} ({fact.gpu}, {fact.field})"
        if fact.field not in UNITS:
            raise ValueError(f"{where}: unknown field; valid: {sorted(UNITS)}")
        if fact.unit != UNITS[fact.field]:
            raise ValueError(f"{where}: unit {fact.unit!r}, expected {UNITS[fact.field]!r}")
        if not fact.source.strip() or not fact.value.strip():
            raise ValueError(f"{where}: every fact needs a value and a source")
        if fact.field not in TEXT_FIELDS and not float(fact.value) > 0:
            raise ValueError(f"{where}: {fact.value!r} is not a positive number")
        if fact.field == "interconnect_direction" and fact.value not in DIRECTIONS:
            raise ValueError(f"{where}: direction must be one of {DIRECTIONS}")
    dupes = facts[facts.duplicated(["gpu", "field"], keep=False)]
    if len(dupes):
        raise ValueError(
            f"{path.name}: more than one value for {dupes[['gpu', 'field']].values.tolist()}"
        )
    return facts


def joined(sources) -> str:
    """Distinct sources in order of first appearance, '; '-separated."""
    return "; ".join(dict.fromkeys(s for s in sources if s))


def apply_facts(table: pd.DataFrame, facts: pd.DataFrame) -> pd.DataFrame:
    """Fill the new columns from the fact table, add the FACT_ONLY rows, cite every fact."""
    unknown = sorted(set(facts.gpu) - set(table.index) - set(FACT_ONLY))
    if unknown:
        raise ValueError(f"gpu_facts_2026.csv names GPUs the catalog does not have: {unknown}")
    new_rows = [
        {"name": name, "measured": False, "smi_name": "", "aliases": aliases}
        for name, aliases in FACT_ONLY.items()
    ]
    table = pd.concat([table, pd.DataFrame(new_rows).set_index("name", drop=False)])
    for column in NEW_COLUMNS:
        table[column] = "" if column in TEXT_FIELDS else float("nan")
    table["source_fp8"] = ""
    table["source_interconnect"] = ""
    for name, rows in facts.groupby("gpu", sort=False):
        if table.at[name, "measured"]:
            kept = sorted(set(rows.field) - set(LOW_PRECISION) - set(NEW_COLUMNS))
            if kept:
                raise ValueError(
                    f"{name} is measured: its WattGPU values stay; the facts set {kept}"
                )
        for fact in rows.itertuples():
            value = fact.value if fact.field in TEXT_FIELDS else float(fact.value)
            table.at[name, fact.field] = value
        base = rows[~rows.field.isin(LOW_PRECISION + LINK)]
        if name in FACT_ONLY:
            table.at[name, "source"] = joined(base.source)
        elif len(base):
            extra = joined(f"{f.field}: {f.source}" for f in base.itertuples())
            table.at[name, "source"] = f"{table.at[name, 'source']}; {extra}"
        table.at[name, "source_fp8"] = joined(rows[rows.field.isin(LOW_PRECISION)].source)
        table.at[name, "source_interconnect"] = joined(rows[rows.field.isin(LINK)].source)
    for column in INT_COLUMNS:
        table[column] = pd.to_numeric(table[column]).round().astype("Int64")
    return table


def paper_rows() -> pd.DataFrame:
    """The 8 measured GPUs exactly as WattGPU's gpu_features.csv gives them (the paper's inputs)."""
    wg = pd.read_csv(REF / "wattgpu/gpu_features.csv", sep=";").set_index("gpu_type", drop=False)
    rows = [wattgpu_row(wg.loc[smi], name, form) for name, (smi, _s, form) in MEASURED.items()]
    return pd.DataFrame(rows)[PAPER_COLUMNS]


def build() -> pd.DataFrame:
    wg = pd.read_csv(REF / "wattgpu/gpu_features.csv", sep=";").set_index("gpu_type", drop=False)
    specs = pd.read_csv(REF / "specs/gpus.csv").set_index("name", drop=False)
    transistors = dict(zip(wg.gpu_name, wg.transistor_count_m, strict=True))
    rows = []
    for name, (smi, spec_name, form) in MEASURED.items():
        if name in DATASHEET_OVER_PAPER:
            row = spec_row(specs.loc[spec_name], name, form, transistors) | {"smi_name": smi}
        else:
            row = wattgpu_row(wg.loc[smi], name, form)
        rows.append(row | {"measured": True, "aliases": f"{smi}|{wg.loc[smi].gpu_db_name}"})
    for name, (spec_name, form, aliases) in OTHERS.items():
        row = spec_row(specs.loc[spec_name], name, form, transistors)
        rows.append(row | {"measured": False, "aliases": aliases})
    for name, smi in WATTGPU_ONLY.items():
        row = wattgpu_row(wg.loc[smi], name, "PCIe")
        rows.append(row | {"measured": False, "smi_name": "", "aliases": smi})
    out = pd.DataFrame(rows).set_index("name", drop=False)
    for key, value in GH200_CHOICE.items():
        out.loc["GH200", key] = value
    return apply_facts(out, read_facts())


if __name__ == "__main__":
    table = build()
    tail = ["aliases", "source", "source_fp8", "source_interconnect"]
    cols = [c for c in table.columns if c not in tail and c not in NEW_COLUMNS]
    table[cols + list(NEW_COLUMNS) + tail].to_csv(OUT, index=False)
    paper_rows().to_csv(PAPER_OUT, index=False)
    print(f"{len(table)} GPUs ({int(table.measured.sum())} measured) -> {OUT}")
