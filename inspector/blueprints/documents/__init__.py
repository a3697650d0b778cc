"""Legal documents: the public authenticity page of a notice and the PDF download."""
