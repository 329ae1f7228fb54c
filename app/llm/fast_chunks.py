"""A quicker build of streamed Chat Completions chunks for the OpenAI SDK client.

The SDK turns every streamed chunk into a `ChatCompletionChunk` with its own lenient,
pure-Python `construct_type` (no validation). A Python profile of the desktop app streaming
500 tokens/s (bench/bench_desktop.py --only latency) put ~75 % of the core thread's time there,
all of it holding the GIL that the GUI thread and the event pusher need to get tokens on screen.
pydantic's compiled validation builds the same model about 17x faster (measured: ~0.03 vs
~0.49 ms a chunk on the loaded 2-core machine). So chunks are validated first; a chunk that does
not fit the schema (servers that bend it) still takes the SDK's lenient path, exactly as before.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openai import AsyncOpenAI


@functools.cache
def fast_client_class() -> type[AsyncOpenAI]:
    """AsyncOpenAI with the fast chunk path (built on first use: importing openai is costly)."""
    import pydantic
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionChunk

    class FastChunkOpenAI(AsyncOpenAI):
        def _process_response_data(self, *, data: object, cast_to: Any, response: Any) -> Any:
            if cast_to is ChatCompletionChunk and isinstance(data, dict):
                try:
                    return ChatCompletionChunk.model_validate(data)
                except pydantic.ValidationError:
                    pass  # bent to the schema: the SDK's lenient build below, as always
            return super()._process_response_data(data=data, cast_to=cast_to, response=response)

    return FastChunkOpenAI
