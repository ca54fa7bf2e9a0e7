"""A checked frame's cells as Python values, and the messages of the checks that refuse them.

    cells_of(column)                      # a column's cells as an array (NA kept)
    plain(cell)                           # a cell as Python (integral floats as int)
    or_message(check, args)               # check(*args), or its kit error's message
    tokens_messages(models, raw, rows, load, limit=..., known=...)   # check_tokens' messages
    echo_tokens(frame, col, default, ok, checked=...)   # a token column as checked or given
    with_workload(frame, name)            # a named workload's token columns the frame lacks
    resolved(column, resolve)             # a column of names resolved, as codes (Coded)
    categorical(code, names)              # codes into names as a pandas Categorical

:mod:`~wattgpu_lite.hybrid.predict.frame_checks` checks every row of ``wl.predict_many``'s frame
with these: a message is made once per distinct key of what it names, not once per row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.energy.uniques import Coded, unique_by_identity, unique_rows
from wattgpu_lite.errors import DataFileError, WattGPUError
from wattgpu_lite.specs.frame import within
from wattgpu_lite.specs.resolve import resolve_each
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT, workload


def plain(value):
    """A cell as Python: integral floats (a column with a blank is float) as int."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def or_message(check, args: tuple):
    """``check(*args)``, or its kit error's message (a broken shipped data file raises)."""
    try:
        return check(*args)
    except DataFileError:
        raise
    except WattGPUError as err:
        return str(err)


def tokens_messages(
    models, raw: dict, rows: np.ndarray, load: dict, *, limit: np.ndarray, known: np.ndarray
) -> np.ndarray:
    """:func:`_tokens_message` of each row of ``rows`` (object array), made once per distinct
    key of what :func:`checks.check_tokens` names, in its order: t_in's cell where t_in itself
    is refused (not whole, or not from 1 to ``limit``; ``load``'s columns as floats), else
    t_out's where t_out is, else t_in + t_out (beyond the context length); each with the limit
    and whether the LLM gives it. A cell of a column that numpy does not hold as numbers (a
    pandas NA) is its own key. Two whole counts in range beyond a known context length (numbers
    held by numpy) are refused for their sum: :func:`_beyond_context`, without the scalar
    checks."""
    t_in, t_out, lim = load["t_in"][rows], load["t_out"][rows], limit[rows]
    in_ok, out_ok = within(t_in, 1, lim, whole=True), within(t_out, 1, lim, whole=True)
    numeric = all(raw[c].dtype.kind in "iuf" for c in ("t_in", "t_out") if c in raw)
    summed = in_ok & out_ok & known[rows] & numeric
    out = np.empty(len(rows), dtype=object)
    out[summed] = _beyond_context(t_in[summed] + t_out[summed], lim[summed])
    rest = np.flatnonzero(~summed)
    if not len(rest):
        return out
    rows, t_in, t_out, lim = rows[rest], t_in[rest], t_out[rest], lim[rest]
    in_ok, out_ok = in_ok[rest], out_ok[rest]
    cells = [_token_cells(raw, c, rows) for c in ("t_in", "t_out")]
    which = np.where(~in_ok, 0, np.where(~out_ok, 1, 2))
    named = np.where(~in_ok, cells[0], np.where(~out_ok, cells[1], pd.factorize(t_in + t_out)[0]))
    group, first = unique_rows([which, named, pd.factorize(lim)[0], known[rows]])
    made = np.empty(len(first), dtype=object)
    for k, i in enumerate(first):
        made[k] = _tokens_message(models[rows[i]], raw, rows[i])
    out[rest] = made[group]
    return out


def _beyond_context(total: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """:func:`checks.beyond_context`'s text of each row (object array; whole token counts
    ``total`` > the context lengths ``limit``), made once per distinct pair."""
    made: dict[tuple, str] = {}
    out = np.empty(len(total), dtype=object)
    for k, pair in enumerate(zip(total.tolist(), limit.tolist(), strict=True)):
        said = made.get(pair)
        if said is None:
            said = made[pair] = str(checks.beyond_context(int(pair[0]), int(pair[1])))
        out[k] = said
    return out


def _token_cells(raw: dict[str, np.ndarray], col: str, rows: np.ndarray) -> np.ndarray:
    """The cells of ``col`` at ``rows`` as codes, equal cells one code (numbers held by numpy,
    compared exactly; the default where the frame has no such column), any other its own."""
    if col not in raw:
        return np.zeros(len(rows), dtype=np.int64)
    values = raw[col][rows]
    if values.dtype.kind in "iuf":
        return pd.factorize(values)[0]
    return np.arange(len(rows)) + 1


def _tokens_message(model, raw: dict[str, np.ndarray], i: int) -> str:
    """The message :func:`checks.check_tokens` refuses row ``i``'s tokens with, as the frame's
    checks pass them (``frame_checks._row_request``), after a load that passes (the same text);
    "" if they pass. A broken shipped data file raises."""
    t_in = plain(raw["t_in"][i]) if "t_in" in raw else DEFAULT_T_IN
    t_out = plain(raw["t_out"][i]) if "t_out" in raw else DEFAULT_T_OUT
    said = or_message(checks.check_tokens, (t_in, t_out, model.context_length))
    return said if isinstance(said, str) else ""


def cells_of(column: pd.Series) -> np.ndarray:
    """A column's cells as an array: a numpy column as it is, any other (Int64 with NA, text) as
    its Python objects, NA kept (``tolist``'s values)."""
    if pd.api.types.is_extension_array_dtype(column.dtype):
        return column.to_numpy(dtype=object)
    return column.to_numpy()


def echo_tokens(frame: pd.DataFrame, col: str, default, ok: np.ndarray, *, checked: np.ndarray):
    """The token counts as checked (valid rows) or as given (invalid rows; NaN if not a number)."""
    given = frame[col].to_numpy() if col in frame else np.full(len(frame), default)
    out, bad = checked.copy(), np.flatnonzero(~ok)
    if given.dtype.kind in "iuf":  # numbers: each is_real, float(x) as numpy casts it
        out[bad] = given[bad]
        return out
    for i in bad:
        out[i] = _as_float(given[i])
    return out


def _as_float(value) -> float:
    return float(value) if checks.is_real(value) else np.nan


def with_workload(frame: pd.DataFrame, name: str | None) -> pd.DataFrame:
    """``frame`` with the named workload's ``t_in`` and ``t_out`` as the columns it lacks (a
    column given, even with blanks, is kept as given: a blank cell is invalid, as without)."""
    if name is None:
        return frame
    chosen = workload(name)
    missing = {c: getattr(chosen, c) for c in ("t_in", "t_out") if c not in frame}
    return frame.assign(**missing) if missing else frame


def text_codes(column: pd.Series) -> tuple[np.ndarray, list[str]] | None:
    """A column of text only (no blank, no object) factorised by pandas (no Python loop over the
    rows): each row's code into the distinct texts; None for any other column."""
    if pd.api.types.infer_dtype(column, skipna=False) != "string":
        return None
    code, names = pd.factorize(column, use_na_sentinel=False)
    return code, list(names)


def resolved(column: pd.Series, resolve, text: tuple[np.ndarray, list[str]] | None = None) -> Coded:
    """A column of names (or objects) resolved, each distinct value once (``resolve_each``),
    as codes into the distinct objects. A column of text is factorised by pandas
    (:func:`text_codes`, or ``text`` when the caller has it); objects that are not text are
    keyed by identity."""
    text = text_codes(column) if text is None else text
    if text is not None:
        code, names = text
        objects = resolve_each(names, resolve)
    else:
        objects, code = resolve_each(column.tolist(), resolve), None
    distinct, remap = unique_by_identity(objects)  # two names of one object: one code
    return Coded(distinct, remap if code is None else remap[code])


def categorical(code: np.ndarray, names: Sequence[str]) -> pd.Categorical:
    """The text ``names[code[i]]`` of each row as a pandas Categorical: the same values (a
    categorical compares with text as its text does), an integer code a row instead of a str;
    its categories the names the rows use, each once, sorted (so it sorts as the text)."""
    used = np.flatnonzero(np.bincount(code, minlength=len(names)))
    categories = sorted({names[k] for k in used})
    place = {name: i for i, name in enumerate(categories)}
    # the codes gathered at once in the width pandas keeps them (int8 below 127 categories, ...)
    width = np.min_scalar_type(-len(categories) - 2)
    remap = np.array([place.get(name, -1) for name in names], dtype=width)
    return pd.Categorical.from_codes(remap[code], categories=categories, validate=False)  # in range
