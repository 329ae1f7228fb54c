"""Knowledge bases: named sets of the user's folders and files, indexed offline (SQLite FTS5
over the shared BM25 tokens), kept fresh with watchfiles and searched by the agent's
`knowledge_search` tool with `path:start-end` citations (issue 26)."""
