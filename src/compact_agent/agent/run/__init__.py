"""Running a session: the runner, what a session carries beyond the library (extensions), the window check,
retries, model switches and the stream events a UI shows.
"""
