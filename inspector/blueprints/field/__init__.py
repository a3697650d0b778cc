"""The agent's field app: the offline shell at /campo, its manifest and service worker."""
