"""What the grader's sandbox refuses, in words: one table for the child (the ``PermissionError``
raised in the learner's code) and the parent (the ``forbidden-operation`` finding)."""

from __future__ import annotations

__all__ = ["REFUSALS", "describe", "refusal_error"]

REFUSALS: dict[str, tuple[str, str]] = {
    "shell": ("running a shell command", "ejecutar una orden de shell"),
    "exec": ("replacing the process (os.exec*)", "reemplazar el proceso (os.exec*)"),
    "fork": ("forking a process", "bifurcar el proceso (fork)"),
    "spawn": ("starting a process", "lanzar un proceso"),
    "subprocess": ("starting a subprocess", "lanzar un subproceso"),
    "signal": ("sending a signal", "enviar una señal"),
    "connect": ("opening a network connection", "abrir una conexión de red"),
    "bind": ("listening on a socket", "escuchar en un socket de red"),
    "send": ("sending on the network", "enviar datos por la red"),
    "dns": ("a DNS look-up on the network", "una consulta DNS por la red"),
    "limits": ("changing the process limits", "cambiar los límites del proceso"),
    "link": ("making a link", "crear un enlace"),
    "attach": ("attaching to a process", "conectarse a un proceso"),
    "ctypes": ("native code through ctypes ({detail})", "código nativo con ctypes ({detail})"),
    "read": ("reading {detail}", "leer {detail}"),
    "write": ("writing {detail}", "escribir {detail}"),
    "change": ("{detail} (outside the scratch directory)", "{detail} (fuera del directorio de trabajo temporal)"),
    "list": ("listing {detail}", "listar {detail}"),
    "import": ("importing {detail}", "importar {detail}"),
    "os": ("an operation the operating system refused ({detail})",
           "una operación que el sistema operativo rechazó ({detail})"),
}
"""Refusal kind -> (English, Spanish), ``{detail}`` being a path, a module or an event name."""


def describe(kind: str, detail: str = "", lang: str = "en") -> str:
    """The refused operation in words (``"reading /home/u/.ssh/id_rsa"``); an unknown kind is shown as is."""
    en, es = REFUSALS.get(kind, ("{detail}", "{detail}"))
    return (es if lang == "es" else en).format(detail=detail)


def refusal_error(kind: str, detail: str, lang: str) -> str:
    """The message of the ``PermissionError`` the learner's code gets."""
    if lang == "es":
        return f"agentlab grade: {describe(kind, detail, 'es')} no está permitido durante la evaluación (el bucle corre en un sandbox)"
    return f"agentlab grade: {describe(kind, detail)} is not allowed while grading (the loop runs in a sandbox)"
