import os

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
