#!/usr/bin/env python3
"""Convert the restricted markdown of docs/tally.1.md to a roff man page (stdlib only).

The subset:
  % NAME SECTION "DATE" "SOURCE" "MANUAL"   first line: the .TH title line
  # HEADING                                  a section (.SH)
  ## HEADING                                 a subsection (.SS)
  **bold**, *italic*, `code` (bold)          inline, not nested
  TERM line, then lines starting with ": "   a tagged paragraph (.TP); more lines of
                                             the definition are indented by two spaces
  - item                                     a bullet list item, continued by indented lines
  ``` ... ```                                a literal block (.nf)
  blank line                                 a paragraph break

Usage: md2man.py INPUT.md OUTPUT.1
"""
import re
import sys

INLINE = re.compile(r"\*\*(.+?)\*\*|`([^`]+)`|\*([^*\s][^*]*?)\*")


def escape(text):
    """Escape roff's special characters in plain text."""
    text = text.replace("\\", "\\e")
    text = text.replace("-", "\\-")
    return text


def inline(text):
    """Markdown emphasis to roff font changes."""
    out = []
    pos = 0
    for m in INLINE.finditer(text):
        out.append(escape(text[pos:m.start()]))
        bold, code, italic = m.groups()
        if bold is not None:
            out.append("\\fB" + escape(bold) + "\\fR")
        elif code is not None:
            out.append("\\fB" + escape(code) + "\\fR")
        else:
            out.append("\\fI" + escape(italic) + "\\fR")
        pos = m.end()
    out.append(escape(text[pos:]))
    line = "".join(out)
    # A line starting with . or ' would be read as a request.
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def title_line(line):
    """'% NAME SECTION "DATE" ...' to '.TH NAME SECTION "DATE" ...'."""
    return ".TH " + line[1:].strip()


def convert(lines):
    out = []
    i = 0
    n = len(lines)
    para_open = False

    def paragraph():
        out.append(".PP")

    while i < n:
        line = lines[i].rstrip("\n")
        if i == 0 and line.startswith("%"):
            out.append(title_line(line))
            i += 1
            continue
        if line.startswith("```"):
            out.append(".PP")
            out.append(".RS 4")
            out.append(".nf")
            i += 1
            while i < n and not lines[i].startswith("```"):
                out.append(escape(lines[i].rstrip("\n")) or "\\&")
                i += 1
            out.append(".fi")
            out.append(".RE")
            i += 1
            para_open = False
            continue
        if line.startswith("## "):
            out.append('.SS "' + line[3:].strip().replace('"', "") + '"')
            para_open = False
            i += 1
            continue
        if line.startswith("# "):
            out.append('.SH "' + line[2:].strip().replace('"', "").upper() + '"')
            para_open = False
            i += 1
            continue
        if not line.strip():
            para_open = False
            i += 1
            continue
        if i + 1 < n and lines[i + 1].startswith(": "):
            # A tagged paragraph: the term, then its definition.
            out.append(".TP")
            out.append(inline(line.strip()))
            i += 1
            out.append(inline(lines[i][2:].strip()))
            i += 1
            while i < n and lines[i].startswith("  ") and lines[i].strip():
                out.append(inline(lines[i].strip()))
                i += 1
            para_open = False
            continue
        if line.startswith("- "):
            out.append(".IP \\(bu 2")
            out.append(inline(line[2:].strip()))
            i += 1
            while i < n and lines[i].startswith("  ") and lines[i].strip():
                out.append(inline(lines[i].strip()))
                i += 1
            para_open = False
            continue
        if not para_open:
            paragraph()
            para_open = True
        out.append(inline(line.strip()))
        i += 1
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: md2man.py INPUT.md OUTPUT.1\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        lines = f.readlines()
    roff = '.\\" Generated from ' + argv[1].split("/")[-1] + " by scripts/md2man.py; do not edit.\n"
    roff += convert(lines)
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(roff)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
