"""Import data from the two earlier apps (a CashCode data folder, a cdy-agent workspace)."""
