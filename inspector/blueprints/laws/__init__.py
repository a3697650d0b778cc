"""The laws as pages anyone can open (/leis), and each town's compliance page (/conformidade)."""
