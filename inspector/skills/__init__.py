"""The Skills extension (SEP-2640, ``io.modelcontextprotocol/skills``), headless.

A server declaring the extension lists its skills (``skills/list``) and answers for one
(``skills/get``); each entry names the skill's ``SKILL.md`` and every file with its
digest and size. :mod:`inspector.skills.entry` reads entries and verifies content against
them; :mod:`inspector.skills.client` lists, gets and loads skills over a session, and
fetches nothing the user did not ask for. A file that does not match its entry is a
finding on the response's wire event and is never returned as content.
"""
