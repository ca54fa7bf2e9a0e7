"""WattGPU's preprocessing, fitted with scikit-learn and stored as plain JSON (no pickle).

Numeric inputs: mean imputation, then standardisation z = (x - mean) / scale (scale = population
standard deviation, 1 where it is 0). Categorical inputs: most-frequent imputation, then ordinal
codes 0..k-1 in sorted order, and -1 for a category never seen in training. This is the authors'
``ColumnTransformer`` (numeric columns first, then categorical); :meth:`Preprocessor.fit` fits
exactly that and keeps only its learned numbers, and :meth:`Preprocessor.transform` applies them
with numpy, so a model loaded from JSON sees bit-identical inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from wattgpu_lite.errors import InvalidInputError, require

if TYPE_CHECKING:
    from sklearn.compose import ColumnTransformer


def column_transformer(numeric: Sequence[str], categorical: Sequence[str]) -> ColumnTransformer:
    """The authors' preprocessing as an unfitted scikit-learn ColumnTransformer (scikit-learn is
    the ``[train]`` extra; applying a fitted :class:`Preprocessor` needs numpy only)."""
    require("sklearn", "train", "fitting WattGPU's preprocessing (wl.WattGPU().fit)")
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OrdinalEncoder, StandardScaler

    num = Pipeline([("impute", SimpleImputer(strategy="mean")), ("scale", StandardScaler())])
    cat = Pipeline(
        [
            ("impute", SimpleImputer(strategy="most_frequent")),
            ("encode", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)),
        ]
    )
    return ColumnTransformer([("num", num, list(numeric)), ("cat", cat, list(categorical))])


@dataclass(frozen=True)
class Preprocessor:
    """Fitted preprocessing state: the input columns; per numeric column (impute value, mean,
    scale); per categorical column (impute value, sorted categories)."""

    columns: tuple[str, ...]
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    impute_numeric: tuple[float, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    impute_categorical: tuple[str, ...]
    categories: tuple[tuple[str, ...], ...]

    @classmethod
    def fit(cls, frame: pd.DataFrame, columns: Sequence[str], categorical: Sequence[str]):
        """Fit the ColumnTransformer on ``frame[columns]`` and keep its learned numbers."""
        num = tuple(c for c in columns if c not in categorical)
        cat = tuple(c for c in columns if c in categorical)
        ct = column_transformer(num, cat).fit(_as_inputs(frame, num, cat))
        n, c = ct.named_transformers_["num"], ct.named_transformers_["cat"]
        return cls(
            columns=tuple(columns),
            numeric=num,
            categorical=cat,
            impute_numeric=_floats(n["impute"].statistics_),
            means=_floats(n["scale"].mean_),
            scales=_floats(n["scale"].scale_),
            impute_categorical=tuple(str(v) for v in c["impute"].statistics_),
            categories=tuple(tuple(str(v) for v in cats) for cats in c["encode"].categories_),
        )

    @property
    def feature_names(self) -> list[str]:
        """Output column order: numeric inputs, then categorical ones."""
        return [*self.numeric, *self.categorical]

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """The model matrix (rows x feature_names), float64."""
        missing = [c for c in self.feature_names if c not in frame.columns]
        if missing:
            raise InvalidInputError(
                f"feature frame lacks columns {missing}; build it with "
                "wattgpu_lite.wattgpu.features.feature_frame(...)"
            )
        numbers = frame[list(self.numeric)]
        if any(map(pd.api.types.is_object_dtype, numbers.dtypes)):  # text: NaN (predict_frame
            # marks the rows invalid)
            numbers = numbers.apply(pd.to_numeric, errors="coerce")
        x = numbers.to_numpy(dtype=float, copy=True)
        x = np.where(np.isfinite(x), x, np.asarray(self.impute_numeric))
        x -= np.asarray(self.means)
        x /= np.asarray(self.scales)
        codes = [self._codes(frame[c], i) for i, c in enumerate(self.categorical)]
        return np.column_stack([x, *codes]) if codes else x

    def _codes(self, values: pd.Series, i: int) -> np.ndarray:
        lookup = {cat: float(k) for k, cat in enumerate(self.categories[i])}
        fill = self.impute_categorical[i]
        text = [fill if pd.isna(v) else str(v) for v in values.to_numpy(dtype=object)]
        return np.array([lookup.get(v, -1.0) for v in text], dtype=float)

    def to_dict(self) -> dict:
        """Plain JSON-serialisable state."""
        return asdict(self)

    @classmethod
    def from_dict(cls, state: dict) -> Preprocessor:
        """Inverse of :meth:`to_dict`."""
        tup = {k: tuple(v) for k, v in state.items() if k != "categories"}
        return cls(**tup, categories=tuple(tuple(c) for c in state["categories"]))


def _as_inputs(frame: pd.DataFrame, num: Sequence[str], cat: Sequence[str]) -> pd.DataFrame:
    out = frame[list(num)].astype(float)
    for c in cat:
        out[c] = frame[c].astype(object).where(frame[c].notna(), np.nan)
    return out


def _floats(values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)
