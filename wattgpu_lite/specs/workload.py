"""The workload of a request, and the one default every result uses when none is given.

A request has ``t_in`` prompt tokens and ``t_out`` generated tokens. The default is the mean
Watt Counts request (14.9 prompt and 179.8 generated tokens over the 4,163 dense runs, rounded to
15 and 180), so a prediction without token counts stays inside what the models were trained on;
every result echoes the counts it used.
"""

from __future__ import annotations

import numpy as np

DEFAULT_T_IN = 15  # tokens: Watt Counts prompts are short SQuAD questions (mean 14.9)
DEFAULT_T_OUT = 180  # tokens: mean generated tokens per Watt Counts request (179.8; cap 256)


def server_time_per_token_s(rate_qps, t_out):
    """GPU time charged per generated token at a Poisson rate λ [req/s]: 1 / (λ · T_out) [s].

    Every arriving request's T_out tokens are produced, so throughput = λ · T_out; the GPU is
    held, busy or idle, between requests, so energy per token = P̄ · 1 / (λ · T_out).
    """
    return 1.0 / (np.asarray(rate_qps, dtype=float) * np.asarray(t_out, dtype=float))
