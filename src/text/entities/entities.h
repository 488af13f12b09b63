// Document entities (spec 50): the names, identifiers, file names, paths,
// e-mail addresses, URLs and numbers with units a text mentions, found by
// hand-written scanners (linear in the text, no regex). English and Chinese.
// Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

enum class EntityKind {
  kName,
  kIdentifier,
  kFile,
  kPath,
  kEmail,
  kUrl,
  kQuantity,
};

// "name", "identifier", "file", "path", "email", "url", "quantity".
std::string_view EntityKindName(EntityKind kind);

struct Entity {
  EntityKind kind = EntityKind::kName;
  std::string text;   // as written in the input (see ExtractEntities)
  size_t offset = 0;  // byte offset of its first occurrence in the input

  bool operator==(const Entity&) const = default;
};

// The entities of `text`, one per (kind, text), in order of first
// appearance. Kinds are tried in this order and a later kind never takes
// bytes an earlier one took (an e-mail's domain is not also a file name):
//  - email: local@domain.tld ("sarah.chen@example.com");
//  - url: http://, https://, ftp:// (any letter case) or www. followed by a
//    host, up to whitespace, a quote, <, > or a non-ASCII character;
//    trailing . , ; : ! ? * and unbalanced closing brackets are left out;
//  - path: /a/b (at least two parts, or one with a trailing '/'), ~/x,
//    ./x, ../x, C:\x or C:/x, and relative a/b/c.ext or a/b/ (a relative
//    path needs a file name with a known extension or a trailing '/', so
//    "and/or" and "TCP/IP" are not paths);
//  - file: name.ext for a known extension, any letter case (main.py,
//    deploy.yaml, report.PDF, archive.tar.gz; Dockerfile is not one), and
//    the dotfiles .env, .gitignore, .bashrc…;
//  - identifier: snake_case and SCREAMING_CASE (an '_' between letters or
//    digits, a letter somewhere; not Markdown's _emphasis_), __dunder__
//    names, camelCase ("getUserName"), PascalCase with an inner capital
//    after a lower-case letter ("HttpClient"), ticket ids (ABC-123: 2+
//    capitals, '-', digits), issue numbers (#123), versions (v1.2, v1.2.3,
//    1.2.3);
//  - quantity: a number (digits, optional ',' thousands and '.' decimals)
//    with a unit after it, at most one space between ("10 GB", "5ms",
//    "3.5 km", "20%", "3 天", "5公里", "100元", "2小时", "30 USD") or a
//    currency sign before it ("$30", "€9.99", "¥100", "$5k"); one-letter
//    units (s, m, h, g, B, K…) only when glued to the number ("5s", not
//    "5 s"); "2024年" is a year, not a quantity; Chinese numerals are not
//    read;
//  - name, Chinese patterns first:
//    - 我叫X, 名字是X, 名字叫X: X is 2-3 Han characters (4 after a compound
//      surname such as 欧阳) up to a particle or verb (是, 的, 在, 今…), or
//      Latin words ("我叫Sarah Chen");
//    - X先生, X女士, X小姐: X is the longest of the 1-3 Han characters
//      before the title that starts with a common surname; a bare surname
//      keeps the title ("王先生", "张伟"), a capitalised Latin word does not;
//    - 和X一起 (also 跟, 与): X is 2-4 Han characters that are not a pronoun
//      or a word like 朋友, 同事, or capitalised Latin words;
//    - 「X」, 『X』, 《X》 and “X”: X at most 30 code points on one line
//      without sentence punctuation; “X” only with a CJK character inside
//      or right outside the quotes;
//    then English runs of capitalised words ("Sarah Chen", "Project
//    Atlas"), without common capitalised function words (I, The, This…:
//    stop words, days, months, greetings); a one-word run at the start of a
//    sentence is not a name ("Deploy the app."), unless after Mr, Mrs, Ms,
//    Dr or Prof ("Dr. Smith"); a run of two or more words always is.
// Entity text is the span as written (a name ends before a possessive "'s":
// "Sarah's" gives "Sarah"). Never fails; ill-formed UTF-8 bytes act as
// spaces and never appear in an entity.
std::vector<Entity> ExtractEntities(std::string_view text);

}  // namespace mnemo::text
