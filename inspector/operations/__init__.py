"""Running the product for a real town: the checks a production start must pass, and the
backup and restore of everything a town would lose (database, evidence, keys)."""
