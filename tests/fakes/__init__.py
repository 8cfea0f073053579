"""Test doubles that speak real wire protocols (no SDK mocking); see `openai_server.FakeOpenAIServer`."""

from .openai_server import (
    ChatRequest,
    FakeOpenAIServer,
    Fault,
    Reply,
    ResponderError,
    count_tokens,
    message_text,
    tool_results,
    user_messages,
)

__all__ = [
    "ChatRequest",
    "FakeOpenAIServer",
    "Fault",
    "Reply",
    "ResponderError",
    "count_tokens",
    "message_text",
    "tool_results",
    "user_messages",
]
