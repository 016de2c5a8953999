"""Session files: the format, the write-ahead recorder, reading (whole or indexed)."""
