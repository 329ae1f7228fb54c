"""The `web_search` tool (SPEC S4.1) with pluggable backends: DuckDuckGo's HTML endpoint by
default, SearXNG, and Brave/Tavily-style keyed APIs (keys in the keyring)."""
