"""The coding agent: its tools, what guards them, the session that runs them, the outside programs it talks
to, and what it all costs.
"""
