"""Backends that answer a (system, user) prompt with text, found by name: ``backend_class("openai")``.

| name | class | what it talks to |
| --- | --- | --- |
| transformers | TransformersBackend | a local causal LM through transformers, greedy decoding |
| openai | OpenAICompatibleBackend | any server with ``/v1/chat/completions`` (standard library only) |

A backend raises ``BackendCallError`` for a failure worth counting against one fact and
``ConfigError`` for one that would fail every call. ``audit.questions.llm`` does the asking.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Protocol

from audit.models.pretrained import resolve
from graphstore.errors import BackendCallError, ConfigError
from graphstore.registry import Registry


class QuestionBackend(Protocol):
    """Anything that answers a (system, user) prompt with text."""
    name: str

    def complete(self, system: str, user: str) -> str:
        """The model's reply. Raises ``BackendCallError`` for a failure worth counting."""


BACKENDS: Registry[type] = Registry("question backend")
register_backend = BACKENDS.register


def backend_class(name: str) -> type:
    """The backend class called ``name``; an unknown name lists the valid ones."""
    return BACKENDS.get(name)


def backend_for(source: str, model: str = "default") -> QuestionBackend:
    """The backend a command-line ``URL|PATH`` names: an OpenAI-compatible server for an
    http(s) URL (asked for ``model``), else a local causal LM: a folder, a hub id, or a model
    package or GGUF file (``gemma3-270m``, converted once: ``audit.models.pretrained``)."""
    if source.startswith(("http://", "https://")):
        return OpenAICompatibleBackend(source, model)
    return TransformersBackend(resolve(source))


@register_backend
class TransformersBackend:
    """A local causal LM through transformers, greedy decoding.

    The prompt goes through the tokenizer's chat template when it has one (as a single user
    turn when the template refuses a system turn), else as plain ``system\\n\\nuser\\n`` text.
    """
    name = "transformers"

    def __init__(self, model_path: str | Path, max_new_tokens: int = 256, device: str | None = None):
        from audit.models.load import load_model, load_tokenizer, select_hardware

        if max_new_tokens < 1:
            raise ConfigError(f"max_new_tokens must be at least 1, got {max_new_tokens}")
        self.model_path = str(model_path)
        self.max_new_tokens = max_new_tokens
        self.hardware = select_hardware(device or "auto")
        self.tokenizer = load_tokenizer(self.model_path)
        self.model = load_model(self.model_path, self.hardware).eval()

    @property
    def has_chat_template(self) -> bool:
        return bool(getattr(self.tokenizer, "chat_template", None))

    def render(self, system: str, user: str) -> str:
        """The text the model is given for a (system, user) prompt."""
        if not self.has_chat_template:
            return f"{system}\n\n{user}\n" if system else f"{user}\n"
        from jinja2 import TemplateError

        turns = [{"role": "system", "content": system}] if system else []
        try:
            return self.tokenizer.apply_chat_template(turns + [{"role": "user", "content": user}],
                                                      tokenize=False, add_generation_prompt=True)
        except TemplateError:
            if not system:
                raise
            # Some templates (Gemma's) refuse a system turn: say it at the top of the user turn.
            return self.tokenizer.apply_chat_template([{"role": "user", "content": f"{system}\n\n{user}"}],
                                                      tokenize=False, add_generation_prompt=True)

    def complete(self, system: str, user: str) -> str:
        import torch

        # A chat template writes its own special tokens (BOS included); plain text gets them here.
        inputs = self.tokenizer(self.render(system, user), return_tensors="pt",
                                add_special_tokens=not self.has_chat_template).to(self.hardware.device)
        length = inputs["input_ids"].shape[1]
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit and length + self.max_new_tokens > limit:
            raise BackendCallError("prompt_too_long", f"the prompt is {length} tokens; with {self.max_new_tokens} "
                                                      f"new tokens it passes the model's {limit} positions")
        with torch.inference_mode():
            output = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False,
                                         pad_token_id=self.tokenizer.pad_token_id)
        return self.tokenizer.decode(output[0, length:], skip_special_tokens=True)


def chat_completions_url(url: str) -> str:
    """The endpoint for a base URL ending in ``/v1`` or for the full endpoint itself."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"URL {url!r} is not an http(s) URL; give e.g. http://localhost:8000/v1")
    base = url.rstrip("/")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


@register_backend
class OpenAICompatibleBackend:
    """A server speaking the OpenAI chat-completions protocol (vLLM, llama.cpp, Ollama, ...),
    through the standard library only; temperature 0.

    The API key is ``api_key`` or else the ``OPENAI_API_KEY`` environment variable (none is
    sent when neither is set). On the very first call, a refused connection, an unknown host
    or HTTP 401/403/404 raises ``ConfigError`` naming the URL: every later call would fail the
    same way. From then on every failure is a ``BackendCallError``, counted for its fact.
    """
    name = "openai"

    def __init__(self, url: str, model: str, api_key: str | None = None, timeout: float = 60):
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("the OpenAI-compatible backend needs a model name, as the server lists it at /v1/models")
        if timeout <= 0:
            raise ConfigError(f"timeout must be positive seconds, got {timeout}")
        self.endpoint = chat_completions_url(url)
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.timeout = timeout
        self._called = False

    def complete(self, system: str, user: str) -> str:
        first, self._called = not self._called, True
        body = {"model": self.model, "temperature": 0,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.endpoint, data=json.dumps(body).encode("utf-8"),
                                         headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as e:
            detail = e.read()[:200].decode("utf-8", "replace").strip()
            message = f"{self.endpoint} answered HTTP {e.code}" + (f": {detail}" if detail else "")
            if first and e.code in (401, 403, 404):
                raise ConfigError(f"{message}. Check the URL (base ending in /v1, or the full "
                                  "/v1/chat/completions), the model name, and the API key "
                                  "(argument or OPENAI_API_KEY)") from e
            raise BackendCallError(f"http_{e.code}", message) from e
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise BackendCallError("timeout", f"no answer from {self.endpoint} in {self.timeout} s") from e
            if first and isinstance(e.reason, (ConnectionRefusedError, socket.gaierror)):
                raise ConfigError(f"cannot reach {self.endpoint}: {e.reason}. Is the server running, "
                                  "and is the URL right?") from e
            raise BackendCallError("network", f"{self.endpoint}: {e.reason}") from e
        except TimeoutError as e:
            raise BackendCallError("timeout", f"no answer from {self.endpoint} in {self.timeout} s") from e
        except (OSError, http.client.HTTPException) as e:
            raise BackendCallError("network", f"{self.endpoint}: {e}") from e
        return _message_content(raw, self.endpoint)


def _message_content(raw: bytes, endpoint: str) -> str:
    try:
        content = json.loads(raw)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise BackendCallError("bad_response", f"{endpoint} sent a response without "
                                               f"choices[0].message.content: {raw[:200]!r}") from e
    if not isinstance(content, str):
        raise BackendCallError("bad_response", f"{endpoint} sent a non-text message content: {content!r}")
    return content
