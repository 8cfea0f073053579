"""`/model NAME` with a name the server given with --base-url does not list is refused in one line,
naming the closest names it serves, and nothing is switched: the name was taken silently and the
next message failed with the server's 404."""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive

SERVED = ["fake-model", "Qwen/Qwen2.5-Coder-7B-Instruct", "llama3.1:8b"]


def answer(req) -> Reply:
    return Reply.text(f"ANSWERED BY {req.body['model']}")


async def test_a_name_the_server_does_not_list_is_refused_with_the_closest_names(tmp_path) -> None:
    with FakeOpenAIServer(answer, serves=SERVED[1:]) as server:
        run = await drive(tmp_path, answer, ["/model qwen/qwen2.5-coder-7b-instrct\r", "/model gpt-5\r", "hi\r",
                                             "/model llama3.1:8b\r", "again\r"], server=server)
        where = server.base_url
    out = " ".join(run.out.split())
    assert (f"not switched: qwen/qwen2.5-coder-7b-instrct is not a model {where} serves; "
            "did you mean Qwen/Qwen2.5-Coder-7B-Instruct?") in out, run.out
    assert f"not switched: gpt-5 is not a model {where} serves; it serves {', '.join(SERVED)}" in out, run.out
    assert "ANSWERED BY fake-model" in out and "ANSWERED BY llama3.1:8b" in out, run.out  # refused: nothing switched
    assert re.findall(r"model \S+ → \S+", out) == ["model fake-model → llama3.1:8b"], run.out
    assert "note:" not in out and "Error" not in out, run.out  # the one line, no routing note beside it


async def test_a_server_that_answers_names_it_does_not_list_is_not_second_guessed(tmp_path) -> None:
    """llama.cpp's server lists its file's name and answers any: a model in use it does not list,
    and answered, says its list is no guide."""
    with FakeOpenAIServer(answer, model="my-alias", serves=["other-alias"], lists_models=["model.gguf"]) as server:
        run = await drive(tmp_path, answer, ["hi\r", "/model other-alias\r", "again\r"], server=server,
                          model="my-alias")
    out = " ".join(run.out.split())
    assert "not switched" not in out and "ANSWERED BY other-alias" in out, run.out
