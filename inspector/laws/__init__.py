"""The laws in force: which checklist applies to a town, service and day, the town's
compliance with its law, and the pages that show the law texts."""


def forget_rules() -> None:
    """Drop what this area computed from the rule packs and law texts, after they were read
    again from other folders (RULES_EXTRA_DIR changed: a new app in the same process)."""
    from inspector.laws import compliance, pages

    for cached in (pages.law_index, pages.outline, pages.cited_by_article, compliance._rules):
        cached.cache_clear()
