"""History: every roll and move of the game, with undo/redo and each roll's photo; the game's
export and the players' results over all finished games."""
from __future__ import annotations

import io
import json

from kivy.app import App
from kivy.core.image import Image as CoreImage
from kivy.metrics import dp
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen
from kivy.uix.scrollview import ScrollView

from companion.errors import CompanionError, UserError
from companion.paths import data_dir
from companion.safe_files import write_new_file

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


def stats_rows(stats: dict[str, dict]) -> list[tuple[str, ...]]:
    """Table rows for players' results over finished games, most wins first."""
    ranked = sorted(stats.items(), key=lambda item: (-item[1]["wins"], -item[1]["games"], item[0]))
    return [(player, str(s["games"]), str(s["wins"]), f"{s['average_score']:g}", str(s["best_score"]))
            for player, s in ranked]


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


    def export(self) -> None:
        """Save this game as JSON (every event) and CSV (one row per event) in the data folder's
        ``exports``, under names that are new: nothing is ever written over."""
        app = App.get_running_app()

        def save():
            session = app.session
            if session is None:
                raise UserError("there is no game to export")
            folder = data_dir() / "exports"
            folder.mkdir(parents=True, exist_ok=True)
            stem = f"{session.game.name}-game-{session.id}"
            saved_json = write_new_file(folder, stem, ".json", json.dumps(session.export_json(), indent=2))
            write_new_file(folder, stem, ".csv", session.export_csv())
            return saved_json

        try:
            path = save()
        except CompanionError as exc:
            app.notice = str(exc)
            return
        app.notice = f"game saved as {path.name} and .csv in {path.parent}"
        self.exported = path

    def show_stats(self) -> None:
        """Every player's results over the finished games in this database."""
        app = App.get_running_app()
        rows = stats_rows(app.store.player_stats())
        grid = GridLayout(cols=5, spacing=dp(2), size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        for row in [("Player", "Games", "Wins", "Average", "Best"), *rows]:
            for index, text in enumerate(row):
                label = Label(text=text, font_size="19sp", bold=row[0] == "Player", size_hint_y=None,
                              height=dp(40), halign="left" if index == 0 else "center", valign="middle")
                label.bind(size=lambda w, size: setattr(w, "text_size", size))
                grid.add_widget(label)
        if not rows:
            grid.add_widget(Label(text="no finished games yet", font_size="19sp", size_hint_y=None, height=dp(40)))
        scroll = ScrollView(do_scroll_x=False)
        scroll.add_widget(grid)
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        content.add_widget(scroll)
        popup = Popup(title="Players over all finished games", title_size="20sp", content=content,
                      size_hint=(0.96, 0.94), _anim_duration=0)
        close = Button(text="Close", font_size="20sp", size_hint_y=None, height=dp(56))
        close.bind(on_release=popup.dismiss)
        content.add_widget(close)
        self.stats_popup = popup
        popup.open()


SCREEN_CLASS = HistoryScreen
