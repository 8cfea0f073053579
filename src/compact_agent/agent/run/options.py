"""What a session starts from: its options (model, window, permissions, the session to resume), where
its files live (session_root), which session id it takes, the instruction files it reads and the
directories its file tools may not touch, and the system prompt it opens with. Nothing here
talks to a model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ... import secrets
from ...config import Settings, home_dir
from ...session import project_identity
from ...session.answered import continued_id
from ...session.files import NEW_NAME, legacy_slug, list_sessions, new_session_id, path_hash, project_slug
from ...session.not_a_session import is_not_a_session, refusal
from ...settings_file import user_config_path
from ..integrations.instructions import Instructions, load_instructions

if TYPE_CHECKING:  # the REPL shows its prompt before pydantic-ai is imported
    from pydantic_ai.models import Model

    from ...settings_file import Loaded
    from ..safety.permissions import AskFn, Permissions

SYSTEM_PROMPT = """You are compact-agent, a coding assistant working in the user's project through tools.
- Use read_file, grep and glob to look before you change anything; edit_file needs a prior read_file.
- Make the smallest change that does the job; run the project's tests with bash when they exist.
- Paths are relative to the working directory: {cwd}
- Be brief in answers; say what you changed and what is left.
Today's date: {today}."""


def system_prompt(cwd: Path, instructions: str, append: str = "") -> str:
    """The system prompt: ours, the instruction files' text, then --append-system-prompt. The
    appended text has the provider key redacted, as the instruction files' text has when read
    (instructions.py): a key pasted in it would go with every request. So has the working
    directory's path (`~/proj/sk-proj-…`): a key this run knows, and, as the sessions folder's name
    has it (session/files.py, `project_slug`), each name of it from where a part shaped like a key
    begins (`secrets.key_shaped_at`), whether or not a run knows that key: another provider's, or
    one rotated, goes to no provider either."""
    path = secrets.keys_cut(secrets.redact(str(cwd)), secrets.REDACTED)
    text = SYSTEM_PROMPT.format(cwd=path, today=date.today().isoformat())
    if instructions:
        text += f"\n\n# Instructions (AGENTS.md / CLAUDE.md; the nearer file wins)\n{instructions}"
    if append:
        text += f"\n\n{secrets.redact(append)}"
    return text


@dataclass
class SessionOptions:
    cwd: Path
    model: str = "deepseek-chat"
    base_url: str | None = None
    api_key: str | None = None
    context_window: int | None = None
    permission_mode: str = "ask"  # "ask" | "yes" | "deny"
    ask: AskFn | None = None  # the permission question (ui/approval.py's make_ask)
    session_id: str | None = None
    continue_last: bool = False
    settings: Settings = field(default_factory=Settings)
    home: Path | None = None
    model_override: Model | None = None  # a ready model (the offline demo's scripted stand-in)
    allowed_tools: tuple[str, ...] = ()  # --allowed-tools: these run without asking
    append_system_prompt: str = ""  # --append-system-prompt
    config: Loaded | None = None  # the settings as loaded at start, with each one's source (/config)


def instruction_files(cwd: Path, permissions: Permissions | None = None) -> Instructions:
    """The user-level file, then AGENTS.md / CLAUDE.md from the repository root down to `cwd`, with
    a line for each file there that is left out, and why; none the file tools of `permissions` may
    not read (`unreadable`)."""
    return load_instructions(cwd, user_config_path().parent, None if permissions is None else unreadable(permissions))


def unreadable_before(opts: SessionOptions) -> Callable[[Path], str | None]:
    """`unreadable` for a session of `opts` not made yet (print mode reads a custom command's file
    first): its settings' `deny_paths` and compact-agent's own data, as its file tools will hold them."""
    from ..safety.permissions import Permissions

    st = opts.settings
    return unreadable(Permissions(opts.cwd, "deny", extra_dirs=[Path(d) for d in st.extra_dirs],
                                  deny_paths=st.deny_paths, private_dirs=private_dirs(opts.home)))


def unreadable(permissions: Permissions) -> Callable[[Path], str | None]:
    """Why the file tools may not read a resolved path whatever the mode, in a few words (`deny rule
    '.env'`), or None: asked of a project's instruction and command files, which no tool call reads
    (a repository's `AGENTS.md -> .env` went with every request, past the user's `deny_paths`)."""
    def why(real: Path) -> str | None:
        if rule := permissions.deny_rule(real):
            return f"deny rule {rule!r}"
        return "compact-agent's own data" if permissions.is_private(real) else None
    return why


def private_dirs(home: Path | None = None) -> list[Path]:
    """What the model's file tools may neither read nor write: the session store, and the whole
    user config dir — the config file and the user-level AGENTS.md / CLAUDE.md, which enter the
    system prompt of every later session (also when the working directory holds them, cwd = ~)."""
    import platformdirs

    config = user_config_path()
    home = home or home_dir()  # and what it learned about servers (server_windows.py), read by every session
    return [home / "projects", home / project_identity.INDEX, home / "servers", config, config.parent,
            Path(platformdirs.user_config_dir("compact-agent"))]


def session_root(cwd: Path, home: Path | None = None) -> Path:
    """The folder of `cwd`'s sessions. Sessions saved by a version that named it otherwise are
    moved there the first time, so `-c` still finds them: a folder whose name ends with the hash of
    the same path (`path_hash`: the readable part was another, with a key in the path whole in it or
    `REDACTED` where a key that run knew stood; moved, the key leaves the folder's name), or one
    named without the hash (`legacy_slug`); and those saved for this very folder by the path it had
    before it was moved or renamed (session/project_identity.py)."""
    return found_root(cwd, home)[0]


class Found(NamedTuple):
    """Where `cwd`'s sessions are (`session_root`), and what a run says of them once."""

    root: Path
    #: the path the project had when its sessions were saved, when they were found by its folder
    #: (moved or renamed since); None otherwise
    was: str | None = None
    #: the folder the sessions saved at `cwd`'s path were handed to: the folder they were saved for,
    #: renamed since (`mv app app2; mkdir app`: they are app2's, not the new app's); None otherwise
    owner: Path | None = None


def found_root(cwd: Path, home: Path | None = None) -> Found:
    """`session_root`, with what `-c`, `-r` and the sessions list say once (`Found`)."""
    projects = (home or home_dir()) / "projects"
    root = projects / project_slug(cwd)
    if root.exists():
        if (owner := project_identity.owner_elsewhere(root, cwd)) is not None:
            theirs = projects / project_slug(owner)
            try:  # as that folder's run would take them (moved_here): this folder starts without any
                root.rename(theirs)
            except OSError:  # that folder has a sessions folder of its own by now: left as they are
                return Found(root)
            project_identity.remember(theirs, owner)
            return Found(root, None, owner)
        project_identity.remember(root, cwd)
        return Found(root)
    if (same := _same_path(projects, path_hash(str(cwd.resolve())))) is not None:
        return Found(_moved(same, root, cwd))
    old = projects / legacy_slug(cwd)
    # An old name can read like another directory's new one (`proj-4c1e…` is the old name of a
    # directory called that, and the new name of `proj`): that folder is not taken.
    if old.is_dir() and not old.is_symlink() and not NEW_NAME.search(old.name):
        return Found(_moved(old, root, cwd))
    if (moved := project_identity.moved_here(projects, cwd)) is not None:
        return Found(_moved(moved[0], root, cwd), moved[1])
    return Found(root)


def _same_path(projects: Path, digest: str) -> Path | None:
    """The sessions folder in `projects` named for the path whose hash is `digest` by an earlier
    version; of several (a run that knew the key and one that did not each made one), the one
    written to last."""
    try:
        named = [p for p in projects.iterdir() if p.name.endswith(f"-{digest}") and p.is_dir() and not p.is_symlink()]
    except OSError:  # no projects folder yet
        return None
    return max(named, key=lambda p: (_written(p), p.name), default=None)


def _written(folder: Path) -> int:
    try:
        return folder.stat().st_mtime_ns
    except OSError:  # moved meanwhile by another process: the rename fails, and the name it has now is used
        return -1


def _moved(old: Path, root: Path, cwd: Path) -> Path:
    """`root`, once the sessions folder `old` is renamed to it (and says it is `cwd`'s); `old` where
    that fails and no other process moved it (a read-only home: the sessions are read where they are)."""
    try:
        old.rename(root)
    except OSError:
        if not root.exists():
            return old
    project_identity.remember(root, cwd)
    return root


def sessions_starting(root: Path, prefix: str) -> list[str]:
    """The ids of the sessions in `root` that begin with `prefix` (a whole id, or its start)."""
    return [p.stem for p in list_sessions(root) if p.stem.startswith(prefix)]


def is_plain_id(session_id: str) -> bool:
    """Whether `session_id` is a name in this directory's sessions folder, not a path out of it, nor
    one longer than a file's name may be (asked about, the system raised 'File name too long')."""
    return (not session_id.startswith(".") and "/" not in session_id and "\\" not in session_id
            and "\0" not in session_id and len(f"{session_id}.jsonl".encode("utf-8", "surrogateescape")) <= 255)


def resolve_session_id(opts: SessionOptions) -> tuple[str, bool]:
    """(session id, whether it exists already). Raises FileNotFoundError, one line, for an id that
    names no session, several, or a folder or a file that is no session (left as it is)."""
    root = session_root(opts.cwd, opts.home)
    if opts.session_id:
        if not is_plain_id(opts.session_id):  # a path (`../other-project/ID`) names no session of this directory
            raise FileNotFoundError(f"no session {opts.session_id} for {opts.cwd} (compact-agent sessions lists them)")
        named = root / f"{opts.session_id}.jsonl"
        if named.is_file():
            return _earlier(root, opts.session_id)
        if named.exists():  # a folder named like a session: opening it said "Is a directory" after a warning
            raise FileNotFoundError(f"session {opts.session_id} cannot be opened: {named} is "
                                    f"{'a directory' if named.is_dir() else 'not a regular file'}, not a session "
                                    "file (compact-agent sessions lists the sessions)")
        # A unique prefix will do (`-r 20261201-1829`), as git takes short commit ids.
        matches = sessions_starting(root, opts.session_id)
        if len(matches) == 1:
            opts.session_id = matches[0]
            return _earlier(root, matches[0])
        if matches:
            raise FileNotFoundError(f"{opts.session_id} is the start of {len(matches)} sessions "
                                    f"({', '.join(sorted(matches)[:4])}{', …' if len(matches) > 4 else ''}); "
                                    "give more of the id")
        raise FileNotFoundError(f"no session {opts.session_id} for {opts.cwd} (compact-agent sessions lists them)")
    if opts.continue_last and (last := continued_id(root)) is not None:
        return _earlier(root, last)
    return new_session_id(), False


def _earlier(root: Path, session_id: str) -> tuple[str, bool]:
    """An earlier session to open, once its file is one: random bytes under its name (another
    program's file) are refused before anything writes to them (session/not_a_session.py)."""
    path = root / f"{session_id}.jsonl"
    if is_not_a_session(path):
        raise FileNotFoundError(refusal(session_id, path))
    return session_id, True
