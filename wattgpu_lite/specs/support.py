"""Which Hugging Face configs the kit refuses, and why: models that are not attention decoders.

The kit describes decoder-only transformers: every generated token runs causal self-attention over
a KV cache, then an MLP (dense or mixture-of-experts), with weights in any storage format. It
refuses, with :class:`UnsupportedModelError` naming the evidence:

- encoder-only models (BERT, RoBERTa …): they do not generate tokens;
- encoder–decoder models (T5, BART …): a second stack and cross-attention the formulas lack;
- recurrent / state-space models (Mamba, Mamba-2, RWKV, RecurrentGemma): no KV cache to read;
- hybrid recurrent models (Jamba, Zamba, Falcon-H1, Nemotron-H …): most layers have no KV cache;
- vision and audio encoders (ViT, CLIP, SigLIP, DINOv2, Wav2Vec2, HuBERT …): they embed images or
  sound and generate no tokens. A vision-language decoder (LLaVA, Gemma 3, Qwen2-VL …) is read
  through its language-model section, as a decoder.
"""

from __future__ import annotations

import re
from typing import Any

from wattgpu_lite.errors import ConfigError, UnsupportedModelError

ENCODER_TYPES = frozenset(
    {
        "bert",
        "roberta",
        "xlm-roberta",
        "distilbert",
        "albert",
        "electra",
        "deberta",
        "deberta-v2",
        "camembert",
        "modernbert",
        "mpnet",
        "ernie",
    }
)
ENC_DEC_TYPES = frozenset({
    "t5", "mt5", "umt5", "bart", "mbart", "pegasus", "marian", "whisper", "longt5", "switch_transformers",
    "blenderbot", "prophetnet", "m2m_100", "nllb_moe", "fsmt", "encoder-decoder",
})  # fmt: skip
RECURRENT_TYPES = frozenset(
    {"mamba", "mamba2", "rwkv", "rwkv5", "rwkv6", "recurrent_gemma", "xlstm"}
)
HYBRID_TYPES = frozenset(
    {
        "jamba",
        "zamba",
        "zamba2",
        "falcon_h1",
        "nemotron_h",
        "bamba",
        "granitemoehybrid",
        "lfm2",
        "plamo2",
        "qwen3_next",
        "kimi_linear",
        "minimax",
    }
)
# families of transformers classes (class_family) that are encoders or encoder-decoders: a
# config naming one (BertForMaskedLM, BertModel, RobertaForCausalLM, T5ForConditionalGeneration)
# is refused whatever its model_type says
ENCODER_CLASSES = frozenset({
    "bert", "roberta", "xlmroberta", "distilbert", "albert", "electra", "deberta", "debertav2",
    "camembert", "modernbert", "mpnet", "ernie", "xlm", "flaubert", "longformer", "bigbird",
    "convbert", "funnel", "squeezebert", "megatronbert", "rembert", "nezha", "roformer", "esm",
})  # fmt: skip
ENC_DEC_CLASSES = frozenset({
    "t5", "mt5", "umt5", "bart", "mbart", "pegasus", "marianmt", "whisper", "longt5",
    "switchtransformers", "blenderbot", "prophetnet", "m2m100", "nllbmoe", "fsmt", "encoderdecoder",
})  # fmt: skip
# families of recurrent and hybrid-recurrent classes (MambaForCausalLM, JambaForCausalLM): refused
# whatever the model_type says, as the encoder classes are
RECURRENT_CLASSES = frozenset(
    {"mamba", "mamba2", "falconmamba", "rwkv", "rwkv5", "rwkv6", "recurrentgemma", "xlstm"}
)
HYBRID_CLASSES = frozenset({"jamba", "zamba", "zamba2", "falconh1", "nemotronh", "bamba",
                            "granitemoehybrid", "lfm2", "plamo2", "qwen3next", "kimilinear"})  # fmt: skip
# vision and audio encoders (transformers' model types and class families): no token generation
MEDIA_TYPES = frozenset({
    "vit", "deit", "beit", "swin", "swinv2", "convnext", "convnextv2", "resnet", "regnet",
    "efficientnet", "mobilenet_v2", "mobilevit", "levit", "dinov2", "dinov3_vit", "clip",
    "clip_vision_model", "siglip", "siglip2", "siglip_vision_model", "owlvit", "detr", "yolos",
    "segformer", "sam", "mask2former", "dpt", "data2vec-vision", "data2vec-audio", "wav2vec2",
    "wav2vec2-bert", "wav2vec2-conformer", "hubert", "wavlm", "unispeech", "unispeech-sat",
    "audio-spectrogram-transformer", "clap", "whisper_encoder", "encodec", "vivit", "videomae",
    "timesformer",
})  # fmt: skip
MEDIA_CLASSES = frozenset(t.replace("-", "").replace("_", "") for t in MEDIA_TYPES) | {
    "clipvision",
    "siglipvision",
    "clipvisionmodelwithprojection",
    "cliptext",
    "blip",
    "blip2vision",
}
MEDIA_HEADS = (
    "ForImageClassification",
    "ForCTC",
    "ForAudioClassification",
    "ForObjectDetection",
    "ForSemanticSegmentation",
    "ForDepthEstimation",
    "ForAudioFrameClassification",
    "ForXVector",
    "ForMaskedImageModeling",
    "ForZeroShotImageClassification",
    "ForImageSegmentation",
    "ForUniversalSegmentation",
    "ForMaskGeneration",
    "ForVideoClassification",
    "ForZeroShotObjectDetection",
)
SSM_KEYS = (
    "state_size",
    "ssm_state_size",
    "mamba_d_state",
    "d_state",
    "lru_width",
    "ssm_cfg",
    "mamba_num_heads",
    "mamba_expand",
)
HYBRID_KEYS = (
    "hybrid_override_pattern",
    "attn_layer_period",
    "layers_block_type",
    "block_types",
    "layer_types_hybrid",
    "attn_layer_idx",
)
ENCODER_HEADS = (
    "ForMaskedLM",
    "ForSequenceClassification",
    "ForTokenClassification",
    "ForQuestionAnswering",
    "ForPreTraining",
    "ForNextSentencePrediction",
)
DECODER_WORDS = "only decoder-only transformers with attention (and a KV cache) are described"


def _stated(cfg: dict[str, Any], key: str) -> bool:
    return cfg.get(key) not in (None, 0, False, [], {}, "")


def _refuse(kind: str, evidence: str, why: str) -> UnsupportedModelError:
    return UnsupportedModelError(f"{kind} ({evidence}): {why}; {DECODER_WORDS}. Use a decoder LLM.")


def check_names(cfg: dict[str, Any]) -> None:
    """ConfigError unless ``model_type`` is text and ``architectures`` a list of class names
    (each absent or null is fine): a number there would be read as no family at all."""
    model_type = cfg.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise ConfigError(
            f"config.json field 'model_type' must be text (the family, e.g. "
            f'"llama"), got {model_type!r:.60} ({type(model_type).__name__}); '
            "write it in quotes as the model's published config.json has it"
        )
    check_string_list(
        cfg,
        "architectures",
        'class names (e.g. ["LlamaForCausalLM"])',
        "write it as a JSON list of strings",
    )


def check_string_list(cfg: dict[str, Any], field: str, what: str, fix: str) -> None:
    """ConfigError unless config.json's ``field`` is absent, null or a list of strings (``what``
    says what they name, ``fix`` what to write)."""
    value = cfg.get(field)
    if value is not None and not (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    ):
        raise ConfigError(
            f"config.json field {field!r} must be a list of {what}, got "
            f"{value!r:.60} ({type(value).__name__}); {fix}"
        )


def class_family(arch: str) -> str:
    """The family of a transformers class name, lower case: ``BertForMaskedLM`` → ``bert``,
    ``XLMRobertaModel`` → ``xlmroberta``, ``Ernie4_5ForCausalLM`` → ``ernie4_5``."""
    return re.split(r"For[A-Z]|LMHeadModel$|Model$", arch, maxsplit=1)[0].lower()


def check_supported(cfg: dict[str, Any]) -> None:
    """Raise UnsupportedModelError for encoder, encoder-decoder, recurrent or hybrid configs
    (and ConfigError, :func:`check_names`, for a model_type or architectures of the wrong type)."""
    check_names(cfg)
    model_type = str(cfg.get("model_type") or "")
    kind = model_type.lower()  # transformers' types are lower case: "BERT" is still BERT
    archs = cfg.get("architectures")
    archs = [str(a) for a in archs] if isinstance(archs, list) else []
    hybrid = [k for k in HYBRID_KEYS if _stated(cfg, k)]
    hybrid += [a for a in archs if class_family(a) in HYBRID_CLASSES]
    if kind in HYBRID_TYPES or hybrid:
        why = "it interleaves recurrent (state-space or linear-attention) layers with attention"
        return _raise(_refuse("hybrid recurrent model", _evidence(model_type, hybrid), why))
    ssm = [k for k in SSM_KEYS if _stated(cfg, k)]
    ssm += [a for a in archs if class_family(a) in RECURRENT_CLASSES]
    if kind in RECURRENT_TYPES or ssm or "mamba" in kind or "rwkv" in kind:
        why = "it keeps a fixed recurrent state instead of a KV cache, and has no attention FLOPs"
        return _raise(_refuse("recurrent / state-space model", _evidence(model_type, ssm), why))
    enc_dec = [a for a in archs if class_family(a) in ENC_DEC_CLASSES]
    if cfg.get("is_encoder_decoder") is True or kind in ENC_DEC_TYPES or enc_dec:
        evidence = "is_encoder_decoder: true" if cfg.get("is_encoder_decoder") is True else ""
        evidence = ", ".join([e for e in (evidence, *enc_dec) if e])
        why = "an encoder stack and cross-attention that a decoder-only model has not"
        return _raise(_refuse("encoder-decoder model", _evidence(model_type, [evidence]), why))
    media = [a for a in archs if class_family(a) in MEDIA_CLASSES or a.endswith(MEDIA_HEADS)]
    if kind in MEDIA_TYPES or media:
        why = "it encodes images or sound and does not generate tokens"
        return _raise(_refuse("vision or audio encoder", _evidence(model_type, media), why))
    encoders = [a for a in archs if class_family(a) in ENCODER_CLASSES or _encoder_half(a)]
    heads = [a for a in archs if a.endswith(ENCODER_HEADS)]
    if kind in ENCODER_TYPES or (archs and len(heads) == len(archs)) or encoders:
        heads = list(dict.fromkeys(encoders + heads))
        why = "it encodes text bidirectionally and does not generate tokens"
        return _raise(_refuse("encoder-only model", _evidence(model_type, heads), why))
    return None


def _encoder_half(arch: str) -> bool:
    """The encoder alone of an encoder-decoder family (``T5EncoderModel``, ``MT5EncoderModel``)."""
    family_ = class_family(arch)
    return family_.endswith("encoder") and family_[: -len("encoder")] in ENC_DEC_CLASSES


def _evidence(model_type: str, keys: list[str]) -> str:
    parts = [f"model_type {model_type!r}"] if model_type else []
    keys = [k for k in keys if k]
    if keys:
        parts.append(", ".join(keys))
    return "; ".join(parts) or "config keys"


def _raise(err: UnsupportedModelError) -> None:
    raise err
