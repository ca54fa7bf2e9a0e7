"""The README's energy findings are the library's numbers (notebook 01 prints the same). Its MdAPE
medians are tested beside the validation they come from (test_energy_validation.py), which then
runs once."""

from pathlib import Path

from wattgpu_lite.energy import audit as A

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
SECTION = README.split("- **Tokens-to-Watt-hours, Table 3:**")[1].split(
    "- **WattGPU reproduced:**"
)[0]


def test_table3_reading_counts_in_the_readme():
    r = A.table3_readings().set_index("label")
    counts = A.reading_counts(r.reset_index()).set_index("reading")
    assert f"{counts.loc['500/300', 'within_10_pct']} of 16 rows within 10 %" in SECTION
    assert (
        counts.loc["500/500", "within_10_pct"] == 0 and "(none within 10 % at 500/500)" in SECTION
    )
    assert counts.loc["500/300", "within_0.1_pct"] == 2  # "Qwen3-8B and Qwen3-1.7B to four figures"
    text = " ".join(SECTION.split())
    assert f"{counts.loc['500/300', 'beyond_10_pct']} rows still do not reproduce" in text
    assert f"Llama-3.3-70B +{r.loc['Llama 3.3 (70B)', 'error_pct_500_300']:.0f} %" in SECTION
    assert f"32 B rows +{r.loc['Qwen3 (32B)', 'error_pct_500_300']:.0f} %" in SECTION
