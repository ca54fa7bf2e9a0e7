"""The wall accounting's options, the same for ``rank``, ``predict``, ``explain`` and ``estimate``:
the flags, the keywords they give the library's functions, and the grid source as the CLI
reports it (:mod:`wattgpu_lite.selection.accounting` does the accounting)."""

from __future__ import annotations

import argparse

from wattgpu_lite.face.cli.defaults import BUILT_IN


def add_wall_flags(p: argparse.ArgumentParser) -> None:
    """The wall accounting's options, the same for ``rank``, ``predict``, ``explain`` and
    ``estimate``: ``--region`` or ``--grid-gco2-per-kwh`` (one of them), ``--pue`` and
    ``--price-per-kwh``; each but ``--region`` resolved flag > environment > file > built-in."""
    from wattgpu_lite.selection.accounting import (
        DEFAULT_GRID_GCO2_PER_KWH,
        DEFAULT_PRICE_PER_KWH,
        DEFAULT_PUE,
    )

    grid = p.add_mutually_exclusive_group()
    grid.add_argument(
        "--region",
        help="grid region: WORLD or a country's ISO 3166 code or name, any case "
        "(FR, gb, JP, Japan, ...: data/grid_intensity.csv and "
        "grid_intensity_countries.csv, Ember via Our World in Data; "
        "default WORLD, Ember; or region from WATTGPU_LITE_REGION or "
        "wattgpu-lite.toml), instead of --grid-gco2-per-kwh",
    )
    grid.add_argument(
        "--grid-gco2-per-kwh",
        type=float,
        help=f"grid carbon intensity, gCO2e/kWh, 0 to 5000, instead of --region "
        f"(default {DEFAULT_GRID_GCO2_PER_KWH:g}, Ember world average; or "
        "grid_gco2_per_kwh from WATTGPU_LITE_GRID_GCO2_PER_KWH or "
        "wattgpu-lite.toml)",
    )
    p.add_argument(
        "--price-per-kwh",
        type=float,
        help=f"electricity price per kWh, 0 to 100 (default "
        f"{DEFAULT_PRICE_PER_KWH:g} USD, EIA; or price_per_kwh from "
        "WATTGPU_LITE_PRICE_PER_KWH or wattgpu-lite.toml)",
    )
    p.add_argument(
        "--pue",
        type=float,
        help=f"power usage effectiveness, facility / IT energy, 1 to 3 (default "
        f"{DEFAULT_PUE:g}, Uptime Institute's 2023 industry average; or pue from "
        "WATTGPU_LITE_PUE or wattgpu-lite.toml)",
    )


def wall_inputs(args: argparse.Namespace) -> dict:
    """The wall accounting's keyword arguments from a command's resolved options: ``region``,
    the grid number, ``pue`` and ``price_per_kwh`` — each None when it is the built-in default,
    so that the Python call reports it as its own default (``"built-in"``)."""
    used = getattr(args, "defaults_used", {})

    def given(key: str):
        return None if used.get(key, {}).get("source") == BUILT_IN else getattr(args, key)

    return {
        "region": args.region,
        "grid_gco2_per_kwh": given("grid_gco2_per_kwh"),
        "pue": given("pue"),
        "price_per_kwh": given("price_per_kwh"),
    }


def grid_source(args: argparse.Namespace, source: str) -> str:
    """The accounting's grid source, a number's ("given") named by the environment variable or
    config file that gave it (a flag's stays "given", as a Python argument's)."""
    used = getattr(args, "defaults_used", {}).get("grid_gco2_per_kwh", {}).get("source", "")
    named = source == "given" and used.startswith(("environment ", "config "))
    return f"given by {used}" if named else source


def cli_wall(w: dict, args: argparse.Namespace) -> dict:
    """A result's ``wall`` as the CLI reports it: a grid "given" named by the environment
    variable or config file that gave it (:func:`grid_source`)."""
    return {**w, "grid_source": grid_source(args, w["grid_source"])}
