"""A provider's per-model settings applied to a request (temperature, max output tokens).

The core never sets them: they are the user's, per provider profile and model
(`ProviderConfig.model_limits`), so every provider kind applies them the same way here.
"""

from __future__ import annotations

from dataclasses import replace

from app.contracts.provider import ModelRequest, ProviderConfig


def with_limits(request: ModelRequest, config: ProviderConfig) -> ModelRequest:
    """`request` with the profile's limits where the request itself sets none."""
    limits = config.limits_for(request.model)
    temperature = request.temperature if request.temperature is not None else limits.temperature
    max_tokens = (
        request.max_output_tokens if request.max_output_tokens is not None else limits.max_output_tokens
    )
    if temperature == request.temperature and max_tokens == request.max_output_tokens:
        return request
    return replace(request, temperature=temperature, max_output_tokens=max_tokens)
