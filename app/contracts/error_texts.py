"""The English of every worded error, by a stable key (`say(key, **params)` fills one in).

The UI words each key in its own language from the same parameters (frontend/src/i18n:
`apiError.<key>` in en.ts and zh-CN.ts); the generated API types list the keys and their
parameters, so a key without a wording fails the UI's tests. Placeholders are `{name}`; values
arrive as text. Keep a key's meaning when you change its English; add a new key for a new one.
"""

from __future__ import annotations

from typing import Final

ERROR_TEXTS: Final[dict[str, str]] = {
    # ---- the envelope and the request itself (app/api)
    "route.unknown": "unknown route '{route}'",
    "route.payload_not_object": "the payload must be a JSON object",
    "request.invalid": "invalid request",
    "request.field_missing": "{field}: this field is required.",
    "request.field_unknown": "{field}: this request has no such field.",
    "request.field_too_long": "{field}: at most {limit} characters.",
    "request.field_too_short": "{field}: at least {limit} characters.",
    "request.field_too_many": "{field}: at most {limit} items.",
    "request.field_too_few": "{field}: at least {limit} items.",
    "request.field_choice": "{field}: must be one of {limit}.",
    "request.field_min": "{field}: must be at least {limit}.",
    "request.field_above": "{field}: must be more than {limit}.",
    "request.field_max": "{field}: must be at most {limit}.",
    "request.field_below": "{field}: must be less than {limit}.",
    "request.field_pattern": "{field}: not in the expected form.",
    "request.field_invalid": "{field}: {reason}",
    "internal": "Internal error in {route} ({kind}); see the log for details.",
    "storage_problem": "Storage problem: {reason}",
    "database_busy": (
        "The database is busy: another program is using CashCode's data right now. "
        "Try again in a moment; close the other program if this persists."
    ),
    "desktop_only": "This action is only available in the desktop app.",
    "path.not_absolute": "The path must be absolute, got '{path}'.",
    "path.must_be_absolute": "The path must be absolute.",
    "path.missing": "'{path}' does not exist.",
    "file.bad_base64": "The file's content is not valid base64.",
    "file.cannot_save": "Cannot save the file: {reason}",
    # ---- chats and turns
    "chat.empty_message": "Type a message or attach a file first.",
    "chat.no_model": (
        "No model is available yet: add a provider in Settings → Providers (or start Ollama)"
        " and check that it lists models."
    ),
    "chat.busy": "This chat is still running a turn; stop it or wait for it to finish.",
    "chat.busy_switch": "This chat is running a turn; stop it or wait to switch branch.",
    "chat.busy_delete": "This chat is running a turn; stop it before deleting the chat.",
    "chat.busy_deleting": "This chat is being deleted.",
    "chat.already_running": "chat {id} is already running a turn",
    "chat.nothing_to_retry": "chat {id} has no failed or cancelled turn to retry",
    "chat.not_running": "chat {id} has no running turn to steer; send the text as a message instead",
    "chat.edit_not_user": "Only your own messages can be edited; regenerate an answer instead.",
    "chat.bad_cursor": "`before` must be a `next_before` value from an earlier page.",
    "chat.not_found": "chat {id} not found",
    "chat.exists": "chat {id} already exists",
    "chat.turn_stored": "turn {turn} of chat {id} is already stored",
    "chat.message_not_found": "message {message} of chat {id} not found",
    "chat.message_no_question": "message {message} of chat {id} answers no user message",
    "chat.cannot_import": "Cannot import this chat: {reason}",
    "export.needs_html": "An HTML export needs the rendered page (field `html`).",
    "export.cannot_save": "Cannot save the export: {reason}",
    "approval.not_pending": "That approval is no longer pending (answered or cancelled).",
    "approval.unattended_deny": 'An unattended answer can only refuse the call (decision "deny").',
    "inbox.not_found": "No Inbox item {id} (see `cashcode inbox`).",
    "inbox.answered": "This question was already answered (status: {status}, by: {by}).",
    "inbox.decision_required": "Answer an approval with a decision: deny, once or always.",
    "inbox.always_not_offered": ('"Always allow" is not offered for this request; answer "once" or "deny".'),
    "inbox.bad_field": "The answer does not fit the form: {reason}",
    "approval.resume_unreadable": (
        "This question's turn was saved when the app ended, but the saved turn cannot be read"
        " ({reason}), so it cannot go on. Delete the chat to clear it."
    ),
    "approval.resume_busy": "This chat is running another turn; answer when it has finished.",
    "grant.not_found": "grant '{id}' does not exist",
    # ---- attachments
    "attach.too_many": "At most {max} files can be attached to one message ({count} given).",
    "attach.not_uploaded": "{name}: upload the file first (it is not in the data folder).",
    "attach.mismatch": "{name}: the reference does not match the stored file.",
    "attach.no_vision": (
        "The model {model} cannot see images (or is not known to). Pick a vision model, or turn on"
        " “Can see images” for it in Settings → Providers. Nothing was sent."
    ),
    "attach.image_too_large": "{name} is {size}; images may be at most {max}.",
    "attach.file_too_large": "{name} is {size}; files may be at most {max}.",
    "attach.unsupported_kind": (
        "{name} cannot be attached: only images (PNG, JPEG, GIF, WebP), text files and PDFs are supported."
    ),
    "attach.bad_base64": "{name}: the upload is not valid base64",
    "attach.gone": "This attachment is no longer in the data folder.",
    "attach.preview_images_only": "Only images can be previewed.",
    # ---- providers, settings, workspace
    "provider.not_configured": "provider '{id}' is not configured",
    "provider.not_found": "provider '{id}' does not exist",
    "provider.key_retarget": (
        "The base URL now points at {new} instead of {old}. "
        "The stored API key is only sent to the host it was entered for: "
        "enter the key again (or clear it) to save this change."
    ),
    "provider.blank_key": (
        "The API key is only spaces: enter the key, or leave the field empty to keep the stored one."
    ),
    "provider.key_and_clear": "Either enter a new API key or clear the stored one, not both.",
    "prices.duplicate": "each provider and model may have one price only",
    "workspace.not_absolute": "the workspace must be an absolute path, got '{path}'",
    "workspace.not_folder": "the workspace '{path}' does not exist or is not a folder",
    "websearch.bad_url": "The search address must be an http(s) URL, got '{url}'.",
    "websearch.searxng_url": "SearXNG needs the address of your instance (e.g. http://127.0.0.1:8888).",
    "hotkey.not_saved": "the shortcut works but could not be saved: {reason}",
    # ---- agents (issue 38)
    "agent.not_found": "agent '{id}' does not exist",
    "agent.no_such_name": "no agent named '{name}' (see `cashcode agents list`)",
    "agent.exists": "an agent named '{name}' already exists",
    "agent.default_fixed": (
        "The default agent is today's behaviour and cannot be changed or removed: duplicate it"
        " and change the copy."
    ),
    "agent.too_many": "at most {limit} agents",
    "agent.chat_started": "The chat's agent can only be changed before its first message is sent.",
    "agent.package_refused": "The agent package was refused: {reason}",
    # The reasons a `.cashagent` file is refused while it is read (app/agents/package_read.py).
    "agent.package.not_json": "manifest.json is not valid JSON ({reason})",
    "agent.package.not_object": "manifest.json is not a JSON object",
    "agent.package.unknown_field": "manifest.json has a field this version does not know: {where}",
    "agent.package.invalid_field": "manifest.json is not valid at {where}: {reason}",
    "agent.package.mode": (
        "the package asks for the approval mode {mode} ({where}); a package may ask for at most "
        "'ask_writes' (Ask before writing), the user chooses above"
    ),
    "agent.package.claims": (
        "the package claims {claim} ({where}); approvals, grants, workspace trust and autonomous "
        "mode are only ever given by the user"
    ),
    "agent.package.no_manifest": "the file has no manifest.json: not a .cashagent package",
    "agent.package.unlisted": "'{name}' is in the ZIP but not in the manifest",
    "agent.package.missing": "the manifest lists '{name}', which the ZIP lacks",
    "agent.package.hash": "'{name}' does not match the sha256 the manifest pins for it",
    "agent.package_source": "Give the package as a path or as uploaded data (one of them).",
    "agent.package_changed": "The package file changed since its preview; preview it again.",
    # ---- scheduled tasks
    "task.busy_remove": "This task is running; wait for the run to end, then remove it.",
    "task.bad_id": "`task_id` must be a task id from tasks.list",
    "task.not_found": "task '{id}' does not exist",
    "task.no_such_name": "no task named '{name}' (see `cashcode tasks list`)",
    "task.run_not_found": "run '{id}' does not exist",
    "task.exists": "a task named '{name}' already exists",
    "task.bad_name": "The task name must be visible text on one line.",
    "task.unknown_provider": "no saved provider '{id}' (see Settings → Providers)",
    "task.bad_workspace": "the workspace '{path}' is not an existing folder (give a full path)",
    "schedule.zone": "unknown time zone '{zone}' (use an IANA name like Europe/Berlin)",
    "schedule.interval_empty": "the interval is empty (write e.g. 15m, 2h or 1d)",
    "schedule.interval_unreadable": "cannot read the interval '{text}' (write e.g. 15m, 2h or 1d)",
    "schedule.interval_range": "the interval must be more than 0 and at most 366 days",
    "schedule.interval_min": "the interval must be at least {minimum}",
    "schedule.not_time": "'{text}' is not a time of day (write HH:MM, e.g. 07:30)",
    "schedule.not_weekly": "'{text}' is not DAY@HH:MM (e.g. mon@09:00)",
    "schedule.not_cron": "'{text}' is not a cron expression of five fields (e.g. '0 9 * * 1-5')",
    "schedule.cron_never": "the cron expression '{expr}' never runs",
    "schedule.cron_field": (
        "the {part} field of the cron expression is {value}, out of range: it takes {low}–{high}"
    ),
    "schedule.not_iso": "'{text}' is not an ISO time (e.g. 2027-01-31T09:00)",
    "schedule.once_zone": "a one-off time needs its time zone",
    # ---- knowledge bases
    "kb.not_found": "No knowledge base named '{name}'.",
    "kb.not_found_cli": "No knowledge base named '{name}' (see `cashcode kb list`).",
    "kb.exists": "A knowledge base named '{name}' already exists.",
    "kb.name_required": "A knowledge base needs a name.",
    "kb.name_too_long": "A knowledge base name has at most {max} characters.",
    "kb.name_control": "A knowledge base name cannot contain control characters.",
    "kb.path_required": "Give the path of a folder or file.",
    "kb.not_file_or_folder": "{path} is not a folder or a regular file.",
    "kb.private_folder": "{path} is one of CashCode's own folders; it cannot be indexed.",
    "kb.not_a_source": "{path} is not a folder of knowledge base '{name}'.",
    "kb.no_embeddings": "Embeddings are not available in this process.",
    "kb.embeddings_pair": "Choose both a provider and an embeddings model, or neither.",
    "kb.unknown_provider": "No provider with id '{id}' (add it in Settings → Providers).",
    # ---- memory
    "memory.not_found": "memory {id} not found",
    "memory.exists": "memory {id} already exists",
    "memory.deleted_meanwhile": "memory {id} not found (it may have been deleted meanwhile)",
    "memory.changed_meanwhile": "memory {id} was changed meanwhile; look at it again and retry",
    "memory.duplicate": "memory {id} already has this text; update that memory instead",
    "memory.note_not_found": "note {id} not found",
    "memory.todo_not_found": "todo {id} not found",
    "memory.todo_done": "todo {id} is already done",
    "memory.proposal_not_found": "proposal {id} not found",
    "memory.search_empty": "say what to search for: give at least one word or tag",
    "memory.search_blank": "a search word must not be blank",
    "memory.search_too_long": "a search is limited to {limit} characters",
    "memory.line_not_found": "no line of MEMORY.md contains “{text}”",
    "memory.line_query_blank": "say which line: the text must not be blank",
    "memory.forgotten_not_found": "forgotten line {id} not found (it may have been un-forgotten already)",
    "memory.line_forgotten": (
        "this fact was forgotten by the user; it is not saved again (un-forget it first)"
    ),
    "memory.proposal_done": "proposal {id} was already {status}",
    "memory.file_changed": "MEMORY.md was changed meanwhile; reload it and apply your edit again",
    "memory.file_version_not_found": "MEMORY.md version {id} not found",
    # ---- MCP servers and the MCP catalog
    "mcp.builtin_edit": "'{name}' is a built-in server and cannot be edited",
    "mcp.builtin_delete": "'{name}' is a built-in server and cannot be deleted",
    "mcp.unknown_tool": "'{server}' has no known tool '{tool}' (connect it first)",
    "mcp_app.no_app": "no MCP App was shown for the call '{call}' in this chat",
    "mcp_app.no_page": "that App page is no longer open; reopen the chat",
    "mcp_app.model_only": "the tool '{tool}' is for the model only: an App may not call it",
    "mcp_app.undeclared": "the App did not declare the permission '{permission}'",
    "mcp.elicitation_gone": "That request is no longer waiting (answered or timed out).",
    "mcp.no_answer": "no answer from the server within {seconds} s",
    "mcp.ended": "the connection ended: {reason}",
    "mcp.stopped": "the server stopped: {reason}",
    "mcp.failed_start": "{reason} — the server wrote: {line} (its whole output: {log})",
    "mcp.result_too_large": (
        "mcp_result_too_large: {server} sent a result over {limit} in one server-sent event, more than"
        " the MCP client reads over SSE, so the connection was reset. Ask for less (a narrower query,"
        " fewer items or one page at a time), or connect to this server over Streamable HTTP or stdio"
        " if it offers them: large results are kept and paged there."
    ),
    "mcp.not_mcp_handshake": (
        "the program did not answer as an MCP server ({cause}); check that it is an MCP server"
    ),
    "mcp.not_mcp_output": (
        "the program is not an MCP server: it printed '{output}' where MCP messages "
        "were expected (check the command and its arguments)"
    ),
    "catalog.unknown": "the MCP catalog has no server '{name}'; see `cashcode mcp catalog`",
    "catalog.installing": "{name} is being installed already",
    "catalog.exists": (
        "an MCP server named '{name}' exists already; remove it first (cashcode mcp uninstall {name})"
    ),
    "catalog.not_catalog_server": "'{name}' is not a server of the MCP catalog",
    "catalog.not_installed": "'{name}' is not installed",
    # ---- Skills
    "skill.no_evolution": "Self-evolution is not available here.",
    "skill.import_source": "Give either 'path' or 'data_base64' (with 'filename').",
    "skill.zip_only": "Only .zip files can be uploaded; drop a folder in the desktop app.",
    "skill.not_found": "No Skill named '{name}'.",
    "skill.no_valid": "No valid {source} Skill named '{name}'.",
    "skill.no_invalid_folder": "No invalid Skill folder '{name}'.",
    "skill.valid_now": "'{name}' is valid now; delete it as a normal Skill instead.",
    "skill.source_read_only": "{source} Skills are read-only.",
    "skill.read_only": "'{name}' is a {source} Skill and is read-only; import a copy to change it.",
    "skill.changed": "'{name}' changed since it was opened; reload it and apply your edit again.",
    "skill.invalid": "Not a valid Skill: {reasons}",
    "skill.exists": "A {source} Skill named '{name}' already exists; delete or rename it first.",
    "skill.folder_exists": "A folder named '{name}' already exists in the {source} Skills.",
    "skill.target_exists": "'{name}' already exists.",
    "skill.no_versions": "No Skill or saved versions named '{name}'.",
    "skill.no_versions_source": "'{name}' is a {source} Skill; it has no versions.",
    "skill.version_not_found": "'{name}' has no version '{version}'.",
    "skill.no_skill_md": "The folder has no SKILL.md; pick the Skill's own folder.",
    "skill.zip_layout": "The ZIP must hold one Skill, but it has several top-level entries: {entries}.",
    "skill.zip_beside_folder": (
        "The ZIP has files beside its Skill folder '{folder}/': {entries}. "
        "Put them inside the folder or remove them."
    ),
    "skill.zip_beside_folder_more": (
        "The ZIP has files beside its Skill folder '{folder}/': {entries} and {more} more. "
        "Put them inside the folder or remove them."
    ),
    "skill.zip_beside_skill_md": (
        "The ZIP has files beside its SKILL.md that the Skill never names: {entries}. "
        "Name them in SKILL.md, move them into a folder of the Skill, or remove them."
    ),
    "skill.zip_beside_skill_md_more": (
        "The ZIP has files beside its SKILL.md that the Skill never names: {entries} and {more} more. "
        "Name them in SKILL.md, move them into a folder of the Skill, or remove them."
    ),
    "skill.zip_no_skill_md": "The ZIP has no SKILL.md at its root or inside its one top-level folder.",
    # ---- import, evals, usage, traces
    "import.not_folder": "{path} is not a folder: choose a CashCode data folder or a cdy-agent workspace.",
    "import.unknown_folder": (
        "{path} is neither a CashCode data folder (memory/, data/skills/) "
        "nor a cdy-agent workspace (.cdy-agent/)."
    ),
    "import.not_absolute": "Give the folder as an absolute path.",
    "eval.unsupported": "Evals cannot run here.",
    "eval.busy": "An eval run is in progress; wait for it to finish.",
    "eval.bad_filename": "The file name is not valid.",
    "eval.no_model": "No model chosen yet: pick a provider and a model first.",
    "eval.run_not_found": "eval run '{id}' does not exist",
    "trace.not_found": "trace '{id}' does not exist",
    "usage.bad_day": "not a calendar day: {reason}",
    "usage.bad_range": "the range ends before it starts",
    # ---- knowledge citations, MCP Bundles, the MCP Registry, the desktop opener
    "knowledge.not_kb_file": "{path} is not a file of a knowledge base.",
    "knowledge.file_too_large": "{path} is larger than {limit} MB.",
    "knowledge.unreadable": "{path} cannot be read: {reason}",
    "desktop.no_kb_folder": "{path} has no folder of its knowledge base to open.",
    "desktop.open_failed": "The system could not open {path}: {reason}",
    "bundle.source": "Give either 'path' or 'data_base64' (with 'filename').",
    "bundle.not_mcpb": "only {suffix} files can be installed as MCP Bundles",
    "bundle.too_large": "the bundle is larger than {limit} MiB",
    "bundle.refused": "the bundle is refused: {reason}",
    "bundle.path_not_bundle": "an MCP Bundle is a {suffix} file; '{path}' is not",
    "bundle.path_not_absolute": "The bundle's path must be absolute.",
    "bundle.bad_base64": "data_base64 is not valid base64.",
    "bundle.not_here": "MCP bundles cannot be installed here.",
    "bundle.manifest.not_json": "manifest.json is not valid JSON ({detail})",
    "bundle.manifest.not_object": "manifest.json must hold a JSON object",
    "bundle.manifest.no_version": "manifest.json has no manifest_version",
    "bundle.manifest.bad_version": (
        "manifest_version '{version}' is not a version of the MCPB spec CashCode knows ({versions})"
    ),
    "bundle.manifest.bad_type": (
        "server.type '{type}' is not supported: CashCode runs node, python and binary bundles"
    ),
    "bundle.manifest.uv_type": (
        "server.type 'uv' is not supported: CashCode runs node, python and binary bundles (uv "
        "bundles, where the app installs the dependencies, are not supported yet)"
    ),
    "bundle.manifest.not_spec": "manifest.json does not follow the MCPB spec: {where}",
    "bundle.manifest.bad_key": "user_config key '{option}' must be letters, digits, '_' or '-'",
    "bundle.manifest.sensitive_type": "user_config.{option}: only a string option can be sensitive",
    "bundle.manifest.multiple_type": (
        "user_config.{option}: only directory and file options take several values"
    ),
    "bundle.manifest.min_max_type": "user_config.{option}: min and max are for number options",
    "bundle.manifest.env_name": "server.mcp_config.env: '{name}' is not a variable name",
    "bundle.manifest.undeclared": (
        "server.mcp_config names the option '{option}', which user_config does not declare"
    ),
    "bundle.manifest.secret_on_command": (
        "the sensitive option '{option}' is passed on the command line; CashCode keeps secrets only "
        "in the system keychain, so a sensitive value must go into server.mcp_config.env"
    ),
    "bundle.manifest.outside": "{field} '{path}' points outside the bundle; it must be a path inside it",
    # The ZIP rules of app/support/ziparchive.py (its TEXTS, kept equal by a test), shared by Skill
    # import, MCP bundles and agent packages; `what` is "Skill", "bundle" or "package" (issue 41).
    "zip.control": "A member name contains control characters.",
    "zip.drive": "'{name}' has a drive letter or ':' in its path.",
    "zip.absolute": "'{name}' is an absolute path.",
    "zip.backslash": "'{name}' uses a backslash in its path; ZIP paths must use '/'.",
    "zip.long_name": "A member name is longer than 1024 characters.",
    "zip.traversal": "'{name}' tries to leave the {what} folder ('..').",
    "zip.traversal_outside": "'{name}' would land outside the {what}.",
    "zip.odd_path": "'{name}' has an empty or '.' path segment.",
    "zip.encrypted": "'{name}' is encrypted; password-protected ZIPs are refused.",
    "zip.symlink": "'{name}' is a symbolic link; links are refused.",
    "zip.special": "'{name}' is a device, pipe or socket, not a file.",
    "zip.duplicate": "'{name}' appears twice in the ZIP.",
    "zip.duplicate_kind": "'{name}' is both a file and a folder in the ZIP.",
    "zip.unreadable": "Cannot read the ZIP file ({reason}).",
    "zip.not_file": "'{name}' is not a regular file, so it cannot be a ZIP archive.",
    "zip.archive_size": "The ZIP is {size} bytes; the limit is {max} MiB.",
    "zip.not_zip": "The file is not a readable ZIP archive ({reason}).",
    "zip.members": "The ZIP has {count} entries; the limit is {max}.",
    "zip.file_size": "'{name}' is larger than {max} MiB.",
    "zip.file_size_bytes": "'{name}' is larger than {max} bytes.",
    "zip.file_size_expands": "'{name}' expands past {max} MiB.",
    "zip.expanded_size": "The ZIP expands past {max} MiB.",
    "zip.bomb": "The ZIP expands past {max} MiB (compression bomb).",
    "zip.corrupt": "'{name}' cannot be read ({reason}).",
    "zip.size_mismatch": "'{name}' does not have the size its header claims.",
    "bundle.archive.no_name": "the bundle's name '{name}' has no letters or digits to name it by",
    "bundle.archive.no_manifest": "the bundle has no manifest.json at its root; it is not an MCP Bundle",
    "bundle.archive.no_entry": "server.entry_point '{path}' is not a file in the bundle",
    "bundle.archive.platform": "the bundle is made for {platforms} only; this computer runs {platform}",
    "bundle.archive.node_command": "a node bundle runs node, but this one runs '{command}'",
    "bundle.archive.python_command": "a python bundle runs python, but this one runs '{command}'",
    "bundle.archive.no_uv": "the bundled uv was not found; reinstall CashCode",
    "bundle.archive.not_in_bundle": "the command '{path}' is not a file of the bundle",
    "bundle.input.unknown": "the bundle has no option '{option}' (its options: {choices})",
    "bundle.input.missing": "the bundle needs the option '{option}' ({title})",
    "bundle.input.one_value": "the option '{option}' takes one value",
    "bundle.input.one_line": "the value of '{option}' must be one line of at most {limit} characters",
    "bundle.input.boolean": "the option '{option}' is true or false, got '{value}'",
    "bundle.input.number": "the option '{option}' is a number, got '{value}'",
    "bundle.input.min": "the option '{option}' is at least {limit}",
    "bundle.input.max": "the option '{option}' is at most {limit}",
    "bundle.input.not_absolute": "the option '{option}' must be an absolute path, got '{value}'",
    "bundle.input.no_folder": "the folder '{folder}' of '{option}' does not exist",
    "registry.entry_invalid": "the MCP Registry entry '{name}': {reason}",
    "registry.cannot_install": "{name} cannot be installed here: {reason}",
    "registry.option_problem": "{name} option {option}: {reason}",
    "registry.no_option": "{name} has {count} install option(s), not {option}",
    "registry.plan_first": (
        "look at the install plan first: an install confirms the exact launch its plan showed "
        "(send the plan's 'confirm' value)"
    ),
    "registry.changed": (
        "'{name}' is not what was shown: the registry's entry or the values changed since the "
        "plan; look at the plan again"
    ),
    "catalog.loader_env": (
        "this launch sets {names}, which change which code the program runs ({values}); "
        "confirm them separately (allow_loader_env, --allow-loader-env) or do not install it"
    ),
    "catalog.plain_http_header": (
        "the {header} header would be sent unencrypted over http:// to another computer; "
        "use https://, or confirm it (allow_plain_http_auth, --allow-http-auth)"
    ),
}
