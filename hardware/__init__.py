"""Camera sources (Pi camera, USB webcam, replay, simulated) and GPIO buttons and LEDs."""
