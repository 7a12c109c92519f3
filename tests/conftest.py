"""Shared test settings: hypothesis never times a test (speed lives in bench/, not in assertions)."""

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")
