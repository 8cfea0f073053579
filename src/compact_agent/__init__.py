"""compact-agent: a coding agent whose context never runs out."""
