"""The external check per GPU: the hybrid, the backbone alone, a plain roofline and EcoLogits on the
published measurements of data/external_measurements.csv (never fitted on).

Prints ``label: figure`` lines (for run_all.py): per GPU outside training and quantity, MdAPE (%) of the
hybrid and of the backbone alone, their 80 % coverage and median interval width hi/lo, and the roofline's
and EcoLogits' MdAPE. The goals of issue 17 (GPUs outside training: ITL <= 20 %, power <= 10 %, J/token
<= 20 %, coverage >= 0.7 with median ITL hi/lo <= 2) are figures to read here, not asserts.
Run: .venv/bin/python benchmarks/external_check.py
"""

from __future__ import annotations

from wattgpu_lite.hybrid.report import external_per_gpu as R


def main() -> None:
    rep = R.per_gpu()
    for _, r in rep.iterrows():
        seen = ", trained" if r["in_training"] else ""
        tag = f"{r['gpu']} {r['quantity']} ({int(r['rows'])} rows{seen})"
        print(
            f"{tag} MdAPE hybrid / backbone %: {r['mdape_hybrid']:.1f} / {r['mdape_backbone']:.1f}"
        )
        print(f"{tag} coverage80 hybrid / backbone: "
              f"{r['coverage80_hybrid']:.2f} / {r['coverage80_backbone']:.2f}")  # fmt: skip
        print(f"{tag} width hi/lo hybrid / backbone: "
              f"{r['width_hybrid']:.2f} / {r['width_backbone']:.2f}")  # fmt: skip
        print(f"{tag} MdAPE roofline %: {r['mdape_roofline']:.1f}")
        if r["quantity"] == "energy_per_token_j":
            print(f"{tag} MdAPE EcoLogits %: {r['mdape_ecologits']:.1f}")


if __name__ == "__main__":
    main()
