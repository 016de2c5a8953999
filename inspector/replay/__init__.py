"""Replaying a recorded session: the plan (what it asked and got), the run against a
live server and its diff, the recording served as a server, the recorded catalog."""
