"""Inspections sent by the field app: the JSON they arrive as, storing them once, and their
evidence photos (checked, hashed, kept in packs, rendered for review)."""
