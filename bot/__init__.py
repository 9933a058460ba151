"""errkb: turns pasted errors into answers from a curated, bilingual knowledge base."""
