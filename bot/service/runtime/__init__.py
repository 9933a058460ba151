"""The service's private machinery: recorded decisions (``outbox``), the write-behind (``writer``), the
vote queue, in-process caches of settings and numbers, debounced message updates and pacing.

Only the use cases and the composition root (``bot.service.root``) use these; adapters never do.
"""
