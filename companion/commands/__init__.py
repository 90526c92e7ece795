"""Sub-commands of ``companion``: one module each, found automatically by ``companion.cli``."""
