"""What an agent package can do, as a list of capabilities, and what an update changes.

Capabilities are the things a user grants by installing: tools, hosts reached, programs run
(Skill scripts, MCP stdio launches with their env names), schedules, the approval mode, secret
inputs. An update lists only the capabilities that are new or whose fingerprint changed
(decision 493); Skills' instructions and the persona are shown, not asked about."""

from __future__ import annotations

import hashlib
import json
from urllib.parse import urlsplit

from app.agents import api_models as am
from app.agents.package_model import PackageManifest
from app.tasks.schedule import describe


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def capabilities(manifest: PackageManifest) -> list[am.AgentCapability]:
    out: list[am.AgentCapability] = []
    agent = manifest.agent
    mode = agent.approval_mode or "app"
    out.append(am.AgentCapability(kind="approval_mode", key="approval_mode", label=mode, fingerprint=mode))
    if agent.tools is None:
        out.append(am.AgentCapability(kind="tool", key="tool:*", label="all built-in tools", fingerprint="*"))
    else:
        out += [am.AgentCapability(kind="tool", key=f"tool:{t}", label=t, fingerprint=t) for t in agent.tools]
    for skill in manifest.skills:
        for f in skill.files:
            if f.is_script:
                out.append(
                    am.AgentCapability(
                        kind="program",
                        key=f"skill:{skill.name}/{f.path}",
                        label=f"Skill {skill.name}: {f.path} (sha256 {f.sha256[:12]})",
                        fingerprint=f.sha256,
                    )
                )
    for server in manifest.mcp_servers:
        if server.transport == "stdio":
            env = [f"{k}={v}" for k, v in sorted(server.env.items())]
            env += [f"{k}=<asked>" for k in sorted(server.secret_env)]
            label = f"MCP server {server.name}: {' '.join([server.command, *server.args])}"
            if env:
                label += "  env: " + " ".join(env)
            if server.network:
                label += "  (may open network connections)"
            out.append(
                am.AgentCapability(
                    kind="program", key=f"mcp:{server.name}", label=label, fingerprint=server.launch_sha256
                )
            )
        else:
            host = urlsplit(server.url).hostname or server.url
            out.append(
                am.AgentCapability(
                    kind="host",
                    key=f"host:{host}",
                    label=f"{host} (MCP server {server.name}, {server.transport})",
                    fingerprint=host,
                )
            )
        for name in server.secret_env:
            out.append(_secret(server.name, name, "env"))
        for name in server.header_names:
            out.append(_secret(server.name, name, "header"))
    for task in manifest.tasks:
        out.append(
            am.AgentCapability(
                kind="schedule",
                key=f"task:{task.name.casefold()}",
                label=f"{task.name}: {describe(task.schedule)} ({task.approval_mode}; installed paused)",
                fingerprint=_digest([task.schedule.model_dump(), task.prompt, task.approval_mode]),
            )
        )
    return _unique(out)


def _secret(server: str, name: str, kind: str) -> am.AgentCapability:
    return am.AgentCapability(
        kind="secret_input",
        key=f"secret:{server}/{name}",
        label=f"{server}: {name} ({kind}; you are asked for it)",
        fingerprint=kind,
    )


def _unique(items: list[am.AgentCapability]) -> list[am.AgentCapability]:
    seen: dict[str, am.AgentCapability] = {}
    for item in items:
        seen.setdefault(item.key, item)  # two servers on one host: one host
    return list(seen.values())


def changes(old: list[am.AgentCapability], new: list[am.AgentCapability]) -> list[am.AgentCapability]:
    """The capabilities of `new` that `old` did not have, or had with another fingerprint."""
    before = {c.key: c.fingerprint for c in old}
    return [c for c in new if before.get(c.key) != c.fingerprint]


def secret_inputs(manifest: PackageManifest) -> list[am.PackageSecretInput]:
    out: list[am.PackageSecretInput] = []
    for server in manifest.mcp_servers:
        out += [am.PackageSecretInput(server=server.name, name=n, kind="env") for n in server.secret_env]
        out += [am.PackageSecretInput(server=server.name, name=n, kind="header") for n in server.header_names]
    return out


def preview(
    manifest: PackageManifest, digest: str, installed: PackageManifest | None, agent_id: str | None
) -> am.PackagePreview:
    caps = capabilities(manifest)
    agent = manifest.agent
    return am.PackagePreview(
        package_id=manifest.id,
        version=manifest.version,
        digest=digest,
        name=agent.name,
        emoji=agent.emoji,
        persona=agent.persona,
        approval_mode=agent.approval_mode or "app",
        skills=[s.name for s in manifest.skills],
        mcp_servers=[s.name for s in manifest.mcp_servers],
        knowledge_bases=[k.name for k in manifest.knowledge_bases],
        tasks=[t.name for t in manifest.tasks],
        capabilities=caps,
        installed_version=installed.version if installed else None,
        agent_id=agent_id,
        changes=changes(capabilities(installed), caps) if installed else caps,
        secret_inputs=secret_inputs(manifest),
    )
