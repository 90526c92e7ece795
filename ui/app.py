"""The Dice Companion touchscreen app.

The app is glue: the session store keeps the game, the rules engine decides what is
legal and what to suggest, the camera and the reader run on background threads
(:mod:`ui.live`), and each screen (one module and one ``.kv`` file each) shows part of
it.  Every action goes through :meth:`CompanionApp.attempt`, so a refused roll or move
shows a one-line message and changes nothing.
"""
from __future__ import annotations

import dataclasses
import importlib
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
from kivy.app import App
from kivy.base import ExceptionHandler, ExceptionManager
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.logger import Logger
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion.engine import DiceRequest, Die
from companion.errors import CompanionError, UserError
from companion.session import Session, SessionStore
from hardware.camera import default_spec
from hardware.monitor import open_monitored
from ui.live import FrameGrabber, ReaderProcess
from ui.play_screen import die_colour_choices
from ui.preferences import Preferences
from ui.window import drop_duplicate_touch_source
from vision.colour import default_palette
from vision.types import DieReading

HERE = Path(__file__).parent
SIM_LESSON_DICE = 6
"""Dice the simulated camera throws while a player tries "learn my dice" on the desktop."""
SCREENS = ("start", "play", "scoreboard", "history", "summary", "settings", "learn")
CAMERA_FPS = 30.0
"""Camera frames a second for the live view (tests ask for fewer to save CPU)."""
CAMERA_NOTICE = "no camera: enter the dice by hand"
"""The banner's words while the camera has a problem (the picture's place says what it is)."""
PHOTO_QUALITY = 85
"""JPEG quality of the photo kept with each roll (about 40 kB for a 640x480 frame)."""


def load_layout(file_name: str) -> None:
    """Load a .kv file once per process (a second app instance reuses the rules)."""
    path = str(HERE / file_name)
    if path not in Builder.files:
        Builder.load_file(path)


class LastResort(ExceptionHandler):
    """Whatever escapes a callback is logged with its traceback and shown on the banner; the app runs on.

    Every move and roll is committed to the session store before the screen changes, so the
    game in progress is intact whatever failed.
    """

    def __init__(self, app: CompanionApp):
        super().__init__()
        self.app = app

    def handle_exception(self, exception: BaseException) -> int:
        if not isinstance(exception, Exception):       # KeyboardInterrupt, SystemExit: really stop
            return ExceptionManager.RAISE
        Logger.error("companion: unexpected error", exc_info=exception)
        detail = " ".join(str(exception).split()) or type(exception).__name__
        self.app.notice = f"Something went wrong ({detail}). The game is saved: carry on, or restart the app."
        self.app.revision += 1                         # redraw from the saved state
        return ExceptionManager.PASS


class CompanionApp(App):
    """The app; screens call its methods and bind to its properties."""

    title = "Dice Companion"
    session = ObjectProperty(None, allownone=True)
    revision = NumericProperty(0)          # bumped whenever the session's state changes
    reading = ListProperty([])             # DieReadings of the roll waiting to be used
    reading_busy = BooleanProperty(False)
    notice = StringProperty("")            # the last one-line error or hint
    camera_problem = StringProperty("")    # what is wrong with the camera now ("" while it works), in full
    camera_notice = StringProperty("")     # the same in a few words, for the banner (the picture shows it in full)
    simulated = BooleanProperty(False)     # the camera is the simulated one: offer "roll"
    auto_read = BooleanProperty(True)      # read by itself once the dice come to rest
    lesson = ObjectProperty(None, allownone=True)   # a calibration.learn_dice.Lesson while "learn my dice" runs
    lesson_text = StringProperty("")       # where the lesson stands, in a sentence
    learning = BooleanProperty(False)      # the reader process is learning the player's dice

    def __init__(self, camera: str | None = None, game: str | None = None,
                 players: Sequence[str] | None = None, store: SessionStore | None = None,
                 preferences: Preferences | None = None, camera_fps: float = CAMERA_FPS,
                 pin_factory: Any = None, seed: int | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.preferences = preferences or Preferences()
        self.camera_spec = camera or self.preferences["camera"] or default_spec()
        self.camera_fps = camera_fps
        self.pin_factory = pin_factory
        self.seed = seed                 # the shuffles of new games (None: random)
        self._throw_rng = random.Random(seed)  # the simulated camera's draws from a bag
        self.gpio = None
        self.auto_read = self.preferences["auto_read"]
        self.initial_game = game
        self.initial_players = tuple(players or self.preferences["players"] or ())
        self.store = store or SessionStore()
        self.grabber: FrameGrabber | None = None
        self.reader: ReaderProcess | None = None
        self.reading_frame = None
        self.readings_done = 0
        self.profile = None
        self._palette_for: tuple = (None, None, None)   # (profile, colours, palette) of the last palette made

    # -- set-up -----------------------------------------------------------------------
    def build(self) -> ScreenManager:
        load_layout("common.kv")
        manager = ScreenManager(transition=NoTransition())
        for name in SCREENS:
            module = importlib.import_module(f"ui.{name}_screen")
            load_layout(f"{name}_screen.kv")
            manager.add_widget(module.SCREEN_CLASS(name=name))
        Window.bind(on_key_down=self._on_key_down)
        # A docked on-screen keyboard (the Pi's) lifts the screen so the field being typed into stays in
        # sight; Kivy only measures the keyboard when told, so tell it whenever one comes or goes.
        Window.softinput_mode = "pan"
        Window.bind(children=lambda *_: Window.trigger_keyboard_height())
        return manager

    def on_start(self) -> None:
        drop_duplicate_touch_source()
        self.last_resort = LastResort(self)
        ExceptionManager.add_handler(self.last_resort)
        refusals = []
        for step in (self.load_profile, lambda: self.open_camera(self.camera_spec, keep_trying=True), self.open_gpio):
            if not self.attempt(step):
                refusals.append(self.notice)
        self.notice = "; ".join(refusals)     # each step's success would otherwise clear the one before
        self.bind(reading_busy=self._show_status, revision=self._show_status, reading=self._show_status)
        self.reader = ReaderProcess(self._reading_done, on_learnt=self._learnt)
        self.reader.warm_up()
        self._await_motion = False    # the tray must move before the next automatic reading
        self._read_wanted = False
        self._watched_count = -1
        self._shown_count = -1
        Clock.schedule_interval(self._each_frame, 0)

    def on_stop(self) -> None:
        ExceptionManager.remove_handler(self.last_resort)
        Window.unbind(on_key_down=self._on_key_down)
        Clock.unschedule(self._each_frame)
        if self.grabber:
            self.grabber.stop()
        if self.reader:
            self.reader.stop()
        if self.gpio:
            self.gpio.close()
        self.store.close()

    def open_camera(self, spec: str, keep_trying: bool = False) -> None:
        """Switch the live view to camera ``spec`` (sim, usb[:N], pi, replay:PATH).

        A camera that cannot open raises, unless ``keep_trying``: then the banner says so
        and the camera is tried again by itself until it comes.
        """
        spec = spec or default_spec()
        source = open_monitored(spec, keep_trying=keep_trying)
        if self.grabber:
            self.grabber.stop()
        self.camera_spec = spec
        self.simulated = hasattr(source, "throw")
        self.grabber = FrameGrabber(source, interval=1 / self.camera_fps, prepare=self._prepare).start()

    def open_gpio(self) -> None:
        """The optional buttons and status light (quietly off where there is no GPIO).

        Read button: read now (held: undo); undo button: undo; end-turn button: use the
        read dice.  gpiozero calls from its own thread, so each press hops to the UI thread.
        """
        from hardware.gpio import GpioPanel

        def on_ui_thread(action):
            return lambda: Clock.schedule_once(lambda _dt: action())

        if self.gpio:
            self.gpio.close()
        self.gpio = GpioPanel(self.preferences["pins"], on_read=on_ui_thread(self.read_dice),
                              on_undo=on_ui_thread(self.undo), on_end_turn=on_ui_thread(self.accept_reading),
                              pin_factory=self.pin_factory)
        self._show_status()

    def _show_status(self, *_args) -> None:
        """The status light: attention for an urgent alert, reading, read (dice waiting), ready."""
        if not self.gpio:
            return
        state = self.state
        if state is not None and any(a.severity in ("warning", "critical") for a in state.alerts()):
            self.gpio.show("attention")
        elif self.reading_busy:
            self.gpio.show("reading")
        elif self.reading:
            self.gpio.show("read_ok")
        else:
            self.gpio.show("ready")

    def profile_path(self) -> Path:
        """The calibration profile named in the settings, or the default one."""
        from calibration.profile import default_profile_path

        name = self.preferences["calibration"]
        return Path(name).expanduser() if name else default_profile_path()

    def load_profile(self) -> None:
        """Use the calibration profile named in the settings (or the default one) if it exists."""
        from calibration.profile import load_profile

        path = self.profile_path()
        if self.preferences["calibration"] and not path.exists():
            raise UserError(f"no calibration profile at {path}")
        self.profile = load_profile(path) if path.exists() else None

    def _prepare(self, frame):
        """A frame as the reader sees it: the calibrated tray, white-balanced (camera thread)."""
        return self.profile.prepare(frame) if self.profile else frame

    # -- helpers for the screens -------------------------------------------------------
    @property
    def state(self):
        return self.session.state if self.session else None

    def screen(self, name: str):
        return self.root.get_screen(name)

    def show(self, name: str) -> None:
        self.notice = ""
        self.root.current = name

    def attempt(self, action: Callable[[], Any]) -> bool:
        """Run ``action``; a refused one shows its one-line reason and changes nothing."""
        try:
            action()
        except CompanionError as exc:
            self.notice = str(exc)
            return False
        self.notice = ""
        return True

    def _changed(self) -> None:
        self.reading = []
        self.reading_frame = None
        self.revision += 1
        if self.state is not None and self.state.is_terminal():
            self.show("summary")
        elif self.root.current == "summary":
            self.show("play")

    # -- sessions ---------------------------------------------------------------------
    def start_game(self, game_name: str, players: Sequence[str], options: dict) -> bool:
        def start():
            self.session = self.store.new_session(game_name, players, options, seed=self.seed)
        if self.attempt(start):
            self.session.game.forget_positions()   # the advice's memory of the last game: days of play stay flat
            self.attempt(lambda: self.preferences.set_players(list(self.session.players)))   # a read-only config: the game goes on
            self._changed()
            self.show("play")
            return True
        return False

    def rematch(self) -> bool:
        """A new game of the same game with the same players, seats and rules options."""
        if self.session is None:
            return False
        return self.start_game(self.session.game.name, list(self.session.players), dict(self.session.options))

    def unfinished_session(self) -> Session | None:
        return self.store.latest_unfinished()

    def unfinished_games(self) -> list[dict]:
        """Every unfinished game, the most recently played first (``SessionStore.list_sessions`` rows)."""
        return [info for info in self.store.list_sessions() if not info["finished"]]

    def resume(self, session_id: int | None = None) -> bool:
        """Carry on with game ``session_id``, or the most recently played unfinished one."""
        try:
            session = self.store.open(session_id) if session_id is not None else self.unfinished_session()
        except CompanionError as exc:
            self.notice = str(exc)
            return False
        if session is None:
            self.notice = "there is no unfinished game to resume"
            return False
        self.session = session
        session.game.forget_positions()
        self._changed()
        self.show("play")
        return True

    def play(self, move) -> bool:
        if self.attempt(lambda: self.session.play(move)):
            self._changed()
            return True
        return False

    def undo(self) -> bool:
        if self.session and self.attempt(self.session.undo):
            self._changed()
            return True
        return False

    def redo(self) -> bool:
        if self.session and self.attempt(self.session.redo):
            self._changed()
            return True
        return False

    # -- dice -------------------------------------------------------------------------
    def throw_dice(self) -> bool:
        """Simulated camera only: throw the dice the game asks for now."""
        request = self.state.dice_to_roll() if self.state else None
        if self.simulated and self.lesson is not None and not self.learning:   # any colours, as a set may have
            request = DiceRequest("", (None,) * SIM_LESSON_DICE)
        elif not self.simulated or request is None:
            self.notice = "no dice to throw now" if self.simulated else "roll the real dice on the tray"
            return False
        elif None in request.colours:  # the box decides the colours (DYCE's bag): draw them as the table would
            drawn = self.state.random_roll(self._throw_rng)
            request = dataclasses.replace(request, colours=tuple(d.colour for d in drawn))
        self.grabber.call_soon(lambda source: source.throw(request))
        self.reading = []
        return True

    def read_dice(self) -> bool:
        """Read the dice in the newest frame in the reader process."""
        if not self._waiting_for_roll():
            self.notice = "no dice to read now: choose a move"
            return False
        _, frame = self.grabber.latest() if self.grabber else (0, None)
        if frame is None:
            self.notice = CAMERA_NOTICE if self.grabber and self.grabber.error else "no camera picture yet"
            return False
        self.reading_busy = True
        if not self.reader.read(frame, self.palette, self.my_dice):
            self._read_wanted = True          # after the settler's current frame
        return True

    @property
    def palette(self):
        """The reader's palette: the profile's (or the default), only the game's dice colours when its box
        fixes them (not while the player's own dice are learnt); None (the reader's default) when neither applies."""
        colours = self.session.game.dice_colours if self.session and self.lesson is None else None
        profile, made_for, palette = self._palette_for
        if profile is self.profile and made_for == colours:
            return palette
        palette = self.profile.palette if self.profile else None
        if colours:
            try:
                palette = (palette or default_palette()).only(colours)
            except ValueError:  # a calibrated palette without some of the game's colours: keep it whole
                pass
        self._palette_for = (self.profile, colours, palette)
        return palette

    @property
    def my_dice(self):
        """What "learn my dice" taught the reader (the profile's), or None."""
        return self.profile.my_dice if self.profile else None

    def _reading_done(self, reading, frame, settled: bool) -> None:
        if settled and (self._await_motion or self.reading_busy or not self._waiting_for_roll()):
            return
        self.reading_busy = False
        self.readings_done += 1
        if reading.error:
            self.notice = f"could not read the dice: {reading.error}"
            return
        self.reading_frame = frame
        self.reading = list(reading.dice)
        self.notice = self.check_words()

    def colours_matter(self) -> bool:
        """Whether the dice's colours count in the roll the game waits for (then a doubted colour is checked)."""
        return bool(self.die_colours())

    def die_colours(self) -> list[str]:
        """The colours a die may be given by hand: while learning the player's dice, the palette's; in a
        game, those its roll or box names (:func:`ui.play_screen.die_colour_choices`)."""
        if self.lesson is not None:
            palette = self.profile.palette if self.profile else default_palette()
            return list(dict.fromkeys(c.name for c in palette.colours))
        request = self.state.dice_to_roll() if self.state else None
        return die_colour_choices(request, self.session.game if self.session else None)

    def doubted_dice(self) -> list[int]:
        """The places in the reading of dice with a value that wait for the player's confirmation."""
        colours_matter = self.colours_matter()
        return [i for i, d in enumerate(self.reading) if d.certain and d.needs_check(colours_matter)]

    def check_words(self) -> str:
        """What the player must still do about the read dice before they can be used, or ""."""
        symbols = sum(d.symbol and not d.certain for d in self.reading)
        unknown = sum(not d.certain for d in self.reading) - symbols
        doubted = len(self.doubted_dice())
        parts = []
        if symbols:
            parts.append(f"{symbols} {'dice show' if symbols > 1 else 'die shows'} a symbol: tap to set its number")
        if unknown:
            parts.append(f"{unknown} {'dice' if unknown > 1 else 'die'} unreadable: tap to set the value")
        if doubted:
            parts.append(f"{doubted} {'dice' if doubted > 1 else 'die'} marked ?: tap to confirm")
        return "; ".join(parts)

    def confirm_die(self, index: int) -> None:
        """A player's one-tap "yes, that is right" for a die the reader doubted."""
        if not 0 <= index < len(self.reading):
            raise UserError(f"there is no die {index + 1} in this reading")
        self.reading = [d.confirmed() if i == index else d for i, d in enumerate(self.reading)]
        self.notice = self.check_words()

    def correct_die(self, index: int, value: int | None = None, colour: str | None = None) -> None:
        """A player's correction of one read die: its value and/or colour."""
        dice = list(self.reading)
        if not 0 <= index < len(dice):
            raise UserError(f"there is no die {index + 1} in this reading")
        changes: dict[str, Any] = {}
        if value is not None:
            changes["value"] = Die(value).value
        if colour is not None:
            changes["colour"] = colour
        dice[index] = dice[index].confirmed(**changes)
        self.reading = dice

    def add_die(self, value: int, colour: str | None, at: tuple[float, float] | None = None) -> None:
        """A die the reader missed, entered by hand: outlined where it lies in the picture when the player
        tapped its place ``at`` (frame pixels; as big as the dice read beside it), else without a place."""
        from calibration.learn_dice import added_die_side

        value = Die(value).value
        box = (0.0, 0.0, 0.0, 0.0)
        if at is not None:
            frame = self.reading_frame
            if frame is None and self.grabber:
                frame = self.grabber.latest()[1]
            if frame is None:
                raise UserError("no camera picture yet: add the die with + instead")
            side = added_die_side([d.bbox[2] for d in self.reading if d.bbox[2] > 0], frame.shape)
            box = (at[0] - side / 2, at[1] - side / 2, side, side)
        self.reading = [*self.reading, DieReading(value, colour, at or (0.0, 0.0), box, 1.0)]

    def remove_die(self, index: int) -> None:
        """Drop something the reader took for a die."""
        if not 0 <= index < len(self.reading):
            raise UserError(f"there is no die {index + 1} in this reading")
        self.reading = [d for i, d in enumerate(self.reading) if i != index]

    def enter_roll(self, dice) -> bool:
        """Use dice typed by hand as the current player's roll (no photo)."""
        if self.session is not None and self.attempt(lambda: self.session.roll(list(dice))):
            self._await_motion = True
            self._changed()
            return True
        return False

    def accept_reading(self) -> bool:
        """Use the read (and corrected) dice as the current player's roll (while learning the player's
        dice: keep them as a confirmed roll)."""
        if self.lesson is not None:
            return self.keep_lesson_roll()
        def roll():
            if not self.reading:
                raise UserError("read the dice first (space or the Read button), or add them with +")
            unknown = [i + 1 for i, d in enumerate(self.reading) if not d.certain]
            if unknown:
                raise UserError(f"die {', '.join(map(str, unknown))} unreadable: tap it to set its value")
            colours_matter = self.colours_matter()
            doubted = [f"{i + 1} ({d.value}{' ' + d.colour if colours_matter and d.colour else ''}?)"
                       for i, d in ((i, self.reading[i]) for i in self.doubted_dice())]
            if doubted:
                raise UserError(f"{'dice' if len(doubted) > 1 else 'die'} {', '.join(doubted)} not sure: tap each "
                                "marked ? to confirm it, tap again to change it")
            photo = None
            if self.reading_frame is not None:
                ok, jpeg = cv2.imencode(".jpg", self.reading_frame, [cv2.IMWRITE_JPEG_QUALITY, PHOTO_QUALITY])
                photo = jpeg.tobytes() if ok else None
            self.session.roll([d.to_die() for d in self.reading], photo=photo)
        if self.attempt(roll):
            self._await_motion = True
            self._changed()
            return True
        return False

    def _waiting_for_roll(self) -> bool:
        if self.lesson is not None:
            return not self.learning
        return self.state is not None and self.state.dice_to_roll() is not None

    # -- learn my dice ----------------------------------------------------------------
    def start_lesson(self) -> None:
        """Teach the reader the player's own dice: a few rolls, each confirmed, then learnt (calibration.learn_dice)."""
        from calibration.learn_dice import Lesson

        self.lesson = Lesson()
        self.reading, self.reading_frame = [], None
        self._say_lesson()
        self.show("learn")

    def _say_lesson(self, kept: str = "") -> None:
        lesson = self.lesson
        if lesson is None:
            self.lesson_text = ""
            return
        step = (f"Roll {len(lesson.rolls) + 1} of {lesson.wanted}: roll your dice, let them rest, then correct any die "
                "read wrong (tap it), tap any die missed where it lies, and keep the roll.") if not lesson.done \
            else "Every roll is kept: learn now."
        self.lesson_text = f"{kept}{step}"

    def keep_lesson_roll(self) -> bool:
        """Keep the read dice, as the player corrected them, as one of the lesson's rolls."""
        if self.lesson is None or self.learning:
            self.notice = "nothing to keep now"
            return False
        left_out = []
        if not self.attempt(lambda: left_out.append(self.lesson.keep(self.reading_frame, self.reading))):
            return False
        kept = f"Roll {len(self.lesson.rolls)} kept"
        if left_out[0]:
            kept += f" ({left_out[0]} added with + not learnt: tap where a missed die lies to add it)"
        self.reading, self.reading_frame = [], None
        self._await_motion = True
        self._say_lesson(kept + ". ")
        if self.lesson.done:
            self.learn_lesson()
        return True

    def learn_lesson(self) -> bool:
        """Learn the kept rolls in the reader process; the profile is saved when it answers."""
        from calibration.learn_dice import MIN_ROLLS
        from calibration.profile import Profile
        from calibration.white_balance import WhiteBalance

        if self.lesson is None or self.learning:
            return False
        if not self.lesson.ready:
            self.notice = f"keep at least {MIN_ROLLS} rolls first"
            return False
        # The kept pictures are already white-balanced (and flattened) as the reader sees them: learn
        # without balancing them again; the profile keeps its own white balance (see _learnt).
        as_seen = dataclasses.replace(self.profile or Profile(), white_balance=WhiteBalance())
        if not self.reader.learn(list(self.lesson.rolls), as_seen):
            self.notice = "the reader is busy: try again in a moment"
            return False
        self.learning = True
        self.lesson_text = f"Learning your dice from {len(self.lesson.rolls)} rolls..."
        return True

    def _learnt(self, result) -> None:
        from calibration.profile import save_profile

        self.learning = False
        if isinstance(result, str):
            self.notice = f"could not learn your dice: {result}"
            self._say_lesson()
            return
        if self.profile is not None:
            result = dataclasses.replace(result, white_balance=self.profile.white_balance)
        if not self.attempt(lambda: save_profile(result, self.profile_path())) or not self.attempt(self.load_profile):
            self._say_lesson()
            return
        self.lesson = None
        self.lesson_text = ""
        self.show("settings")
        mine = result.my_dice
        extras = [what for what, known in (
            ("their faces", mine.faces is not None),
            (f"symbol face as a {mine.symbol_value}", mine.symbol_value),
            ("where side faces show", mine.side_face_offset),
            ("full size", mine.wider_look)) if known]
        # one line on the narrowest screen: the extras replace "the reader uses them from now on"
        self.notice = f"learnt your dice from {mine.rolls} rolls: " + (", ".join(extras) or "the reader uses them from now on")

    def cancel_lesson(self) -> None:
        self.lesson = None
        self.lesson_text = ""
        self.reading, self.reading_frame = [], None
        self.show("settings")

    def forget_my_dice(self) -> bool:
        """Take what "learn my dice" learnt out of the profile (its tray, light and camera stay)."""
        from calibration.learn_dice import forget_my_dice
        from calibration.profile import save_profile

        if self.my_dice is None:
            self.notice = "no dice learnt: nothing to forget"
            return False
        if self.attempt(lambda: save_profile(forget_my_dice(self.profile), self.profile_path())) and \
                self.attempt(self.load_profile):
            self.notice = "your dice are forgotten: the reader reads as it ships"
            return True
        return False

    def _each_frame(self, _dt) -> None:
        """Hand over a finished reading, feed the settler, show the newest camera frame."""
        self.reader.poll()
        if self.reader.motion == "moving":
            self._await_motion = False
        if self.grabber is None:
            return
        if self.camera_problem != (self.grabber.error or ""):
            self.camera_problem = self.grabber.error or ""
            self.camera_notice = CAMERA_NOTICE if self.camera_problem else ""
        count, frame = self.grabber.latest()
        if frame is not None and not self.reader.busy:
            if self._read_wanted:
                self._read_wanted = not self.reader.read(frame, self.palette, self.my_dice)
            elif self.auto_read and self._waiting_for_roll() and count != self._watched_count:
                self._watched_count = count
                self.reader.watch(frame, self.grabber.frame_time, self.palette, my_dice=self.my_dice)
        if self.root.current not in ("play", "learn"):
            return
        count, picture = self.grabber.latest_display()
        if picture is not None and count != self._shown_count:
            self._shown_count = count
            self.screen(self.root.current).ids.view.show_frame(picture)

    # -- keyboard ---------------------------------------------------------------------
    def _on_key_down(self, _window, key: int, _scancode, _text, modifiers: list[str]) -> bool:
        if self.root.current not in ("play", "history"):
            return False
        if key == 32:                                   # space: read the dice
            self.read_dice()
            return True
        if key == 13 and self.reading:                  # enter: use the reading
            self.accept_reading()
            return True
        if key == 122 and "ctrl" in modifiers:          # ctrl+z / ctrl+shift+z
            self.redo() if "shift" in modifiers else self.undo()
            return True
        if key == 121 and "ctrl" in modifiers:          # ctrl+y: redo
            self.redo()
            return True
        if key == 114 and not modifiers:                # r: throw the simulated dice
            self.throw_dice()
            return True
        return False
