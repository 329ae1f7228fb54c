"""Agents (issue 38): named assistants, each with its own persona, model, Skills, MCP servers,
knowledge bases, tools, approval mode, workspace and memory scope; every chat belongs to one.

The capability stores agents and which agent each chat belongs to, and answers the composition
layer's `AgentDirectory` questions (app/contracts/agents.py): the per-turn `AgentScope` that
every other capability filters by."""
