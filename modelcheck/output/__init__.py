"""What a check returns, and the forms users read it in (TLC-shaped text, stable JSON)."""
