"""The tray: ArUco markers at its corners (or four clicked corners) give a homography
that turns the camera's slanted view into a flat, cropped, millimetre-true picture.

OpenCV's ArUco API changed twice: 4.7 added ``ArucoDetector`` (and ``generateImageMarker``,
``DetectorParameters()``), and 5.0 removed the free ``cv2.aruco.detectMarkers``.  The small
functions here pick whichever this OpenCV has, so the same code runs on 4.6 to 5.x.

Tray coordinates are millimetres from the tray's top-left corner, x to the right, y down.
The four markers sit inside the tray's corners, upright, each ``marker_inset_mm`` in from
both walls (a pale margin the detector needs): marker 0 top-left, 1 top-right, 2 bottom-right,
3 bottom-left.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import cv2
import numpy as np

from companion.errors import UserError

CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


# -- ArUco across OpenCV versions -------------------------------------------------------

def aruco_module() -> ModuleType:
    """``cv2.aruco``, or a one-line error when this OpenCV was built without it."""
    module = getattr(cv2, "aruco", None)
    if module is None:
        raise UserError("this OpenCV has no ArUco markers: install opencv-python-headless 4.7 or later "
                        "(or an OpenCV 4.6 with the contrib modules, as Debian's python3-opencv)")
    return module


def aruco_dictionary(name: str, aruco: ModuleType | None = None):
    """The predefined marker dictionary called ``name`` (e.g. ``DICT_4X4_50``)."""
    aruco = aruco or aruco_module()
    code = getattr(aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(code, int):
        raise UserError(f"unknown ArUco dictionary {name!r} (e.g. DICT_4X4_50)")
    if hasattr(aruco, "getPredefinedDictionary"):
        return aruco.getPredefinedDictionary(code)
    return aruco.Dictionary_get(code)  # OpenCV < 4.7 without getPredefinedDictionary


def detector_parameters(aruco: ModuleType | None = None):
    """Default detector parameters, with sub-pixel corner refinement switched on."""
    aruco = aruco or aruco_module()
    params = aruco.DetectorParameters() if hasattr(aruco, "ArucoDetector") else aruco.DetectorParameters_create()
    params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
    return params


def detect_markers(image: np.ndarray, dictionary_name: str,
                   aruco: ModuleType | None = None) -> dict[int, np.ndarray]:
    """Marker id -> its four corners (4x2 float, clockwise from the marker's top-left).

    Uses ``ArucoDetector`` where it exists (OpenCV 4.7 and later, the only way in 5.x)
    and the free ``detectMarkers`` function before that.
    """
    aruco = aruco or aruco_module()
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    dictionary = aruco_dictionary(dictionary_name, aruco)
    params = detector_parameters(aruco)
    if hasattr(aruco, "ArucoDetector"):
        corners, ids, _rejected = aruco.ArucoDetector(dictionary, params).detectMarkers(gray)
    else:
        corners, ids, _rejected = aruco.detectMarkers(gray, dictionary, parameters=params)
    if ids is None:
        return {}
    flat_ids = np.asarray(ids).reshape(-1)
    return {int(i): np.asarray(c, dtype=np.float64).reshape(4, 2) for i, c in zip(flat_ids, corners)}


def marker_image(dictionary_name: str, marker_id: int, side_px: int,
                 aruco: ModuleType | None = None) -> np.ndarray:
    """A printable marker, ``side_px`` square, black on white (its own 1-bit border included)."""
    aruco = aruco or aruco_module()
    dictionary = aruco_dictionary(dictionary_name, aruco)
    if hasattr(aruco, "generateImageMarker"):
        return aruco.generateImageMarker(dictionary, marker_id, side_px)
    return aruco.drawMarker(dictionary, marker_id, side_px)


# -- tray geometry ---------------------------------------------------------------------

@dataclass(frozen=True)
class TrayLayout:
    """The physical tray and where its markers are printed."""

    width_mm: float
    height_mm: float
    marker_size_mm: float
    marker_inset_mm: float = 5.0
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    dictionary: str = "DICT_4X4_50"

    def corners_mm(self) -> np.ndarray:
        """The tray's own corners, top-left, top-right, bottom-right, bottom-left."""
        w, h = self.width_mm, self.height_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)

    def marker_corners_mm(self) -> dict[int, np.ndarray]:
        """Each marker's four corners in tray millimetres, in ArUco's corner order."""
        s, m = self.marker_size_mm, self.marker_inset_mm
        far_x, far_y = self.width_mm - m - s, self.height_mm - m - s
        origins = [(m, m), (far_x, m), (far_x, far_y), (m, far_y)]
        square = np.array([[0, 0], [s, 0], [s, s], [0, s]], dtype=np.float64)
        return {mid: square + np.array(origin, dtype=np.float64) for mid, origin in zip(self.marker_ids, origins)}


def homography_from_markers(found: dict[int, np.ndarray], layout: TrayLayout) -> np.ndarray:
    """Image pixels -> tray millimetres, fitted to every corner of the four markers."""
    missing = [CORNER_NAMES[i] for i, mid in enumerate(layout.marker_ids) if mid not in found]
    if missing:
        raise UserError(f"tray marker(s) not found at the {', '.join(missing)} corner(s): "
                        "check that all four are in view and not covered")
    wanted = layout.marker_corners_mm()
    image_pts = np.vstack([found[mid] for mid in layout.marker_ids])
    tray_pts = np.vstack([wanted[mid] for mid in layout.marker_ids])
    matrix, _mask = cv2.findHomography(image_pts, tray_pts, 0)
    if matrix is None:
        raise UserError("the tray markers do not give a usable view of the tray: move the camera over the tray")
    return matrix


def homography_from_corners(corners_px, layout: TrayLayout) -> np.ndarray:
    """Image pixels -> tray millimetres from the tray's four corners as seen in the image."""
    pts = np.asarray(corners_px, dtype=np.float64)
    if pts.shape != (4, 2):
        raise UserError("tray corners: give four x,y points (top-left, top-right, bottom-right, bottom-left)")
    return cv2.getPerspectiveTransform(pts.astype(np.float32), layout.corners_mm().astype(np.float32))


def tray_corners_in_image(image_to_tray: np.ndarray, layout: TrayLayout) -> np.ndarray:
    """Where the tray's four corners fall in the image (inverse of ``image_to_tray``)."""
    return map_points(np.linalg.inv(image_to_tray), layout.corners_mm())


def map_points(matrix: np.ndarray, points) -> np.ndarray:
    """Apply a homography to an Nx2 array of points."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.asarray(matrix, dtype=np.float64)).reshape(-1, 2)


def flat_tray(image: np.ndarray, corners_px, layout: TrayLayout, px_per_mm: float) -> np.ndarray:
    """The tray seen from straight above and cropped to it, ``px_per_mm`` pixels per mm."""
    to_mm = homography_from_corners(corners_px, layout)
    scale = np.diag([px_per_mm, px_per_mm, 1.0])
    size = (round(layout.width_mm * px_per_mm), round(layout.height_mm * px_per_mm))
    return cv2.warpPerspective(image, scale @ to_mm, size, flags=cv2.INTER_LINEAR)


def render_tray(layout: TrayLayout, px_per_mm: float, tray_grey: int = 215) -> np.ndarray:
    """A top view of the tray with its four markers, ``px_per_mm`` pixels per mm.

    Printed at that scale it is the marker sheet to stick in the tray's corners; tests
    also use it as a synthetic tray to photograph from a known slant.
    """
    width, height = round(layout.width_mm * px_per_mm), round(layout.height_mm * px_per_mm)
    canvas = np.full((height, width, 3), tray_grey, dtype=np.uint8)
    side = round(layout.marker_size_mm * px_per_mm)
    for mid, corners in layout.marker_corners_mm().items():
        x, y = (round(v * px_per_mm) for v in corners[0])
        canvas[y:y + side, x:x + side] = cv2.cvtColor(marker_image(layout.dictionary, mid, side), cv2.COLOR_GRAY2BGR)
    return canvas
