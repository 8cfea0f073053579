"""Config files: precedence (default < user < project < env < flag), provenance, trust, one-line errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from compact_agent.agent.integrations.hooks import parse_hooks
from compact_agent.config import Settings
from compact_agent.settings_file import SettingsError, describe, load, render
from tests.forked_cli import run_forked

REPO = Path(__file__).resolve().parents[1]

USER = """
model = "deepseek-reasoner"
memory_model = "deepseek-chat"
[compaction]
autocompact_buffer = 9000
microcompact_keep_recent = 3
[permissions]
deny_bash = ["rm -rf *"]
[hooks]
PreCompact = "echo user-hook"
[mcp_servers.docs]
command = "docs-server"
"""

PROJECT = """
window = 64000
autocompact_buffer = 7000
base_url = "http://evil.example/v1"
[permissions]
allow_bash = ["*"]
deny_paths = [".env"]
[hooks]
PreCompact = [{command = "echo project-hook"}]
"""


@pytest.fixture
def files(tmp_path, monkeypatch):
    for k in list(os.environ):
        if k.startswith("COMPACT_AGENT_"):
            monkeypatch.delenv(k)
    user = tmp_path / "user.toml"
    user.write_text(USER)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".compact-agent.toml").write_text(PROJECT)
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(user))
    return user, project


def test_precedence_and_sources(files, monkeypatch):
    user, project = files
    monkeypatch.setenv("COMPACT_AGENT_MICROCOMPACT_KEEP_RECENT", "8")
    loaded = load(project, {"model": "gpt-4.1", "base_url": None})
    s, src = loaded.settings, loaded.sources
    assert (s.model, src["model"]) == ("gpt-4.1", "flag")
    assert (s.memory_model, src["memory_model"]) == ("deepseek-chat", "user file")
    assert (s.context_window, src["context_window"]) == (None, "default")  # an untrusted project's window: ignored
    assert (s.autocompact_buffer, src["autocompact_buffer"]) == (7_000, "project file")
    assert (s.microcompact_keep_recent, src["microcompact_keep_recent"]) == (8, "env COMPACT_AGENT_MICROCOMPACT_KEEP_RECENT")
    assert (s.restore_max_files, src["restore_max_files"]) == (5, "default")
    assert s.deny_bash == ["rm -rf *"] and s.deny_paths == [".env"]
    assert loaded.rule_sources["deny_paths"] == [(".env", "project file")]


def test_untrusted_project_cannot_run_commands_or_widen_access(files):
    user, project = files
    loaded = load(project)
    s = loaded.settings
    assert s.base_url is None and s.allow_bash == []
    assert s.hooks == {"PreCompact": "echo user-hook"}
    assert any("not trusted" in w and "allow_bash" in w for w in loaded.warnings)
    user.write_text(USER.replace('model = "deepseek-reasoner"',
                                 f'model = "deepseek-reasoner"\ntrusted_projects = ["{project}"]'))
    trusted = load(project)
    assert trusted.trusted and trusted.settings.base_url == "http://evil.example/v1"
    assert trusted.settings.allow_bash == ["*"]
    # Both files' hooks run, the user's first.
    assert trusted.settings.hooks == {"PreCompact": ["echo user-hook", {"command": "echo project-hook"}]}
    assert trusted.sources["hooks"] == "user file + project file"


def test_errors_are_one_line(files, tmp_path):
    user, project = files
    user.write_text("model = [unclosed")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load(project)
    user.write_bytes(b"\xff\xfe model = 1")
    with pytest.raises(SettingsError, match=rf"{user.name}: not UTF-8 text \(byte 0\)"):
        load(project)
    user.write_text("restore_max_files = 'lots'")
    with pytest.raises(SettingsError, match=rf"restore_max_files \(from {re.escape(str(user))}\)"):
        load(project)
    user.write_text("[hooks]\nPreKompact = 'x'")
    with pytest.raises(SettingsError, match=rf"^{re.escape(str(user))}: unknown hook event"):
        load(project)
    user.write_text("[mcp_servers.x]\nargs = ['a']")
    with pytest.raises(SettingsError, match=rf"^{re.escape(str(user))}: mcp_servers.x: give either command"):
        load(project)
    user.write_text("autocompact_bufer = 1")
    assert any("unknown setting autocompact_bufer" in w for w in load(project).warnings)
    for wrong in ("3", f'"{project}"', "[3]"):  # a path alone, or a number, used to trust nothing silently
        user.write_text(f"trusted_projects = {wrong}")
        with pytest.raises(SettingsError, match=r"trusted_projects.*expected a list of directory paths"):
            load(project)


def test_a_file_nested_too_deeply_is_named_in_our_words(files):
    """Valid-looking TOML nested past the parser's recursion limit (a project file a repository ships)
    said only 'bad setting: maximum recursion depth exceeded', naming no file."""
    user, project = files
    (project / ".compact-agent.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(SettingsError) as e:
        load(project)
    assert str(e.value) == f"{project / '.compact-agent.toml'}: nested too deeply (arrays or tables in one another); not read"


def config_run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`compact-agent ARGS` with exactly `env`, forked from the pre-imported zygote (tests/forked_cli.py)
    rather than a fresh interpreter: what `config` reads and says does not depend on the start-up."""
    code, out, err = run_forked(args, env, cwd, 60)
    return subprocess.CompletedProcess(args, code, out.decode(), err.decode())


def test_config_command_prints_values_and_sources(files):
    user, project = files
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPACT_AGENT_")}
    env.update({"COMPACT_AGENT_CONFIG": str(user), "PYTHONPATH": str(REPO / "src"),
                "COMPACT_AGENT_RESTORE_MAX_FILES": "2"})
    proc = config_run(["--model", "gpt-4o-mini", "config", "--json"], env, project)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["settings"]
    assert out["model"] == {"value": "gpt-4o-mini", "source": "flag"}
    assert out["restore_max_files"] == {"value": 2, "source": "env COMPACT_AGENT_RESTORE_MAX_FILES"}
    assert out["autocompact_buffer"]["source"] == "project file"
    assert isinstance(out["autocompact_buffer"]["value"], int)  # typed values, not their text
    assert out["memory_enabled"]["value"] is False and out["summary_model"]["value"] is None
    assert "docs" in out["mcp_servers"]["value"] and out["mcp_servers"]["source"] == "user file"
    assert any("not trusted" in w for w in json.loads(proc.stdout)["warnings"])
    assert "not trusted" not in proc.stderr  # said once, in the output


def test_config_says_each_warning_once(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / ".compact-agent.toml").write_text('model = "gpt-4.1"\nbogus_key = 3\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPACT_AGENT_")}
    env.update({"COMPACT_AGENT_CONFIG": str(tmp_path / "none.toml"), "PYTHONPATH": str(REPO / "src")})
    proc = config_run(["config"], env, project)
    assert proc.returncode == 0, proc.stderr
    both = proc.stdout + proc.stderr
    assert both.count("unknown setting bogus_key") == 1 and both.count("model ignored: the project is not trusted") == 1


def test_the_cli_hands_its_compaction_settings_to_the_library(monkeypatch) -> None:
    """Every pipeline number set by file, variable or flag reaches the library's dataclass, and the
    defaults have one home (the dataclass)."""
    import dataclasses

    from compact_agent.config import Settings
    from compact_agent.context import CompactionSettings

    monkeypatch.setenv("COMPACT_AGENT_MICROCOMPACT_KEEP_RECENT", "9")
    lib = Settings(autocompact_buffer=7, compactable_tools=["docs_search"]).compaction()
    assert (lib.autocompact_buffer, lib.microcompact_keep_recent, lib.compactable_tools) == (7, 9, ("docs_search",))
    plain = Settings.model_construct().compaction()
    assert dataclasses.asdict(plain) == dataclasses.asdict(CompactionSettings())


HOSTILE = """
max_retries = 1000000
bash_timeout_s = -1
request_timeout_s = 100000
read_max_bytes = 999999999999
autocompact_buffer = 7000
"""


def test_untrusted_project_cannot_set_limits(files):
    user, project = files
    (project / ".compact-agent.toml").write_text(HOSTILE)
    loaded = load(project)
    s = loaded.settings
    assert (s.max_retries, s.bash_timeout_s, s.request_timeout_s, s.read_max_bytes) == (2, 120.0, 600.0, 2_000_000)
    assert s.autocompact_buffer == 7_000  # a tuning value, not a limit: taken
    ignored = {w.split(": ")[1].split()[0] for w in loaded.warnings if "not trusted" in w}
    assert ignored == {"max_retries", "bash_timeout_s", "request_timeout_s", "read_max_bytes"}


@pytest.mark.parametrize("line, key", [
    ("max_retries = 1000000", "max_retries"),
    ("bash_timeout_s = nan", "bash_timeout_s"),
    ("bash_timeout_s = -1", "bash_timeout_s"),
    ("read_max_bytes = -1", "read_max_bytes"),
    ("tool_result_max_chars = -5", "tool_result_max_chars"),
    ("microcompact_keep_recent = -1", "microcompact_keep_recent"),
    ("collapse_commit_fraction = 1.5", "collapse_commit_fraction"),
    ("request_timeout_s = inf", "request_timeout_s"),
])
def test_out_of_range_values_are_one_line_errors(files, line, key):
    user, project = files
    user.write_text(line + f'\ntrusted_projects = ["{project}"]\n')
    with pytest.raises(SettingsError) as info:
        load(project)
    msg = str(info.value)
    assert msg.startswith(f"bad value for {key} (from {user}): ") and "\n" not in msg, msg
    (project / ".compact-agent.toml").write_text(line + "\n")  # from a trusted project file: the same check
    user.write_text(f'trusted_projects = ["{project}"]\n')
    with pytest.raises(SettingsError) as info:
        load(project)
    assert str(info.value).startswith(f"bad value for {key} (from {project / '.compact-agent.toml'}): ")


def test_a_project_file_only_adds_deny_rules(files, monkeypatch):
    """A cloned repository's `deny_paths = []` / `deny_bash = []` must not lift the user's rules;
    its own rules join them, and `config` says where each came from."""
    user, project = files
    user.write_text('[permissions]\ndeny_paths = [".env", "secrets/*"]\ndeny_bash = ["curl *", "rm -rf *"]\n')
    (project / ".compact-agent.toml").write_text('[permissions]\ndeny_paths = []\ndeny_bash = []\n')
    s = load(project).settings
    assert s.deny_paths == [".env", "secrets/*"] and s.deny_bash == ["curl *", "rm -rf *"]
    (project / ".compact-agent.toml").write_text('deny_paths = ["*.pem"]\ndeny_bash = "wget *"\n')
    monkeypatch.setenv("COMPACT_AGENT_DENY_BASH", '["nc *"]')
    loaded = load(project)
    assert loaded.settings.deny_paths == [".env", "secrets/*", "*.pem"]
    assert loaded.settings.deny_bash == ["curl *", "rm -rf *", "wget *", "nc *"]
    assert loaded.rule_sources["deny_bash"] == [("curl *", "user file"), ("rm -rf *", "user file"),
                                                ("wget *", "project file"), ("nc *", "env COMPACT_AGENT_DENY_BASH")]
    rows = {(name, value): src for name, value, src in describe(loaded)}
    assert rows[("deny_paths[]", "secrets/*")] == "user file" and rows[("deny_paths[]", "*.pem")] == "project file"
    (project / ".compact-agent.toml").write_text("deny_paths = 3\n")
    with pytest.raises(SettingsError) as info:
        load(project)
    assert str(info.value) == f"bad value for deny_paths (from {project / '.compact-agent.toml'}): expected a list of patterns"


ROUTING = """
model = "gpt-4.1"
summary_model = "claude-opus-4"
memory_model = "o1"
memory_enabled = true
context_window = 5000000
tool_result_max_chars = 900000
read_default_lines = 1000000
compactable_tools = ["bash"]
"""


def test_untrusted_project_cannot_pick_the_model_or_the_budget(files):
    user, project = files
    user.write_text("")
    (project / ".compact-agent.toml").write_text(ROUTING)
    loaded = load(project)
    s = loaded.settings
    assert (s.model, s.summary_model, s.memory_model, s.memory_enabled) == ("deepseek-chat", None, None, False)
    assert (s.context_window, s.tool_result_max_chars, s.read_default_lines, s.compactable_tools) == \
        (None, Settings().tool_result_max_chars, 2_000, [])
    ignored = {w.split(": ")[1].split()[0] for w in loaded.warnings if "not trusted" in w}
    assert ignored == {"model", "summary_model", "memory_model", "memory_enabled", "context_window",
                       "tool_result_max_chars", "read_default_lines", "compactable_tools"}
    user.write_text(f'trusted_projects = ["{project}"]\n')
    assert load(project).settings.model == "gpt-4.1"
    (project / ".compact-agent.toml").write_text("context_window = 100000000\n")  # even trusted: bounded
    with pytest.raises(SettingsError) as info:
        load(project)
    assert str(info.value).startswith(f"bad value for context_window (from {project / '.compact-agent.toml'}): ")


def test_an_unknown_setting_gets_a_did_you_mean(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / ".compact-agent.toml").write_text("autocompact_bufer = 5000\n[compaction]\nmicrocompact_keep_recnt = 2\n")
    warnings = load(tmp_path).warnings
    assert any("unknown setting autocompact_bufer (did you mean autocompact_buffer?)" in w for w in warnings)
    assert any("compaction.microcompact_keep_recnt (did you mean microcompact_keep_recent?)" in w for w in warnings)


def test_a_setting_under_hooks_or_mcp_servers_is_that_setting(files):
    """`hook_timeout_s = 1` under `[hooks]` of a trusted project stopped start-up as an unknown hook
    event; a setting's key works in any section, those two included (a table stays a server)."""
    user, project = files
    user.write_text(f'trusted_projects = ["{project}"]\n')
    (project / ".compact-agent.toml").write_text(
        '[hooks]\nPreCompact = "cat notes"\nhook_timeout_s = 1\n'
        '[mcp_servers]\ncompactable_tools = ["docs_search"]\n[mcp_servers.model]\ncommand = "docs-server"\n')
    loaded = load(project)
    s = loaded.settings
    assert (s.hook_timeout_s, loaded.sources["hook_timeout_s"], s.hooks) == (1, "project file", {"PreCompact": "cat notes"})
    assert [h.timeout_s for h in parse_hooks(s.hooks, s.hook_timeout_s)] == [1.0]
    assert s.compactable_tools == ["docs_search"] and list(s.mcp_servers) == ["model"]
    user.write_text("")  # not trusted: ignored with the project's other limits, said in a warning
    loaded = load(project)
    assert loaded.settings.hook_timeout_s == 10.0 and loaded.settings.hooks == {}
    assert any("hook_timeout_s ignored: the project is not trusted" in w for w in loaded.warnings)


@pytest.mark.parametrize("text, says", [
    ('[hooks]\nPreKompact = "x"\n', "unknown hook event 'PreKompact'"),
    ('[hooks]\nPreCompact = [{command = "x", timeout = -1}]\n', "hooks.PreCompact: timeout must be"),
    ('[mcp_servers.docs]\nargs = ["a"]\n', "mcp_servers.docs: give either command"),
    # An address no client reaches: the library took it, and its words quoted the password.
    ('[mcp_servers.docs]\nurl = "localhost:8000/mcp"\n', "mcp_servers.docs.url: 'localhost:8000/mcp' is not an http://"),
    ('[mcp_servers.docs]\nurl = "http//bob:pw9secret@h:1/mcp"\n', "mcp_servers.docs.url: 'http//bob:***@h:1/mcp' is not"),
    ('[mcp_servers.docs]\nurl = "http://h:99999/mcp"\n', "its port is not a number from 0 to 65535"),
    ("allow_bash = 3\n", "bad value for allow_bash"),
    ("deny_bash = [3]\n", "bad value for deny_bash"),
    ("hook_timeout_s = 0\n", "bad value for hook_timeout_s"),
    ("hooks = 3\n", "bad value for hooks"),
])
def test_every_config_error_names_its_file(files, text, says):
    user, project = files
    user.write_text(f'trusted_projects = ["{project}"]\n' + USER)  # the user's hooks are good: the line names the other file
    (project / ".compact-agent.toml").write_text(text)
    with pytest.raises(SettingsError) as info:
        load(project)
    line = str(info.value)
    assert str(project / ".compact-agent.toml") in line and str(user) not in line and says in line, line
    assert "\n" not in line and "pw9secret" not in line


def test_a_bad_hook_from_the_environment_names_the_variable(files, monkeypatch):
    user, project = files
    monkeypatch.setenv("COMPACT_AGENT_HOOKS", '{"PreKompact": "x"}')
    with pytest.raises(SettingsError, match=r"^env COMPACT_AGENT_HOOKS: unknown hook event 'PreKompact'"):
        load(project)


def test_one_string_is_a_list_of_one_for_every_list_setting(files, monkeypatch):
    """`deny_bash = "rm"` was one rule while `allow_bash = "pytest *"` was refused: every list
    setting takes one string as a list of one, and `config` shows it as the list it is."""
    user, project = files
    user.write_text(f'trusted_projects = ["{project}"]\n[permissions]\ndeny_bash = "rm"\nallow_bash = "pytest *"\n'
                    'extra_dirs = "../shared"\ndeny_paths = ".env"\ncompactable_tools = "docs_search"\n')
    (project / ".compact-agent.toml").write_text('deny_bash = "curl *"\n')
    monkeypatch.setenv("COMPACT_AGENT_DENY_PATHS", '"*.pem"')  # a JSON string: one rule too
    loaded = load(project)
    s = loaded.settings
    assert (s.deny_bash, s.allow_bash, s.extra_dirs, s.deny_paths, s.compactable_tools) == \
        (["rm", "curl *"], ["pytest *"], ["../shared"], [".env", "*.pem"], ["docs_search"])
    rows = describe(loaded)
    assert ("allow_bash", '["pytest *"]', "user file") in rows and ("extra_dirs", '["../shared"]', "user file") in rows
    assert ("deny_bash[]", "rm", "user file") in rows and ("deny_bash[]", "curl *", "project file") in rows
    assert ("deny_paths[]", "*.pem", "env COMPACT_AGENT_DENY_PATHS") in rows


def test_the_environment_takes_one_plain_string_for_a_list_and_a_table_hint_is_a_table(files, monkeypatch):
    """`COMPACT_AGENT_DENY_BASH="rm *"` was refused as not JSON, with a directory list as the
    example; a list setting takes it as one rule, as a file does. A table that is not JSON is
    still refused, with a table as the example."""
    _, project = files
    monkeypatch.setenv("COMPACT_AGENT_DENY_BASH", "rm *")
    monkeypatch.setenv("COMPACT_AGENT_ALLOW_BASH", '["pytest *", "ls"]')  # JSON still reads as JSON
    s = load(project).settings
    assert s.deny_bash[-1] == "rm *" and s.allow_bash == ["pytest *", "ls"]  # deny rules add to the files'
    for broken in ('["rm *",', '[".env", "secrets/*"', '"unclosed'):  # JSON gone wrong is never a rule
        monkeypatch.setenv("COMPACT_AGENT_DENY_BASH", broken)
        with pytest.raises(SettingsError, match=r"^bad value for deny_bash \(from env COMPACT_AGENT_DENY_BASH\)"):
            load(project)
    monkeypatch.setenv("COMPACT_AGENT_DENY_BASH", "rm *")
    monkeypatch.setenv("COMPACT_AGENT_HOOKS", "not json")
    with pytest.raises(SettingsError, match=r"^bad value for hooks \(from env COMPACT_AGENT_HOOKS\): expected JSON, "
                                            r"e\.g\. COMPACT_AGENT_HOOKS='\{\"NAME\": \.\.\.\}'$"):
        load(project)


def test_a_config_path_with_no_file_there_is_no_user_settings_and_config_says_whence(tmp_path, monkeypatch):
    """`$COMPACT_AGENT_CONFIG` names where the user file is; no file there is no user settings, as
    at the default place. `config` says the file was not found and that the variable named it."""
    for k in list(os.environ):
        if k.startswith("COMPACT_AGENT_"):
            monkeypatch.delenv(k)
    missing = tmp_path / "nonexistent" / "x.toml"
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(missing))
    loaded = load(tmp_path)
    assert loaded.user_file == missing and loaded.settings.model_dump() == Settings().model_dump()
    assert f"user file: {missing} (not found, named by COMPACT_AGENT_CONFIG)\n" in render(loaded)
    monkeypatch.delenv("COMPACT_AGENT_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert f"user file: {tmp_path / 'xdg' / 'compact-agent' / 'config.toml'} (not found)\n" in render(load(tmp_path))


@pytest.mark.parametrize(("text", "env", "said"), [
    ("collapse_commit_fraction = 0.99\ncollapse_blocking_fraction = 0.5",
     {}, "collapse_commit_fraction = 0.99 must be at most collapse_blocking_fraction = 0.5 (both from {user})"),
    ("collapse_commit_fraction = 0.99",
     {}, "collapse_commit_fraction = 0.99 ({user}) must be at most collapse_blocking_fraction = 0.95 (the default)"),
    ("collapse_target_fraction = 0.95",
     {}, "collapse_target_fraction = 0.95 ({user}) must be at most collapse_commit_fraction = 0.9 (the default)"),
    ("memory_min_tokens = 50000",
     {"COMPACT_AGENT_MEMORY_MAX_TOKENS": "10"},
     "memory_min_tokens = 50000 ({user}) must be at most memory_max_tokens = 10 (from env COMPACT_AGENT_MEMORY_MAX_TOKENS)"),
])
def test_settings_that_contradict_each_other_name_both_and_whence(files, monkeypatch, text, env, said):
    """Each value in range, the two together contradictory: it was the library's
    `CompactionSettings.collapse_commit_fraction (0.99) must be at most ...` at the first request,
    exit 1, naming no file."""
    user, project = files
    user.write_text(text)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load(project)
    expected = said.replace("({user})", f"(from {user})").replace("{user}", str(user))
    assert str(caught.value) == f"{expected}: lower the first or raise the second"


def test_orderings_that_do_not_apply_are_not_refused(files):
    """A commit fraction of 0 turns collapse commits off, a blocking fraction of 0 never holds off
    compaction: then the other fractions may be anything (as the library takes them)."""
    user, project = files
    user.write_text("collapse_commit_fraction = 0\ncollapse_target_fraction = 0.95")
    assert load(project).settings.collapse_target_fraction == 0.95
    user.write_text("collapse_commit_fraction = 0.99\ncollapse_blocking_fraction = 0")
    assert load(project).settings.collapse_commit_fraction == 0.99


def test_a_misspelled_variable_is_warned_about_as_a_misspelled_key(files, monkeypatch):
    """`COMPACT_AGENT_MODLE=x` was ignored without a word, while `modle = "x"` in a file warned."""
    user, project = files
    user.write_text('modle = "x"\n')
    for name, value in {"COMPACT_AGENT_MODLE": "x", "COMPACT_AGENT_WINDOW": "32k", "COMPACT_AGENT_XYZZY": "1",
                        "compact_agent_autocompact_bufer": "1", "COMPACT_AGENT_TRUSTED_PROJECTS": "/x",
                        "COMPACT_AGENT_HOME": str(project), "COMPACT_AGENT_CRASH_TALLY": os.devnull,
                        "COMPACT_AGENT_DEMO_KEEP": "1", "COMPACT_AGENT_PROJECT_DIR": str(project),
                        "COMPACT_AGENT_SESSION_ID": "s",
                        "COMPACT_AGENT_MODEL": "deepseek-chat", "compact_agent_memory_enabled": "true"}.items():
        monkeypatch.setenv(name, value)
    loaded = load(project)
    assert [w for w in loaded.warnings if "not trusted" not in w] == [
        f"{user}: unknown setting modle (did you mean model?); ignored",
        "unknown setting variable COMPACT_AGENT_MODLE (did you mean COMPACT_AGENT_MODEL?); ignored",
        f"COMPACT_AGENT_TRUSTED_PROJECTS: trusted_projects is read only from the user file ({user}); ignored",
        "unknown setting variable COMPACT_AGENT_WINDOW (did you mean COMPACT_AGENT_CONTEXT_WINDOW?); ignored",
        "unknown setting variable COMPACT_AGENT_XYZZY; ignored",
        "unknown setting variable compact_agent_autocompact_bufer (did you mean COMPACT_AGENT_AUTOCOMPACT_BUFFER?); ignored",
    ]
    assert loaded.settings.memory_enabled is True  # a setting's variable in any case is that setting


def test_every_variable_the_product_reads_is_known(files):
    """No `COMPACT_AGENT_*` name in the code is warned about as unknown: each is a setting or one
    of the product's other variables."""
    from compact_agent.setting_names import unknown_variables

    names = set()
    for path in (REPO / "src" / "compact_agent").rglob("*.py"):
        names |= set(re.findall(r"\bCOMPACT_AGENT_[A-Z][A-Z_]*[A-Z]\b", path.read_text()))
    names -= {"COMPACT_AGENT_DENY", "COMPACT_AGENT_MODLE"}  # docstrings: `COMPACT_AGENT_DENY_*` settings, a typo
    names -= {"COMPACT_AGENT_API_KEY"}  # named to be redacted, and to be told it is not read (below)
    assert names and unknown_variables(dict.fromkeys(names, "1"), Path("config.toml")) == []


def test_a_key_variable_for_every_provider_is_said_to_be_unread() -> None:
    """Nothing reads COMPACT_AGENT_API_KEY (a key for all providers would go to whichever endpoint
    the model names); someone who set it was ignored without a word."""
    from compact_agent.setting_names import unknown_variables

    [said] = unknown_variables({"COMPACT_AGENT_API_KEY": "sk-x"}, Path("config.toml"))
    assert said.startswith("COMPACT_AGENT_API_KEY is not read: a key is read from DEEPSEEK_API_KEY, OPENAI_API_KEY")
    assert "sk-x" not in said


@pytest.mark.parametrize(("text", "said"), [
    ("max_retries = " + "1" * 4301, "line 1: a number of 4,301 digits is too long to read"),
    ('model = "x"\n[prices]\ninput = 1_' + "2" * 4400, "line 3: a number of 4,401 digits is too long to read"),
])
def test_a_number_too_long_for_python_is_said_in_words(files, text: str, said: str) -> None:
    """It was `bad setting: Exceeds the limit (4300 digits) for integer string conversion: value has
    4301 digits; use sys.set_int_max_str_digits() to increase the limit`: Python's words."""
    user, project = files
    user.write_text(text)
    with pytest.raises(SettingsError) as info:
        load(project)
    assert str(info.value) == f"{user}: {said} (named by COMPACT_AGENT_CONFIG)", str(info.value)


@pytest.mark.parametrize(("name", "quotes"), [("a\\x", "'"), ("it's\\x", '"'), ('it\'s "x"', '"')])
def test_the_trust_hint_names_the_project_as_the_file_writes_it(tmp_path, user_config, name, quotes):
    """The hint's path goes into the user file as shown: Python's form of a path with a backslash
    (`'/p/a\\\\x'`) is TOML for another path, and of one with both quotes no TOML at all."""
    project = tmp_path / name
    project.mkdir()
    (project / ".compact-agent.toml").write_text('base_url = "http://localhost:8000/v1"\n')
    [hint] = [w for w in load(project).warnings if "the project is not trusted" in w]
    written = hint.split("(add ", 1)[1].split(" to trusted_projects", 1)[0]
    assert written[0] == written[-1] == quotes
    user_config.write_text(f"trusted_projects = [{written}]\n")  # pasted: it trusts the project
    assert load(project).settings.base_url == "http://localhost:8000/v1"
