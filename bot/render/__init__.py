"""Turn service cards into terminal text, JSON, or Slack Block Kit; no decisions are made here."""
