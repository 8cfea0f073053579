"""What the local servers answer where they say their window, in the shapes they answer it in.

- vLLM: `GET /v1/models` lists each model served with its `max_model_len`, the window it enforces (its
  `ModelCard`: `id`, `object`, `created`, `owned_by` "vllm", `root`, `parent`, `max_model_len`, `permission`).
- llama.cpp's server: `GET /props` holds `default_generation_settings.n_ctx`, the context of one slot, which is
  what one request may fill (it refuses a prompt of `n_ctx` tokens or more), beside `total_slots`, `model_path`,
  `chat_template`, `build_info`; its `GET /v1/models` lists its one model with `owned_by` "llamacpp" and a `meta`
  whose `n_ctx_train` is the context the model was trained for, not the one it serves.
- Ollama: `POST /api/show` (`{"model": NAME}`) answers the model's Modelfile `parameters` as text (a line
  `num_ctx N` where it sets one), its `template`, `details`, and `model_info`, whose `general.architecture`
  names the key of the trained context (`qwen2.context_length`): Ollama serves `num_ctx`, not that. A model it
  does not have is a 404 `{"error": "model 'NAME' not found"}`. Without a `num_ctx` of the Modelfile it serves
  its own default (OLLAMA_CONTEXT_LENGTH, or a size chosen by VRAM), which `GET /api/ps` shows as the
  `context_length` of a model loaded, and only once it is loaded (by its first request).
"""

from __future__ import annotations

from typing import Literal

from ._wire import JSONDict

Reports = Literal["vllm", "llama.cpp", "ollama"]
"""Whose endpoints a fake server answers, as that server answers them."""

CREATED = 1_700_000_000


def vllm_model(name: str, window: int) -> JSONDict:
    """One model of vLLM's `GET /v1/models`."""
    permission = {"id": "modelperm-fake", "object": "model_permission", "created": CREATED,
                  "allow_create_engine": False, "allow_sampling": True, "allow_logprobs": True,
                  "allow_search_indices": False, "allow_view": True, "allow_fine_tuning": False,
                  "organization": "*", "group": None, "is_blocking": False}
    return {"id": name, "object": "model", "created": CREATED, "owned_by": "vllm", "root": name, "parent": None,
            "max_model_len": window, "permission": [permission]}


def llama_cpp_model(name: str, trained: int) -> JSONDict:
    """The one model of llama.cpp server's `GET /v1/models`: the window it serves is not in it."""
    return {"id": name, "object": "model", "created": CREATED, "owned_by": "llamacpp",
            "meta": {"vocab_type": 2, "n_vocab": 151_936, "n_ctx_train": trained, "n_embd": 3_584,
                     "n_params": 7_615_616_512, "size": 4_683_073_536}}


def llama_cpp_props(name: str, window: int) -> JSONDict:
    """llama.cpp server's `GET /props`, with one slot of `window` tokens."""
    params = {"n_predict": -1, "seed": 4_294_967_295, "temperature": 0.8, "top_k": 40, "top_p": 0.95,
              "min_p": 0.05, "max_tokens": -1, "n_keep": 0, "stream": True, "samplers": ["top_k", "top_p"]}
    return {"default_generation_settings": {"id": 0, "id_task": -1, "n_ctx": window, "speculative": False,
                                            "is_processing": False, "params": params, "prompt": ""},
            "total_slots": 1, "model_alias": name, "model_path": f"/models/{name}.gguf",
            "modalities": {"vision": False, "audio": False}, "chat_template": "{{ messages }}",
            "bos_token": "<|endoftext|>", "eos_token": "<|im_end|>", "build_info": "b6000-fake", "is_sleeping": False}


def ollama_model(name: str) -> JSONDict:
    """One model of Ollama's `GET /v1/models`."""
    return {"id": name, "object": "model", "created": CREATED, "owned_by": "library"}


def ollama_show(name: str, num_ctx: int | None, trained: int) -> JSONDict:
    """Ollama's `POST /api/show`: `num_ctx` where the Modelfile sets it (None: it sets none)."""
    lines = ([f"num_ctx                        {num_ctx}"] if num_ctx is not None else []) + [
        'stop                           "<|im_start|>"', 'stop                           "<|im_end|>"']
    return {"license": "Apache License 2.0", "modelfile": f"FROM {name}\n",
            "parameters": "\n".join(lines), "template": "{{ .Prompt }}",
            "details": {"parent_model": "", "format": "gguf", "family": "qwen2", "families": ["qwen2"],
                        "parameter_size": "7.6B", "quantization_level": "Q4_K_M"},
            "model_info": {"general.architecture": "qwen2", "general.parameter_count": 7_615_616_512,
                           "qwen2.block_count": 28, "qwen2.context_length": trained,
                           "qwen2.embedding_length": 3_584},
            "capabilities": ["completion", "tools"], "modified_at": "2026-11-01T10:00:00Z"}


def ollama_ps(name: str, window: int, loaded: bool) -> JSONDict:
    """Ollama's `GET /api/ps`: the model, at the context it was loaded with, once it is loaded."""
    running = [{"name": name, "model": name, "size": 5_000_000_000, "digest": "f" * 64,
                "details": {"parent_model": "", "format": "gguf", "family": "qwen2", "families": ["qwen2"],
                            "parameter_size": "7.6B", "quantization_level": "Q4_K_M"},
                "expires_at": "2026-11-01T10:05:00Z", "size_vram": 5_000_000_000, "context_length": window}]
    return {"models": running if loaded else []}
