"""The Kivy touchscreen app (800x480 first, also a desktop window)."""
