import os

import pytest
from hypothesis import HealthCheck, settings

# CI runs on 2 shared cores: no deadlines (timing belongs to benchmarks), fixed derandomized examples.
settings.register_profile("ci", deadline=None, derandomize=True, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# No test (nor a command it runs) writes game reviews into the user's cache (thurn_ai.play.review).
if "THURN_AI_CACHE" not in os.environ:
    import atexit
    import shutil
    import tempfile
    os.environ["THURN_AI_CACHE"] = tempfile.mkdtemp(prefix="thurn-ai-test-cache-")
    atexit.register(shutil.rmtree, os.environ["THURN_AI_CACHE"], True)


@pytest.fixture(autouse=True)
def _listed_bot_modules_stay_as_they_were(monkeypatch):
    """An experiment's main() run in a test lists its bot module in THURN_AI_BOT_MODULES for its worker
    processes (sided.export_module); undone after the test, so no later test's processes import it."""
    name = "THURN_AI_BOT_MODULES"
    if name in os.environ:
        monkeypatch.setenv(name, os.environ[name])
    else:
        monkeypatch.delenv(name, raising=False)
