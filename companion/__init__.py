"""Dice Companion: rules engines, game sessions and the ``companion`` command."""

import os

from companion.limits import MAX_IMAGE_PIXELS

__version__ = "0.1.0"

# OpenCV's decoder refuses images over this many pixels, whatever their format.  It reads the
# setting when cv2 is imported: the companion command and the vision package load this first.
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_IMAGE_PIXELS))
