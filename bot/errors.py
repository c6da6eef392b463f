"""Errors raised by GPU Advisor's core.

One base class, :class:`AdvisorError`, so callers (the CLI, the Slack layer) can turn any
of them into a clear message without a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AdvisorError", "KnowledgeError", "KnowledgeIssue", "UnknownEntityError"]


class AdvisorError(Exception):
    """Base class of every error GPU Advisor raises on purpose."""


@dataclass(frozen=True)
class KnowledgeIssue:
    """One problem found in a knowledge file.

    Attributes:
        file: path of the YAML file, as given to the loader.
        line: 1-based line of the offending entry or field, or 0 when unknown.
        field: dotted location inside the entry (``gpus[3].memory_gb``) or an entry id.
        message: what is wrong, in words.
    """

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.message}"


class KnowledgeError(AdvisorError):
    """The knowledge base failed to load or validate.

    Attributes:
        issues: every problem found, each naming file, line and field.
    """

    def __init__(self, issues: list[KnowledgeIssue]):
        self.issues = list(issues)
        lines = "\n".join(str(i) for i in self.issues[:50])
        more = f"\n... and {len(self.issues) - 50} more" if len(self.issues) > 50 else ""
        super().__init__(f"{len(self.issues)} knowledge error(s):\n{lines}{more}")


class UnknownEntityError(AdvisorError, KeyError):
    """A GPU, model or instance name matched nothing in the knowledge base.

    Attributes:
        kind: ``"gpu"``, ``"model"`` or ``"instance"``.
        name: the string as the user wrote it.
        suggestions: up to three close names (display names), best first.
    """

    def __init__(self, kind: str, name: str, suggestions: list[str] | None = None):
        self.kind = kind
        self.name = name
        self.suggestions = list(suggestions or [])
        hint = f" Did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown {kind} {name!r}.{hint}")

    def __str__(self) -> str:  # KeyError would otherwise quote the whole message
        return self.args[0]
