"""The readers of generator markup inside a block's text (Hugo shortcodes, MDX comments and JSX
components, MyST roles), each giving, where its markup starts, a :class:`~.blocks.Markup`: its
span, the text the page shows in its place and what it is. The text between a pair of tags is
the block's own and stays. ``docs/sites.md`` has the table of every construct and what
``embed_text`` gets."""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from typing import Any

from .blocks import Markup, Role

__all__ = ["CALLOUTS", "KNOWN_COMPONENTS", "MarkupEnv", "admonition_label", "read_component",
           "read_escaped_shortcode", "read_jsx_tag", "read_mdx_comment", "read_mdx_expression",
           "read_role", "read_shortcode", "shortcode"]

#: What one document's reads share: ``mdx`` (JSX expressions and every component tag are
#: markup: a Docusaurus page or a document with MDX imports), ``components`` (names the
#: document imports) and ``tab_labels`` (a ``<Tabs values>``'s value → label).
MarkupEnv = MutableMapping[str, Any]


def admonition_label(kind: str, title: str = "") -> str:
    """``"Warning: Retention"``: an admonition's type, capitalised, and its title."""
    name = kind.strip().replace("-", " ").replace("_", " ")
    name = name[:1].upper() + name[1:].lower()
    title = " ".join(title.split())
    return f"{name}: {title}" if title else f"{name}:"


# -- Hugo shortcodes ------------------------------------------------------------------------

#: ``{{< name params >}}`` / ``{{% name params %}}`` and their ``/name`` closings.
_SHORTCODE = re.compile(r"\{\{([<%])\s*(/?)\s*([\w.-]+)((?:[^>%}\"']|\"[^\"]*\"|'[^']*')*?)"
                        r"\s*/?\s*([>%])\}\}")
#: A shortcode parameter: ``key="value"``, ``key=value``, or a positional value.
_PARAM = re.compile(r"(?:([\w-]+)\s*=\s*)?(\"(?:[^\"\\]|\\.)*\"|'[^']*'|`[^`]*`|[^\s\"'=]+)")
#: Shortcodes the page shows as a callout's title.
CALLOUTS = frozenset({"note", "caution", "warning", "tip", "info", "important", "danger",
                       "alert", "callout", "admonition", "hint", "notice", "success", "error"})
#: Shortcodes that show a file (Hugo's ``code_sample``, ``include``…): a short visible line.
_FILE_SHORTCODES = {"code_sample": "code sample", "codenew": "code sample",
                    "code": "code sample", "include": "include", "readfile": "include",
                    "snippet": "snippet", "remote-code-sample": "code sample"}
#: The tags of a tab group, opening and closing, by the shortcode's or component's name.
_GROUP_ROLES: dict[str, tuple[Role, Role]] = {
    "tabs": ("tabs", "tabs_end"), "tab": ("tab", "tab_end"),
    "Tabs": ("tabs", "tabs_end"), "TabItem": ("tab", "tab_end")}


def _params(text: str) -> tuple[list[str], dict[str, str]]:
    positional, named = [], {}
    for key, raw in _PARAM.findall(text):
        quoted = raw[:1] in "\"'`" and raw[-1:] == raw[:1] and len(raw) > 1
        value = raw[1:-1] if quoted else raw
        if key:
            named[key] = value
        else:
            positional.append(value)
    return positional, named


def shortcode(start: int, end: int, name: str, params: str, closing: bool = False) -> Markup:
    """One shortcode tag as the page shows it (its body, between a pair, is the text's own).

    >>> shortcode(0, 9, "glossary_tooltip", 'text="node" term_id="node"').shown
    'node'
    >>> shortcode(0, 9, "feature-state", 'for_k8s_version="v1.29" state="stable"').shown
    'FEATURE STATE: Kubernetes v1.29 [stable]'
    >>> shortcode(0, 9, "note", "", closing=True)
    Markup(start=0, end=9, shown='', role='callout_end', name='note')
    """
    low = name.lower()
    if low in CALLOUTS:
        role: Role = "callout_end" if closing else "callout"
    else:
        role = _GROUP_ROLES.get(low, ("text", "text"))[closing]
    if closing:
        return Markup(start, end, "", role, low)
    positional, named = _params(params)
    first = positional[0] if positional else ""
    if low == "glossary_tooltip":
        return Markup(start, end, named.get("text", named.get("term_id", "")))
    if low == "feature-state":
        version = named.get("for_k8s_version", "")
        state = named.get("state", "")
        return Markup(start, end, " ".join(filter(None, [
            "FEATURE STATE:", f"Kubernetes {version}" if version else "",
            f"[{state}]" if state else ""])))
    if low in CALLOUTS:
        return Markup(start, end, admonition_label(low, named.get("title", first)), role, low)
    if low == "tab":
        return Markup(start, end, named.get("name", named.get("title", first)), role)
    if low in _FILE_SHORTCODES:
        file = named.get("file", named.get("path", first))
        if file:
            return Markup(start, end, f"{_FILE_SHORTCODES[low]}: {file}", "include", file)
    return Markup(start, end, "", role)  # tabs, params, figures …: the tag goes, a body stays


def read_shortcode(src: str, pos: int, limit: int, env: MarkupEnv) -> Markup | None:
    """``{{< name params >}}``, ``{{% name %}}``, ``{{< /name >}}`` (not an escaped one)."""
    if not src.startswith("{{", pos) or src.startswith("{{</*", pos):
        return None
    match = _SHORTCODE.match(src, pos, limit)
    if match is None or (match[1] == "<") != (match[5] == ">"):
        return None
    return shortcode(pos, match.end(), match[3], match[4], closing=bool(match[2]))


#: ``{{</* name params */>}}``: a shortcode escaped, which Hugo shows as the tag itself.
_ESCAPED_SHORTCODE = re.compile(r"\{\{([<%])/\*(.*?)\*/([>%])\}\}", re.DOTALL)


def read_escaped_shortcode(src: str, pos: int, limit: int, env: MarkupEnv) -> Markup | None:
    """``{{</* tab name="x" */>}}``, shown as Hugo shows it: ``{{< tab name="x" >}}``."""
    if not src.startswith("{{", pos):
        return None
    match = _ESCAPED_SHORTCODE.match(src, pos, limit)
    if match is None or (match[1] == "<") != (match[3] == ">"):
        return None
    return Markup(pos, match.end(), "{{" + match[1] + match[2] + match[3] + "}}")


# -- MDX: comments, expressions, JSX tags ----------------------------------------------------

def _braces_end(src: str, pos: int, limit: int) -> int:
    """Where the ``{…}`` expression at ``pos`` ends (after its ``}``), strings and nested
    braces followed; ``-1`` when it does not close."""
    depth, i = 0, pos
    while i < limit:
        char = src[i]
        if char in "\"'`":
            close = src.find(char, i + 1, limit)
            if close < 0:
                return -1
            i = close
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def read_mdx_comment(src: str, pos: int, limit: int, env: MarkupEnv) -> Markup | None:
    """``{/* comment */}``: nothing."""
    if not src.startswith("{/*", pos):
        return None
    close = src.find("*/}", pos + 3, limit)
    return Markup(pos, close + 3, "") if close >= 0 else None


def read_mdx_expression(src: str, pos: int, limit: int, env: MarkupEnv) -> Markup | None:
    """Any other ``{expression}`` (an MDX document's): nothing."""
    if src[pos] != "{" or src.startswith("{/*", pos):
        return None
    end = _braces_end(src, pos, limit)
    return Markup(pos, end, "") if end >= 0 else None


_TAG_NAME = re.compile(r"</?([A-Za-z][\w.:-]*)")
_ATTR_NAME = re.compile(r"\s*([\w:.-]+)")
#: Components a Docusaurus page uses without importing them (theme components, MDX globals).
KNOWN_COMPONENTS = frozenset({"Tabs", "TabItem", "Admonition", "Details", "CodeBlock",
                               "DocCardList", "Highlight", "BrowserWindow"})
_TAB_VALUE = re.compile(r"""\{\s*(?:label\s*:\s*(['"])(?P<label>.*?)\1\s*,\s*value\s*:\s*(['"])"""
                        r"""(?P<value>.*?)\3|value\s*:\s*(['"])(?P<value2>.*?)\5\s*,\s*label\s*:"""
                        r"""\s*(['"])(?P<label2>.*?)\7)""")


def _jsx_attrs(src: str, pos: int, limit: int) -> tuple[int, dict[str, str]] | None:
    """Attributes from ``pos`` to the tag's ``>``: ``(end, attributes)``, an expression's value
    kept as written (``{…}``); ``None`` when this is no tag."""
    attrs: dict[str, str] = {}
    while pos < limit:
        while pos < limit and src[pos].isspace():
            pos += 1
        if src.startswith("/>", pos):
            return pos + 2, attrs
        if pos < limit and src[pos] == ">":
            return pos + 1, attrs
        if pos < limit and src[pos] == "{":  # {...props}
            end = _braces_end(src, pos, limit)
            if end < 0:
                return None
            pos = end
            continue
        name = _ATTR_NAME.match(src, pos, limit)
        if name is None:
            return None
        pos = name.end()
        value = ""
        if src.startswith("=", pos):
            pos += 1
            if pos < limit and src[pos] in "\"'":
                close = src.find(src[pos], pos + 1, limit)
                if close < 0:
                    return None
                value, pos = src[pos + 1:close], close + 1
            elif pos < limit and src[pos] == "{":
                end = _braces_end(src, pos, limit)
                if end < 0:
                    return None
                value, pos = src[pos:end], end
            else:
                return None
        attrs[name[1]] = value
    return None


def _tag(src: str, pos: int, limit: int) -> tuple[str, int, dict[str, str]] | None:
    """The tag at ``pos``: its name, end and attributes; ``None`` when there is none."""
    if src[pos] != "<":
        return None
    name = _TAG_NAME.match(src, pos, limit)
    if name is None:
        return None
    found = _jsx_attrs(src, name.end(), limit)
    return None if found is None else (name[1], *found)


def read_component(src: str, pos: int, limit: int, env: MarkupEnv) -> Markup | None:
    """A component's tag the page may use without importing it (``<TabItem value="linux">``,
    ``</Tabs>``, ``<DocCardList />``) or that it imports."""
    tag = _tag(src, pos, limit)
    if tag is None or not tag[0][0].isupper() or not (
            tag[0] in KNOWN_COMPONENTS or tag[0] in env.get("components", ())):
        return None
    return _component(tag[0], pos, tag[1], tag[2], src[pos + 1] == "/", env)


def read_jsx_tag(src: str, pos: int, limit: int, env: MarkupEnv) -> Markup | None:
    """In an MDX document, any capitalised tag and any tag whose attributes are JSX."""
    tag = _tag(src, pos, limit)
    if tag is None:
        return None
    name, end, attrs = tag
    if not name[0].isupper() and not any(v.startswith("{") for v in attrs.values()):
        return None
    return _component(name, pos, end, attrs, src[pos + 1] == "/", env)


def _component(name: str, start: int, end: int, attrs: Mapping[str, str], closing: bool,
               env: MarkupEnv) -> Markup:
    """What the page shows for a component's tag: a tab's label, an admonition's title."""
    role = _GROUP_ROLES.get(name, ("text", "text"))[closing]
    if closing:
        return Markup(start, end, "", role)
    if name == "Tabs":
        labels = env.setdefault("tab_labels", {})
        for match in _TAB_VALUE.finditer(attrs.get("values", "")):
            value = match["value"] if match["value"] is not None else match["value2"]
            labels[value] = match["label"] if match["label"] is not None else match["label2"]
        return Markup(start, end, "", role)
    if name == "TabItem":
        label = attrs.get("label") or env.get("tab_labels", {}).get(attrs.get("value", ""))
        return Markup(start, end, _literal(label or attrs.get("value", "")), role)
    if name == "Admonition":
        return Markup(start, end, admonition_label(attrs.get("type", "note"),
                                                   _literal(attrs.get("title", ""))))
    return Markup(start, end, "", role)


def _literal(value: str) -> str:
    """An attribute's text: a string expression (``{'Linux'}``) as its string, other
    expressions as nothing."""
    if value.startswith("{"):
        inner = value[1:-1].strip()
        if len(inner) > 1 and inner[0] in "\"'`" and inner[-1] == inner[0]:
            return inner[1:-1]
        return ""
    return value


# -- MyST roles --------------------------------------------------------------------------------

#: A role's ``{name}`` and the backtick after it (mdit-py-plugins' ``myst_role`` names).
_ROLE_START = re.compile(r"\{[a-zA-Z0-9_\-+:]+\}`")
#: ``title <target>``: the title is what the page shows.
_TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)


def read_role(src: str, pos: int, limit: int, env: MarkupEnv) -> Markup | None:
    """``{ref}`the checklist <target>``` as mdit-py-plugins' MyST role rule reads it (its
    closing backticks looked for to the end of the text, as that rule does), shown as its
    title, else its target, else its content."""
    start = _ROLE_START.match(src, pos)
    if start is None:
        return None
    ticks = start.end() - 1
    after = ticks
    while after < len(src) and src[after] == "`":
        after += 1
    close = src.find("`" * (after - ticks), after + 1)
    if close < 0:
        return None
    content = src[after:close].replace("\n", " ").strip()
    titled = _TITLED.match(content)
    shown = titled["title"] if titled and titled["title"] else content
    if titled and not titled["title"]:
        shown = titled["target"]
    return Markup(pos, close + after - ticks, shown.lstrip("~!"))
