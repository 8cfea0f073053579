"""`--add-dir` given a file says it is a file: `--add-dir /etc/passwd` said 'no such directory', of a
path that is there. A path that is not there still says 'no such directory'. Either is one line,
exit 2, before any session is made."""

from __future__ import annotations


def test_a_file_given_to_add_dir_is_called_a_file(cli):
    (cli.cwd / "notes.txt").write_text("a file\n")
    res = cli("-p", "hi", "--add-dir", str(cli.cwd / "notes.txt"))
    assert res.code == 2 and res.stdout == ""
    assert res.stderr == f"compact-agent: --add-dir {cli.cwd / 'notes.txt'}: is a file, not a directory\n"
    assert cli.sessions() == []


def test_a_missing_directory_is_still_no_such_directory(cli):
    res = cli("-p", "hi", "--add-dir", str(cli.cwd / "nowhere"))
    assert res.code == 2 and res.stderr == f"compact-agent: --add-dir {cli.cwd / 'nowhere'}: no such directory\n"
