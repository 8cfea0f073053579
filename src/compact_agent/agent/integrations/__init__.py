"""Programs and files from outside: hooks, MCP servers and the instruction files (CLAUDE.md, AGENTS.md)."""
