"""QR credentials: the signing keys, the signed tokens, issuing, reissuing and revoking
them, and the sheets printed for stickers and badges."""
