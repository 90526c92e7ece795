"""Camera frame -> dice: find each die's top face, count its pips, name its colour."""
from vision.reader import read_file, read_frame

__all__ = ["read_file", "read_frame"]
