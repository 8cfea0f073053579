"""What the model can call: the file tools, search, the shell, the plan, deferred tool search, and the
record of files read and checkpoints kept.
"""
