import { parseDocument, YAMLParseError, YAMLWarning, type YAMLError } from 'yaml';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import { describe, expect, it } from 'vitest';
import { SourceText } from '../../../src/manifest/source.js';
import { parseManifestText } from '../../../src/manifest/parse.js';
import { yamlDiagnostic, yamlDiagnostics } from '../../../src/manifest/yaml-errors.js';

/**
 * Every branch of yaml-errors.ts, word for word: each text is parsed for real, and every finding of
 * it is compared whole (code, severity, line:col, message with yaml's code, hint). The texts are the
 * shortest a person writes that make yaml report the error; yaml-errors.test.ts holds the common
 * mistakes and how findings are merged.
 */
const findings = (text: string): string[] =>
  parseManifestText(text, 'm.yaml', { env: {} }).diagnostics.map((d) => `${d.code} ${d.severity} ${d.range?.start.line}:${d.range?.start.col} ${d.message}${d.hint !== undefined ? ` | ${d.hint}` : ''}`);

describe('yaml errors in plain words, word for word', () => {
  it.each([
    // Brackets and braces
    ['an unclosed brace above a key', 'toolkits: {enable: [a]\nname: x\n', ['yaml/syntax error 1:11 this `{` is never closed: its `}` is missing before line 2, where the next key starts (yaml BAD_INDENT) | close it with `}` after its last item; items on lines of their own go indented more than the key']],
    ['an unclosed bracket at the top', '[a, b\n', ['yaml/syntax error 2:1 a `[` is never closed with `]` (yaml MISSING_CHAR) | close it with `]` at the end of its items']],
    ['an unclosed brace at the top', '{a: b\n', ['yaml/syntax error 2:1 a `{` is never closed with `}` (yaml MISSING_CHAR) | close it with `}` at the end of its items']],
    ['a key inside brackets over two lines', 'toolkits: [a\n  b: c]\n', ['yaml/syntax error 1:12 a key inside brackets runs over more than one line (yaml MULTILINE_IMPLICIT_KEY) | inside `[...]` or `{...}`, separate items with commas and keep each `key: value` on one line']],
    [
      'a block list as a key inside brackets',
      'toolkits: [- a]\n',
      [
        'yaml/syntax error 1:12 a block list item (`- `) or block mapping is written inside brackets (yaml BLOCK_IN_FLOW) | inside `[...]` or `{...}`, separate items with commas: `[a, b]`; or drop the brackets and write one `- item` per line',
        'yaml/syntax error 1:14 two items inside brackets are not separated by a comma (yaml MISSING_CHAR) | separate the items with `,`: `[a, b]`, `{a: 1, b: 2}`',
      ],
    ],
    [
      'a block list as a value inside braces',
      'toolkits: {enable: - a}\n',
      [
        'yaml/syntax error 1:20 a block list item (`- `) or block mapping is written inside brackets (yaml BLOCK_IN_FLOW) | inside `[...]` or `{...}`, separate items with commas: `[a, b]`; or drop the brackets and write one `- item` per line',
        'yaml/syntax error 1:22 two items inside brackets are not separated by a comma (yaml MISSING_CHAR) | separate the items with `,`: `[a, b]`, `{a: 1, b: 2}`',
      ],
    ],
    [
      'a missing comma between two pairs in braces over lines',
      'auth_configs: {gmail: ac_1\n  slack: ac_2}\n',
      ['yaml/syntax error 1:23 a block list item (`- `) or block mapping is written inside brackets (yaml BLOCK_IN_FLOW) | inside `[...]` or `{...}`, separate items with commas: `[a, b]`; or drop the brackets and write one `- item` per line'],
    ],
    [
      'a key over two lines elsewhere in a file with a block in brackets keeps its own finding',
      'toolkits: [- a]\nname: a\n user_id: u\n',
      [
        'yaml/syntax error 1:12 a block list item (`- `) or block mapping is written inside brackets (yaml BLOCK_IN_FLOW) | inside `[...]` or `{...}`, separate items with commas: `[a, b]`; or drop the brackets and write one `- item` per line',
        'yaml/syntax error 1:14 two items inside brackets are not separated by a comma (yaml MISSING_CHAR) | separate the items with `,`: `[a, b]`, `{a: 1, b: 2}`',
        'yaml/syntax error 2:7 `user_id` on line 3 is indented more than `name` on line 2, so it is read as part of the value of `name` (yaml MULTILINE_IMPLICIT_KEY) | If `user_id` is a key of its own, start it at column 1, like `name`.',
      ],
    ],
    [
      'a missing comma in nested braces over lines',
      'a:\n  b: {c: {d: 1\n      e: 2}}\n',
      ['yaml/syntax error 2:14 a block list item (`- `) or block mapping is written inside brackets (yaml BLOCK_IN_FLOW) | inside `[...]` or `{...}`, separate items with commas: `[a, b]`; or drop the brackets and write one `- item` per line'],
    ],
    ['two items in braces without a comma', 'tags: {"a" "b"}\n', ['yaml/syntax error 1:12 two items inside brackets are not separated by a comma (yaml MISSING_CHAR) | separate the items with `,`: `[a, b]`, `{a: 1, b: 2}`']],
    ['two items in brackets without a comma', 'toolkits: ["a" b]\n', ['yaml/syntax error 1:16 two items inside brackets are not separated by a comma (yaml MISSING_CHAR) | separate the items with `,`: `[a, b]`, `{a: 1, b: 2}`']],
    ['a colon glued to a value after a comment in brackets', 'toolkits: [a # why\n  :b]\n', ['yaml/syntax error 2:3 a `:` inside brackets has no space after it (yaml MISSING_CHAR) | put a space after the colon: `key: value`']],
    ['a key over 1024 characters inside brackets', `toolkits: [${'k'.repeat(1100)}: 1]\n`, ['yaml/syntax error 1:1112 a key is longer than 1,024 characters, or its line is missing the `: ` (yaml KEY_OVER_1024_CHARS) | add `: ` after the key, or shorten it']],
    // Quotes, escapes and reserved characters
    ['an unclosed single quote', 'name: \'abc\nuser_id: x\n', ['yaml/syntax error 3:1 a string opened with `\'` is never closed (yaml MISSING_CHAR) | add the closing quote at the end of the value']],
    ['a \\u escape with a letter that is not hex', 'name: "\\u12G4"\n', ['yaml/syntax error 1:8 `\\u12G4` is not a valid escape sequence: `\\u` takes 4 hexadecimal digits (yaml BAD_DQ_ESCAPE) | write 4 hexadecimal digits after `\\u`; for a backslash itself, write `\\\\` or use single quotes (\'...\')']],
    ['a \\x escape cut by the closing quote', 'name: "a\\x4"\n', ['yaml/syntax error 1:9 `\\x4` is not a valid escape sequence: `\\x` takes 2 hexadecimal digits (yaml BAD_DQ_ESCAPE) | write 2 hexadecimal digits after `\\x`; for a backslash itself, write `\\\\` or use single quotes (\'...\')']],
    ['a \\U escape with seven hex digits', 'name: "\\U0001F60"\n', ['yaml/syntax error 1:8 `\\U0001F60` is not a valid escape sequence: `\\U` takes 8 hexadecimal digits (yaml BAD_DQ_ESCAPE) | write 8 hexadecimal digits after `\\U`; for a backslash itself, write `\\\\` or use single quotes (\'...\')']],
    ['a reserved first character in a list item, before a comment', '- @x # why\n', ['yaml/syntax error 1:3 a plain value cannot start with `@`: YAML reserves it (yaml BAD_SCALAR_START) | put the item in quotes: `- "@x"`']],
    ['a reserved first character at the top', '@x\n', ['yaml/syntax error 1:1 a plain value cannot start with `@`: YAML reserves it (yaml BAD_SCALAR_START) | put the value in quotes']],
    ['a reserved first character, and a dash later on the line', '@a- b\n', ['yaml/syntax error 1:1 a plain value cannot start with `@`: YAML reserves it (yaml BAD_SCALAR_START) | put the value in quotes']],
    ['a reserved first character in a value, before a comment', 'name: @x   # why\n', ['yaml/syntax error 1:7 a plain value cannot start with `@`: YAML reserves it (yaml BAD_SCALAR_START) | put the value in quotes: `name: "@x"`']],
    ['a value with `: ` that holds a double quote goes in single quotes', 'a: "b": c\n', ['yaml/syntax error 1:4 the value of `a` on line 1 contains `: `, which starts another key (yaml BLOCK_AS_IMPLICIT_KEY) | put the value in quotes: `a: \'"b": c\'`']],
    ['a value with `: ` that holds a backslash and a single quote', "a: it's C:\\x: y\n", ["yaml/syntax error 1:4 the value of `a` on line 1 contains `: `, which starts another key (yaml BLOCK_AS_IMPLICIT_KEY) | put the value in quotes: `a: 'it''s C:\\x: y'`"]],
    ['a backtick first', 'name: `x`\n', ['yaml/syntax error 1:7 a plain value cannot start with a backtick: YAML reserves it (yaml BAD_SCALAR_START) | put the value in quotes: `name: "`x`"`']],
    ['a % inside a key on a line with another mistake', 'name: a\nrate%: "\\q"\n', ['yaml/syntax error 2:9 `\\q` is not an escape sequence inside double quotes (yaml BAD_DQ_ESCAPE) | write `\\\\` for a backslash, or use single quotes (\'...\') where a backslash is just a character']],
    // Anchors, aliases and tags
    [
      'a tag glued to its value',
      'name: !x"a"\n',
      [
        'yaml/syntax error 1:9 an `&anchor` or `!tag` is glued to the value after it (yaml MISSING_CHAR) | put a space between the anchor or tag and the value',
        'yaml/unknown-tag error 1:7 the tag `!x` is not one manifests use | remove the tag; manifests use plain YAML values only',
      ],
    ],
    ['an anchor glued to its value', 'toolkits: &t{a: 1}\n', ['yaml/syntax error 1:13 an `&anchor` or `!tag` is glued to the value after it (yaml MISSING_CHAR) | put a space between the anchor or tag and the value']],
    ['an alias without a name', 'name: *\n', ['yaml/syntax error 1:7 an alias `*` has no name (yaml BAD_ALIAS) | write the name of an anchor defined above it (`*name`), or quote the value if the `*` is text']],
    ['an anchor without a name', 'name: &\n', ['yaml/syntax error 1:7 an anchor `&` has no name (yaml BAD_ALIAS) | write a name right after it (`&name`), or quote the value if the `&` is text']],
    ['an anchor ending in a colon', 'name: &a: x\n', ['yaml/syntax warning 1:9 the anchor `&a:` ends in `:`, which is read as part of its name (yaml BAD_ALIAS) | leave the `:` out, and put the anchor after the key\'s colon: `key: &a value`']],
    [
      'an alias ending in a colon',
      'a: &a x\nname: *a:\n',
      [
        'yaml/syntax warning 2:9 the alias `*a:` ends in `:`, which is read as part of its name (yaml BAD_ALIAS) | if the alias is a key, put a space before its colon: `*a : value`',
        'yaml/syntax error 2:7 alias *a: refers to no anchor defined before it (yaml BAD_ALIAS) | define &a: on an earlier node',
      ],
    ],
    ['an anchor ending in a colon at the start of the file', '&a: x\n', ['yaml/syntax warning 1:3 the anchor `&a:` ends in `:`, which is read as part of its name (yaml BAD_ALIAS) | leave the `:` out, and put the anchor after the key\'s colon: `key: &a value`']],
    [
      'an alias ending in a colon inside brackets',
      'x: [*a:]\n',
      [
        'yaml/syntax warning 1:7 the alias `*a:` ends in `:`, which is read as part of its name (yaml BAD_ALIAS) | if the alias is a key, put a space before its colon: `*a : value`',
        'yaml/syntax error 1:5 alias *a: refers to no anchor defined before it (yaml BAD_ALIAS) | define &a: on an earlier node',
      ],
    ],
    ['an alias with an anchor', 'a: &a x\nname: &b *a\n', ['yaml/syntax error 2:10 an alias (`*name`) cannot have an anchor or tag of its own (yaml ALIAS_PROPS) | remove the `&anchor` or `!tag` in front of the alias']],
    ['two tags', 'name: !!str !!str x\n', ['yaml/syntax error 1:13 a value has two tags; it can have one (yaml MULTIPLE_TAGS) | remove the extra `!tag`']],
    ['an anchor before ?', '&a ? name\n: x\n', ['yaml/syntax error 1:4 an anchor or tag stands before the `?` or `:` it should follow (yaml BAD_PROP_ORDER) | write the anchor or tag after the indicator: `key: &anchor value`']],
    ['a verbatim tag named like an object property', 'toolkits: !<constructor> {enable: [a]}\n', ['yaml/unknown-tag error 1:11 the tag `!<constructor>` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    // A verbatim tag named like a property of every object is found on yaml's (empty) table of
    // known tags, which then fails inside yaml: on a scalar, a mapping or a list, block or flow.
    ['a verbatim tag named like an object property, on a scalar', 'name: a\nkey: !<constructor> x\n', ['yaml/unknown-tag error 2:6 the tag `!<constructor>` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    ['a verbatim tag named like an object property, on a block mapping', 'key: !<hasOwnProperty>\n  a: 1\n', ['yaml/unknown-tag error 1:6 the tag `!<hasOwnProperty>` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    ['a verbatim tag named like an object property, on a flow list', 'key: !<__proto__> [a]\n', ['yaml/unknown-tag error 1:6 the tag `!<__proto__>` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    ['a verbatim tag named like an object property, on a block scalar', 'key: !<valueOf> |\n  text\n', ['yaml/unknown-tag error 1:6 the tag `!<valueOf>` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    [
      'verbatim tags named like object properties, on list items and inside brackets',
      'k:\n  - !<toString> a\n  - !<propertyIsEnumerable>\n    - b\n  - [!<isPrototypeOf> x]\n',
      // yaml reports a collection's tag after what the collection holds.
      [
        'yaml/unknown-tag error 2:5 the tag `!<toString>` is not one manifests use | remove the tag; manifests use plain YAML values only',
        'yaml/unknown-tag error 5:6 the tag `!<isPrototypeOf>` is not one manifests use | remove the tag; manifests use plain YAML values only',
        'yaml/unknown-tag error 3:5 the tag `!<propertyIsEnumerable>` is not one manifests use | remove the tag; manifests use plain YAML values only',
      ],
    ],
    ['a YAML 1.1 tag', 'key: !!binary aGk=\n', ['yaml/unknown-tag error 1:6 the tag `!!binary` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    ['a tag handle never declared', 'key: !e!x a\n', ['yaml/unknown-tag error 1:6 the tag `!e!x` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    ['a verbatim tag without its >', 'key: !<a b\n', ['yaml/unknown-tag error 1:6 the tag `!<a` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    ['a core tag on a value it does not fit', 'key: !!int abc\n', ['yaml/unknown-tag error 1:6 the tag `!!int` does not fit the value it is on | remove the tag; manifests use plain YAML values only']],
    ['a core tag for a string on a list', 'key: !!str [a]\n', ['yaml/unknown-tag error 1:6 the tag `!!str` does not fit the value it is on | remove the tag; manifests use plain YAML values only']],
    ['a verbatim core tag for a list on a mapping', 'key: !<tag:yaml.org,2002:seq> {a: 1}\n', ['yaml/unknown-tag error 1:6 the tag `!<tag:yaml.org,2002:seq>` does not fit the value it is on | remove the tag; manifests use plain YAML values only']],
    [
      'each core tag on a value it does not fit',
      'a: !!float x\nb: !!bool x\nc: !!null x\nd: !!map x\n',
      [
        'yaml/unknown-tag error 1:4 the tag `!!float` does not fit the value it is on | remove the tag; manifests use plain YAML values only',
        'yaml/unknown-tag error 2:4 the tag `!!bool` does not fit the value it is on | remove the tag; manifests use plain YAML values only',
        'yaml/unknown-tag error 3:4 the tag `!!null` does not fit the value it is on | remove the tag; manifests use plain YAML values only',
        'yaml/unknown-tag error 4:4 the tag `!!map` does not fit the value it is on | remove the tag; manifests use plain YAML values only',
      ],
    ],
    ['a verbatim tag that only starts like a core tag', 'key: !<tag:yaml.org,2002:int-x> 1\n', ['yaml/unknown-tag error 1:6 the tag `!<tag:yaml.org,2002:int-x>` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    ['a core tag that fits its value is no finding', 'name: !!str a\nuser_id: !!str u\n', []],
    ['an unknown tag', 'name: !x a\n', ['yaml/unknown-tag error 1:7 the tag `!x` is not one manifests use | remove the tag; manifests use plain YAML values only']],
    // Lists and keys
    ['a list on the line of its key', 'toolkits: - github\n', ['yaml/syntax error 1:13 a list starts on the line of its key (line 1); its items go on the lines below (yaml MISSING_CHAR) | put each `- item` on a line of its own below the key, indented more than the key']],
    ['a list after an anchor on the line of its key', 'toolkits: &tools  - github\n', ['yaml/syntax error 1:21 a list starts on the line of its key (line 1); its items go on the lines below (yaml MISSING_CHAR) | put each `- item` on a line of its own below the key, indented more than the key']],
    // A quoted key is a key too: one finding, not a second "neither `key: value` nor a list item".
    ['a list on the line of its double-quoted key', '"a": - b\n', ['yaml/syntax error 1:6 a list starts on the line of its key (line 1); its items go on the lines below (yaml UNEXPECTED_TOKEN) | put each `- item` on a line of its own below the key, indented more than the key']],
    ["a list on the line of its single-quoted key, with a quote inside", "'it''s': - a\n", ['yaml/syntax error 1:10 a list starts on the line of its key (line 1); its items go on the lines below (yaml UNEXPECTED_TOKEN) | put each `- item` on a line of its own below the key, indented more than the key']],
    ['a list after an anchor on the line of a quoted key in a list item', '- "a": &x - b\n', ['yaml/syntax error 1:11 a list starts on the line of its key (line 1); its items go on the lines below (yaml UNEXPECTED_TOKEN) | put each `- item` on a line of its own below the key, indented more than the key']],
    ['a list on the line of a nested quoted key', 'x:\n  "a": - b\n  c: d\n', ['yaml/syntax error 2:8 a list starts on the line of its key (line 2); its items go on the lines below (yaml UNEXPECTED_TOKEN) | put each `- item` on a line of its own below the key, indented more than the key']],
    ['a quoted key below a quoted key, indented more', '"a": 1\n "b": 2\n', ['yaml/syntax error 1:6 `"b"` on line 2 is indented more than `"a"` on line 1, so it is read as part of the value of `"a"` (yaml MULTILINE_IMPLICIT_KEY) | If `"b"` is a key of its own, start it at column 1, like `"a"`.']],
    ['a value with `: ` after a quoted key holding a colon', '"a:b": c: d\n', ['yaml/syntax error 1:8 the value of `"a:b"` on line 1 contains `: `, which starts another key (yaml BLOCK_AS_IMPLICIT_KEY) | put the value in quotes: `"a:b": "c: d"`']],
    ['block text at the column of its quoted key', 'a:\n  "b": >-\n  x\n', ['yaml/syntax error 3:3 the text of the `>` block of `"b"` on line 2 must be indented more than `"b"` (yaml MISSING_CHAR) | indent every line of the text more than `"b"` (column 3), for example to column 5']],
    ['an anchor before a nested list on its line', '- &xy  - a\n', ['yaml/syntax error 1:3 an `&anchor` or `!tag` of a list stands on the line of its first `- ` (yaml MISSING_CHAR) | end the line after the anchor or tag, and put the list\'s items on the lines below it, indented']],
    [
      'an anchor before a list inside brackets, after a space',
      'toolkits: [ &t - a ]\n',
      [
        'yaml/syntax error 1:13 an `&anchor` or `!tag` of a list stands on the line of its first `- ` (yaml MISSING_CHAR) | end the line after the anchor or tag, and put the list\'s items on the lines below it, indented',
        'yaml/syntax error 1:16 a block list item (`- `) or block mapping is written inside brackets (yaml BLOCK_IN_FLOW) | inside `[...]` or `{...}`, separate items with commas: `[a, b]`; or drop the brackets and write one `- item` per line',
        'yaml/syntax error 1:18 two items inside brackets are not separated by a comma (yaml MISSING_CHAR) | separate the items with `,`: `[a, b]`, `{a: 1, b: 2}`',
      ],
    ],
    [
      'a block scalar indicator after a tab, as a list item',
      '!x \n- \t|\t\t|\n',
      [
        'yaml/syntax error 2:7 a list item has no `- ` in front of it (yaml MISSING_CHAR) | start every item of a block list with `- `',
        'yaml/unknown-tag error 1:1 the tag `!x` is not one manifests use | remove the tag; manifests use plain YAML values only',
      ],
    ],
    ['a verbatim tag on a key', 'name: a\n!<constructor> k: 1\n', ['yaml/non-string-key error 2:1 the tag `!<constructor>` on this key is not one manifests use | remove the tag: keys are plain strings']],
    ['a core tag on a key in braces, after an anchor', 'name: a\nx: {&a !!int 5: 1}\n', ['yaml/non-string-key error 2:8 the tag `!!int` on this key is not one manifests use | remove the tag: keys are plain strings']],
    ['a string tag on a key is a string key', 'name: a\n!!str k: 1\n', []],
    ['a list as a key', 'name: a\n? [x, y]\n: 1\n', ['yaml/non-string-key error 2:3 a key here is not a plain string (a list, a mapping or nothing is used as a key) | keys are plain strings; quote the key or restructure the value']],
    ['an indented word without a colon', 'toolkits:\n  github\n  enable: [a]\n', ['yaml/syntax error 2:3 `github` on line 2 has no `:` after it, so it runs into the next line (yaml MULTILINE_IMPLICIT_KEY) | write `github:` if it is a key']],
    ['a word among list items', 'toolkits:\n  - github\n  slack\n', ['yaml/syntax error 3:1 `slack` on line 3 is at column 3, the column of the list above it (`- github`, line 2), but has no `- ` (yaml BAD_INDENT) | Write `- slack` if it is an item of the list.']],
    // A key at the column of a list above it: one finding, from whichever of yaml's errors (three
    // unexpected tokens at the top, an indentation error below a key), for the key and what follows.
    [
      'a key after a list at the top',
      '- a\nb: c\n',
      ['yaml/syntax error 2:1 `b` on line 2 is a key at column 1, the column of the list above it (`- a`, line 1): a list and a key cannot share their indentation (yaml UNEXPECTED_TOKEN) | If `b` is a key of its own, the list needs a key too: write `key:` on a line above its first `- ` (line 1).'],
    ],
    [
      'a key after a list of mappings at the top, a comment and a blank line between',
      '- a: 1\n# c\n\nb: c # d\n',
      ['yaml/syntax error 4:1 `b` on line 4 is a key at column 1, the column of the list above it (`- a`, line 1): a list and a key cannot share their indentation (yaml UNEXPECTED_TOKEN) | If `b` belongs to the item on line 1, indent it to column 3, under `a`; if it is a key of its own, the list needs a key too: write `key:` on a line above its first `- ` (line 1).'],
    ],
    [
      'a quoted key after a flow list item, more keys, lines under them and an item after them',
      '- [a]\n- b\n"c": d\n  e: f\ng: h\n- i\n',
      ['yaml/syntax error 3:1 `"c"` on line 3 is a key at column 1, the column of the list above it (`- b`, line 2): a list and a key cannot share their indentation (yaml UNEXPECTED_TOKEN) | If `"c"` is a key of its own, the list needs a key too: write `key:` on a line above its first `- ` (line 1).'],
    ],
    [
      'a key after a list under a key, and the key after it',
      'name: n\ntoolkits:\n  - a\n  user_id: u\n  tags: [t]\n',
      ['yaml/syntax error 4:1 `user_id` on line 4 is a key at column 3, the column of the list above it (`- a`, line 3): a list and a key cannot share their indentation (yaml BAD_INDENT) | If `user_id` is a key beside `toolkits` (line 2), start it at column 1.'],
    ],
    [
      'a key after a list of mappings two levels down, with a list of its own',
      'tools:\n  github:\n    - a: 1\n      z: 2\n    b:\n      - c\n',
      ['yaml/syntax error 5:1 `b` on line 5 is a key at column 5, the column of the list above it (`- a`, line 3): a list and a key cannot share their indentation (yaml BAD_INDENT) | If `b` belongs to the item on line 3, indent it to column 7, under `a`; if it is a key beside `github` (line 2), start it at column 3.'],
    ],
    ['a flow mapping after a list at the top', '- a\n{b: c}\n', ['yaml/syntax error 2:1 `{b: c}` on line 2 is at column 1, the column of the list above it (`- a`, line 1), but has no `- ` (yaml UNEXPECTED_TOKEN) | Write `- {b: c}` if it is an item of the list.']],
    ['a list under a key at its own column, then a key, is YAML and no finding', 'toolkits:\n- a\nname: x\nuser_id: u\n', []],
    [
      'a list under a key at its own column, then a key, then another mistake: that one',
      'toolkits:\n- a\nname: x\nuser_id: "\\q"\n',
      ["yaml/syntax error 4:11 `\\q` is not an escape sequence inside double quotes (yaml BAD_DQ_ESCAPE) | write `\\\\` for a backslash, or use single quotes ('...') where a backslash is just a character"],
    ],
    // Another mistake on such a line is its own finding.
    [
      'a key after a list, whose value holds `: `',
      'x:\n  - a\n  b: c: d\n',
      [
        'yaml/syntax error 3:1 `b` on line 3 is a key at column 3, the column of the list above it (`- a`, line 2): a list and a key cannot share their indentation (yaml BAD_INDENT) | If `b` is a key beside `x` (line 1), start it at column 1.',
        'yaml/syntax error 3:6 the value of `b` on line 3 contains `: `, which starts another key (yaml BLOCK_AS_IMPLICIT_KEY) | put the value in quotes: `b: "c: d"`',
      ],
    ],
    [
      'a key after a list, with a comment glued to its value',
      'x:\n  - a\n  b: "c"#d\n',
      [
        'yaml/syntax error 3:1 `b` on line 3 is a key at column 3, the column of the list above it (`- a`, line 2): a list and a key cannot share their indentation (yaml BAD_INDENT) | If `b` is a key beside `x` (line 1), start it at column 1.',
        'yaml/syntax error 3:9 a `#` right after a value is read as part of it, not as a comment (yaml MISSING_CHAR) | put a space before `#` to start a comment',
      ],
    ],
    [
      'block text at the column of its key, with a bad escape',
      'k: |\n"\\q"\n',
      [
        "yaml/syntax error 2:2 `\\q` is not an escape sequence inside double quotes (yaml BAD_DQ_ESCAPE) | write `\\\\` for a backslash, or use single quotes ('...') where a backslash is just a character",
        'yaml/syntax error 2:1 the text of the `|` block of `k` on line 1 must be indented more than `k` (yaml MISSING_CHAR) | indent every line of the text more than `k` (column 1), for example to column 3',
      ],
    ],
    [
      'block text at the column of its key, with a quote never closed',
      'k: |\n"x\n',
      [
        'yaml/syntax error 2:1 the text of the `|` block of `k` on line 1 must be indented more than `k` (yaml MULTILINE_IMPLICIT_KEY) | indent every line of the text more than `k` (column 1), for example to column 3',
        'yaml/syntax error 3:1 a string opened with `"` is never closed (yaml MISSING_CHAR) | add the closing quote at the end of the value',
      ],
    ],
    // A word between two levels: yaml reports its place and its missing `: `, in two findings.
    [
      'a word between two levels',
      'a:\n  b: 1\n c\n',
      [
        'yaml/syntax error 3:1 `c` on line 3 starts at column 2, which lines up with no line above it, so it is read as part of `a` (line 1) (yaml BAD_INDENT) | It probably belongs at column 1, next to `a` (line 1); at column 3, next to `b` (line 2) it would belong with `b` instead.',
        'yaml/syntax error 3:2 `c` on line 3 is neither `key: value` nor a list item (yaml MISSING_CHAR) | add `: ` after the key, or `- ` before a list item; check the indentation against the lines above',
      ],
    ],
    ['an indented word after a key, in a mapping', 'a:\n  b: 1\n  c\n', ['yaml/syntax error 3:3 `c` on line 3 is neither `key: value` nor a list item (yaml MISSING_CHAR) | add `: ` after the key, or `- ` before a list item; check the indentation against the lines above']],
    // And the other way round: a list item at the column of the keys above it.
    [
      'a list item after a key at the top',
      'a: 1\n- b\n',
      ['yaml/syntax error 2:1 `- b` on line 2 is a list item at the column of the keys above (`a`, line 1); one mapping or list cannot mix the two (yaml MULTILINE_IMPLICIT_KEY) | Indent it under the key it belongs to, or make it `key: value` like the lines around it.'],
    ],
    [
      'a key between levels with no space after its colon',
      'toolkits:\n  enable: [a]\n tools:x\n',
      [
        'yaml/syntax error 3:1 `tools:x` on line 3 starts at column 2, which lines up with no line above it, so it is read as part of `toolkits` (line 1) (yaml BAD_INDENT) | It probably belongs at column 1, next to `toolkits` (line 1); at column 3, next to `enable` (line 2) it would belong with `enable` instead.',
        'yaml/syntax error 3:2 `tools:x` on line 3 has no space after its `:`, so it is read as one plain value, not a key and its value (yaml MISSING_CHAR) | put a space after the colon: `tools: x`',
      ],
    ],
    [
      'a key between levels whose value holds a colon',
      'toolkits:\n  enable: [a]\n tools: a: b\n',
      [
        'yaml/syntax error 3:1 `tools` on line 3 starts at column 2, which lines up with no line above it, so it is read as part of `toolkits` (line 1) (yaml BAD_INDENT) | It probably belongs at column 1, next to `toolkits` (line 1); at column 3, next to `enable` (line 2) it would belong with `enable` instead.',
        'yaml/syntax error 3:9 the value of `tools` on line 3 contains `: `, which starts another key (yaml BLOCK_AS_IMPLICIT_KEY) | put the value in quotes: `tools: "a: b"`',
      ],
    ],
    ['a tab as indentation', 'toolkits:\n\tenable: [a]\n', ['yaml/tab-indent error 2:1 line 2 is indented with a tab | indent with spaces; YAML forbids tabs in indentation']],
    ['a tab between spaces of indentation', 'a:\n \t b: 1\n', ['yaml/tab-indent error 2:2 line 2 is indented with a tab | indent with spaces; YAML forbids tabs in indentation']],
    ['a tab indenting a list item', '- a\n\t- b\n', ['yaml/tab-indent error 2:1 line 2 is indented with a tab | indent with spaces; YAML forbids tabs in indentation']],
    // Block scalars
    // The text of a `|` or `>` block not indented more than its key (or its `- `): YAML ends the
    // block there, empty, and trips over the text. One finding for all the lines of such text.
    ['block text at the column of its key, in a list item', '- a: |\n  x\n', ['yaml/syntax error 2:3 the text of the `|` block of `a` on line 1 must be indented more than `a` (yaml MISSING_CHAR) | indent every line of the text more than `a` (column 3), for example to column 5']],
    ['block text left of its key, in a list item', '- a: |\n x\n', ['yaml/syntax error 2:1 the text of the `|` block of `a` on line 1 must be indented more than `a` (yaml MISSING_CHAR) | indent every line of the text more than `a` (column 3), for example to column 5']],
    ['block text of two lines and a blank one, at the top', 'k: |\nx y\n\nz\n', ['yaml/syntax error 2:1 the text of the `|` block of `k` on line 1 must be indented more than `k` (yaml MISSING_CHAR) | indent every line of the text more than `k` (column 1), for example to column 3']],
    ['block text of a list item', 'k:\n  - |\n  x\n', ['yaml/syntax error 3:1 the text of the `|` block of the list item on line 2 must be indented more than its `- ` (yaml BAD_INDENT) | indent every line of the text more than its `- ` (column 3), for example to column 5']],
    ['block text after an anchor, a tag, indicators and a comment', 'a:\n  b: &x !!str |+2 # c\n  x\n', ['yaml/syntax error 3:3 the text of the `|` block of `b` on line 2 must be indented more than `b` (yaml MISSING_CHAR) | indent every line of the text more than `b` (column 3), for example to column 5']],
    [
      'folded text two levels down, at the column of its key',
      'tools:\n  github:\n    description: >\n    text\n    more text\n',
      ['yaml/syntax error 4:5 the text of the `>` block of `description` on line 3 must be indented more than `description` (yaml MULTILINE_IMPLICIT_KEY) | indent every line of the text more than `description` (column 5), for example to column 7'],
    ],
    ['a block followed by a key at its column is an empty block, no finding', 'name: n\nuser_id: |\ntoolkits: [a]\n', []],
    [
      'a word after block text that was indented is not block text',
      'name: n\ndescription: |\n  ok\nx\n',
      ['yaml/syntax error 4:1 `x` on line 4 is neither `key: value` nor a list item (yaml MISSING_CHAR) | add `: ` after the key, or `- ` before a list item; check the indentation against the lines above'],
    ],
    ['a block scalar with indented blank lines first', 'description: |\n    \n  text\n', ['yaml/syntax error 3:3 a `|` or `>` block starts with blank lines indented more than its first line of text (yaml MISSING_CHAR) | remove the spaces from those blank lines, or give the indentation after the indicator: `|2`']],
    ['text after a block scalar indicator', 'description: |x\n  text\n', ['yaml/syntax error 1:15 text follows the `|` or `>` of a block scalar on its line (yaml UNEXPECTED_TOKEN) | start the text on the next line, indented; only a comment may follow `|` or `>`']],
    [
      'a tab in a block scalar header: yaml ends at the end of the file',
      '|\t|\n',
      [
        'yaml/syntax error 1:3 unexpected `|` on line 1 (yaml UNEXPECTED_TOKEN) | look for an unmatched bracket or quote, or a stray character, on this line or the one before',
        'yaml/syntax error 2:1 unexpected end of the file on line 2 (yaml UNEXPECTED_TOKEN) | look for an unmatched bracket or quote, or a stray character, on this line or the one before',
      ],
    ],
    // Directives and documents
    ['directives without ---', '%YAML 1.2\nname: a\n', ['yaml/syntax error 2:1 a directive (`%YAML`, `%TAG`) is not followed by a `---` line before the document (yaml MISSING_CHAR) | put a line `---` after the directives']],
    [
      'a list on the --- line',
      '--- - a\n',
      [
        'yaml/syntax error 1:5 a block list or mapping starts on the `---` line (yaml MISSING_CHAR) | start it on the line after `---`',
        'yaml/syntax error 1:7 unexpected `a` on line 1 (yaml UNEXPECTED_TOKEN) | look for an unmatched bracket or quote, or a stray character, on this line or the one before',
      ],
    ],
    ['an unknown directive', '%FOO bar\n---\nname: a\n', ['yaml/directive warning 1:1 `%FOO bar` is not a directive YAML knows | remove the directive: manifests need none']],
    ['a %TAG directive with one part', '%TAG !x!\n---\nname: a\n', ['yaml/directive warning 1:1 `%TAG !x!` needs two parts after `%TAG`: a handle and a prefix | remove the directive: manifests need none']],
    ['a %TAG directive with three parts', '%TAG !x! a b\n---\nname: a\n', ['yaml/directive warning 1:1 `%TAG !x! a b` needs two parts after `%TAG`: a handle and a prefix | remove the directive: manifests need none']],
    ['a %YAML directive with two parts', '%YAML 1.2 x\n---\nname: a\n', ['yaml/directive warning 1:1 `%YAML 1.2 x` needs one part after `%YAML`: the version | remove the directive: manifests need none']],
    ['a %YAML directive with none', '%YAML\n---\nname: a\n', ['yaml/directive warning 1:1 `%YAML` needs one part after `%YAML`: the version | remove the directive: manifests need none']],
    ['an unknown directive with spaces after it', '%FOO bar   \n---\nname: a\n', ['yaml/directive warning 1:1 `%FOO bar` is not a directive YAML knows | remove the directive: manifests need none']],
    ['a directive between documents', 'name: a\n...\n%FOO bar\n---\nname: b\n', ['yaml/directive warning 3:1 `%FOO bar` is not a directive YAML knows | remove the directive: manifests need none']],
    ['a directive indented on line 1', '  %YAML 1.2\n', ['yaml/syntax error 1:3 a plain value cannot start with `%`: YAML reserves it (yaml BAD_SCALAR_START) | put the value in quotes']],
    ['a directive after content, with spaces after it', 'name: a\n%YAML 1.2  \n', ['yaml/syntax error 2:1 `%YAML 1.2` on line 2 is a directive after content (yaml MISSING_CHAR) | directives (`%YAML`, `%TAG`) go at the top of the file, before the `---` of the first document']],
    [
      'a bare `- ` after a key at the top',
      'a: 1\n-\n',
      ['yaml/syntax error 2:1 `-` on line 2 is a list item at the column of the keys above (`a`, line 1); one mapping or list cannot mix the two (yaml MULTILINE_IMPLICIT_KEY) | Indent it under the key it belongs to, or make it `key: value` like the lines around it.'],
    ],
    [
      'a list item after a key at the top, with a list on its own key',
      'a: 1\n- b: - c\n',
      [
        'yaml/syntax error 2:1 `- b` on line 2 is a list item at the column of the keys above (`a`, line 1); one mapping or list cannot mix the two (yaml MULTILINE_IMPLICIT_KEY) | Indent it under the key it belongs to, or make it `key: value` like the lines around it.',
        'yaml/syntax error 2:1 a list starts on the line of its key (line 2); its items go on the lines below (yaml MISSING_CHAR) | put each `- item` on a line of its own below the key, indented more than the key',
      ],
    ],
  ])('%s', (_name, text, expected) => {
    expect(findings(text)).toEqual(expected);
  });
});

describe('yaml errors that no manifest text reaches in this process', () => {
  const source = new SourceText('name: a\nuser_id: b\n');
  const at = { start: { line: 2, col: 1 }, end: { line: 2, col: 8 } };
  const diagnostic = (error: YAMLError) => yamlDiagnostic(error, source, 'm.yaml');

  it('the composer running out of stack is input/too-deep, in our words', () => {
    // parse.ts measures the nesting before yaml composes, and on Node 20 a second such document in
    // one process can abort V8 (depth.ts): the error yaml would give is made here instead.
    expect(diagnostic(new YAMLParseError([8, 15], 'RESOURCE_EXHAUSTION', 'Maximum call stack size exceeded'))).toStrictEqual({
      code: 'input/too-deep',
      severity: 'error',
      message: 'collections are nested too deeply for the YAML parser to read',
      file: 'm.yaml',
      range: at,
      hint: 'a session manifest needs only a few levels; this looks like a generated or hostile file',
    });
  });

  it("past the first 200 of a document, yaml's findings keep yaml's words, with our code and severity", () => {
    // Putting a finding in words reads its line (yamlDiagnostics): a hostile text has tens of thousands.
    const text = `${Array.from({ length: 201 }, (_, i) => `k${i}: !x v`).join('\n')}\nz: "\\q"\n`;
    const doc = parseDocument(text, { schema: 'core', resolveKnownTags: false, uniqueKeys: false, prettyErrors: false });
    const all = yamlDiagnostics([...doc.errors, ...doc.warnings], new SourceText(text), 'm.yaml');
    const line = (d: Diagnostic) => `${d.code} ${d.severity} ${d.range?.start.line}:${d.range?.start.col} ${d.message}${d.hint !== undefined ? ` | ${d.hint}` : ''}`;
    // yaml lists its errors (the escape) before its warnings (the tags).
    expect(all.map(line).slice(0, 2)).toEqual([
      "yaml/syntax error 202:5 `\\q` is not an escape sequence inside double quotes (yaml BAD_DQ_ESCAPE) | write `\\\\` for a backslash, or use single quotes ('...') where a backslash is just a character",
      'yaml/unknown-tag error 1:5 the tag `!x` is not one manifests use | remove the tag; manifests use plain YAML values only',
    ]);
    expect(all.map(line).slice(199)).toEqual([
      'yaml/unknown-tag error 199:7 the tag `!x` is not one manifests use | remove the tag; manifests use plain YAML values only',
      'yaml/unknown-tag error 200:7 Unresolved tag: !x (yaml TAG_RESOLVE_FAILED)',
      'yaml/unknown-tag error 201:7 Unresolved tag: !x (yaml TAG_RESOLVE_FAILED)',
    ]);
  });

  it("past the first 200, a code of yaml's without one of ours is yaml/syntax, with yaml's severity", () => {
    const errors: YAMLError[] = [...Array.from({ length: 200 }, () => new YAMLWarning([8, 15], 'IMPOSSIBLE', 'x')), new YAMLParseError([8, 15], 'MISSING_CHAR', 'Missing something'), new YAMLWarning([8, 15], 'IMPOSSIBLE', 'Odd')];
    expect(yamlDiagnostics(errors, source, 'm.yaml').slice(200)).toStrictEqual([
      { code: 'yaml/syntax', severity: 'error', message: 'Missing something (yaml MISSING_CHAR)', file: 'm.yaml', range: at },
      { code: 'yaml/syntax', severity: 'warning', message: 'Odd (yaml IMPOSSIBLE)', file: 'm.yaml', range: at },
    ]);
  });

  it('a directive yaml refuses for a reason we have no words for is quoted, as not used by manifests', () => {
    // `%YAML 1.1` gives "Unsupported YAML version", which parse.ts words itself (versionDirectives).
    const text = '%YAML 1.3\n---\nname: a\n';
    expect(yamlDiagnostic(new YAMLWarning([0, 9], 'BAD_DIRECTIVE', 'Unsupported YAML version 1.3'), new SourceText(text), 'm.yaml')).toStrictEqual({
      code: 'yaml/directive',
      severity: 'warning',
      message: '`%YAML 1.3` is a directive manifests do not use',
      file: 'm.yaml',
      range: { start: { line: 1, col: 1 }, end: { line: 1, col: 10 } },
      hint: 'remove the directive: manifests need none',
    });
  });

  it.each([
    // yaml 2.9.1 never reports IMPOSSIBLE for text; a later yaml may add MISSING_CHAR messages.
    ['a code we have no words for', new YAMLParseError([8, 15], 'IMPOSSIBLE', 'Map comment with trailing content'), 'error', 'Map comment with trailing content (yaml IMPOSSIBLE)'],
    ['a MISSING_CHAR message we have no words for', new YAMLParseError([8, 15], 'MISSING_CHAR', 'Missing something new'), 'error', 'Missing something new (yaml MISSING_CHAR)'],
    ['a warning we have no words for', new YAMLWarning([8, 15], 'IMPOSSIBLE', 'Something odd'), 'warning', 'Something odd (yaml IMPOSSIBLE)'],
  ])("%s keeps yaml's words and severity, and has no hint", (_name, error, severity, message) => {
    expect(diagnostic(error)).toStrictEqual({ code: 'yaml/syntax', severity, message, file: 'm.yaml', range: at });
  });
});
