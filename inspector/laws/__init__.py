"""The laws in force: which checklist applies to a town, service and day, the town's
compliance with its law, and the pages that show the law texts."""
