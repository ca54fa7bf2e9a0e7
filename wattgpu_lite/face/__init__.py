"""What a reader sees: figures, widgets and the command line. Logic lives in the chapters.

- :mod:`~wattgpu_lite.face.plots` (and :mod:`~wattgpu_lite.face.plots_wattgpu`): the figures;
- :mod:`~wattgpu_lite.face.widgets` and :mod:`~wattgpu_lite.face.explorer`: the ipywidgets
  explorers (the explorer's logic is pure and tested);
- :mod:`~wattgpu_lite.face.cli`: ``python -m wattgpu_lite`` (gpus, llms, estimate, predict,
  evaluate, rank).

May import any chapter; nothing imports it.
"""
