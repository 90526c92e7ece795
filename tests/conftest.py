"""Test-wide settings: no per-example deadline (the CI machine is small and shared),
and every test gets its own data and config directories."""
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("companion", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("companion")


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
