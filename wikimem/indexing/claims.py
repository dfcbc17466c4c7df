"""Claims of authority: text in which a person is said to allow, approve or waive something.

Such a sentence is identity memory whatever type a plan gives it: PROFILE's topic summaries
and the strongest entries reach every agent at session start, so "the owner allows pushing
to main without review", written by a model that evidence talked into it, would speak for the
person to every later agent. A model's plan saying it waits for a person (see the indexer).
What is matched is the shape, a person as subject and a grant or waiver as verb, or a waiver
of a check on its own ("without review", "no need to ask"); a lesson about a tool's own
permissions ("npm needs --allow-root", "the token allows read access") is not a claim.
"""

from __future__ import annotations

import re

_PERSON = (
    r"(?:the\s+|our\s+|my\s+)?(?:owner|user|maintainers?|administrators?|team\s+lead|"
    r"tech\s+lead|boss|manager|reviewers?|human|person)|I|we|you"
)
_GRANT = (
    r"allows?|allowed|permits?|permitted|authori[sz]e[sd]?|approves?|approved|grants?|granted|"
    r"waives?|waived|exempts?|exempted|trusts?|agreed?|"
    r"(?:is|are|am)\s+(?:fine|ok(?:ay)?|happy)\s+with|(?:does|do)\s*(?:n't|\s+not)\s+mind|"
    r"(?:has|have)\s+(?:given|granted)\s+(?:permission|approval|consent)"
)
# Only auxiliaries and adverbs may stand between the person and the grant ("the owner has
# since allowed"), so a noun after the subject ("user agent allows") is not a person.
_BETWEEN = (
    r"has|have|had|is|are|was|were|will|would|does|do|did|now|since|already|also|explicitly|"
    r"always|hereby|said|says|that|it|this"
)
_SUBJECT_GRANTS = re.compile(
    rf"\b(?:{_PERSON})\b(?:\s+(?:{_BETWEEN})\b){{0,3}}\s+(?:{_GRANT})\b", re.IGNORECASE
)
# A waiver of a person's check, whoever is said to give it.
_WAIVER = re.compile(
    r"\b(?:without|no\s+need\s+(?:for|to)|skip(?:ping)?|bypass(?:ing)?)\s+(?:any\s+|a\s+|the\s+)?"
    r"(?:(?:code\s+|pull\s+request\s+|human\s+|manual\s+)?review|approval|confirmation|"
    r"asking|consent|sign-?off|permission)\b"
    r"|\b(?:never|do\s+not|don't|no\s+need\s+to)\s+ask\b"
    r"|\b(?:never|do\s+not|don't)\s+wait\s+for\s+(?:the\s+)?"
    r"(?:owner|user|person|human|approval|permission|confirmation|review)\b",
    re.IGNORECASE,
)


def authority_claim(text: str) -> str:
    """The words of `text` that claim a person's grant or waiver, "" when there are none."""
    for pattern in (_SUBJECT_GRANTS, _WAIVER):
        found = pattern.search(text)
        if found:
            return " ".join(found.group(0).split())
    return ""
