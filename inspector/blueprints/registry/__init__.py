"""Registry admin: the town's fleet records, searched, edited and their status changed."""
