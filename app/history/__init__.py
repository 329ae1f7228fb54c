"""Chat history power: search across chats, export to Markdown/JSON and import back (SPEC S8)."""
