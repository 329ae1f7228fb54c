"""Per-million token prices and the estimated cost of a turn.

Prices come from the user settings (`model_prices`, per provider/model) or, for this process,
from the env pair `CASHCODE_INPUT_COST_PER_MILLION` / `CASHCODE_OUTPUT_COST_PER_MILLION`
(the env pair wins: it is how a CLI run states its prices). A cost is only estimated when both
the usage and a price are known; otherwise it is `None` ("unknown"), never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from app.settings.config_errors import ConfigError

ENV_INPUT = "CASHCODE_INPUT_COST_PER_MILLION"
ENV_OUTPUT = "CASHCODE_OUTPUT_COST_PER_MILLION"
_MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class Price:
    input_per_million: Decimal
    output_per_million: Decimal


def _decimal(name: str, raw: str) -> Decimal:
    try:
        value = Decimal(raw.strip())
    except InvalidOperation:
        raise ConfigError(f"{name} must be a non-negative decimal number, not {raw[:40]!r}") from None
    if not value.is_finite() or value < 0:
        raise ConfigError(f"{name} must be a non-negative decimal number, not {raw[:40]!r}")
    return value


def env_price(env: Mapping[str, str]) -> Price | None:
    """The env pair, or None when neither is set. One without the other is a ConfigError."""
    raw_in = env.get(ENV_INPUT, "").strip()
    raw_out = env.get(ENV_OUTPUT, "").strip()
    if not raw_in and not raw_out:
        return None
    if not raw_in or not raw_out:
        missing = ENV_INPUT if not raw_in else ENV_OUTPUT
        present = ENV_OUTPUT if not raw_in else ENV_INPUT
        raise ConfigError(f"{present} is set but {missing} is not: set both prices or neither")
    return Price(_decimal(ENV_INPUT, raw_in), _decimal(ENV_OUTPUT, raw_out))


@dataclass(frozen=True)
class PriceEntry:
    provider_id: str
    model: str
    price: Price


class PriceTable:
    """Looks up the price of (provider, model): env pair first, then the settings entries.

    A settings entry with model "*" prices every model of that provider."""

    def __init__(self, env: Price | None, entries: Sequence[PriceEntry] = ()) -> None:
        self._env = env
        self._entries = {(e.provider_id, e.model): e.price for e in entries}

    def lookup(self, provider_id: str, model: str) -> Price | None:
        if self._env is not None:
            return self._env
        return self._entries.get((provider_id, model)) or self._entries.get((provider_id, "*"))


def estimate_cost(price: Price | None, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """Cost in the price's currency, or None when the price or either token count is unknown."""
    if price is None or input_tokens is None or output_tokens is None:
        return None
    total = (
        Decimal(input_tokens) * price.input_per_million + Decimal(output_tokens) * price.output_per_million
    ) / _MILLION
    return float(total)
