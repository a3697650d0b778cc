"""Notifications: Web Push subscriptions, the in-app list, the holders' notice pages."""
