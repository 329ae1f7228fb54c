"""The tray icon behind one small interface (`TrayHost`), with one adapter per OS."""
