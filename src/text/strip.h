// Plain-text filters for tool outputs: HTML to text, terminal escapes out,
// whitespace collapsed. They are the strip_html, strip_ansi and
// collapse_whitespace steps of a cleaner (cleaner.h) and usable on their own.
//
// All of them take any bytes, run in linear time without recursion (tool
// outputs are untrusted and can be megabytes), and leave bytes they do not
// act on unchanged, so valid UTF-8 in gives valid UTF-8 out.
#pragma once

#include <string>
#include <string_view>

namespace mnemo::text {

// HTML to text. Drops tags, comments, declarations and the content of
// <script> and <style>; keeps CDATA content. Block-level tags (p, div, br,
// li, tr, h1..h6, table, ...) become "\n", table cells (td, th) " ", inline
// tags nothing. Decodes &amp; &lt; &gt; &quot; &apos; &nbsp; (as a plain
// space: computation text wants word breaks, not layout), a few typographic
// names (&hellip; &mdash; &ldquo; ...) and &#NN; / &#xNN; (NUL, surrogates
// and values above U+10FFFF give U+FFFD); other references stay as written.
// A '<' that does not start a tag ("3 < 4", "a<1") stays text, and so does
// everything from a tag that is never closed by '>'.
std::string StripHtml(std::string_view html);

// Terminal output to text. Drops CSI sequences (ESC [ ... final byte, also
// the 8-bit U+009B), OSC/DCS/SOS/PM/APC strings up to BEL or ST (an
// unterminated one runs to the end), other ESC sequences, and every other
// C0/C1 control and DEL except "\n" and "\t". "\r\n" and a lone "\r" become
// "\n": progress bars redraw with "\r", and a line break keeps their words
// apart.
std::string StripAnsi(std::string_view s);

// Each run of Unicode White_Space becomes one "\n" when the run holds a line
// break (\n \v \f \r U+0085 U+2028 U+2029), else one " "; leading and
// trailing whitespace is removed. Blank lines therefore collapse into single
// line breaks: paragraph structure is not kept, line structure is.
std::string CollapseWhitespace(std::string_view s);
// Every run of Unicode White_Space, line breaks included, becomes one " ";
// leading and trailing whitespace is removed: one line, as a tool name or a
// rule in the pinned block is shown.
std::string CollapseToLine(std::string_view s);

// True when `s` holds only Unicode White_Space, or nothing.
bool IsBlank(std::string_view s);

}  // namespace mnemo::text
