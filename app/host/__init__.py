"""What the composition root hands to every capability's `build` (one layer above the stores
and settings, below the capabilities): see host.py."""
