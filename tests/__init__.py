"""errkb's tests; ``tests.support`` is what they share with ``bench/``."""
