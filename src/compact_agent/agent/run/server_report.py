"""The window a local OpenAI-compatible server reports for its model, asked once as a session starts.

A local server says its window where it says its other settings, and a session with no window
given used to start at the 32,768 assumed and learn the real one from a refusal (or from prompts
cut without a word): a window below it cost a refused request, one above it was never used. Asked
instead, in this order, until one answers:

- vLLM: `GET {base}/models` lists each model with its `max_model_len`, the window it enforces;
- llama.cpp's server: `GET {root}/props`, `default_generation_settings.n_ctx`: the context of one
  slot, which is what one request may fill (a build in router mode answers 0 there: nothing);
- Ollama: `POST {root}/api/show` gives the model's Modelfile parameters, and a `num_ctx` there is
  the window it serves (capped by the context the model was trained for, `model_info`'s
  `<arch>.context_length`, which is not the window: Ollama serves its default, 2,048 to 256K by
  version, setting and memory). Without one, the default is seen only as the `context_length` of
  the model in `GET {root}/api/ps`, once loaded. Neither: nothing, rather than the trained size.

`{root}` is the base URL without its `/v1`. Only an address that is no provider's own API is asked
(`hosted`). Everything is asked within `WAIT_S` in all, on one connection, and anything else (no
connection, a status, a page that is not JSON, no such field, an answer too long or too slow)
ends the asking with nothing, silently: the session starts as it did. The key goes only to the
endpoint's own origin (scheme, host and port), no redirect is followed, and no proxy of the
environment is used. What was reported is kept with the windows learned (server_windows.py).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ...cli_numbers import MAX_WINDOW
from ...models import NO_KEY

#: How long the asking may take in all (read when called: tests make it short).
WAIT_S = 2.0
#: An answer longer than this is no answer (llama.cpp's /props carries its chat template: tens of KB).
MOST_BYTES = 4 << 20

#: Providers' own APIs, which report no window where local servers do (their models' are known or given).
HOSTED = ("api.openai.com", "openai.azure.com", "api.deepseek.com", "api.anthropic.com", "openrouter.ai",
          "api.groq.com", "api.together.xyz", "api.together.ai", "api.mistral.ai", "api.fireworks.ai",
          "generativelanguage.googleapis.com", "api.x.ai", "api.deepinfra.com", "api.perplexity.ai",
          "api.cerebras.ai", "integrate.api.nvidia.com", "models.inference.ai.azure.com", "api.moonshot.ai",
          "api.moonshot.cn", "dashscope.aliyuncs.com", "api.siliconflow.cn", "api.novita.ai",
          "router.huggingface.co", "api-inference.huggingface.co", "api.githubcopilot.com", "api.z.ai")


@dataclass(frozen=True)
class Report:
    """A window a server reported, and the field that said it (`max_model_len`, `n_ctx`, ...)."""

    window: int
    field: str


def hosted(url: str) -> bool:
    """Whether `url` is a provider's own API (or a subdomain of one)."""
    host = (urlsplit(url).hostname or "").lower()
    return any(host == h or host.endswith("." + h) for h in HOSTED)


class _Stop(Exception):
    """No more asking: no connection, the time is up, an answer too long, or an Ollama model not loaded yet."""


class _Asker:
    """Asks one server, within one deadline, the key sent only to its own origin."""

    def __init__(self, base_url: str, api_key: str | None, wait: float) -> None:
        import httpx2 as httpx  # the HTTP client the provider SDKs are built on

        self.httpx = httpx
        self.base = base_url.rstrip("/")
        self.root = self.base.removesuffix("/v1")
        self.origin = _origin(self.base)
        self.key = api_key if api_key and api_key != NO_KEY else None
        self.deadline = time.monotonic() + wait
        # Every URL asked is on the base's origin and no redirect is followed: an http:// base never
        # speaks TLS, so its client loads no trust store (20 ms for the usual bundle, at each start).
        tls = urlsplit(self.base).scheme != "http"
        self.client = httpx.Client(trust_env=False, follow_redirects=False, verify=tls)

    def __enter__(self) -> _Asker:
        return self

    def __exit__(self, *_: object) -> None:
        self.client.close()

    def ask(self, method: str, url: str, body: Any = None) -> Any:
        """The JSON `url` answers with a 200; None for any other answer; _Stop when there is none."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _Stop
        headers = {"accept": "application/json"}
        if self.key is not None and _origin(url) == self.origin:  # never to another host or port
            headers["authorization"] = f"Bearer {self.key}"
        try:
            with self.client.stream(method, url, json=body, headers=headers, timeout=left) as response:
                if response.status_code != 200:
                    return None
                data = bytearray()
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > MOST_BYTES or time.monotonic() > self.deadline:
                        raise _Stop
        except self.httpx.HTTPError:  # no connection, a timeout, a broken answer
            raise _Stop from None
        try:
            return json.loads(bytes(data))
        except ValueError:  # a web page, say
            return None


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port


def _window(value: Any) -> int | None:
    """A window as a server gives it: a whole number of tokens a setting could take; None else."""
    return value if type(value) is int and 0 < value <= MAX_WINDOW else None


def _vllm(asker: _Asker, model: str) -> Report | None:
    listed = asker.ask("GET", f"{asker.base}/models")
    data = listed.get("data") if isinstance(listed, dict) else None
    for entry in data if isinstance(data, list) else []:
        if isinstance(entry, dict) and entry.get("id") == model and (w := _window(entry.get("max_model_len"))):
            return Report(w, "max_model_len")
    return None


def _llama_cpp(asker: _Asker, model: str) -> Report | None:
    props = asker.ask("GET", f"{asker.root}/props")
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    window = _window(settings.get("n_ctx")) if isinstance(settings, dict) else None
    return Report(window, "n_ctx") if window else None


def _ollama(asker: _Asker, model: str) -> Report | None:
    shown = asker.ask("POST", f"{asker.root}/api/show", {"model": model})
    if not isinstance(shown, dict) or not isinstance(shown.get("parameters", ""), str):
        return None
    info: dict[str, Any] = shown["model_info"] if isinstance(shown.get("model_info"), dict) else {}
    trained = _window(info.get(f"{info.get('general.architecture')}.context_length"))
    num_ctx = next((_window(int(v)) for k, _, v in (line.strip().partition(" ") for line in
                    shown.get("parameters", "").splitlines()) if k == "num_ctx" and v.strip().isdigit()), None)
    window, field = num_ctx, "num_ctx"
    if window is None:  # Ollama's own default: seen only in the model loaded
        running = asker.ask("GET", f"{asker.root}/api/ps")
        models = running.get("models") if isinstance(running, dict) else None
        names = {model, f"{model}:latest"}
        window = next((w for m in models if isinstance(m, dict) and (m.get("model") in names or m.get("name") in names)
                       and (w := _window(m.get("context_length")))), None) if isinstance(models, list) else None
        field = "context_length of the model loaded"
    if window is None:  # Ollama, its model not loaded: it reports its window once it is, so not `quiet`
        raise _Stop
    return Report(min(window, trained) if trained else window, field)


def ask(base_url: str, model: str, api_key: str | None, wait: float | None = None) -> Report | None:
    """The window the server at `base_url` reports for `model`, asked within `wait` seconds
    (`WAIT_S`); None when it reports none, or cannot be asked (a provider's own API included)."""
    return outcome(base_url, model, api_key, wait)[0]


def outcome(base_url: str, model: str, api_key: str | None, wait: float | None = None) -> tuple[Report | None, bool]:
    """`ask`'s report, and whether the server answered every question (True: it reports no window, and
    will not when asked again; False: no connection, too slow, too long, or not asked)."""
    if hosted(base_url) or urlsplit(base_url).scheme.lower() not in ("http", "https"):
        return None, False
    try:
        with _Asker(base_url, api_key, WAIT_S if wait is None else wait) as asker:
            for way in (_vllm, _llama_cpp, _ollama):
                if (report := way(asker, model)) is not None:
                    return report, True
    except _Stop:
        return None, False
    except Exception:  # whatever else an answer makes of the asking: the session starts as it did
        return None, False
    return None, True


#: Asked before the session is built, in a worker thread (`ask_ahead`), for the session built next.
_ahead: dict[tuple[str, str], tuple[Report | None, bool]] = {}


def ask_ahead(base_url: str, model: str, api_key: str | None) -> None:
    """`outcome`, asked off the event loop (the REPL's prompt runs on it meanwhile); `asked` takes it."""
    _ahead[(base_url, model)] = outcome(base_url, model, api_key)


def asked(base_url: str, model: str, api_key: str | None) -> tuple[Report | None, bool]:
    """What `ask_ahead` got for `base_url` and `model`, taken once; else `outcome`, asked now."""
    if (got := _ahead.pop((base_url, model), None)) is not None:
        return got
    return outcome(base_url, model, api_key)


#: A server that answered and reported no window (LM Studio, a gateway) is not asked again for this long:
#: it was asked on every start, 3 or 4 requests and up to `WAIT_S`. Kept beside the windows learned.
QUIET_FOR = timedelta(days=7)
QUIET_FILE = "unreported.json"


def _quiet_path(home: Path) -> Path:
    from .server_windows import path_in

    return path_in(home).with_name(QUIET_FILE)


def _quiet_read(path: Path) -> dict[str, dict[str, str]]:
    """{endpoint: {model: ISO time it reported nothing}}; what is not so (edited by hand, torn) is skipped."""
    from .server_keys import MISSING, read_json

    data = read_json(path)[0]
    kept = data.get("unreported") if data is not MISSING and isinstance(data, dict) else None
    return {url: {m: t for m, t in models.items() if isinstance(m, str) and isinstance(t, str)}
            for url, models in (kept.items() if isinstance(kept, dict) else ()) if isinstance(models, dict)}


def _when(text: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def quiet(home: Path, key: str, model: str, now: datetime | None = None) -> bool:
    """Whether the server at `key` answered for `model` within `QUIET_FOR` and reported no window."""
    when = _when(_quiet_read(_quiet_path(home)).get(key, {}).get(model, ""))
    return when is not None and timedelta(0) <= (now or datetime.now(UTC)) - when < QUIET_FOR


def keep_quiet(home: Path, key: str, model: str, now: datetime | None = None) -> None:
    """Keep that the server at `key` reported no window for `model` (at `now`), dropping what is
    past `QUIET_FOR`. Raises OSError."""
    from ...session.files import atomic_write
    from .server_windows import locked

    now, path = now or datetime.now(UTC), _quiet_path(home)
    with locked(path):
        kept = _quiet_read(path)
        kept.setdefault(key, {})[model] = now.isoformat(timespec="seconds")
        kept = {url: fresh for url, models in kept.items()
                if (fresh := {m: t for m, t in models.items() if (w := _when(t)) is not None and now - w < QUIET_FOR})}
        atomic_write(path, (json.dumps({"unreported": kept}, indent=1, sort_keys=True) + "\n").encode())


def every_quiet(home: Path) -> list[tuple[str, str, str]]:
    """(endpoint, model, when) of each server kept as having reported no window (`config` lists them)."""
    kept = _quiet_read(_quiet_path(home))
    return [(url, m, kept[url][m]) for url in sorted(kept) for m in sorted(kept[url])]


def forget_quiet(home: Path, which: str, model: str | None = None) -> list[tuple[str, str]]:
    """Forget that the endpoint `which` names (server_keys.matches; "all" for every one) reported no
    window, only for `model` when given, so the next session there asks it again (`config
    --forget-window` and `--forget-server`); returns the (endpoint, model) pairs forgotten. Raises OSError."""
    from ...session.files import atomic_write
    from .server_keys import matches
    from .server_windows import locked

    path = _quiet_path(home)
    if not path.exists():
        return []
    with locked(path):
        kept = _quiet_read(path)
        gone = [(url, m) for url in sorted(kept) if matches(url, which)
                for m in sorted(kept[url]) if model is None or m == model]
        if gone:
            for url, m in gone:
                del kept[url][m]
            kept = {url: models for url, models in kept.items() if models}
            atomic_write(path, (json.dumps({"unreported": kept}, indent=1, sort_keys=True) + "\n").encode())
    return gone
