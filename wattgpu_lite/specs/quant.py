"""How a config.json says its weights are stored: format and bits per weight, scales included
(per *quantised* weight, g = group size; ``WeightFormat.bits`` adds the scale storage):

==================  ==============================================================================
none                16 (BF16/FP16 checkpoints)
fp8, fbgemm_fp8     8 + 32 per ``weight_block_size`` block (an FP32 scale); other scales neglected
mxfp4               4 + 8/32 = 4.25 (OCP Microscaling: one 8-bit E8M0 scale per 32 FP4 values)
gptq, awq           b + (16 + b)/g: one FP16 scale and one packed b-bit zero point per group (per
                    channel, g = −1: b); AWQ b = 2 … 8, GPTQ 2, 3, 4 or 8 (what transformers takes);
                    missing: g = 128, AWQ b = 4 (GPTQConfig / AwqConfig defaults, said in the notes)
compressed-tensors  b + 16/g (one 16-bit scale per group), b + 32/g asymmetric (a zero point too);
                    float: 8 or 4; ``nvfp4-pack-quantized``: 4 + 8/16 = 4.5 (an FP8 scale per 16)
bitsandbytes        8; nf4/fp4: 4 + 32/64 (an FP32 absmax per 64), double-quantised 4 + 8/64 +
                    32/16384; older configs: ``load_in_4bit``/``load_in_8bit`` (not both true)
MLX quantization    b + 32/g (a 16-bit scale and bias per group; the embedding and LM head too)
modelopt            FP8: 8; NVFP4: 4.5 (as compressed-tensors nvfp4)
==================  ==============================================================================

Embeddings, norms and — unless the config says otherwise — the LM head stay in 16 bits, as do the
modules ``modules_to_not_convert`` / ``ignore`` / ``ignored_layers`` / ``llm_int8_skip_modules``
list (:func:`wattgpu_lite.specs.count.kept_16bit`). Names are read case-insensitively, flags as
JSON booleans.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from wattgpu_lite.checks import check_count, check_counts, check_flag
from wattgpu_lite.errors import ConfigError, close_matches


@dataclass(frozen=True)
class WeightFormat:
    """Storage of the quantised layers: format name, bits per weight, modules left in 16 bits."""

    name: str = "bf16"
    bits: float = 16.0
    keep_16bit: tuple[str, ...] = ()
    also: tuple[str, ...] = ()  # groups quantised beyond the linear layers (MLX: embed, lm_head)
    notes: tuple[str, ...] = ()  # what the reading assumed, for the model's source line


def _label(method: str, field: str) -> str:
    return f"quantization_config ({method}) field {field!r}"


def _count(method: str, key: str, value: Any, lo: int, *, hi: int, fix: str, check=check_count):
    """``value`` as a whole number (or ``check_counts``: numbers) from ``lo`` to ``hi``."""
    return check(key, value, lo, hi, error=ConfigError, label=_label(method, key), fix=fix)


def _bits(method: str, field: str, value: Any) -> int:
    """Bits per quantised weight: a whole number from 2 to 8, read as written."""
    fix = f"write {field} as a whole number of bits from 2 to 8 (e.g. 4)"
    return _count(method, field, value, 2, hi=8, fix=fix)


def _group(method: str, q: dict[str, Any], key: str = "group_size") -> float:
    """Weights per scale: a whole number from 1 to 10⁶, or −1 / null (one scale per channel)."""
    g = q.get(key, -1)
    if g is None or (not isinstance(g, bool) and g == -1):
        return -1.0
    per = f"write {key} as a whole number of weights per scale from 1 to 1,000,000 (e.g. 128)"
    return float(_count(method, key, g, 1, hi=10**6, fix=f"{per}, or -1 for one scale per channel"))


def _gptq_awq(method: str, q: dict[str, Any]) -> WeightFormat:
    """b-bit packed weights, b as written (2 … 8); transformers' GPTQConfig / AwqConfig defaults
    fill a missing field (AWQ bits 4, group size 128 for both), said in the notes."""
    key = "bits" if "bits" in q or "w_bit" not in q else "w_bit"
    example = 'the checkpoint\'s bits, e.g. "bits": 4'
    if key not in q and method == "gptq":
        lacks = "quantization_config (gptq) lacks 'bits' (transformers' GPTQConfig requires it)"
        raise ConfigError(f"{lacks}; add {example}")
    awq_bits = "quantization_config (awq) gives no bits: 4, transformers' AwqConfig default"
    notes = [] if key in q else [awq_bits]
    b = _bits(method, key, q.get(key, 4))
    if method == "gptq" and b not in (2, 3, 4, 8):  # what transformers' GPTQConfig accepts
        why = "GPTQ checkpoints are 2, 3, 4 or 8 bits (transformers' GPTQConfig refuses any other"
        raise ConfigError(f"{_label(method, key)} = {b}: {why} width); write {example}")
    group_key = "group_size" if "group_size" in q else "q_group_size"
    if group_key not in q:
        config = "GPTQConfig" if method == "gptq" else "AwqConfig"
        gives = f"quantization_config ({method}) gives no group_size"
        notes.append(f"{gives}: 128, the default of transformers' {config}")
    g = _group(method, {**q, group_key: q.get(group_key, 128)}, group_key)
    keep = _names(method, q, "modules_to_not_convert")
    return WeightFormat(f"int{b}", b + (0.0 if g < 0 else (16 + b) / g), keep, notes=tuple(notes))


def _fp8(method: str, q: dict[str, Any]) -> WeightFormat:
    """FP8 weights, one FP32 scale per ``weight_block_size`` block (two whole numbers >= 1)."""
    block, extra = q.get("weight_block_size"), 0.0
    if block is not None:
        fix = "write weight_block_size as two whole numbers >= 1, e.g. [128, 128], or leave it out"
        shape = _count(method, "weight_block_size", block, 1, hi=10**6, fix=fix, check=check_counts)
        if len(shape) != 2:
            label = _label(method, "weight_block_size")
            raise ConfigError(f"{label} has {len(shape)} entries, not 2; {fix}")
        extra = 32 / math.prod(shape)
    keep = _names(method, q, "ignored_layers") + _names(method, q, "modules_to_not_convert")
    return WeightFormat("fp8", 8 + extra, keep)


def _mxfp4(method: str, q: dict[str, Any]) -> WeightFormat:
    return WeightFormat("mxfp4", 4.25, _names(method, q, "modules_to_not_convert"))


def _bnb(method: str, q: dict[str, Any]) -> WeightFormat:
    keep = _names(method, q, "llm_int8_skip_modules")
    eight = _flag(method, q, "load_in_8bit") or _flag(method, q, "_load_in_8bit")
    four = _flag(method, q, "load_in_4bit") or _flag(method, q, "_load_in_4bit")
    sets = "quantization_config (bitsandbytes) sets"
    if eight and four:
        both = f"{sets} both load_in_4bit and load_in_8bit to true: a checkpoint is stored one way"
        raise ConfigError(f"{both}; set the one it was saved with to true and the other to false")
    if eight:
        return WeightFormat("int8", 8.0, keep)
    if four:
        double = _flag(method, q, "bnb_4bit_use_double_quant")
        kind = _choice(method, q, "bnb_4bit_quant_type", ("fp4", "nf4"))
        return WeightFormat(kind, 4 + (8 / 64 + 32 / 16384 if double else 32 / 64), keep)
    neither = "neither load_in_4bit nor load_in_8bit to true"
    raise ConfigError(f"{sets} {neither}; cannot tell the bits per weight")


def _compressed(method: str, q: dict[str, Any]) -> WeightFormat:
    groups = q.get("config_groups") or {}
    if not isinstance(groups, dict):
        shape = 'an object of named groups ({"group_0": {"weights": ...}})'
        got = f"got {type(groups).__name__}; write it as the checkpoint has it"
        raise ConfigError(f"{_label(method, 'config_groups')} must be {shape}, {got}")
    ws = {k: g.get("weights") for k, g in groups.items() if isinstance(g, dict)}
    weights = next(iter(ws.values()), None)
    fields = ("num_bits", "type", "group_size", "symmetric")  # how a group stores its weights
    stored = {k: tuple(w.get(f) for f in fields) for k, w in ws.items() if isinstance(w, dict)}
    if len(set(stored.values())) > 1:  # the first group's format was read for every layer
        why = f"store weights differently {stored}: the kit counts one weight format per model"
        raise ConfigError(f"{_label(method, 'config_groups')} {why}; give every group the same")
    keep = _names(method, q, "ignore")
    if "nvfp4" in str(q.get("format", "")):
        return WeightFormat("nvfp4", 4.5, keep)
    if not isinstance(weights, dict):
        raise ConfigError("quantization_config (compressed-tensors) has no config_groups weights")
    b = _bits(method, "num_bits", weights.get("num_bits"))
    if weights.get("type") == "float" and b not in (4, 8):
        knows = "the kit knows 8-bit (fp8) and 4-bit (fp4) float weights; write num_bits 8 or 4"
        raise ConfigError(f"{_label(method, 'num_bits')} = {b} with type 'float': {knows}")
    if weights.get("type") == "float":
        return WeightFormat("fp8" if b == 8 else "fp4", float(b), keep)
    g = _group(method, weights)
    sym = weights.get("symmetric", True)
    symmetric = check_flag("symmetric", sym, error=ConfigError, label=_label(method, "symmetric"))
    return WeightFormat(f"int{b}", b + (0 if g < 0 else (16 if symmetric else 32) / g), keep)


def _modelopt(method: str, q: dict[str, Any]) -> WeightFormat:
    algo = str(q.get("quant_algo", "")).upper()
    keep = _names(method, q, "exclude_modules")
    if "FP4" in algo:
        return WeightFormat("nvfp4", 4.5, keep)
    if "FP8" in algo:
        return WeightFormat("fp8", 8.0, keep)
    raise ConfigError(f"quantization_config (modelopt) quant_algo {algo!r} is not FP8 or NVFP4")


# quant_method -> its reader(method, quantization_config)
READERS = {
    "gptq": _gptq_awq,
    "awq": _gptq_awq,
    "fp8": _fp8,
    "fbgemm_fp8": _fp8,
    "mxfp4": _mxfp4,
    "bitsandbytes": _bnb,
    "compressed-tensors": _compressed,
    "modelopt": _modelopt,
}


def weight_format(cfg: dict[str, Any]) -> WeightFormat:
    """The storage format of a config's weights (see the module table); bf16 when none is set."""
    mlx = cfg.get("quantization")
    if isinstance(mlx, dict) and "bits" in mlx:
        b = _bits("mlx", "bits", mlx["bits"])
        g = _group("mlx", {"group_size": mlx.get("group_size", 64)})
        if g < 0:
            fix = "MLX quantises in groups; write the checkpoint's group size (e.g. 64)"
            raise ConfigError(f"{_label('mlx', 'group_size')} is -1: {fix}")
        return WeightFormat(f"int{b}", b + 32 / g, also=("embed", "lm_head"))
    q = cfg.get("quantization_config")
    if q is None:
        return WeightFormat()
    if not isinstance(q, dict):
        raise ConfigError(f"config.json 'quantization_config' must be an object, got {q!r}")
    method = _method(q)
    if method not in READERS:
        near = ", ".join(repr(m) for m in close_matches(method, READERS)) or "none"
        known = f"{', '.join(sorted(READERS))}; close matches: {near}"
        unknown = f"quantization_config method {method!r} is not one the kit reads ({known})"
        fix = "write one of these as the checkpoint's quant_method"
        raise ConfigError(f"{unknown}, so its bits per weight are unknown; {fix}")
    return READERS[method](method, q)


def _method(q: dict[str, Any]) -> str:
    """``quant_method`` in lower case (``"FP8"`` is ``fp8``), bitsandbytes for older configs."""
    method = q.get("quant_method")
    if method is None or method == "":
        old_bnb = any(k in q for k in ("load_in_4bit", "load_in_8bit", "bnb_4bit_quant_type"))
        return "bitsandbytes" if old_bnb else ""
    if not isinstance(method, str):
        got = f"got {method!r:.40} ({type(method).__name__})"
        example = 'must be text (e.g. "fp8", "awq")'
        fix = "write it in quotes as the checkpoint has it"
        raise ConfigError(f"quantization_config field 'quant_method' {example}, {got}; {fix}")
    return method.strip().lower()


def _flag(method: str, q: dict[str, Any], key: str) -> bool:
    """A boolean of a quantisation config: absent or null is false; ``"true"`` or 1 is an error."""
    value = q.get(key)
    return value is not None and check_flag(
        key, value, error=ConfigError, label=_label(method, key)
    )


def _choice(method: str, q: dict[str, Any], key: str, known: tuple[str, ...]) -> str:
    """A named option, read case-insensitively: one of ``known`` (null: the first)."""
    value = q.get(key)
    if value is None:
        return known[0]
    if isinstance(value, str) and value.strip().lower() in known:
        return value.strip().lower()
    near = ", ".join(repr(m) for m in close_matches(str(value), known)) or "none"
    fix = f"(close matches: {near}); write one of them as the checkpoint has it"
    raise ConfigError(f"{_label(method, key)} is {value!r:.40}, not one of {list(known)} {fix}")


def _names(method: str, q: dict[str, Any], key: str) -> tuple[str, ...]:
    """Module names left in 16 bits: a list of strings or one string (``"lm_head"``); null: none."""
    value = q.get(key)
    names = [] if value is None else [value] if isinstance(value, str) else value
    if isinstance(names, list) and all(isinstance(v, str) for v in names):
        return tuple(names)
    must = 'must be a list of module names (e.g. ["lm_head"])'
    got = f"got {value!r:.60} ({type(value).__name__}); write each name as a JSON string"
    raise ConfigError(f"{_label(method, key)} {must}, {got}")
