"""The lesson checks that need a live notebook, run in the kernel nbval executes it in, so that
`make test` executes each notebook once:

- before the first cell, a recorder wraps matplotlib's ``print_figure``: every figure the notebook
  draws is searched for raw column names (``wattgpu_lite.face.style.raw_names_in``);
- after the last cell, one more item, "lesson checks", runs every "Try this" solution on a copy of
  the notebook's final namespace: a knob exercise must change what its check shows, a "write it
  yourself" exercise must give what the library gives; and the solution's prose numbers must be
  in its output. It fails on any raw column name the figures showed.

The prose numbers and the layout are read from the committed JSON by tests/kit/test_lessons.py; nbval
checks the committed outputs against this fresh run, so both read the same execution.
"""

from __future__ import annotations

import json
from pathlib import Path

import lessons
import pytest

RECORDER = r"""
import matplotlib.backend_bases as _lesson_bb
from wattgpu_lite.face.style import raw_names_in as _lesson_raw_names_in
_LESSON_RAW_NAMES = []
_lesson_print_figure = _lesson_bb.FigureCanvasBase.print_figure
def _lesson_recording_print_figure(self, *args, **kwargs):
    _LESSON_RAW_NAMES.extend(_lesson_raw_names_in(self.figure))
    return _lesson_print_figure(self, *args, **kwargs)
_lesson_bb.FigureCanvasBase.print_figure = _lesson_recording_print_figure
"""

HELPER = r"""
import contextlib as _cl, copy as _copy, io as _io, json as _json
import numpy as _np, pandas as _pd

def _lesson_snapshot(value):
    try:
        return _copy.deepcopy(value)
    except Exception:
        return repr(value)

def _lesson_differs(a, b):
    if isinstance(a, (_pd.DataFrame, _pd.Series)) or isinstance(b, (_pd.DataFrame, _pd.Series)):
        return not (type(a) is type(b) and a.shape == b.shape and a.equals(b))
    try:
        x, y = _np.asarray(a, dtype=float), _np.asarray(b, dtype=float)
        return x.shape != y.shape or not _np.allclose(x, y, rtol=1e-9, atol=0, equal_nan=True)
    except (TypeError, ValueError):
        return repr(a) != repr(b)

def _lesson_run(number, check, code):
    import traceback as _tb
    import matplotlib.pyplot as _plt
    namespace, out = dict(globals()), _io.StringIO()
    try:
        knob = isinstance(check, str)
        before = _lesson_snapshot(eval(check, namespace)) if knob else None
        with _cl.redirect_stdout(out):
            exec(compile(code, f"<solution {number}>", "exec"), namespace)
        if knob:
            after = eval(check, namespace)
            ok = bool(_lesson_differs(before, after))
        else:
            after = eval(check["student"], namespace)
            ok = not _lesson_differs(after, eval(check["library"], namespace))
        result = {"ok": ok, "after": repr(after)[:20000]}
    except Exception:
        result = {"error": _tb.format_exc(limit=-3)}
    _plt.close("all")
    print(_json.dumps({"number": number, "stdout": out.getvalue(), **result}))
"""


def lesson_code(nb: dict) -> list[str]:
    """The code run after the notebook's last cell: the helper, then one call per exercise,
    then the raw names the figures showed."""
    calls = [f"_lesson_run({e.number}, {e.check!r}, {e.code!r})" for e in lessons.exercises(nb)]
    return [HELPER, *calls, "print(_json.dumps({'raw_names': sorted(set(_LESSON_RAW_NAMES))}))"]


def run_in(kernel, code: str, timeout: float = 900) -> str:
    """Execute ``code`` in nbval's running kernel; its stdout (raises on an error)."""
    out: list[str] = []

    def hook(msg):
        if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))

    reply = kernel.kc.execute_interactive(
        code, output_hook=hook, timeout=timeout, allow_stdin=False, store_history=False
    )
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"lesson code failed in the kernel:\n{''.join(out)}")
    return "".join(out)


def problems(nb: dict, results: list[dict]) -> list[str]:
    """What the exercise results and the figure record say is wrong (empty: nothing)."""
    found, seen = lessons.exercises(nb), lessons.output_numbers(lessons.outputs_text(nb))
    out = []
    for e, r in zip(found, results, strict=True):
        if "error" in r:
            out.append(f"exercise {e.number} raised:\n{r['error']}")
            continue
        if not r["ok"]:
            what = "differs from the library's" if e.writes_it_yourself else "did not change"
            out.append(f"exercise {e.number}: {e.check} {what}")
        more = lessons.output_numbers(r["stdout"] + "\n" + r["after"])
        missing = lessons.unmatched_numbers(
            e.solution_prose, seen | more, lessons.allowed_numbers(nb)
        )
        out += [f"exercise {e.number}: solution numbers in no output: {missing}"] if missing else []
    return out


class LessonItem(pytest.Item):
    """The last item of a notebook's nbval collection (see the module docstring)."""

    def runtest(self) -> None:
        nb = json.loads(Path(self.parent.fspath).read_text())
        kernel = self.parent.kernel
        outputs = [run_in(kernel, code) for code in lesson_code(nb)]
        raw = json.loads(outputs[-1].strip().splitlines()[-1])["raw_names"]
        results = [json.loads(o.strip().splitlines()[-1]) for o in outputs[1:-1]]
        found = problems(nb, results)
        if raw:
            found.append(f"raw column names in figures: {raw} (use wattgpu_lite.face.labels.label)")
        assert not found, f"{Path(self.parent.fspath).name}: " + "\n".join(found)

    def reportinfo(self):
        return self.parent.fspath, 0, f"{self.name}"
