"""Limits before work: huge counts, long tokens, deep nesting, huge numbers, huge photos and
files that are not regular files are each refused in one line that names the limit, before
the machine spends its memory or time on them; nothing is written."""
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import UserError
from companion.games import get_game
from companion.limits import MAX_IMAGE_PIXELS, READ_FULL_PIXELS, json_nesting, parse_json
from vision.image_files import image_size, load_image, load_scaled_image
from vision.reader import read_file

REPO = Path(__file__).resolve().parents[1]
PHOTO = min((REPO / "tests" / "data" / "byler_d6" / "images").glob("*.jpg"))
HUGE = "9" * 5000


def companion(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The real command in a child process; a hang fails the test through the timeout."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COMPANION_DATA_DIR": str(tmp_path / "data"),
           "COMPANION_CONFIG_DIR": str(tmp_path / "config")}
    return subprocess.run([sys.executable, "-m", "companion", *args], check=False, capture_output=True, text=True,
                          env=env, timeout=120, input=stdin, cwd=tmp_path)


def assert_refused(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("companion: ") and result.stderr.count("\n") == 1, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def png_claiming(width: int, height: int) -> bytes:
    """A small PNG file whose header says ``width`` x ``height`` pixels (as a decompression bomb does)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


@pytest.mark.parametrize("command", [["suggest", "--game", "dairyman", "--dice", "1 2 3"],
                                     ["simulate", "--game", "dairyman", "--games", "1"]])
@pytest.mark.parametrize("count", ["99999999999999999999", "10000000", "5"])
def test_a_player_count_no_game_seats_is_refused_before_any_work(tmp_path, command, count):
    result = companion(tmp_path, *command, "--players", count)
    assert_refused(result, "Dairyman is for 2-4 players")


def test_a_simulation_too_long_to_finish_is_refused(tmp_path):
    assert_refused(companion(tmp_path, "simulate", "--game", "dairyman", "--games", "10000000"), "100,000")


def test_a_die_with_thousands_of_digits_is_refused_by_suggest_and_play(tmp_path):
    assert_refused(companion(tmp_path, "suggest", "--game", "dairyman", "--dice", f"{HUGE} 2 3 4 5 6 1 2"),
                   "at most 32 characters")
    played = companion(tmp_path, "play", "--game", "dairyman", "--players", "Ann,Bob",
                       stdin=f"roll {HUGE} 2 3 4 5 6 1 2\nroll 6 4 5 5 3 2 1 yellow:4\nmove {HUGE}\nquit\n")
    assert "Traceback" not in played.stderr and "unexpected error" not in played.stderr
    refusals = [line for line in played.stderr.splitlines() if line.startswith("companion: ")]
    assert any("at most 32 characters" in line for line in refusals), played.stderr
    assert any("choose 1 to" in line for line in refusals), played.stderr


def test_a_roll_of_more_dice_than_any_game_uses_is_refused(tmp_path):
    assert_refused(companion(tmp_path, "suggest", "--game", "dairyman", "--dice", " ".join(["3"] * 1000)),
                   "at most 64")


@pytest.mark.parametrize("content, words", [
    (b"\xff\xfe{\"game\": \"dairyman\"}", ["not UTF-8"]),
    (b"[" * 200_000 + b"]" * 200_000, ["nests deeper than 64"]),
    (b'{"game": "dairyman", "reds": 1e400}', ["too big"]),
    (b'{"game": "dairyman", "reds": ' + b"7" * 5000 + b"}", ["over 18 digits"]),
    (b'{"game": "dairyman", "reds": NaN}', ["NaN"]),
])
def test_a_hostile_state_file_is_one_line_error(tmp_path, content, words):
    (tmp_path / "state.json").write_bytes(content)
    assert_refused(companion(tmp_path, "suggest", "--game", "dairyman", "--state", "state.json"), *words)


@pytest.mark.parametrize("reds", [1e30, 10 ** 18, 5])
def test_a_state_with_an_impossible_number_of_red_dice_is_refused(reds):
    game = get_game("dairyman")
    data = game.new_game(game.default_players()).to_json()
    data["reds"] = reds
    with pytest.raises(UserError, match="not a Dairyman game state"):
        game.state_from_json(data)


def test_a_state_file_that_is_a_pipe_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "state.json")
    assert_refused(companion(tmp_path, "suggest", "--game", "dairyman", "--state", "state.json"), "not a regular file")


def test_json_nesting_counts_brackets_outside_strings_only():
    assert json_nesting('{"a": [[1], {"b": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}]}') == 3
    assert json_nesting("[" * 65 + "]" * 65) == 65
    with pytest.raises(UserError, match="nests deeper"):
        parse_json("[" * 65 + "]" * 65, "test")
    assert parse_json("[" * 64 + "]" * 64, "test") is not None


def test_image_sizes_are_read_from_the_headers(tmp_path):
    picture = np.zeros((30, 50, 3), np.uint8)
    for suffix in (".png", ".jpg", ".bmp", ".webp"):
        ok, data = cv2.imencode(suffix, picture)
        assert ok
        assert image_size(data.tobytes()) == (50, 30), suffix
    assert image_size(png_claiming(20000, 20000)) == (20000, 20000)
    assert image_size(b"not a picture") is None


def test_a_photo_claiming_400_megapixels_is_refused_from_its_header(tmp_path):
    (tmp_path / "bomb.png").write_bytes(png_claiming(20000, 20000))
    assert_refused(companion(tmp_path, "read", "bomb.png"), "20000x20000 pixels", "50 megapixels")


def test_a_real_100_megapixel_jpeg_is_refused(tmp_path):
    data = cv2.imencode(".jpg", np.zeros((10000, 10000, 3), np.uint8))[1]
    (tmp_path / "huge.jpg").write_bytes(data.tobytes())
    assert_refused(companion(tmp_path, "read", "huge.jpg"), "10000x10000 pixels")


def test_opencv_refuses_a_format_whose_header_is_not_read_here(tmp_path):
    side = int(MAX_IMAGE_PIXELS ** 0.5) + 100
    data = cv2.imencode(".tiff", np.zeros((side, side), np.uint8))[1]
    (tmp_path / "huge.tiff").write_bytes(data.tobytes())
    assert_refused(companion(tmp_path, "read", "huge.tiff"), "cannot read huge.tiff")


def test_a_big_photo_is_decoded_reduced_and_read_in_its_own_pixels(tmp_path):
    photo = cv2.imread(str(PHOTO))
    factor = 7  # 640 px -> 4480 px: 20 megapixels, over the whole-decoding limit
    big = cv2.resize(photo, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(tmp_path / "big.jpg"), big, [cv2.IMWRITE_JPEG_QUALITY, 95])
    decoded, scale = load_scaled_image(tmp_path / "big.jpg")
    assert decoded.shape[0] * decoded.shape[1] <= READ_FULL_PIXELS
    assert scale == pytest.approx(0.5)
    assert load_image(tmp_path / "big.jpg").shape == big.shape

    small, large = read_file(PHOTO), read_file(tmp_path / "big.jpg")
    assert len(small.dice) >= 3 and len(large.dice) == len(small.dice)
    for die in small.dice:
        nearest = min(large.dice, key=lambda d: np.hypot(d.center[0] - die.center[0] * factor,
                                                           d.center[1] - die.center[1] * factor))
        assert np.hypot(nearest.center[0] - die.center[0] * factor,
                        nearest.center[1] - die.center[1] * factor) < 0.25 * die.bbox[2] * factor
        assert nearest.bbox[2] == pytest.approx(die.bbox[2] * factor, rel=0.3)
        assert nearest.value == die.value


def test_a_named_pipe_among_photos_is_refused_and_the_others_are_read(tmp_path):
    os.mkfifo(tmp_path / "pipe.jpg")
    result = companion(tmp_path, "read", "--json", "pipe.jpg", str(PHOTO))
    assert result.returncode == 2
    assert result.stderr.splitlines() == ["companion: cannot read image pipe.jpg: it is not a regular file"]
    readings = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["image"] for r in readings] == ["pipe.jpg", str(PHOTO)]
    assert readings[1]["dice"] and "error" not in readings[1]


def test_annotating_a_big_photo_draws_on_the_reduced_copy(tmp_path):
    big = cv2.resize(cv2.imread(str(PHOTO)), None, fx=7, fy=7, interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(tmp_path / "big.jpg"), big)
    result = companion(tmp_path, "read", "--json", "--annotate", "marked", "big.jpg")
    assert result.returncode == 0, result.stderr
    dice = json.loads(result.stdout)["dice"]
    marked = cv2.imread(str(tmp_path / "marked" / "big.png"))
    assert marked.shape[:2] == (big.shape[0] // 2, big.shape[1] // 2)
    for die in dice:
        x, y, _, h = (round(v * 0.5) for v in die["bbox"])  # the box's left edge, in the reduced copy
        edge = marked[y + h // 2, x - 1:x + 2].reshape(-1, 3).tolist()
        assert [0, 200, 0] in edge or [0, 0, 255] in edge, (die, edge)


def test_an_error_quoting_a_huge_input_stays_readable(tmp_path):
    result = companion(tmp_path, "simulate", "--game", "dairyman", "--options", f"cheese_faces={HUGE}")
    assert_refused(result, "option cheese_faces")
    assert len(result.stderr) < 400 and result.stderr.rstrip().endswith("...")


@pytest.mark.parametrize("command", [["history", "--db", "pipe"], ["read", "--profile", "pipe", "photo.jpg"],
                                     ["watch", "--camera", "replay:pipe", "--rolls", "1"]])
def test_a_named_pipe_given_as_database_profile_or_replay_is_refused_without_blocking(tmp_path, command):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "photo.jpg").write_bytes(PHOTO.read_bytes())
    result = companion(tmp_path, *command)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "not a regular file" in result.stderr or "not a folder of photos or a video file" in result.stderr
