"""The terminal: the interactive REPL (`repl.py`, `run_repl`) and print mode (`print_mode.py`,
`-p`), which drive an `AgentSession`, and what they show of it. Where each module is: docs/layout.md."""
