"""Demonstration data for the four towns (make run)."""
