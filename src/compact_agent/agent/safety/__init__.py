"""What the model may do: the permission modes, path confinement and the bash allow/deny rules."""
