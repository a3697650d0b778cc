"""Import a town's registry from a spreadsheet: upload, dry run, then commit (admins only)."""
