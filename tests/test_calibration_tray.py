"""Tray homography from ArUco markers rendered here and photographed at a known slant."""
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from calibration import tray
from calibration.tray import (
    TrayLayout,
    detect_markers,
    flat_tray,
    homography_from_corners,
    homography_from_markers,
    map_points,
    render_tray,
    tray_corners_in_image,
)
from companion.errors import UserError

LAYOUT = TrayLayout(width_mm=300.0, height_mm=200.0, marker_size_mm=30.0)
RENDER_PX_PER_MM = 4.0


def photograph(layout: TrayLayout, corners_in_photo, size=(1280, 960), table_grey=70, noise=3.0, seed=0):
    """The tray rendered from above, seen by a camera whose view puts the tray's corners at
    ``corners_in_photo``; returns (photo, true homography photo px -> tray mm)."""
    top = render_tray(layout, RENDER_PX_PER_MM)
    mm_to_photo = cv2.getPerspectiveTransform(layout.corners_mm().astype(np.float32),
                                              np.float32(corners_in_photo))
    render_to_mm = np.diag([1 / RENDER_PX_PER_MM, 1 / RENDER_PX_PER_MM, 1.0])
    photo = cv2.warpPerspective(top, mm_to_photo @ render_to_mm, size, flags=cv2.INTER_AREA,
                                borderValue=(table_grey,) * 3)
    rng = np.random.default_rng(seed)
    photo = np.clip(photo + rng.normal(0, noise, photo.shape), 0, 255).astype(np.uint8)
    return photo, np.linalg.inv(mm_to_photo)


SLANTED = [(260, 170), (1090, 230), (1010, 820), (180, 740)]


def grid_mm(layout: TrayLayout, step=25.0):
    xs, ys = np.meshgrid(np.arange(0, layout.width_mm + 1, step), np.arange(0, layout.height_mm + 1, step))
    return np.column_stack([xs.ravel(), ys.ravel()])


@pytest.mark.parametrize("corners", [SLANTED, [(100, 100), (1180, 100), (1180, 820), (100, 820)]])
def test_marker_homography_maps_the_tray_within_2_mm(corners):
    photo, true_to_mm = photograph(LAYOUT, corners)
    found = detect_markers(photo, LAYOUT.dictionary)
    assert set(found) == {0, 1, 2, 3}
    to_mm = homography_from_markers(found, LAYOUT)
    points_mm = grid_mm(LAYOUT)
    points_px = map_points(np.linalg.inv(true_to_mm), points_mm)
    error = np.linalg.norm(map_points(to_mm, points_px) - points_mm, axis=1)
    assert error.max() < 2.0, f"worst error {error.max():.2f} mm"


def test_tray_corners_recovered_from_markers_give_the_flat_tray():
    photo, _ = photograph(LAYOUT, SLANTED)
    to_mm = homography_from_markers(detect_markers(photo, LAYOUT.dictionary), LAYOUT)
    corners = tray_corners_in_image(to_mm, LAYOUT)
    assert np.abs(corners - np.array(SLANTED)).max() < 2.0
    flat = flat_tray(photo, corners, LAYOUT, px_per_mm=2.0)
    assert flat.shape == (400, 600, 3)
    # the flattened tray shows marker 2 at its own place, readable again
    again = detect_markers(flat, LAYOUT.dictionary)
    expected = LAYOUT.marker_corners_mm()[2] * 2.0
    assert np.abs(again[2] - expected).max() < 3.0


def test_a_covered_marker_is_named_by_its_corner():
    photo, _ = photograph(LAYOUT, SLANTED)
    found = detect_markers(photo, LAYOUT.dictionary)
    del found[3]
    with pytest.raises(UserError, match="bottom-left"):
        homography_from_markers(found, LAYOUT)


def test_four_clicked_corners_give_the_same_mapping_as_the_true_view():
    _photo, true_to_mm = photograph(LAYOUT, SLANTED)
    to_mm = homography_from_corners(SLANTED, LAYOUT)
    pts = map_points(np.linalg.inv(true_to_mm), grid_mm(LAYOUT))
    assert np.abs(map_points(to_mm, pts) - grid_mm(LAYOUT)).max() < 0.01
    with pytest.raises(UserError, match="four"):
        homography_from_corners(SLANTED[:3], LAYOUT)


def test_unknown_dictionary_is_a_user_error():
    with pytest.raises(UserError, match="DICT_9X9"):
        tray.aruco_dictionary("DICT_9X9_1")


def test_this_opencv_uses_the_detector_class():
    """OpenCV >= 4.7 (here 4.11) has ArucoDetector; 5.x has only that."""
    aruco = tray.aruco_module()
    major, minor = (int(p) for p in cv2.__version__.split(".")[:2])
    assert hasattr(aruco, "ArucoDetector") == ((major, minor) >= (4, 7))


class LegacyAruco(SimpleNamespace):
    """OpenCV 4.6's ArUco API (free functions), built on this OpenCV's, to run the old branch here."""


def legacy_aruco():
    real = cv2.aruco
    calls = []

    def detect(gray, dictionary, parameters):
        calls.append("detectMarkers")
        return real.ArucoDetector(dictionary, parameters).detectMarkers(gray)

    module = LegacyAruco(
        Dictionary_get=real.getPredefinedDictionary, DetectorParameters_create=real.DetectorParameters,
        detectMarkers=detect, drawMarker=real.generateImageMarker, CORNER_REFINE_SUBPIX=real.CORNER_REFINE_SUBPIX,
        DICT_4X4_50=real.DICT_4X4_50)
    return module, calls


@pytest.mark.skipif(not hasattr(cv2.aruco, "ArucoDetector"), reason="this OpenCV runs the old branch for real")
def test_the_pre_4_7_branch_calls_the_free_functions():
    module, calls = legacy_aruco()
    photo, _ = photograph(LAYOUT, SLANTED)
    found = detect_markers(photo, LAYOUT.dictionary, aruco=module)
    assert calls == ["detectMarkers"] and set(found) == {0, 1, 2, 3}
    assert np.array_equal(tray.marker_image("DICT_4X4_50", 1, 60, aruco=module),
                          tray.marker_image("DICT_4X4_50", 1, 60))
