"""Session files: the format, the write-ahead recorder, reading and replay."""
