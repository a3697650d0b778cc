"""The registry import: CSV decoding and columns, the all-or-nothing import and its
report."""
