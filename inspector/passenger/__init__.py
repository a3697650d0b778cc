"""The passenger's page behind a QR code (is this ride licensed right now?) and the reports
passengers send."""
