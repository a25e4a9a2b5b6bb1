#!/bin/sh
# The lock's text from a virtual environment (`make lock`): every distribution in it pinned, pip
# and setuptools included, the project itself left out, and torch without its local "+cpu"
# label (PyPI serves no such version; "==2.13.0" matches the CPU build where one is on disk).
set -eu
venv="$1"
echo "# requirements/lock.txt: what \`make demo\`, \`make test\` and CI install, as pip constraints."
echo "# Written by \`make lock\` after the tests passed on these versions; do not edit by hand."
echo "# $("$venv/bin/python" --version), $(uname -m) Linux, $(date -u +%Y-%m-%d)."
"$venv/bin/python" -m pip freeze --all --exclude-editable \
    | grep -v -i '^mdchunk[=@ ]' \
    | sed -E 's/^(torch==[^+]*)\+.*/\1/' \
    | LC_ALL=C sort -f
