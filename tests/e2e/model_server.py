"""A scripted model server for driving the real agents offline.

Run as its own process: ``python model_server.py SCRIPT_JSON``. The script
names the shell command to ask for and where to write. The server listens
on 127.0.0.1 only (an ephemeral port, written to ``port_file``), answers each
agent's model API in its own shape, and records every request it receives
(one JSON line each, in ``log_file``):

- Anthropic Messages API (Claude Code): ``POST /v1/messages``, SSE or JSON;
- OpenAI Responses API (Codex): ``POST .../responses``, SSE;
- OpenAI Chat Completions (Copilot CLI, Qwen Code): ``POST .../chat/completions``,
  SSE or JSON;
- Gemini API (Gemini CLI): ``POST .../models/M:streamGenerateContent`` (SSE)
  and ``:generateContent``, ``:countTokens``.

The conversation it scripts: the script holds one or more calls (a command,
whether to run it in the background, the directory to run it in). When a
request offers the shell tool and holds fewer tool results than there are
calls, the answer is the next call of that tool, its arguments spelled the
way that tool declares them (``run_in_background``, ``is_background``,
``mode: "async"``, ``yield_time_ms``; ``workdir``, ``dir_path``,
``directory``); once every call has its result, the answer is a plain
"done." (the agent ends its turn). Any other request (titles, summaries, checks)
gets a short plain answer. The server stops itself after ``max_requests``
requests or ``lifetime`` seconds, whichever comes first; request bodies
are bounded.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 8 * 1024 * 1024
SHELL_TOOLS = (
    "Bash",
    "run_shell_command",
    "shell_command",
    "shell",
    "exec_command",
    "bash",
)
"""The shell tools the agents offer the model, by name, most specific first."""

Json = Any


class Script:
    """What the server says, and what it has seen."""

    def __init__(self, spec: dict[str, Any]) -> None:
        """Read the spec: ``command``, ``log_file``, ``port_file``, the bounds."""
        self.calls: list[dict[str, Any]] = spec.get("calls") or [{"command": spec["command"]}]
        self.log_file: str = spec["log_file"]
        self.port_file: str = spec["port_file"]
        self.max_requests: int = int(spec.get("max_requests", 200))
        self.lifetime: float = float(spec.get("lifetime", 600))
        self.requests = 0
        self.lock = threading.Lock()

    def record(self, entry: dict[str, Any]) -> None:
        """Append one request (and what was answered) to the log."""
        with self.lock, open(self.log_file, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")


# -- what a request holds ---------------------------------------------------------------


def _names_of(tool: dict[str, Any]) -> list[str]:
    """The names one entry of ``tools`` declares (one, or a Gemini list of declarations)."""
    names = [tool["name"]] if isinstance(tool.get("name"), str) else []
    function = tool.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        names.append(function["name"])
    declarations = tool.get("functionDeclarations") or tool.get("function_declarations") or []
    names.extend(
        d["name"] for d in declarations if isinstance(d, dict) and isinstance(d.get("name"), str)
    )
    return names


def tool_names(body: Json) -> list[str]:
    """The names of the tools a request offers, in every API's shape."""
    return [
        name
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
        for name in _names_of(tool)
    ]


def shell_tool(body: Json) -> str | None:
    """The shell tool this request offers, or None."""
    offered = tool_names(body)
    return next((name for name in SHELL_TOOLS if name in offered), None)


def _schema_of(tool: dict[str, Any], name: str) -> dict[str, Any] | None:
    candidates = [tool, tool.get("function") or {}]
    candidates += tool.get("functionDeclarations") or tool.get("function_declarations") or []
    for found in candidates:
        if isinstance(found, dict) and found.get("name") == name:
            for key in ("input_schema", "parameters", "parametersJsonSchema"):
                if isinstance(found.get(key), dict):
                    return found[key]
    return None


def tool_parameters(body: Json, name: str) -> set[str]:
    """The parameters the request's tool ``name`` declares, in every API's shape."""
    for tool in body.get("tools") or []:
        schema = _schema_of(tool, name) if isinstance(tool, dict) else None
        if schema is not None:
            return set(schema.get("properties") or {})
    return set()


def _text_of(value: Json) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _message_results(body: Json) -> list[str]:
    """Anthropic ``tool_result`` blocks and Chat Completions ``role: tool`` messages."""
    found: list[str] = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool":
            found.append(_text_of(message.get("content")))
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        found.extend(
            _text_of(block.get("content"))
            for block in blocks
            if isinstance(block, dict) and block.get("type") == "tool_result"
        )
    return found


OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def tool_results(body: Json) -> list[str]:
    """The text of every tool result the request carries back, in every API's shape."""
    found = _message_results(body)
    items = body.get("input") if isinstance(body.get("input"), list) else []
    found.extend(
        _text_of(item.get("output"))
        for item in items
        if isinstance(item, dict) and item.get("type") in OUTPUT_ITEMS
    )
    for content in body.get("contents") or []:
        parts = content.get("parts") or [] if isinstance(content, dict) else []
        found.extend(
            _text_of(part["functionResponse"].get("response"))
            for part in parts
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
        )
    return found


BACKGROUND = (
    ("run_in_background", True),  # Claude Code's Bash
    ("is_background", True),  # Gemini CLI's and Qwen Code's run_shell_command
    ("mode", "async"),  # Copilot CLI's bash (attached to the session, not detached)
    ("yield_time_ms", 1000),  # Codex's exec_command: it yields, the command runs on
)
"""How each shell tool is asked to run a command in the background, by the parameter it has."""
DIRECTORY = ("workdir", "dir_path", "directory")
"""The parameter that names the directory a command runs in (Codex, Gemini CLI, Qwen Code)."""


def arguments_for(tool: str, call: dict[str, Any], parameters: set[str]) -> dict[str, Any]:
    """The arguments that ask ``tool`` (declaring ``parameters``) to make ``call``."""
    command = call["command"]
    if tool == "shell":
        arguments: dict[str, Any] = {"command": ["bash", "-lc", command]}
    elif tool == "exec_command":
        arguments = {"cmd": command}
    else:
        arguments = {"command": command, "description": "run the command"}
    if call.get("background"):
        name, value = next((b for b in BACKGROUND if b[0] in parameters), (None, None))
        if name is None:
            msg = f"{tool} declares no way to run in the background: {sorted(parameters)}"
            raise ValueError(msg)
        arguments[name] = value
    if call.get("directory"):
        name = next((d for d in DIRECTORY if d in parameters), None)
        if name is None:
            msg = f"{tool} declares no directory parameter: {sorted(parameters)}"
            raise ValueError(msg)
        arguments[name] = call["directory"]
    return arguments


# -- the answers, per API ----------------------------------------------------------------


Call = tuple[str, dict[str, Any], int]
"""A call of the shell tool: its name, its arguments, and which call of the script it is."""


def _call_id(kind: str, call: Call) -> str:
    """An id for the tool call being answered: unique within the conversation."""
    return f"{kind}_e2e_{call[2] + 1}"


def sse(events: list[tuple[str | None, Json]]) -> bytes:
    """Server-sent events: ``event:`` lines where named, one ``data:`` each."""
    out = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
    return "".join(out).encode()


def anthropic(body: Json, call: Call | None, text: str) -> tuple[str, bytes]:
    """A Messages API answer: one ``tool_use`` block, or text; SSE when ``stream`` was asked."""
    model = body.get("model", "model")
    usage = {"input_tokens": 1, "output_tokens": 1}
    if call is not None:
        block: Json = {
            "type": "tool_use",
            "id": _call_id("toolu", call),
            "name": call[0],
            "input": call[1],
        }
        stop = "tool_use"
    else:
        block = {"type": "text", "text": text}
        stop = "end_turn"
    message = {
        "id": "msg_e2e",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not body.get("stream"):
        return "application/json", json.dumps(message).encode()
    start = dict(message, content=[], stop_reason=None)
    if call is not None:
        opening: Json = dict(block, input={})
        delta: Json = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
    else:
        opening = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
    events: list[tuple[str | None, Json]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": opening},
        ),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "text/event-stream", sse(events)


def responses(body: Json, call: Call | None, text: str) -> tuple[str, bytes]:
    """A Responses API stream: one ``function_call`` item, or a message."""
    if call is not None:
        item: Json = {
            "type": "function_call",
            "id": _call_id("fc", call),
            "call_id": _call_id("call", call),
            "name": call[0],
            "arguments": json.dumps(call[1]),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": "msg_e2e_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    response = {
        "id": "resp_e2e",
        "object": "response",
        "model": body.get("model", "model"),
        "status": "completed",
        "output": [item],
        "usage": {
            "input_tokens": 1,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 2,
        },
    }
    created = dict(response, status="in_progress", output=[])
    events: list[tuple[str | None, Json]] = [
        ("response.created", {"type": "response.created", "response": created}),
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": item},
        ),
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        ("response.completed", {"type": "response.completed", "response": response}),
    ]
    return "text/event-stream", sse(events)


def chat(body: Json, call: Call | None, text: str) -> tuple[str, bytes]:
    """A Chat Completions answer: one ``tool_calls`` entry, or content; chunks when streamed."""
    model = body.get("model", "model")
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    if call is not None:
        tool_call = {
            "index": 0,
            "id": _call_id("call", call),
            "type": "function",
            "function": {"name": call[0], "arguments": json.dumps(call[1])},
        }
        message: Json = {"role": "assistant", "content": None, "tool_calls": [tool_call]}
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": text}
        finish = "stop"
    if not body.get("stream"):
        whole = {
            "id": "chatcmpl-e2e",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }
        return "application/json", json.dumps(whole).encode()

    def chunk(delta: Json, reason: str | None, **extra: Json) -> Json:
        return {
            "id": "chatcmpl-e2e",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
            **extra,
        }

    events: list[tuple[str | None, Json]] = [
        (None, chunk(message, None)),
        (None, chunk({}, finish)),
        (None, chunk({}, None, usage=usage) | {"choices": []}),
        (None, "[DONE]"),
    ]
    return "text/event-stream", sse(events)


def gemini(call: Call | None, text: str, *, stream: bool) -> tuple[str, bytes]:
    """A generateContent answer: one ``functionCall`` part, or text; SSE when streamed."""
    if call is not None:
        part: Json = {"functionCall": {"name": call[0], "args": call[1]}}
    else:
        part = {"text": text}
    whole = {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "e2e",
    }
    if not stream:
        return "application/json", json.dumps(whole).encode()
    return "text/event-stream", sse([(None, whole)])


def gemini_plain(body: Json) -> str:
    """A side request of Gemini CLI (a JSON-schema check): the smallest fitting answer."""
    config = body.get("generationConfig") or body.get("generation_config") or {}
    if config.get("responseJsonSchema") or config.get("responseSchema"):
        return json.dumps(
            {
                "reasoning": "done",
                "next_speaker": "user",
                "complexity_reasoning": "simple",
                "complexity_score": 1,
                "model_choice": "flash",
                "reasoning_text": "done",
            }
        )
    return "done."


def answer(  # noqa: PLR0911 - one return per API
    path: str, body: Json, call: Call | None, tool: str | None
) -> tuple[str, bytes]:
    """The answer to a request at ``path``, in the shape of the API that path belongs to."""
    text = "done."
    if path.endswith("/count_tokens"):
        return "application/json", b'{"input_tokens": 1}'
    if path.endswith("/messages"):
        return anthropic(body, call, text)
    if path.endswith("/responses"):
        return responses(body, call, text)
    if path.endswith("/chat/completions"):
        return chat(body, call, text)
    if ":countTokens" in path:
        return "application/json", b'{"totalTokens": 1}'
    if ":streamGenerateContent" in path or ":generateContent" in path:
        if call is None and tool is None:
            text = gemini_plain(body)
        return gemini(call, text, stream=":stream" in path)
    return "application/json", b"{}"


# -- the server -------------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    """One request: read it (bounded), record it, answer it in its API's shape."""

    script: Script
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's name
        """Quiet: the log file has every request."""

    def _answer(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        """Model lists and health checks: an empty list."""
        self._count()
        self.script.record({"method": "GET", "path": self.path})
        self._answer(200, "application/json", json.dumps({"data": [], "models": []}).encode())

    def _count(self) -> None:
        with self.script.lock:
            self.script.requests += 1
            over = self.script.requests > self.script.max_requests
        if over:
            threading.Thread(target=self.server.shutdown, daemon=True).start()

    def do_POST(self) -> None:
        """A model request."""
        self._count()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._answer(413, "application/json", b'{"error": "too large"}')
            return
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        path = self.path.split("?", 1)[0]
        results = tool_results(body)
        tool = shell_tool(body)
        call = None
        error = None
        if tool is not None and len(results) < len(self.script.calls):
            wanted = self.script.calls[len(results)]
            try:
                arguments = arguments_for(tool, wanted, tool_parameters(body, tool))
                call = (tool, arguments, len(results))
            except ValueError as refused:
                error = str(refused)
        kind, data = answer(path, body, call, tool)
        self.script.record(
            {
                "method": "POST",
                "path": self.path,
                "headers": {
                    k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"
                },
                "body": body,
                "tool": tool,
                "called": call is not None,
                "call": call[1] if call is not None else None,
                "error": error,
                "tool_results": results,
            }
        )
        self._answer(200, kind, data)


def main() -> int:
    """Serve the script named on the command line until a bound is reached."""
    with open(sys.argv[1], encoding="utf-8") as spec_file:
        script = Script(json.load(spec_file))
    Handler.script = script
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    timer = threading.Timer(script.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    with open(script.port_file + ".tmp", "w", encoding="utf-8") as port:
        port.write(str(server.server_address[1]))
    import os

    os.replace(script.port_file + ".tmp", script.port_file)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
