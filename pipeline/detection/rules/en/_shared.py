"""What the modules of the English pack share."""
LOCALE = "en"
