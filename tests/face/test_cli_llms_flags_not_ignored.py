"""``wattgpu-lite llms`` refuses a flag its answer would ignore: ``--name`` without ``--llm``
(the catalog was listed, the name dropped) and ``--aliases`` with ``--llm`` (one model was
shown, the aliases not)."""

import pytest

from tests.cli_runner import one_error_line, run_cli


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["llms", "--name", "mine"], ["--name 'mine'", "give --llm"]),
        (["llms", "--aliases", "--name", "mine"], ["--name 'mine'", "give --llm"]),
        (["llms", "--aliases", "--llm", "openai-community/gpt2"], ["--aliases", "--llm"]),
    ],
)
def test_a_flag_the_listing_would_ignore_is_one_error_line(argv, words, capsys):
    one_error_line(*run_cli(argv, capsys), words)


@pytest.mark.parametrize("argv", [["llms"], ["llms", "--aliases"], ["llms", "--llm", "gpt2"]])
def test_each_flag_alone_still_answers(argv, capsys):
    code, out, err = run_cli(argv, capsys)
    assert code == 0 and out and not err
