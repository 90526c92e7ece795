"""Camera faults: a source that raises, hangs or gives nothing is reported within 2 s, once;
the monitor stays responsive meanwhile and reconnects by itself when the camera is back."""
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from slow_machine import TIME_SCALE

from companion.engine import DiceRequest
from hardware.camera import CameraError, CameraSource, ReplayCamera, SimCamera
from hardware.monitor import CameraMonitor, MonitoredCamera, open_monitored

BYLER = Path(__file__).parent / "data" / "byler_d6" / "images"


class Cable:
    """The state of the camera's connection, switched by a test."""

    def __init__(self):
        self.mode = "ok"
        self.changed = threading.Event()

    def set(self, mode):
        self.mode = mode
        self.changed.set()


class FlakyCamera(CameraSource):
    """A simulated camera at 50 frames a second whose cable a test can pull, jam or cut."""

    def __init__(self, cable):
        if cable.mode == "unplugged":
            raise CameraError("no camera on usb:0")
        self.cable = cable
        self.sim = SimCamera(seed=1, size=(160, 120), die_size=(25, 30))

    def read(self):
        time.sleep(0.02)
        mode = self.cable.mode
        if mode in ("raise", "unplugged"):
            raise CameraError("USB camera 0 gave no picture (unplugged?)")
        if mode == "none":
            return None
        if mode == "hang":
            while self.cable.mode == "hang":
                self.cable.changed.wait(0.05)
            raise CameraError("device reset")
        return self.sim.read()


class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, status):
        self.events.append((time.monotonic(), status))


def _wait(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("fault", ["raise", "hang", "none"])
def test_fault_reported_within_two_seconds_once_and_recovered(fault):
    cable, seen = Cable(), Recorder()
    with CameraMonitor(lambda: FlakyCamera(cable), on_status=seen) as monitor:
        count, frame = monitor.wait_for_frame(0, timeout=3)
        assert frame is not None and monitor.status.ok
        broke_at = time.monotonic()
        cable.set(fault if fault != "raise" else "unplugged")   # reconnecting fails too while it is out
        assert _wait(lambda: seen.events, 2.0), "fault not reported within 2 s"
        reported_at, status = seen.events[0]
        assert reported_at - broke_at <= 2.0
        assert not status.ok and "entered by hand" in status.message and "\n" not in status.message
        # responsive meanwhile: asking for the newest frame never waits for the broken camera
        started = time.monotonic()
        monitor.latest()
        monitor.wait_for_frame(count + 10_000, timeout=0.05)
        assert time.monotonic() - started < 0.5
        time.sleep(1.0)
        assert len(seen.events) == 1          # reported once, not on every retry
        cable.set("ok")
        assert _wait(lambda: len(seen.events) == 2, 10.0), "no recovery reported"
        assert seen.events[1][1].ok and monitor.status.ok
        before = monitor.latest()[0]
        assert monitor.wait_for_frame(before, timeout=2)[0] > before    # frames flow again


def test_a_replay_folder_that_vanishes_and_comes_back(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for src in sorted(BYLER.glob("*.jpg"))[:2]:
        shutil.copy(src, folder / src.name)
    backup = tmp_path / "backup"
    shutil.copytree(folder, backup)
    seen = Recorder()
    with CameraMonitor(lambda: ReplayCamera(folder, fps=20), on_status=seen) as monitor:
        assert monitor.wait_for_frame(0, timeout=3)[1] is not None
        shutil.rmtree(folder)
        assert _wait(lambda: seen.events, 2.0)
        assert "has gone" in seen.events[0][1].message or "does not exist" in seen.events[0][1].message
        shutil.copytree(backup, folder)
        assert _wait(lambda: len(seen.events) == 2 and seen.events[1][1].ok, 10.0)


def test_a_camera_that_never_opens_is_reported_and_keeps_being_tried():
    attempts = []

    def missing():
        attempts.append(time.monotonic())
        raise CameraError("USB camera 0 not found")

    seen = Recorder()
    with CameraMonitor(missing, on_status=seen, retry_seconds=0.2, max_retry_seconds=0.4):
        assert _wait(lambda: seen.events, 2.0)
        time.sleep(1.0)
    assert len(seen.events) == 1 and "not found" in seen.events[0][1].message
    assert len(attempts) >= 3


def test_monitored_camera_never_hangs_its_reader_and_heals():
    cable = Cable()
    cam = MonitoredCamera(lambda: FlakyCamera(cable))
    try:
        assert cam.read().shape == (120, 160, 3)
        cable.set("hang")
        broke_at = time.monotonic()
        while True:                                    # a UI polling for frames, as it would at 30 fps
            started = time.monotonic()
            try:
                cam.read()
            except CameraError as exc:
                message = str(exc)
                break
            assert time.monotonic() - started < 0.5    # each read returns at once, hung camera or not
            assert time.monotonic() - broke_at < 2.0
            time.sleep(0.03)
        assert "entered by hand" in message
        cable.set("ok")
        assert _wait(lambda: cam.monitor.status.ok, 10.0)
        assert cam.read() is not None
    finally:
        cam.close()


def test_open_monitored_sim_passes_throw_and_truth_through():
    cam = open_monitored("sim", seed=3)
    try:
        truth = cam.throw(DiceRequest("Ann", ("red", "blue")), values=[6, 1])
        assert [(t.value, t.colour) for t in truth] == [(6, "red"), (1, "blue")]
        assert cam.truth == truth
        assert cam.read().shape == (480, 640, 3)
    finally:
        cam.close()


class NoisilessSim(SimCamera):
    """The simulated camera without sensor noise, keeping each throw's resting picture by throw number."""

    def __init__(self, **options):
        self.rest_pictures = {}
        super().__init__(sensor_noise=0.0, **options)

    def throw(self, *args, **kwargs):
        truth = super().throw(*args, **kwargs)
        self.rest_pictures[self.throws] = (self._rest_image.copy(), tuple(truth))
        return truth


def test_a_frame_keeps_the_throw_and_truth_it_was_read_with_though_the_sim_has_thrown_again():
    """The camera thread goes on reading (and the sim throwing) while the reader is busy with a frame;
    the frame's stamp still names the throw its picture shows."""
    sim = NoisilessSim(seed=4, auto_throw=True, size=(160, 120), die_size=(25, 30), rolling_frames=1, rest_frames=2)
    checked = 0
    throws_shown = set()
    with CameraMonitor(lambda: sim) as monitor:
        count = 0
        for _ in range(40):
            count, frame, stamp = monitor.wait_for_stamped_frame(count, timeout=2.0 * TIME_SCALE)
            throws_shown.add(stamp.throw)
            deadline = time.monotonic() + 2.0 * TIME_SCALE
            while sim.throws == stamp.throw and time.monotonic() < deadline:
                time.sleep(0.005)            # the reader at work until the sim has thrown again
            assert sim.throws > stamp.throw
            shown = [n for n, (picture, _) in list(sim.rest_pictures.items()) if np.array_equal(picture, frame)]
            if shown:                        # a resting picture (a tumbling one matches none)
                assert shown == [stamp.throw] and stamp.truth == sim.rest_pictures[stamp.throw][1]
                checked += 1
    # a frame grabbed just before a throw can reach the reader just after it: not every frame shows a new throw
    assert len(throws_shown) >= 20 and checked >= 10


def test_open_monitored_refuses_a_camera_that_is_not_there():
    with pytest.raises(CameraError, match="not found"):
        open_monitored("usb:7")


def test_a_busy_machine_pausing_the_sim_camera_keeps_its_dice(monkeypatch):
    cam = open_monitored("sim", seed=3)
    try:
        sim = cam.monitor.source
        cam.throw(DiceRequest("Ann", ("red", "blue")), values=[6, 1])
        slow_read = sim.read

        def paused_read():                   # one frame that takes 2.5 s, as on a machine busy elsewhere
            monkeypatch.setattr(sim, "read", slow_read)
            time.sleep(2.5)
            return slow_read()

        monkeypatch.setattr(sim, "read", paused_read)
        time.sleep(3.0)
        assert cam.monitor.status.ok and cam.monitor.source is sim
        assert cam.throws == 1 and [t.value for t in cam.truth] == [6, 1]
    finally:
        cam.close()


class SlowCamera(CameraSource):
    """A camera that takes ``seconds`` for every picture (a slow machine rendering the simulated tray)."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.sim = SimCamera(seed=1, size=(160, 120), die_size=(25, 30))

    def read(self):
        time.sleep(self.seconds)
        return self.sim.read()


def test_a_slow_camera_is_not_taken_for_a_hung_one_but_a_hang_is_still_seen():
    recorder = Recorder()
    cable = Cable()
    monitor = CameraMonitor(lambda: SlowCamera(0.3), on_status=recorder, stall_seconds=0.2, start_seconds=1.0)
    with monitor:
        assert _wait(lambda: monitor.latest()[0] >= 6, 5)          # six pictures, each slower than stall_seconds
        assert not [s for _, s in recorder.events if not s.ok], recorder.events
    hanging = CameraMonitor(lambda: FlakyCamera(cable), on_status=recorder, stall_seconds=0.2, start_seconds=1.0)
    with hanging:
        assert _wait(lambda: hanging.latest()[0] >= 5, 5)
        cable.set("hang")
        started = time.monotonic()
        assert _wait(lambda: not hanging.status.ok, 3)
        assert time.monotonic() - started < 0.6                  # a fast camera's hang is seen at stall_seconds
        cable.set("ok")


def test_stopping_while_it_reconnects_leaves_no_camera_thread_running():
    """The watchdog may decide to reconnect just as the monitor is stopped; no reader may start then."""

    class Sluggish(CameraSource):
        """Opens and reads fine, but slower than the monitor's (tiny) patience: it keeps reconnecting."""

        name = "sluggish"

        def read(self):
            time.sleep(0.003)
            return np.zeros((4, 4, 3), np.uint8)

    for _ in range(40):
        monitor = CameraMonitor(Sluggish, stall_seconds=0.001, start_seconds=0.001, retry_seconds=0.0,
                                check_seconds=0.0005, stall_frames=0.1).start()
        time.sleep(0.02)
        monitor.stop()
        running = [thread.name for thread in threading.enumerate() if thread.name.startswith("camera-")]
        assert running == []


def test_an_opened_sim_camera_is_known_as_the_sim_at_once_though_its_reader_is_slow(monkeypatch):
    """The app asks ``hasattr(camera, "throw")`` right after opening; on a busy machine the camera's reader
    thread may have taken the opened camera over without yet saying so."""
    read_loop, start = CameraMonitor._read_loop, CameraMonitor.start
    taken_over = threading.Event()

    def slow_read_loop(self, generation):
        opener = self.open_source

        def open_slowly():
            source = opener()
            taken_over.set()
            time.sleep(0.3)
            return source

        self.open_source = open_slowly
        read_loop(self, generation)

    def start_then_let_the_reader_take_over(self):
        start(self)
        assert taken_over.wait(5)
        return self

    monkeypatch.setattr(CameraMonitor, "_read_loop", slow_read_loop)
    monkeypatch.setattr(CameraMonitor, "start", start_then_let_the_reader_take_over)
    cam = open_monitored("sim", seed=3)
    try:
        assert hasattr(cam, "throw") and hasattr(cam, "truth")
    finally:
        cam.close()
