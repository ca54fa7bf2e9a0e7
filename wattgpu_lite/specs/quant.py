"""How a config.json says its weights are stored: format and bits per weight, scales included.

Rules (bits per *quantised* weight; g = group size; ``WeightFormat.bits`` adds the scale storage):

==================  ====================================================================
method              bits per weight, and what is assumed
==================  ====================================================================
none                16 (BF16/FP16 checkpoints)
fp8, fbgemm_fp8     8, + one FP32 scale per ``weight_block_size`` block (DeepSeek 128×128:
                    8 + 32/16384); per-channel or per-tensor scales are neglected (≈ 8)
mxfp4               4 + 8/32 = 4.25: OCP Microscaling spec, blocks of 32 FP4 values share one
                    8-bit (E8M0) scale
gptq, awq           b + (16 + b)/g: packed b-bit weights (AWQ: b = 2 … 8 as written, a 6-bit
                    config is ``int6``; GPTQ: b = 2, 3, 4 or 8, the only widths transformers'
                    ``GPTQConfig.post_init`` accepts), one FP16 scale and one packed b-bit zero point per group
                    (AutoGPTQ / AutoAWQ ``qweight``, ``qzeros``, ``scales`` tensors); g = −1
                    (per channel) counts as b; a missing group size is 128 and a missing AWQ
                    bits 4 (transformers' GPTQConfig / AwqConfig defaults, said in the notes)
compressed-tensors  integer ``pack-quantized``: b + 16/g (symmetric: one BF16/FP16 scale per
                    group), b + 32/g when asymmetric (a zero point too); float 8-bit: 8;
                    ``nvfp4-pack-quantized``: 4 + 8/16 = 4.5 (one FP8 scale per 16)
bitsandbytes        8-bit: 8 (per-row scales neglected); 4-bit nf4/fp4: 4 + 32/64 = 4.5 (one
                    FP32 absmax per block of 64), 4 + 8/64 + 32/16384 with double
                    quantisation (8-bit absmax, FP32 per 256 blocks); configs written before
                    ``quant_method`` existed are recognised by ``load_in_4bit``/``load_in_8bit``
MLX quantization    b + 32/g: MLX stores a 16-bit scale and a 16-bit bias per group; mlx-lm
                    quantises the embedding and LM head too
modelopt            FP8: 8; NVFP4: 4.5 (as compressed-tensors nvfp4)
==================  ====================================================================

Embeddings, norms and — unless the config says otherwise — the LM head stay in 16 bits in every
method above; modules listed in ``modules_to_not_convert`` / ``ignore`` / ``ignored_layers`` /
``llm_int8_skip_modules`` stay in 16 bits too (:func:`kept_16bit`); a single name written as a
string is read as a one-element list. ``quant_method`` and bitsandbytes' ``bnb_4bit_quant_type``
are read case-insensitively; flags (``load_in_4bit``, ``symmetric`` …) must be JSON booleans, and
bitsandbytes' ``load_in_4bit`` and ``load_in_8bit`` both true is refused.
"""

from __future__ import annotations

import fnmatch
import math
import re
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


GPTQ_BITS = (2, 3, 4, 8)  # the widths transformers' GPTQConfig.post_init accepts


def _bits(method: str, field: str, value: Any) -> int:
    """Bits per quantised weight: a whole number from 2 to 8, read as written."""
    return check_count(field, value, 2, 8, error=ConfigError, label=_label(method, field),
                       fix=f"write {field} as a whole number of bits from 2 to 8 (e.g. 4)")  # fmt: skip


def _label(method: str, field: str) -> str:
    return f"quantization_config ({method}) field {field!r}"


def _group(method: str, q: dict[str, Any], key: str = "group_size") -> float:
    """Weights per scale: a whole number from 1 to 10⁶, or −1 / null (one scale per channel)."""
    g = q.get(key, -1)
    if g is None or (not isinstance(g, bool) and g == -1):
        return -1.0
    return float(check_count(key, g, 1, 10**6, error=ConfigError, label=_label(method, key),
                             fix=f"write {key} as a whole number of weights per scale from 1 "
                                 "to 1,000,000 (e.g. 128), or -1 for one scale per channel"))  # fmt: skip


def _gptq_awq(method: str, q: dict[str, Any]) -> WeightFormat:
    """b-bit packed weights, b as written (2 … 8); what transformers' own GPTQConfig / AwqConfig
    would default (AWQ bits 4, group size 128 for both) fills a missing field, said in notes."""
    notes: list[str] = []
    key = "bits" if "bits" in q or "w_bit" not in q else "w_bit"
    if key not in q and method == "gptq":
        raise ConfigError("quantization_config (gptq) lacks 'bits' (transformers' GPTQConfig "
                          "requires it); add the checkpoint's bits, e.g. \"bits\": 4")  # fmt: skip
    if key not in q:
        notes.append("quantization_config (awq) gives no bits: 4, transformers' AwqConfig default")
    b = _bits(method, key, q.get(key, 4))
    if method == "gptq" and b not in GPTQ_BITS:
        raise ConfigError(f"{_label(method, key)} = {b}: GPTQ checkpoints are 2, 3, 4 or 8 bits "
                          "(transformers' GPTQConfig refuses any other width); write the "
                          "checkpoint's bits, e.g. \"bits\": 4")  # fmt: skip
    group_key = "group_size" if "group_size" in q else "q_group_size"
    if group_key not in q:
        notes.append(f"quantization_config ({method}) gives no group_size: 128, the default of "
                     f"transformers' {'GPTQConfig' if method == 'gptq' else 'AwqConfig'}")  # fmt: skip
    g = _group(method, {**q, group_key: q.get(group_key, 128)}, group_key)
    extra = 0.0 if g < 0 else (16 + b) / g
    return WeightFormat(f"int{b}", b + extra, _names(method, q, "modules_to_not_convert"),
                        notes=tuple(notes))  # fmt: skip


def _fp8(method: str, q: dict[str, Any]) -> WeightFormat:
    block = q.get("weight_block_size")
    extra = 0.0 if block is None else 32 / math.prod(_block(method, block))
    keep = _names(method, q, "ignored_layers") + _names(method, q, "modules_to_not_convert")
    return WeightFormat("fp8", 8 + extra, keep)


def _block(method: str, block: Any) -> tuple[int, int]:
    """``weight_block_size`` as two whole numbers >= 1 (DeepSeek: [128, 128])."""
    fix = "write weight_block_size as two whole numbers >= 1, e.g. [128, 128], or leave it out"
    shape = check_counts("weight_block_size", block, 1, 10**6, error=ConfigError, fix=fix,
                         label=_label(method, "weight_block_size"))  # fmt: skip
    if len(shape) != 2:
        raise ConfigError(f"{_label(method, 'weight_block_size')} has {len(shape)} entries, "
                          f"not 2; {fix}")  # fmt: skip
    return shape[0], shape[1]


def _bnb(q: dict[str, Any]) -> WeightFormat:
    keep = _names("bitsandbytes", q, "llm_int8_skip_modules")
    eight = _flag("bitsandbytes", q, "load_in_8bit") or _flag("bitsandbytes", q, "_load_in_8bit")
    four = _flag("bitsandbytes", q, "load_in_4bit") or _flag("bitsandbytes", q, "_load_in_4bit")
    if eight and four:
        raise ConfigError("quantization_config (bitsandbytes) sets both load_in_4bit and "
                          "load_in_8bit to true: a checkpoint is stored one way; set the one it "
                          "was saved with to true and the other to false")  # fmt: skip
    if eight:
        return WeightFormat("int8", 8.0, keep)
    if four:
        double = _flag("bitsandbytes", q, "bnb_4bit_use_double_quant")
        kind = _choice("bitsandbytes", q, "bnb_4bit_quant_type", ("fp4", "nf4"), "fp4")
        return WeightFormat(kind, 4 + (8 / 64 + 32 / 16384 if double else 32 / 64), keep)
    raise ConfigError("quantization_config (bitsandbytes) sets neither load_in_4bit nor "
                      "load_in_8bit to true; cannot tell the bits per weight")  # fmt: skip


def _compressed(q: dict[str, Any]) -> WeightFormat:
    fmt = str(q.get("format", ""))
    groups = q.get("config_groups") or {}
    if not isinstance(groups, dict):
        raise ConfigError(f"{_label('compressed-tensors', 'config_groups')} must be an object "
                          f"of named groups ({{\"group_0\": {{\"weights\": ...}}}}), got "
                          f"{type(groups).__name__}; write it as the checkpoint has it")  # fmt: skip
    weights = next((g.get("weights") for g in groups.values() if isinstance(g, dict)), None)
    keep = _names("compressed-tensors", q, "ignore")
    if "nvfp4" in fmt:
        return WeightFormat("nvfp4", 4.5, keep)
    if not isinstance(weights, dict):
        raise ConfigError("quantization_config (compressed-tensors) has no config_groups weights")
    b = _bits("compressed-tensors", "num_bits", weights.get("num_bits"))
    if weights.get("type") == "float":
        if b not in (4, 8):
            raise ConfigError(f"{_label('compressed-tensors', 'num_bits')} = {b} with type "
                              "'float': the kit knows 8-bit (fp8) and 4-bit (fp4) float "
                              "weights; write num_bits 8 or 4")  # fmt: skip
        return WeightFormat("fp8" if b == 8 else "fp4", float(b), keep)
    g = _group("compressed-tensors", weights)
    symmetric = "symmetric" not in weights or check_flag(
        "symmetric", weights["symmetric"], error=ConfigError,
        label=_label("compressed-tensors", "symmetric"))  # fmt: skip
    return WeightFormat(f"int{b}", b + (0 if g < 0 else (16 if symmetric else 32) / g), keep)


def _modelopt(q: dict[str, Any]) -> WeightFormat:
    algo = str(q.get("quant_algo", "")).upper()
    keep = _names("modelopt", q, "exclude_modules")
    if "FP4" in algo:
        return WeightFormat("nvfp4", 4.5, keep)
    if "FP8" in algo:
        return WeightFormat("fp8", 8.0, keep)
    raise ConfigError(f"quantization_config (modelopt) quant_algo {algo!r} is not FP8 or NVFP4")


def weight_format(cfg: dict[str, Any]) -> WeightFormat:
    """The storage format of a config's weights (see the module table); bf16 when none is set."""
    mlx = cfg.get("quantization")
    if isinstance(mlx, dict) and "bits" in mlx:
        b = _bits("mlx", "bits", mlx["bits"])
        g = _group("mlx", {"group_size": mlx.get("group_size", 64)})
        if g < 0:
            raise ConfigError(f"{_label('mlx', 'group_size')} is -1: MLX quantises in groups; "
                              "write the checkpoint's group size (e.g. 64)")  # fmt: skip
        return WeightFormat(f"int{b}", b + 32 / g, also=("embed", "lm_head"))
    q = cfg.get("quantization_config")
    if q is None:
        return WeightFormat()
    if not isinstance(q, dict):
        raise ConfigError(f"config.json 'quantization_config' must be an object, got {q!r}")
    method = _method(q)
    readers = {"gptq": lambda: _gptq_awq("gptq", q), "awq": lambda: _gptq_awq("awq", q),
               "fp8": lambda: _fp8("fp8", q), "fbgemm_fp8": lambda: _fp8("fbgemm_fp8", q),
               "mxfp4": lambda: WeightFormat("mxfp4", 4.25, _names("mxfp4", q, "modules_to_not_convert")),
               "bitsandbytes": lambda: _bnb(q), "compressed-tensors": lambda: _compressed(q),
               "modelopt": lambda: _modelopt(q)}  # fmt: skip
    if method not in readers:
        near = ", ".join(repr(m) for m in close_matches(method, readers)) or "none"
        raise ConfigError(f"quantization_config method {method!r} is not one the kit reads "
                          f"({', '.join(sorted(readers))}; close matches: {near}), so its bits "
                          "per weight are unknown; write one of these as the checkpoint's "
                          "quant_method")  # fmt: skip
    return readers[method]()


def _method(q: dict[str, Any]) -> str:
    """``quant_method`` in lower case (transformers' QuantizationMethod values are; ``"FP8"`` is
    ``fp8``), bitsandbytes for configs older than the key, "" when it says none."""
    method = q.get("quant_method")
    if method is None or method == "":
        old_bnb = any(k in q for k in ("load_in_4bit", "load_in_8bit", "bnb_4bit_quant_type"))
        return "bitsandbytes" if old_bnb else ""
    if not isinstance(method, str):
        raise ConfigError(f"quantization_config field 'quant_method' must be text (e.g. \"fp8\", "
                          f"\"awq\"), got {method!r:.40} ({type(method).__name__}); write it in "
                          "quotes as the checkpoint has it")  # fmt: skip
    return method.strip().lower()


def _flag(method: str, q: dict[str, Any], key: str) -> bool:
    """A boolean of a quantisation config: absent or null is false; ``"true"`` or 1 is an error."""
    value = q.get(key)
    return False if value is None else check_flag(key, value, error=ConfigError,
                                                  label=_label(method, key))  # fmt: skip


def _choice(method: str, q: dict[str, Any], key: str, known: tuple[str, ...], default: str) -> str:
    """A named option of a quantisation config, case-insensitive, one of ``known``."""
    value = q.get(key)
    if value is None:
        return default
    if isinstance(value, str) and value.strip().lower() in known:
        return value.strip().lower()
    near = ", ".join(repr(m) for m in close_matches(str(value), known)) or "none"
    raise ConfigError(f"{_label(method, key)} is {value!r:.40}, not one of {list(known)} (close "
                      f"matches: {near}); write one of them as the checkpoint has it")  # fmt: skip


def _names(method: str, q: dict[str, Any], key: str) -> tuple[str, ...]:
    """Module names left in 16 bits: a list of strings, or one string read as a one-element list
    (``"lm_head"`` is ``["lm_head"]``); absent or null is none; anything else is an error."""
    value = q.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{_label(method, key)} must be a list of module names (e.g. "
                      f"[\"lm_head\"]), got {value!r:.60} ({type(value).__name__}); write each "
                      "name as a JSON string")  # fmt: skip


def kept_16bit(module: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``module`` (e.g. ``model.layers.3.self_attn.q_proj``) or one of its parents matches
    a keep-16-bit entry: ``re:`` regular expressions, glob patterns, or dotted names."""
    parents = [".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)]
    for pat in patterns:
        if pat.startswith("re:"):
            if re.match(pat[3:], module):
                return True
        elif any(fnmatch.fnmatchcase(p, pat) for p in parents):
            return True
        elif f".{pat.strip('.')}." in f".{module}.":
            return True
    return False
