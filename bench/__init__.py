"""errkb's benchmarks and soaks. Run each from the repository root as ``.venv/bin/python -m bench.<script>``;
what they share (the KB's pastes and chat, a fake Slack, signed requests, a served errkb, figures) is
``bench.harness``, and the fakes come from ``tests.support``."""
