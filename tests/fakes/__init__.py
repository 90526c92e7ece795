"""Stand-ins for what cannot run on this machine (libcamera); used only by tests."""
