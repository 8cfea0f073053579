"""What a session costs and holds: the usage ledger and prices, the /context and /cost pictures."""
