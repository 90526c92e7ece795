"""The command line's last resort: whatever escapes a command is one line on stderr and exit 2."""
from __future__ import annotations

import pytest

from companion import cli
from companion.commands import games


def _failing_games_command(error: BaseException):
    def run(_args):
        raise error
    return run


@pytest.mark.parametrize("error", [ValueError("bad\nvalue"), AttributeError("no strerror"), OverflowError("big"),
                                   RecursionError("deep"), MemoryError()])
def test_an_unexpected_error_is_one_line_and_exit_2(monkeypatch, capsys, error):
    monkeypatch.setattr(games, "run", _failing_games_command(error))
    assert cli.main(["games"]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.count("\n") == 1 and captured.err.startswith("companion: ")


def test_debug_prints_the_traceback_before_or_after_the_command(monkeypatch, capsys):
    monkeypatch.setattr(games, "run", _failing_games_command(ValueError("boom")))
    for argv in (["--debug", "games"], ["games", "--debug"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert "Traceback" in err and "ValueError: boom" in err


def test_a_bad_argument_is_one_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["watch", "--rolls", "many"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--rolls" in err and "usage" not in err


def test_an_error_the_person_caused_keeps_its_own_words(capsys):
    assert cli.main(["suggest", "--game", "no-such-game", "--dice", "1 2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion: ") and "no-such-game" in err and "unexpected" not in err
