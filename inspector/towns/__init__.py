"""A town from nothing: `towns create` and its first admin (onboarding), then what is still
missing before its agents can work (setup), for the "Configuração do município" page."""
