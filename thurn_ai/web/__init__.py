"""The browser board served by `thurn-ai serve` (optional extra `thurn-ai[serve]`)."""
