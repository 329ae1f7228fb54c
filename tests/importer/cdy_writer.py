"""Run with cdy-agent 0.1.5 on PYTHONPATH: let cdy-agent's own storage code write a workspace.

Usage: python cdy_writer.py WORKSPACE  → prints JSON with the ids it created.
Only storage classes are used (no model, no network): sessions, explicit memories, notes, todos,
shell approvals.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cdy_agent.conversation import Message
from cdy_agent.memory.long_term import MemoryStore
from cdy_agent.memory.sqlite import ConversationStore
from cdy_agent.tools.notes import CreateNoteTool
from cdy_agent.tools.personal_store import PersonalStore
from cdy_agent.tools.shell_approvals import ShellApprovalStore
from cdy_agent.tools.todos import CompleteTodoTool, CreateTodoTool

SESSION = "52c809c6-6e55-4ff1-9220-e4f90a4f6774"


def main(workspace: Path) -> dict[str, object]:
    conversations = ConversationStore(workspace)
    conversations.append_turn(SESSION, Message("user", "What is uv?"), Message("assistant", "A Python tool."))
    conversations.append_turn(SESSION, Message("user", "Thanks"), Message("assistant", "You're welcome."))
    memories = MemoryStore(workspace)
    memory = memories.create("Python projects use uv for dependencies", ["python", "tooling"])
    store = PersonalStore(workspace)
    note = CreateNoteTool(store).execute({"title": "Release steps", "content": "Tag, build, publish."})
    todo = CreateTodoTool(store).execute({"text": "Write the changelog"})
    done = CreateTodoTool(store).execute({"text": "Fix the build"})
    completed = CompleteTodoTool(store).execute({"todo_id": done.data["id"]})
    approvals = ShellApprovalStore(workspace)
    added = approvals.add(["/usr/bin/python3", "script.py"])
    assert note.ok and todo.ok and done.ok and completed.ok and added.ok, (note, todo, completed, added)
    return {"session": SESSION, "memory": memory.id, "note": note.data["id"], "todo": todo.data["id"]}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
