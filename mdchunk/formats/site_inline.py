"""Generator markup inside a block's text, and what the rendered page shows for it.

Doc-site sources are templates: Hugo shortcodes (``{{< glossary_tooltip text="node" … >}}``),
MDX comments and JSX components (``{/* … */}``, ``<TabItem value="linux">``), MyST roles
(``{ref}`the checklist <target>```). Each is an inline span with exact offsets, found by
markdown-it-py's inline parser with one rule per syntax (so a code span's text is never read as
markup: the backtick rule consumes it first), and each gets the text the page shows in its
place (:data:`~mdchunk.formats.blocks.Rewrite`): a tooltip's ``text=``, a role's title, a tab's
label, an admonition's type and title, or nothing (closing tags, parameters, expressions). The
text between a pair of tags is the block's own and stays.

:func:`inline_rewrites` parses ``source[start:end]`` of one prose block as markdown-it parses an
inline run and gives its rewrites in source offsets. ``docs/sites.md`` has the table of every
construct and what ``embed_text`` gets.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.backticks import backtick
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.myst_role.index import myst_role

from .blocks import Rewrite

__all__ = ["CALLOUTS", "MarkupEnv", "admonition_label", "escaped_shortcodes", "inline_rewrites",
           "markup_trigger", "rendered_shortcodes", "shortcode_text"]

#: What one document's inline parses share: ``rewrites`` found, ``shortcodes_in_code`` (the
#: site renders shortcodes before Markdown, so code spans hold them too: Hugo), ``mdx`` (JSX
#: expressions and every component tag are markup: a Docusaurus page or a document with MDX
#: imports),
#: ``components`` (names the document imports) and ``tab_labels`` (a ``<Tabs values>``'s
#: value → label).
MarkupEnv = dict[str, Any]


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


def shortcode_text(name: str, params: str, closing: bool = False) -> str:
    """What a page shows for one shortcode tag (its body, between a pair, is the text's own).

    >>> shortcode_text("glossary_tooltip", 'text="node" term_id="node"')
    'node'
    >>> shortcode_text("feature-state", 'for_k8s_version="v1.29" state="stable"')
    'FEATURE STATE: Kubernetes v1.29 [stable]'
    >>> shortcode_text("note", "", closing=True)
    ''
    """
    if closing:
        return ""
    positional, named = _params(params)
    low = name.lower()
    if low == "glossary_tooltip":
        return named.get("text", named.get("term_id", ""))
    if low == "feature-state":
        version = named.get("for_k8s_version", "")
        state = named.get("state", "")
        return " ".join(filter(None, ["FEATURE STATE:", f"Kubernetes {version}" if version
                                      else "", f"[{state}]" if state else ""]))
    if low in CALLOUTS:
        return admonition_label(low, named.get("title", positional[0] if positional else ""))
    if low == "tab":
        return named.get("name", named.get("title", positional[0] if positional else ""))
    if low in _FILE_SHORTCODES:
        file = named.get("file", named.get("path", positional[0] if positional else ""))
        return f"{_FILE_SHORTCODES[low]}: {file}" if file else ""
    return ""  # tabs, params, figures …: the tag goes, any body between a pair stays


def _shortcode(state: StateInline, silent: bool) -> bool:
    if not state.src.startswith("{{", state.pos):
        return False
    match = _SHORTCODE.match(state.src, state.pos, state.posMax)
    if match is None or "{{<" + "/*" in state.src[state.pos:state.pos + 5]:
        return False
    if (match[1] == "<") != (match[5] == ">"):
        return False
    if not silent:
        _record(state, state.pos, match.end(),
                shortcode_text(match[3], match[4], closing=bool(match[2])))
    state.pos = match.end()
    return True


#: ``{{</* name params */>}}``: a shortcode escaped, which Hugo shows as the tag itself.
_ESCAPED_SHORTCODE = re.compile(r"\{\{([<%])/\*(.*?)\*/([>%])\}\}", re.DOTALL)


def escaped_shortcodes(source: str, start: int, end: int) -> list[Rewrite]:
    """The escaped shortcodes of ``source[start:end]`` (any text: prose, a code span, a code
    block), each shown as Hugo shows it: ``{{</* tab name="x" */>}}`` → ``{{< tab name="x" >}}``."""
    if source.find("/*", start, end) < 0:
        return []
    return [(m.start(), m.end(), _unescaped(m))
            for m in _ESCAPED_SHORTCODE.finditer(source, start, end) if _unescaped(m)]


def _unescaped(match: re.Match[str]) -> str:
    """What the page shows for an escaped shortcode; ``""`` when its delimiters differ."""
    return "{{" + match[1] + match[2] + match[3] + "}}" if (match[1] == "<") == (
        match[3] == ">") else ""


def _escaped_shortcode(state: StateInline, silent: bool) -> bool:
    if not state.src.startswith("{{", state.pos):
        return False
    match = _ESCAPED_SHORTCODE.match(state.src, state.pos, state.posMax)
    if match is None or not _unescaped(match):
        return False
    if not silent:
        _record(state, state.pos, match.end(), _unescaped(match))
    state.pos = match.end()
    return True


def _code_span(state: StateInline, silent: bool) -> bool:
    """On a Hugo page, a code span as markdown-it reads it, its shortcodes as the page shows
    them: Hugo renders shortcodes before Markdown, code spans included."""
    if state.src[state.pos] != "`" or not state.env.get("shortcodes_in_code"):
        return False
    start = state.pos
    if not backtick(state, silent):
        return False
    if not silent:
        state.env["rewrites"].extend(
            (state.src, *r) for r in rendered_shortcodes(state.src, start, state.pos))
    return True


def rendered_shortcodes(source: str, start: int, end: int) -> list[Rewrite]:
    """The shortcodes of ``source[start:end]`` as a site that renders them before Markdown
    shows them in any text, a code span's or a code block's too (Hugo: ``v{{< skew
    currentVersion >}}`` in a YAML comment is rendered there): escaped ones as the tag
    itself, the others as in prose (:func:`shortcode_text`)."""
    if source.find("{{", start, end) < 0:
        return []
    escaped = escaped_shortcodes(source, start, end)
    found = list(escaped)
    for match in _SHORTCODE.finditer(source, start, end):
        if (match[1] == "<") == (match[5] == ">") and not any(
                a <= match.start() < b for a, b, _ in escaped):
            found.append((match.start(), match.end(),
                          shortcode_text(match[3], match[4], closing=bool(match[2]))))
    return sorted(found)


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


def _expression(state: StateInline, silent: bool) -> bool:
    """``{/* comment */}`` always; any ``{expression}`` in an MDX document."""
    src, pos = state.src, state.pos
    if src[pos] != "{":
        return False
    if src.startswith("{/*", pos):
        close = src.find("*/}", pos + 3, state.posMax)
        end = close + 3 if close >= 0 else -1
    elif state.env.get("mdx"):
        end = _braces_end(src, pos, state.posMax)
    else:
        return False
    if end < 0:
        return False
    if not silent:
        _record(state, pos, end, "")
    state.pos = end
    return True


_TAG_NAME = re.compile(r"</?([A-Za-z][\w.:-]*)")
_ATTR_NAME = re.compile(r"\s*([\w:.-]+)")
#: Components a Docusaurus page uses without importing them (theme components, MDX globals).
_KNOWN_COMPONENTS = frozenset({"Tabs", "TabItem", "Admonition", "Details", "CodeBlock",
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


def _jsx_tag(state: StateInline, silent: bool) -> bool:
    """A component's tag (``<TabItem value="linux">``, ``</Tabs>``, ``<DocCardList />``); in an
    MDX document any tag whose attributes are JSX."""
    src, pos = state.src, state.pos
    if src[pos] != "<":
        return False
    name = _TAG_NAME.match(src, pos, state.posMax)
    if name is None:
        return False
    found = _jsx_attrs(src, name.end(), state.posMax)
    if found is None:
        return False
    end, attrs = found
    component = name[1][0].isupper() and (
        name[1] in _KNOWN_COMPONENTS or state.env.get("mdx")
        or name[1] in state.env.get("components", ()))
    jsx = any(v.startswith("{") for v in attrs.values()) and state.env.get("mdx")
    if not component and not jsx:
        return False
    if not silent:
        _record(state, pos, end, _component_text(name[1], attrs, src[pos + 1] == "/",
                                                 state.env))
    state.pos = end
    return True


def _component_text(name: str, attrs: Mapping[str, str], closing: bool,
                    env: MutableMapping[str, Any]) -> str:
    """What the page shows for a component's tag: a tab's label, an admonition's title."""
    if closing:
        return ""
    if name == "Tabs":
        labels = env.setdefault("tab_labels", {})
        for match in _TAB_VALUE.finditer(attrs.get("values", "")):
            value = match["value"] if match["value"] is not None else match["value2"]
            labels[value] = match["label"] if match["label"] is not None else match["label2"]
        return ""
    if name == "TabItem":
        label = attrs.get("label") or env.get("tab_labels", {}).get(attrs.get("value", ""))
        return _literal(label or attrs.get("value", ""))
    if name == "Admonition":
        return admonition_label(attrs.get("type", "note"), _literal(attrs.get("title", "")))
    return ""


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

#: What the MyST role rule needs to read a role: ``{name}`` and a backtick after it.
_ROLE_START = re.compile(r"\{[a-zA-Z0-9_\-+:]+\}`")
#: ``title <target>``: the title is what the page shows.
_TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)


def _role(state: StateInline, silent: bool) -> bool:
    """mdit-py-plugins' MyST role rule, its span recorded with the text the page shows."""
    start, tokens = state.pos, len(state.tokens)
    # the rule copies the rest of the text at every brace: look for a role's start first
    if not _ROLE_START.match(state.src, start) or not myst_role(state, silent):
        return False
    if not silent and len(state.tokens) > tokens:
        content = state.tokens[-1].content.strip()
        titled = _TITLED.match(content)
        shown = titled["title"] if titled and titled["title"] else content
        if titled and not titled["title"]:
            shown = titled["target"]
        _record(state, start, state.pos, shown.lstrip("~!"))
        state.tokens.pop()
    return True


# -- the parser --------------------------------------------------------------------------------

def _record(state: StateInline, start: int, end: int, text: str) -> None:
    """Note a rewrite; markup that shows nothing between two blanks takes the one before it
    along, so that no double blank is left (``service {/* x */} and`` → ``service and``)."""
    src = state.src
    if not text and start > 0 and src[start - 1] in " \t" and (end == len(src)
                                                               or src[end] in " \t\n"):
        start -= 1
    state.env["rewrites"].append((src, start, end, text))


#: The site rules, in the order they are tried at a character: each starts at a ``{`` or a ``<``.
_RULES: tuple[tuple[str, Callable[[StateInline, bool], bool]], ...] = (
    ("site_escaped_shortcode", _escaped_shortcode), ("site_shortcode", _shortcode),
    ("site_role", _role), ("site_expression", _expression),
    ("site_jsx_tag", _jsx_tag))


def _site_markup(state: StateInline, silent: bool) -> bool:
    """The site rules (:data:`_RULES`), in order, where one may start: one call at each
    character the text rule stops at, not five."""
    if state.src[state.pos] not in "{<":
        return False
    return any(rule(state, silent) for _, rule in _RULES)


#: The characters some rule of :func:`_parser` starts at (newline, math, escape, code span,
#: strikethrough, emphasis, link and footnote reference, image, inline footnote, autolink and
#: HTML, entity, the site rules), and ``]``, where a link's label ends. markdown-it's text
#: rule stops at more (``-``, ``:``, ``=``, ``#`` …), where every rule is tried for nothing.
_RULE_STARTS = re.compile(r"[\n$\\`~*_\[\]!^<&{]")


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """markdown-it's inline rules as mdchunk's parser has them, the site rules first where
    they start (after the text rule, which stops at ``{`` and ``<``), and its text rule
    stopping only where a rule may start (:data:`_RULE_STARTS`): the same markup found at the
    same places (``tests/test_site_markup.py`` compares it with the site rules before
    markdown-it's own, the text rule as markdown-it has it)."""
    md = MarkdownIt("commonmark").enable(["strikethrough"])
    md.use(dollarmath_plugin).use(footnote_plugin)
    md.inline.ruler.after("text", "site_markup", _site_markup)
    md.inline.ruler.before("backticks", "site_code_span", _code_span)
    md.inline.terminator_re = _RULE_STARTS  # markdown-it-py 4.2's text rule stops at these
    return md


#: Characters one of the rules starts at in an MDX document: text without any has no markup.
_MAY_HOLD_MDX = re.compile(r"[{<]")
#: What one of the rules needs elsewhere: a shortcode's ``{{``, an MDX comment's ``{/*``, a
#: role's ``}``` `` and a known component's capital (an expression, a lower-case tag or a
#: component not imported is markup in MDX only). Prose with ``<`` or ``{`` (``a < b``, JSON)
#: is not parsed for nothing.
_MAY_HOLD = re.compile(r"\{\{|\{/\*|\}`|</?[A-Z]")


def markup_trigger(env: MarkupEnv) -> re.Pattern[str]:
    """What text must hold for :func:`inline_rewrites` to find anything in a document of
    ``env``: a walk over many blocks asks it first, before a call."""
    return _MAY_HOLD_MDX if env.get("mdx") else _MAY_HOLD


def inline_rewrites(source: str, start: int, end: int, env: MarkupEnv) -> list[Rewrite]:
    """The generator markup of the prose block ``source[start:end]``, as rewrites of the
    source (offsets into ``source``)."""
    if not markup_trigger(env).search(source, start, end):
        return []
    text = source[start:end]
    # markdown-it turns CRLF and CR into LF and NUL into U+FFFD: do it keeping every offset
    text = text.replace("\r\n", " \n").replace("\r", "\n").replace("\x00", "\ufffd")
    env["rewrites"] = []
    # the inline rules alone: markdown-it's core and post-processing rules change tokens only
    md = _parser()
    md.inline.tokenize(StateInline(text, md, env, []))
    found = [(start + a, start + b, shown) for src, a, b, shown in env.pop("rewrites")
             if src == text]
    return sorted(found)
