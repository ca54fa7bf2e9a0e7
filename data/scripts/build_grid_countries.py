"""Build data/grid_intensity_countries.csv: one row per country, its latest yearly grid intensity.

    .venv/bin/python data/scripts/build_grid_countries.py OWID_CSV [ISO_JSON]

OWID_CSV: Our World in Data's download of the chart "carbon-intensity-electricity" (columns Entity,
Code, Year and the intensity in gCO2e/kWh; the energy dataset's ``carbon_intensity_elec``, from
Ember's Yearly Electricity Data and the Energy Institute's Statistical Review). ISO_JSON: the ISO
3166-1 table of Debian's iso-codes package (default /usr/share/iso-codes/json/iso_3166-1.json),
which carries each country's alpha-2 and alpha-3 code. Not run by the tests; data/SOURCES.md says
which copies were read and their sha256.

Rules: a row per OWID entity whose Code is an ISO 3166-1 alpha-3 code (OWID's aggregates have no
code or an ``OWID_`` one, and are left out, as is Kosovo, OWID_KOS, which has no ISO code); its
latest year with a value; the value rounded to 0.1 gCO2e/kWh; the name as OWID writes it.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "grid_intensity_countries.csv"
ISO_DEFAULT = Path("/usr/share/iso-codes/json/iso_3166-1.json")
SOURCE = ("Our World in Data, carbon intensity of electricity generation "
          "(carbon_intensity_elec; Ember Yearly Electricity Data 2025 and Energy Institute "
          "Statistical Review of World Energy 2024), latest year with a value "
          "https://ourworldindata.org/grapher/carbon-intensity-electricity")  # fmt: skip
COLUMNS = ("code", "iso_alpha3", "region", "year", "gco2e_per_kwh", "source")


def alpha2_of(iso_json: Path) -> dict[str, str]:
    """ISO 3166-1 alpha-3 -> alpha-2, from iso-codes' iso_3166-1.json."""
    table = json.loads(iso_json.read_text(encoding="utf-8"))["3166-1"]
    return {row["alpha_3"]: row["alpha_2"] for row in table}


def latest_rows(owid_csv: Path) -> dict[str, tuple[str, int, float]]:
    """alpha-3 -> (OWID name, latest year, gCO2e/kWh) of every entity with an ISO-like code."""
    latest: dict[str, tuple[str, int, float]] = {}
    with owid_csv.open(encoding="utf-8", newline="") as handle:
        for entity, code, year, value in csv.reader(handle):
            if code in ("", "Code") or code.startswith("OWID_") or value == "":
                continue
            if code not in latest or int(year) > latest[code][1]:
                latest[code] = (entity, int(year), float(value))
    return latest


def build(owid_csv: Path, iso_json: Path) -> list[dict]:
    """The rows of the output, sorted by alpha-2 code; an OWID code that is no ISO code stops."""
    to_alpha2 = alpha2_of(iso_json)
    rows = []
    for alpha3, (name, year, value) in latest_rows(owid_csv).items():
        if alpha3 not in to_alpha2:
            raise SystemExit(f"{alpha3} ({name}) is not an ISO 3166-1 alpha-3 code")
        rows.append({"code": to_alpha2[alpha3], "iso_alpha3": alpha3, "region": name,
                     "year": year, "gco2e_per_kwh": round(value, 1), "source": SOURCE})  # fmt: skip
    return sorted(rows, key=lambda r: r["code"])


def main(argv: list[str]) -> None:
    owid_csv = Path(argv[1])
    iso_json = Path(argv[2]) if len(argv) > 2 else ISO_DEFAULT
    rows = build(owid_csv, iso_json)
    with OUT.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    digest = hashlib.sha256(owid_csv.read_bytes()).hexdigest()
    print(f"{len(rows)} countries from {owid_csv} (sha256 {digest}) -> {OUT}")


if __name__ == "__main__":
    main(sys.argv)
