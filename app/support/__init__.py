"""Small helpers below everything but the contracts (atomic file writes, the app version):
they import nothing of the app but `app.contracts`."""
