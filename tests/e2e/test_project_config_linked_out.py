"""The project's settings file is read only from inside the working directory, as instruction and
command files are read only from inside the project.

A cloned repository can ship `.compact-agent.toml` as a link to a file elsewhere
(`-> ../out/creds`): it was read as the project's settings, and a line of it that is not TOML was
quoted back on stderr (`not valid TOML …; write text in quotes: host = "db.internal.corp"`), its
values applied where it parsed. Now it is not read, in one warning line naming where it leads; a
link to a file inside the working directory is read as before."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_commands import fake


def test_a_settings_file_that_links_out_is_not_read(cli, tmp_path) -> None:
    creds = tmp_path / "out" / "creds"
    creds.parent.mkdir()
    creds.write_text("host = db.internal.corp\n")
    link = cli.cwd / ".compact-agent.toml"
    link.symlink_to("../out/creds")
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        run = cli("-p", "hi", *fake(server))
    assert run.code == 0 and run.stdout == "ok\n", run.stderr
    assert run.stderr == (f"compact-agent: warning: {link}: not read: it links to {creds.resolve()}, outside the "
                          "working directory (a project's settings file is read only from inside it)\n")

    creds.write_text("[permissions]\ndeny_paths = ['from-outside/**']\n")  # valid TOML: its values not applied
    shown = cli("config")
    assert shown.code == 0, shown.stderr
    assert "from-outside" not in shown.stdout
    assert f"project file: {link} (not read: it links outside the working directory)\n" in shown.stdout
    assert "project trusted:" not in shown.stdout
    data = cli("config", "--json").json()
    assert data["settings"]["deny_paths"]["value"] == []
    assert data["warnings"] == [run.stderr.removeprefix("compact-agent: warning: ").rstrip("\n")]


def test_a_settings_file_linked_inside_the_working_directory_is_read(cli) -> None:
    (cli.cwd / "conf").mkdir()
    (cli.cwd / "conf" / "agent.toml").write_text("[permissions]\ndeny_paths = ['secrets/**']\n")
    (cli.cwd / ".compact-agent.toml").symlink_to("conf/agent.toml")
    data = cli("config", "--json").json()
    assert data["settings"]["deny_paths"] == {"value": ["secrets/**"], "source": "project file",
                                              "rules": [{"rule": "secrets/**", "source": "project file"}]}
    assert data["warnings"] == []
