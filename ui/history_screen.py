"""History: every roll and move of the game, with undo/redo and each roll's photo."""
from __future__ import annotations

import io

from kivy.app import App
from kivy.core.image import Image as CoreImage
from kivy.metrics import dp
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen

SHOWN_ENTRIES = 40
"""The newest history entries listed (older ones stay in the session database)."""


def photo_texture(store, reference):
    """The texture of a roll's photo (bytes kept in the database, or a file path)."""
    if isinstance(reference, dict):
        data = store.photo(reference["sha256"])
        return CoreImage(io.BytesIO(data), ext="jpg").texture
    return CoreImage(reference).texture


class PhotoThumbnail(ButtonBehavior, Image):
    """A roll's photo, small; a tap shows it as large as the screen allows."""

    def on_release(self) -> None:
        big = Image(texture=self.texture, fit_mode="contain")
        popup = Popup(title="The photo this roll was read from (tap to close)", title_size="18sp", content=big,
                      size_hint=(0.98, 0.98), _anim_duration=0)
        big.bind(on_touch_down=lambda _w, _t: popup.dismiss())
        popup.open()


class HistoryScreen(Screen):
    def on_kv_post(self, _base) -> None:
        App.get_running_app().bind(revision=lambda *_: self.refresh() if self.manager.current == self.name else None)

    def on_pre_enter(self, *_args) -> None:
        self.refresh()

    def refresh(self) -> None:
        app = App.get_running_app()
        box = self.ids.entries
        box.clear_widgets()
        if app.session is None:
            return
        self.ids.undo_button.disabled = not app.session.can_undo
        self.ids.redo_button.disabled = not app.session.can_redo
        for entry in reversed(app.session.history()[-SHOWN_ENTRIES:]):
            row = BoxLayout(size_hint_y=None, height=dp(56), spacing=dp(6))
            photo = entry.get("photo")
            if photo:
                try:
                    row.add_widget(PhotoThumbnail(texture=photo_texture(app.store, photo), size_hint_x=None,
                                                  width=dp(96), fit_mode="contain"))
                    row.height = dp(76)
                except Exception:  # noqa: BLE001 - a moved or damaged photo: say so, keep the history
                    row.add_widget(Label(text="(photo missing)", size_hint_x=None, width=dp(96)))
            text = entry.get("text") or entry["kind"]
            if entry.get("undone"):
                text = f"[s]{text}[/s]  (undone)"
            label = Label(text=f"{entry['seq']}. {text}", markup=True, font_size="18sp", halign="left",
                          valign="middle", color=(0.6, 0.6, 0.6, 1) if entry.get("undone") else (1, 1, 1, 1))
            label.bind(size=lambda w, s: setattr(w, "text_size", s))
            row.add_widget(label)
            box.add_widget(row)


SCREEN_CLASS = HistoryScreen
