"""`compact-agent config` refuses a model named by nothing as a run does, in the same line, exit 2: it
listed `model` blank and the window `assumed:  is not a known model`, a setting every run refuses."""

from __future__ import annotations


def test_config_refuses_an_empty_model_as_a_run_does(cli) -> None:
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('model = ""\n')
    shown = cli("config")
    as_json = cli("config", "--json")
    assert shown.code == 2 and shown.stdout == "", shown.stdout
    assert shown.stderr == (f"compact-agent: model: an empty name (from {config}); give a model name there, "
                            "or --model NAME\n")
    assert as_json.code == 2 and as_json.stderr == shown.stderr
    flagged = cli("--model", "fake-model", "config")  # the flag names it: the file's blank is not used
    assert flagged.code == 0 and "fake-model" in flagged.stdout, flagged.stderr
    config.unlink()
    blank = cli("config", env={"COMPACT_AGENT_MODEL": " "})
    assert blank.code == 2 and "model: an empty name (from env COMPACT_AGENT_MODEL)" in blank.stderr
    empty_flag = cli("--model", "", "config")
    assert empty_flag.code == 2
    assert empty_flag.stderr == "compact-agent: --model needs a model name (e.g. --model deepseek-chat), not an empty one\n"
