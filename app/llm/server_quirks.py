"""What one server was found to refuse, learned from its answers (issue 34).

llama-cpp-python's server, for one, answers HTTP 500 to an assistant tool-call message whose
`content` is null (it wants a string; `""` works), and refuses to stream when tools are offered
with `tool_choice: "auto"` (a 500, or with 0.3.36 a 200 event stream that closes empty). The
OpenAI form is sent first; when the server refuses it with an error that fits one of these, the
request is sent once more in the form the server takes and that form is kept for this provider
for the life of the process (the provider object is cached per profile and replaced when the
profile is saved; decision 300).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.contracts.messages import Message
from app.contracts.provider import ProviderError

# Statuses that never mean "this body shape is refused": auth, a missing path or model, rate limits.
_NOT_SHAPE = frozenset({401, 403, 404, 408, 429})

EMPTY_TOOL_CONTENT = "empty_tool_content"
NO_STREAM_WITH_TOOLS = "no_stream_with_tools"


@dataclass
class LearnedQuirks:
    """Mutable on purpose: one per provider object, changed only by `adapt`/`unlearn`."""

    empty_tool_content: bool = False  # send "" (not null) as content next to tool calls
    no_stream_with_tools: bool = False  # ask for the whole answer when tools are offered

    def adapt(
        self, err: ProviderError, messages: tuple[Message, ...], *, tools: bool, stream: bool
    ) -> str | None:
        """The change to try after `err`, now switched on; None when nothing fits."""
        if err.status is None or err.status < 400 or err.status in _NOT_SHAPE:
            return None
        said = err.details.get("server_message", "").lower()
        if stream and tools and not self.no_stream_with_tools and "stream" in said:
            self.no_stream_with_tools = True
            return NO_STREAM_WITH_TOOLS
        if not self.empty_tool_content and has_null_tool_content(messages):
            self.empty_tool_content = True
            return EMPTY_TOOL_CONTENT
        return None

    def adapt_empty_stream(self, *, tools: bool) -> bool:
        """A streamed request with tools came back as an empty event stream (llama-cpp-python
        0.3.36 answers 200, then its handler raises "Automatic streaming tool choice is not
        supported" and the stream closes): ask for whole answers with tools from now on."""
        if not tools or self.no_stream_with_tools:
            return False
        self.no_stream_with_tools = True
        return True

    def unlearn(self, change: str) -> None:
        """The change did not help (the same refusal came back): send the usual form again."""
        if change == EMPTY_TOOL_CONTENT:
            self.empty_tool_content = False
        elif change == NO_STREAM_WITH_TOOLS:
            self.no_stream_with_tools = False

    def streams(self, *, stream: bool, tools: bool) -> bool:
        return stream and not (tools and self.no_stream_with_tools)


def has_null_tool_content(messages: tuple[Message, ...]) -> bool:
    """An assistant message with tool calls and no text: sent with `content: null`."""
    return any(m.role == "assistant" and m.tool_calls and not m.content for m in messages)
