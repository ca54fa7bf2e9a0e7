"""Text output on any encoding (cp1252, ASCII: a character-by-character fallback), and names that
cannot add lines (control characters written as their escapes)."""

from __future__ import annotations

import wattgpu_lite as wl

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"

RANK_TEXT = ["rank", "--llm", LLAMA, "--rate-qps", "0.1", "--itl-sla-ms", "50", "--gpus",
             "L4,H100 SXM", "--gpu-counts", "1,2", "--top", "4"]  # fmt: skip


def test_rank_text_under_cp1252_writes_co2_in_ascii():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(wl.__file__).resolve().parents[1]
    env = os.environ | {"PYTHONIOENCODING": "cp1252", "PYTHONPATH": str(root)}
    run = subprocess.run([sys.executable, "-m", "wattgpu_lite", *RANK_TEXT], env=env,
                         capture_output=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    out = run.stdout.decode("cp1252")
    assert "g CO2e per request (wall)" in " ".join(out.split()) and "Pick: " in out
    assert "CO₂".encode() not in run.stdout


def test_rank_text_on_an_ascii_stream_falls_back_character_by_character(monkeypatch):
    import io
    import sys

    from wattgpu_lite.__main__ import main

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(RANK_TEXT) == 0
    stream.flush()
    out = raw.getvalue().decode("ascii")  # every byte is ASCII
    assert "g CO2e per request (wall)" in " ".join(out.split()) and "L4* x2" in out
    assert stream.errors == "strict"  # the stream's own handling is back after the command


def test_a_gpu_name_with_a_newline_cannot_add_lines(tmp_path, capsys):
    import json

    from wattgpu_lite.__main__ import main

    spec = {"name": "Evil\nGPU\tX", "release_year": 2024, "memory_gb": 48, "memory_type": "HBM3",
            "bandwidth_gbs": 2000, "tdp_w": 300, "fp16_tflops": 400}  # fmt: skip
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(spec))
    argv = ["rank", "--llm", LLAMA, "--rate-qps", "0.1", "--itl-sla-ms", "50", "--gpus",
            f"{path},L4", "--gpu-counts", "1"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Evil\\nGPU\\tX" in out
    assert not any(line.startswith("GPU") for line in out.splitlines())
    assert "\t" not in out
    assert main(["predict", "--llm", LLAMA, "--gpu", str(path), "--rate-qps", "0.1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{LLAMA} on Evil\\nGPU\\tX: rate 0.1 req/s")


def test_escape_controls_writes_every_control_character_as_its_escape():
    from wattgpu_lite.face.cli.text import ascii_of, escape_controls

    assert escape_controls("a\nb\r\tc") == "a\\nb\\r\\tc"
    assert escape_controls("\x1b[31mred") == "\\x1b[31mred"
    assert escape_controls("left\u202eright") == "left\\u202eright"
    assert escape_controls("H100 SXM ×2 · CO₂") == "H100 SXM ×2 · CO₂"
    assert [ascii_of(c) for c in "₂≤×–µé😀"] == ["2", "<=", "x", "-", "u", "e", "?"]
