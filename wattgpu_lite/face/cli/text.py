"""Text output that is safe on any terminal or redirect.

- :func:`escape_controls`: a name with a newline, tab or other control character prints as its
  escape (``"A\\nB"`` -> ``A\\nB``), so a cell never adds lines or moves columns of a table;
- :func:`ascii_fallback`: a stream whose encoding lacks a character (``PYTHONIOENCODING=cp1252``,
  a Windows redirect) gets an ASCII stand-in (``CO₂`` -> ``CO2``, ``≤`` -> ``<=``) instead of a
  UnicodeEncodeError.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager

import pandas as pd

ERRORS = "wattgpu_ascii"  # the codec error handler registered below
ASCII = {
    "≤": "<=",
    "≥": ">=",
    "×": "x",
    "·": ".",
    "–": "-",
    "—": "-",
    "−": "-",
    "µ": "u",
    "μ": "u",
    "τ": "tau",
    "λ": "lambda",
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "η": "eta",
    "κ": "kappa",
    "±": "+/-",
    "→": "->",
    "←": "<-",
    "…": "...",
    "≈": "~",
    "°": " deg",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "√": "sqrt",
    "∞": "inf",
    "\u00a0": " ",
    "\u202f": " ",
}
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_controls(text: str) -> str:
    """``text`` with every control or format character (newline, tab, escape, bidi marks, ...)
    written as its Python escape; anything else unchanged."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if unicodedata.category(ch)[0] == "C":
            code = ord(ch)
            out.append(_ESCAPES.get(ch, f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"))
        else:
            out.append(ch)
    return "".join(out)


def escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names are :func:`escape_controls`'d."""
    out = frame.rename(columns=lambda c: escape_controls(c) if isinstance(c, str) else c)
    for col in out.columns:
        if out[col].map(lambda v: isinstance(v, str)).any():
            out[col] = out[col].map(lambda v: escape_controls(v) if isinstance(v, str) else v)
    return out


def ascii_of(ch: str) -> str:
    """An ASCII stand-in for one character: the table above, else its compatibility
    decomposition's ASCII part (``₂`` -> ``2``, ``é`` -> ``e``), else ``?``."""
    if ch in ASCII:
        return ASCII[ch]
    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
    return plain or "?"


def _fallback(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return "".join(ascii_of(ch) for ch in err.object[err.start : err.end]), err.end


codecs.register_error(ERRORS, _fallback)


@contextmanager
def ascii_fallback(*streams) -> Iterator[None]:
    """While inside, ``streams`` (text streams that can be reconfigured) write characters their
    encoding lacks as ASCII stand-ins; their own error handling is restored after."""
    changed = []
    for stream in streams:
        errors = getattr(stream, "errors", None)
        if errors is not None and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors=ERRORS)
            except (ValueError, OSError):  # closed, or a stream that cannot change
                continue
            changed.append((stream, errors))
    try:
        yield
    finally:
        for stream, errors in changed:
            try:
                stream.reconfigure(errors=errors)
            except (ValueError, OSError):
                pass
