"""Camera frame -> dice: find each die's top face, count its pips, name its colour."""
import companion  # noqa: F401  (caps OpenCV's decoder before cv2 is imported)
from vision.reader import read_file, read_frame

__all__ = ["read_file", "read_frame"]
