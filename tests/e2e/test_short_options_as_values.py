"""A short option where an option's value belongs is one line naming the option missing its value,
exit 2, as a long one is: `-p --model -c hi` ran the model "-c", and `-m -y` and `--model -p` took
"-y" and "-p" for model names. Short flags written together (`-pm NAME`) give the value to the last
one, as the parser does: `-pm NAME QUERY` sent NAME as the prompt. A value that begins with a dash
still goes: joined to its option (`--model=-c`), or a prompt after `--`."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text


def answer(req) -> Reply:
    return Reply.text("fine")


def user_text(req) -> str:
    return "\n".join(message_text(m) for m in req.messages if m.get("role") == "user")


@pytest.mark.parametrize(("args", "said"), [
    (("-p", "--model", "-c", "hi"), "--model needs a value: NAME, not the option -c (see compact-agent --help)"),
    (("-p", "-m", "-y", "hi"), "-m needs a value: NAME, not the option -y (see compact-agent --help)"),
    (("-p", "hi", "--model", "-p"), "--model needs a value: NAME, not the option -p (see compact-agent --help)"),
    (("-p", "hi", "--context-window", "-c"), "--context-window needs a value: a number of tokens such as 32000, "
                                             "32k or 128K, not the option -c"),
    (("-pm", "-c", "hi"), "-m needs a value: NAME, not the option -c (see compact-agent --help)"),
    (("-p", "hi", "-m", "-yc"), "-m needs a value: NAME, not the option -yc"),
    (("-p", "hi", "--append-system-prompt", "-h"), "--append-system-prompt needs a value: TEXT, not the option -h"),
    (("analyze", "t.json", "--model", "-q"), "--model needs a value: NAME, not the option -q "
                                             "(see compact-agent analyze --help)"),
])
def test_a_short_option_where_a_value_belongs_is_one_line(cli, args, said):
    res = cli(*args)
    assert res.code == 2, (args, res.stdout, res.stderr)
    assert res.stderr.startswith(f"compact-agent: {said}"), (args, res.stderr)
    assert res.stderr.count("\n") == 1 and res.stdout == "", (args, res.stdout, res.stderr)
    assert cli.sessions() == []


def test_values_that_begin_with_a_dash_still_go_and_flags_together_give_the_value_to_the_last(cli):
    with FakeOpenAIServer(answer) as server:
        url = ("--base-url", server.base_url, "--api-key", "k")
        joined = cli("-pm", "fake-model", "what is 2+2?", *url)
        dashed = cli("-p", "--model=fake-model", "--append-system-prompt", "-x is a flag of ours", *url, "--",
                     "-x is broken")
    assert joined.code == 0 and joined.stdout == "fine\n", joined.stdout + joined.stderr
    assert dashed.code == 0 and dashed.stdout == "fine\n", dashed.stdout + dashed.stderr
    prompts = [user_text(r) for r in server.requests]
    assert prompts[0].endswith("what is 2+2?") and prompts[1].endswith("-x is broken"), prompts
    assert all(r.body["model"] == "fake-model" for r in server.requests)
