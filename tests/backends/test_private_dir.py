"""backends/private_dir.py: a folder only this user can use, and files opened without links."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from recursive_cleaner.backends import private_dir
from recursive_cleaner.backends.private_dir import open_owned, owned_file, private_folder

posix = pytest.mark.skipif(os.name != "posix", reason="modes, links and owners as POSIX has them")


@posix
def test_a_new_folder_is_made_0o700_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        folder = private_folder(tmp_path / "a" / "b")
    finally:
        os.umask(old)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@posix
def test_an_existing_folder_of_this_user_is_narrowed(tmp_path):
    (tmp_path / "f").mkdir()
    os.chmod(tmp_path / "f", 0o777)
    private_folder(tmp_path / "f")
    assert stat.S_IMODE((tmp_path / "f").stat().st_mode) == 0o700


@posix
@pytest.mark.parametrize(
    "plant, why",
    [
        (lambda p, t: p.symlink_to(t), "is a symbolic link"),
        (lambda p, t: p.write_text("x"), "is not a folder"),
    ],
)
def test_a_link_or_a_file_is_refused_and_its_target_untouched(tmp_path, plant, why):
    target = tmp_path / "target"
    target.mkdir(mode=0o755)
    plant(tmp_path / "f", target)
    with pytest.raises(PermissionError, match=why):
        private_folder(tmp_path / "f")
    assert stat.S_IMODE(target.stat().st_mode) == 0o755


@posix
def test_another_users_folder_is_refused(tmp_path, monkeypatch):
    (tmp_path / "f").mkdir(mode=0o700)
    monkeypatch.setattr(private_dir, "_uid", lambda: os.geteuid() + 1)
    with pytest.raises(PermissionError, match=r"belongs to another user \(uid \d+\)"):
        private_folder(tmp_path / "f")


@posix
def test_files_are_opened_only_as_this_users_regular_files(tmp_path, monkeypatch):
    real = tmp_path / "real"
    real.write_text("data")
    (tmp_path / "link").symlink_to(real)
    os.mkfifo(tmp_path / "fifo")
    assert owned_file(real) and not owned_file(tmp_path / "link")
    assert not owned_file(tmp_path / "fifo") and not owned_file(tmp_path / "none")
    os.link(real, tmp_path / "hard")
    assert not owned_file(real) and not owned_file(tmp_path / "hard")  # two names: not private
    (tmp_path / "hard").unlink()
    with os.fdopen(open_owned(real)) as f:
        assert f.read() == "data"
    with pytest.raises(PermissionError, match="symbolic link"):
        open_owned(tmp_path / "link")
    with pytest.raises(PermissionError, match="not a regular file"):
        open_owned(tmp_path / "fifo")  # never blocks waiting for a writer
    monkeypatch.setattr(private_dir, "_uid", lambda: os.geteuid() + 1)
    assert not owned_file(real)
    with pytest.raises(PermissionError, match="not a regular file of this user's"):
        open_owned(Path(real))
