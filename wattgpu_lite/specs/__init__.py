"""Chapter 0 — what is being run on what: the GPU and LLM spec sheets.

- :mod:`~wattgpu_lite.specs.gpu`: the :class:`GPU` dataclass, validated field by field (each
  field's bounds and spellings: :mod:`~wattgpu_lite.specs.gpu_fields`);
- :mod:`~wattgpu_lite.specs.llm`: the :class:`LLM` dataclass, built from a Hugging Face config.json;
- :mod:`~wattgpu_lite.specs.llm_config`, :mod:`~wattgpu_lite.specs.hf_config`,
  :mod:`~wattgpu_lite.specs.hf_family`, :mod:`~wattgpu_lite.specs.params`,
  :mod:`~wattgpu_lite.specs.support`: reading config.json (its fields, its family and section),
  counting parameters from the architecture, and refusing what the kit cannot describe honestly;
- :mod:`~wattgpu_lite.specs.catalog`: ``wl.gpus()``, ``wl.llms()``, ``wl.gpu(name)``, ``wl.llm(name)``;
- :mod:`~wattgpu_lite.specs.aliases`: checkpoint ids that share a catalog architecture
  (``wl.llm("Qwen/Qwen3-235B-A22B-Instruct-2507")``, ``wl.llm_aliases()``; data/llm_aliases.csv);
- :mod:`~wattgpu_lite.specs.resolve`: a name, dict or JSON path typed by a user -> GPU or LLM;
- :mod:`~wattgpu_lite.specs.workload`: a request's tokens and the one default every result uses;
- :mod:`~wattgpu_lite.specs.frame`: the frame of requests ``wl.predict_many`` takes, its columns
  checked before any row, and its rows' loads and tokens checked column-wise;
- :mod:`~wattgpu_lite.specs.layout`: ``wl.Parallel(tp, ep)``, the layout of a replica (tensor,
  expert, data-parallel attention) and its validation against a model.

Taught in notebooks 00 (bring your own GPU or config.json) and 03 (the features built from them).
Imports nothing of the kit but :mod:`wattgpu_lite.errors`, :mod:`wattgpu_lite.datafiles` and
:mod:`wattgpu_lite.checks`.
"""
