"""The CI adapter: ``errkb ci`` reads a whole CI log (GitHub Actions, GitLab CI, anything else) and reports
each distinct failure the KB recognises, with the step it belongs to and its line.

- :mod:`bot.ci.reader` streams the log in chunks and selects the windows around lines that announce an
  error (never the whole log in memory); Slack reads a long file through it too (``bot.slack.files``);
- :mod:`bot.ci.failures` matches each window with the service's ``Knowledge`` and keeps each entry once.

The formats (GitHub annotations and step summary, GitLab's collapsible section, Markdown, JSON) are
rendered by :mod:`bot.render.ci`. Nothing here imports ``bot.slack``.
"""
