"""Legal documents: what a notice says, its PDF, its stored versions and the company's
copy."""
