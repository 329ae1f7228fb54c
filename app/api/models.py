"""Request/response models of the application API (one per route).

These are the contract between Python and every surface; TypeScript types for the frontend
are generated from them (`python build.py gen-types`), and a test fails when they drift.
Route names are `<area>.<verb>`; see `app/api/routes.py` for the table.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from app.api.mentions import clean_mentions
from app.contracts.events import ErrorInfo, InboxSurface
from app.contracts.messages import AttachmentRef, Mention, ToolOutcome
from app.contracts.replies import (  # shared with capabilities (re-exported for app/api)
    MASK as MASK,
)
from app.contracts.replies import (
    ApiError as ApiError,
)
from app.contracts.replies import (
    ApiModel as ApiModel,
)
from app.contracts.replies import (
    ChatSummary as ChatSummary,
)
from app.contracts.replies import (
    Empty as Empty,
)
from app.contracts.replies import (
    FilePickQuery as FilePickQuery,
)
from app.contracts.replies import (
    FolderPick as FolderPick,
)
from app.contracts.replies import (
    ModelRef as ModelRef,
)
from app.contracts.replies import (
    Ok as Ok,
)
from app.contracts.replies import (
    ToolPolicy as ToolPolicy,
)

ProviderKindName = Literal["chat_completions", "responses", "ollama"]
Theme = Literal["light", "dark", "system"]
Language = Literal["en", "zh-CN"]
ApprovalMode = Literal["autonomous", "sandboxed", "ask_writes", "read_only"]
Decision = Literal["deny", "once", "always"]


# ---- envelope ------------------------------------------------------------------------------


# ---- app -----------------------------------------------------------------------------------


class KeyringStatus(ApiModel):
    available: bool
    backend: str
    message: str  # plain words for Settings → Security


class AppInfo(ApiModel):
    version: str
    platform: str
    first_run: bool  # no provider configured yet
    keyring: KeyringStatus
    data_dir: str
    workspace: str
    # Things the user should know about this start (e.g. a damaged settings file was set aside).
    notices: list[str] = Field(default_factory=list)
    # Writes are failing as busy now (another program holds the database): a page opened
    # meanwhile shows it at once; `database_status` events tell every change after.
    database_busy: bool = False


class OllamaProbe(ApiModel):
    found: bool
    base_url: str
    models: list[str] = Field(default_factory=list)
    message: str = ""


# ---- chats ---------------------------------------------------------------------------------


class ChatListQuery(ApiModel):
    """A page of the chat list, newest first. `{}` is the first page (the old request shape)."""

    limit: int = Field(default=100, ge=1, le=500)
    # The previous page's `next_before` (opaque to clients); absent for the first page.
    before: str | None = Field(default=None, max_length=300)
    # Only chats whose title contains this text (case-insensitive for ASCII).
    title: str | None = Field(default=None, max_length=200)


class ChatList(ApiModel):
    chats: list[ChatSummary]
    next_before: str | None = None  # pass as `before` for the next page; None: no more chats


class ChatCreate(ApiModel):
    title: str | None = None
    chat_id: str | None = None  # a client-chosen UUID (the /ws protocol announces it before use)
    # True: the chat is stored together with its first completed turn (nothing before that), so
    # an interrupted `cashcode ask` leaves no empty chat. Only this process can send to it.
    lazy: bool = False
    agent_id: str | None = Field(default=None, min_length=1, max_length=64)  # None: the default agent


class ChatRef(ApiModel):
    chat_id: str


class ChatRename(ApiModel):
    chat_id: str
    title: str = Field(min_length=1, max_length=200)


class ChatGet(ApiModel):
    chat_id: str
    before_cursor: int | None = None  # page backwards from here
    limit: int = Field(default=200, ge=1, le=1000)
    # Show the version holding this message (a search hit) without making it current: the
    # path through it to the newest message below it (decision 248).
    through: int | None = Field(default=None, ge=1)


class ViewedVersion(ApiModel):
    """The page shows a version that is not the chat's current one (`ChatGet.through`)."""

    cursor: int  # the first shown message that is not on the current path
    index: int  # "version 1/2": 1
    count: int  # 2
    leaf: int  # the last message of the shown path (Make current switches to it)


class ToolCallView(ApiModel):
    id: str
    name: str
    arguments: str


class MessageView(ApiModel):
    cursor: int
    turn_id: str
    role: Literal["user", "assistant", "tool"]
    content: str
    tool_calls: list[ToolCallView] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    created_at: str
    mentions: list[Mention] = Field(default_factory=list)
    attachments: list[AttachmentRef] = Field(default_factory=list)
    stopped: bool = False  # an answer cut short by Stop
    steer: bool = False  # a user message given to the model inside its turn (Steer)
    tool_outcome: ToolOutcome | None = None  # tool messages: ok, error or denied
    # Branches (edit/regenerate): the cursors of this message and its siblings, oldest first,
    # and which of them this is. One entry means no siblings (the UI shows no switcher).
    siblings: list[int] = Field(default_factory=list)
    sibling_index: int = 0


class ChatDetail(ApiModel):
    chat: ChatSummary
    messages: list[MessageView]
    has_more: bool  # older messages exist before the first one returned
    viewing: ViewedVersion | None = None  # set only when `through` showed another version


class ChatSend(ApiModel):
    chat_id: str
    text: str = Field(max_length=200_000)  # may be empty when files are attached
    model: ModelRef | None = None  # None: the remembered last choice
    mentions: Annotated[list[Mention], AfterValidator(clean_mentions)] = Field(
        default_factory=list, max_length=8
    )  # @-selections (S7.9)
    attachments: list[AttachmentRef] = Field(default_factory=list)  # from attachments.upload (S1.3)


class TurnRef(ApiModel):
    chat_id: str
    turn_id: str


class ChatSteer(ApiModel):
    """Text for the chat's running turn: the model reads it at its next call, after the tool
    results of the step in progress (or right after its answer, and answers again)."""

    chat_id: str
    text: str = Field(max_length=200_000)


class QueuedTurn(ApiModel):
    """`chat.queue`'s answer: sent at once (`turn_id`, position 0) when the chat was idle, or
    waiting at `position` (1: next) behind the running turn."""

    chat_id: str
    position: int
    turn_id: str | None = None


class ApprovalAnswer(ApiModel):
    approval_id: str
    decision: Decision
    # With "deny": nobody is there to answer (an eval run). The model is told no one was asked.
    unattended: bool = False
    via: InboxSurface = "chat"  # which surface answered (the Inbox shows it, issue 35)


# ---- providers & models ---------------------------------------------------------------------


class ModelSettingsEntry(ApiModel):
    """A model's settings in a provider profile ("*": every model of it); None = server default."""

    model: str = Field(min_length=1, max_length=200)
    temperature: float | None = Field(default=None, ge=0, le=2, allow_inf_nan=False)
    max_output_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    context_length: int | None = Field(default=None, ge=256, le=10_000_000)


class ProviderView(ApiModel):
    id: str
    name: str
    kind: ProviderKindName
    base_url: str
    api_key: str  # MASK when a key is stored, "" when none — never the secret
    has_key: bool
    timeout_s: float | None = None  # None: 60 s
    first_token_timeout_s: float | None = None  # None: only the timeout applies
    default_model: str | None = None
    model_settings: list[ModelSettingsEntry] = Field(default_factory=list)
    # Model calls at once: None = the default (1 local, no limit remote), 0 = no limit.
    parallel_requests: int | None = None
    lean_tools: bool | None = None  # None: the default (on for a local provider)
    local: bool = False  # on this computer or an Ollama kind (the defaults follow it)


class ProviderList(ApiModel):
    providers: list[ProviderView]


class ProviderInput(ApiModel):
    id: str | None = None  # None: create
    name: str = Field(min_length=1, max_length=80)
    kind: ProviderKindName
    base_url: str = Field(min_length=1, max_length=2000)
    api_key: str = ""  # "" or MASK keep the stored key; blank (only spaces) is refused
    clear_key: bool = False  # remove the stored key (with api_key "" or MASK)
    timeout_s: float | None = Field(default=None, ge=1, le=3600, allow_inf_nan=False)
    first_token_timeout_s: float | None = Field(default=None, ge=1, le=3600, allow_inf_nan=False)
    default_model: str | None = Field(default=None, min_length=1, max_length=200)
    model_settings: list[ModelSettingsEntry] = Field(default_factory=list, max_length=200)
    # None: the default (1 for a local provider, no limit for a remote one); 0: no limit.
    parallel_requests: int | None = Field(default=None, ge=0, le=64)
    lean_tools: bool | None = None  # None: on for a local provider, off for a remote one


class ProviderRef(ApiModel):
    provider_id: str


class ConnectionTest(ApiModel):
    ok: bool
    message: str  # English; the UI words it from `code`/`model_count` in its language
    model_count: int = 0
    code: str | None = None  # why it failed: a ProviderError code, or "timeout"
    timeout_s: float | None = None  # "timeout": how long it waited
    params: dict[str, str] = Field(default_factory=dict)  # what the message names (as ErrorInfo)


class ModelEntry(ApiModel):
    provider_id: str
    provider_name: str
    model: str
    supports_tools: bool | None = None
    supports_vision: bool | None = None


class ModelsQuery(ApiModel):
    provider_id: str | None = None


class ModelList(ApiModel):
    models: list[ModelEntry]
    errors: list[ErrorInfo] = Field(default_factory=list)  # per-provider discovery failures


# ---- settings ------------------------------------------------------------------------------


class ModelPriceEntry(ApiModel):
    """Per-million token prices of a provider's model ("*": all its models), for trace costs."""

    provider_id: str = Field(min_length=1, max_length=64)
    model: str = Field(min_length=1, max_length=200)
    input_per_million: float = Field(ge=0, allow_inf_nan=False)
    output_per_million: float = Field(ge=0, allow_inf_nan=False)


class SettingsView(ApiModel):
    theme: Theme
    language: Language
    workspace: str
    last_model: ModelRef | None
    approval_mode: ApprovalMode
    tool_policies: dict[str, ToolPolicy]
    max_iterations: int
    allow_private_network: bool
    exec_env: list[str] = Field(default_factory=list)  # extra environment names for commands
    sandbox_hidden: list[str] = Field(default_factory=list)  # never readable in the sandbox
    sandbox_readable: list[str] = Field(default_factory=list)  # readable in the sandbox
    local_api: bool = False
    skill_evolution: bool = False
    vision_models: dict[str, list[str]] = Field(default_factory=dict)  # provider id -> models
    model_prices: list[ModelPriceEntry] = Field(default_factory=list)
    close_to_tray: bool = True
    quick_ask_hotkey: str = ""


AbsolutePath = Annotated[str, Field(pattern=r"^/[^\x00]*$")]


class SandboxReport(ApiModel):
    """What this machine supports for the Sandboxed mode and what the app does with it."""

    landlock_abi: int  # 0: none
    available: bool
    reason: str
    tcp_rules: bool  # Landlock ABI >= 4
    user_namespaces: bool  # each program gets a private network and /tmp
    namespaces_reason: str = ""  # why not, when it does not
    bwrap: str | None
    plan: str  # one sentence: what the app will do
    never_readable: list[str]
    readable: list[str]


class SettingsPatch(ApiModel):
    theme: Theme | None = None
    language: Language | None = None
    workspace: str | None = None
    approval_mode: ApprovalMode | None = None
    tool_policies: dict[str, ToolPolicy] | None = None
    max_iterations: int | None = Field(default=None, ge=1, le=200)
    allow_private_network: bool | None = None
    exec_env: list[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_()]{0,127}$")]] | None = Field(
        default=None, max_length=64
    )
    sandbox_hidden: list[AbsolutePath] | None = Field(default=None, max_length=200)
    sandbox_readable: list[AbsolutePath] | None = Field(default=None, max_length=200)
    local_api: bool | None = None
    skill_evolution: bool | None = None
    vision_models: dict[str, list[str]] | None = None
    model_prices: list[ModelPriceEntry] | None = Field(default=None, max_length=200)
    close_to_tray: bool | None = None
    quick_ask_hotkey: str | None = Field(default=None, max_length=64)


# ---- approvals ledger ----------------------------------------------------------------------


class GrantView(ApiModel):
    id: str
    kind: Literal["exec", "mcp", "skill_script", "web_host"]
    key: list[str]
    workspace: str
    created_at: str
    chat_id: str | None = None
    enabled: bool = True  # False: imported; covers nothing until the user enables it


class GrantList(ApiModel):
    grants: list[GrantView]


class GrantRef(ApiModel):
    grant_id: str


class ToolInfo(ApiModel):
    name: str
    description: str
    read_only: bool
    policy: ToolPolicy
    group: str = "builtin"  # "builtin", or the capability that offers it ("memory", "skills", …)


class ToolList(ApiModel):
    tools: list[ToolInfo]
