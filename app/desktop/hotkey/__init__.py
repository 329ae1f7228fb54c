"""The global Quick Ask hotkey: one small adapter per OS behind `HotkeyAdapter` (tech-notes §3.2)."""
