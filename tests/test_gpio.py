"""GPIO panel against gpiozero's MockFactory: presses, LED states, the buzzer, and quiet-off."""
import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.errors import UserError
from hardware.camera import is_raspberry_pi
from hardware.gpio import RGB_STATUS, GpioPanel


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


class Actions:
    def __init__(self):
        self.log = []

    def panel(self, factory, config=None, **kw):
        return GpioPanel(config, on_read=lambda: self.log.append("read"), on_undo=lambda: self.log.append("undo"),
                         on_end_turn=lambda: self.log.append("end_turn"), pin_factory=factory, **kw)


def _press(pin, seconds):
    pin.drive_low()       # buttons pull up: pressed is low
    time.sleep(seconds)
    pin.drive_high()
    time.sleep(0.05)


def _wait_for(predicate, timeout=1.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate():
        time.sleep(0.01)
    return predicate()


def test_short_press_reads_long_press_undoes(factory):
    actions = Actions()
    with actions.panel(factory, long_press_seconds=0.2) as panel:
        assert panel.available
        _press(factory.pin(17), 0.02)
        assert _wait_for(lambda: actions.log == ["read"])
        _press(factory.pin(17), 0.4)
        assert _wait_for(lambda: actions.log == ["read", "undo"])   # a long press never also reads
        _press(factory.pin(27), 0.02)
        assert _wait_for(lambda: actions.log == ["read", "undo", "end_turn"])


def test_a_separate_undo_button(factory):
    actions = Actions()
    with actions.panel(factory, {"undo_button": 23}):
        _press(factory.pin(23), 0.02)
        assert _wait_for(lambda: actions.log == ["undo"])


def _samples(device, seconds=0.6):
    seen = set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seen.add(device.value)
        time.sleep(0.01)
    return seen


def test_single_led_follows_the_app_state(factory):
    with Actions().panel(factory) as panel:
        led = panel.led
        assert led.value == pytest.approx(0.2)           # ready: dim
        panel.show("read_ok")
        assert led.value == 1.0
        panel.show("reading")
        assert {0, 1} <= {round(v) for v in _samples(led)}   # blinking
        panel.show("off")
        assert led.value == 0


def test_rgb_led_colours_and_the_buzzer_on_attention(factory):
    with Actions().panel(factory, {"rgb_led": [5, 6, 13], "buzzer": 19}) as panel:
        assert panel.led is None
        assert panel.rgb_led.value == pytest.approx(RGB_STATUS["ready"][0])
        buzzer_pin = factory.pin(19)
        assert not buzzer_pin.state
        panel.show("read_ok")
        assert panel.rgb_led.value == (0, 1, 0)
        panel.show("attention")
        colours = _samples(panel.rgb_led)
        assert (1, 0, 0) in colours and (0, 0, 0) in colours   # red, blinking
        assert any(state for _, state in buzzer_pin.states[1:])   # it beeped
        panel.show("ready")
        assert not buzzer_pin.state


def test_common_anode_rgb_led_is_driven_inverted(factory):
    with Actions().panel(factory, {"rgb_led": [5, 6, 13], "rgb_active_high": False}) as panel:
        panel.show("read_ok")
        assert factory.pin(6).state == 0 and factory.pin(5).state == 1


@pytest.mark.parametrize("config,message", [({"read_button": 40}, "not a BCM pin"),
                                            ({"read_button": 17, "end_turn_button": 17}, "share one pin"),
                                            ({"rgb_led": [5, 6]}, "three pins"),
                                            ({"horn": 4}, "unknown GPIO setting")])
def test_bad_pin_config_is_refused(factory, config, message):
    with pytest.raises(UserError, match=message):
        GpioPanel(config, pin_factory=factory)


@pytest.mark.skipif(is_raspberry_pi(), reason="this machine has GPIO")
def test_without_gpio_the_panel_is_quietly_off(monkeypatch, recwarn):
    monkeypatch.setattr(Device, "pin_factory", None)      # gpiozero looks for real pins, as in the app
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    panel = GpioPanel()
    assert not panel.available
    panel.show("attention")             # still callable, does nothing
    assert panel.status == "attention"
    panel.close()
    assert not [w for w in recwarn if "gpiozero" in str(w.filename)]
