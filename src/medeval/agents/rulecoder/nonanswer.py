"""Non-answers, recognised positively, and the sentences the coder cannot account for.

The study codes an answer Not Substantive when it is a refusal, "I don't know", a bare referral,
an unelaborated "it depends", or says nothing that addresses the question. The rules coder names
one of those only when every sentence of the answer is such a move; a sentence that says something
else (a rule, a figure, a date, a negation) that the key neither credits nor contradicts is
reported as uncertain instead, so that a person looks at it.
"""

from __future__ import annotations

import re
from typing import Literal

from medeval.agents.rulecoder.text import Piece, clauses
from medeval.schemas import NonAnswer

SentenceKind = Literal["refusal", "dont_know", "referral", "depends", "question", "filler", "substance"]

# "I", "I'm", "we're": the chatbot speaking of itself.
_I = r"\b(?:I|we)(?:'m|'re| am| are)?\s+"
_REFUSAL = re.compile(
    rf"{_I}(?:really |honestly |just )?(?:can(?:no|')t|not able to|unable to|(?:do not|don't|won't|will not) "
    r"(?:be able to )?)\s*(?:help|provide|give|offer|answer|advise|recommend|determine|assess|make|"
    r"discuss|go over|get into|talk about|quote|share|"
    r"tell you (?:what|whether|which|if|how)|speak to|comment|weigh in|predict)|"
    r"\b(?:outside|beyond) (?:my|the) scope\b|"
    rf"{_I}(?:'d|would) rather not (?:guess|speculate|give|quote|say)|{_I}(?:hesitant|reluctant) to\b|"
    r"\bnot (?:able|in a position) to (?:advise|give|provide|recommend)",
    re.I,
)
_DONT_KNOW = re.compile(
    rf"{_I}(?:honestly |really |just )?(?:do not|don't) (?:know|have (?:access|information|details|"
    r"(?:any |the |real-time |current |specific |up-to-date |that )?(?:[\w'-]+ ){0,2}?(?:information|data|"
    r"details|way|ability|access)|(?:that|the|this|your|its|their|harborview's|the plan's) [\w' ]{0,30}?"
    r"(?:formulary|list|directory|location|zip|data|details|information)))|"
    rf"{_I}(?:honestly |really )?(?:not sure|uncertain|not certain|not familiar|afraid I (?:can't|don't))|"
    rf"{_I}(?:can(?:no|')t|unable to|not able to) (?:look (?:it |that |this )?up|check|see|access|verify|"
    r"confirm|browse|search|know|tell you (?:that|this|for sure|for certain)|"
    r"say(?: for (?:sure|certain))?\b|"
    r"(?:tell|give|quote) you (?:the|its|their|that|this|an exact|the exact|exactly|a specific|specific|"
    r"harborview's|the plan's|that plan's|this plan's)\b)|"
    # "I wasn't able to find current premium information for the plan."
    rf"{_I}(?:could(?:n't| not)|was(?:n't| not) able to|was unable to|did(?:n't| not)|can(?:no|')t) "
    r"(?:find|locate|track down|pull up)\b|"
    r"\bno way (?:for me )?to (?:know|tell|check)|\bhard (?:for me )?to say\b|"
    r"\b(?:wouldn't|would not|don't) want to (?:give|guess|speculate)",
    re.I,
)
_REFERRAL_TARGET = (
    r"medicare\.gov|1-800-medicare|1-800-633-4227|plan finder|\bship\b|state health insurance|"
    r"social security|\bssa\b|medicaid (?:office|agency|caseworker|program|worker)|caseworker|case worker|"
    r"counselou?r|insurance agent|\bbroker\b|benefits (?:office|department|administrator)|\bhr\b|"
    r"human resources|member services|customer service|the (?:plan|insurer|insurance company)\b|"
    r"the plan's|harborview|your (?:state|local|county)|elder[- ]law|attorney|\bagent\b|doctor's office|"
    r"(?:your|the) (?:doctor|pharmacist|pharmacy)|summary of benefits|evidence of coverage|formulary|"
    r"provider directory|drug list|plan documents|(?:qualified|licensed) (?:professional|expert|advis[eo]r)"
)
_REFERRAL = re.compile(
    rf"(?:\b(?:call|contact|check|visit(?!s\b)|ask|reach out|talk (?:to|with)|speak (?:to|with)|consult|"
    rf"confirm|verify|"
    rf"look (?:it |that |this )?(?:up|at|in|for|through)|find (?:it|this|that|out|them|the|those|these)|"
    rf"find (?:\w+ ){{1,3}}(?:in|on|at|through)|"
    rf"see (?:the|your|its|their)|review|"
    rf"go to|recommend|suggest|best (?:bet|option|source|place|resource|thing)|help you|can tell|can walk|"
    rf"can confirm|can explain|can go over|can help|will know|would know|is (?:free|available)|"
    rf"offers? free)(?:ed|ing|s)?\b.*(?:{_REFERRAL_TARGET})|"
    rf"(?:{_REFERRAL_TARGET}).*\b(?:can|could|will|would|should) (?:\w+ ){{0,3}}"
    rf"(?:help|tell|explain|confirm|walk|look|answer|go (?:over|through)|review|check|advise|give|show|"
    rf"list|have)\b|"
    rf"^(?:they|them|someone there|a counselor|those folks)(?:\b.*\b(?:can|could|will|would)\b|'ll\b))",
    re.I,
)
# Every branch of _REFERRAL but the last needs a referral target; that branch starts the clause.
# Checking these two first settles most clauses without the costly expression (same result).
_REFERRAL_NEEDS = re.compile(_REFERRAL_TARGET, re.I)
_REFERRAL_LEAD = re.compile(r"^(?:they|them|someone there|a counselor|those folks)", re.I)
_DEPENDS = re.compile(
    r"\b(?:it|that|this|the answer|which (?:one|option)(?: is (?:better|best|right))?|everything|a lot|"
    r"coverage|costs?|benefits|it all|the best choice|the right choice|the choice)\s+"
    r"(?:really |all |largely |mostly |entirely |truly |)?(?:depends|varies|will depend|can vary|vary)\b|"
    r"\bdepend(?:s|ing)? (?:entirely |largely |really )?on (?:the|your|which|what|where|how)\b|"
    r"\bvaries (?:by|from)\b|"
    r"\bevery(?:one's| person's|body's) situation is (?:different|unique)|"
    r"\b(?:very )?(?:individual|personal) decision\b|\bno one-size-fits-all\b|\bcase[- ]by[- ]case\b|"
    r"\b(?:advantages|pros) and (?:disadvantages|cons)\b",
    re.I,
)
# The general explanation beside a refusal or referral to a plan-specific question ("copays vary
# by location", "networks change often"): it says why the chatbot cannot answer, not the answer.
# A clause that also gives a figure or a rule says more than that.
_GENERAL = re.compile(
    r"^(?:[\w']+\s+){0,3}(?:co-?pays?|co-?payments?|premiums?|networks?|formular(?:y|ies)|drug lists?|"
    r"prices?|amounts?|details|benefits|directories|costs?|availability|plans?)\s+"
    r"(?:can |may |often |frequently |also |all )?(?:vary|differ|change)s?\b"
    # Only qualifiers after it ("by location and plan", "every year"): no figure, no other statement.
    r"(?:[\s,]+(?!(?:must|only|never|always|cannot|can't|not|no|nothing|charge|charges|cost|costs|pay|pays|"
    r"include|includes|cover|covers|have|has|is|are)\b)[\w'-]+){0,8}[.!]?$",
    re.I,
)
_FILLER = re.compile(
    r"^(?:great|good|excellent|that's a (?:great|good|common|important)|thanks|thank you|happy to help|"
    r"i hope (?:this|that) helps|hope (?:this|that) helps|good luck|best of luck|let me know|feel free|"
    r"i'd be happy|i would be happy|i can help|sure|of course|absolutely|certainly|okay|ok|"
    r"here(?:'s| is| are)|this is (?:a|an) (?:important|common|great|good)|"
    r"it's (?:smart|wise|a good idea) to (?:ask|think|plan|check)|don't hesitate|please (?:note|remember))\b",
    re.I,
)
_QUESTION = re.compile(r"\?\s*$")
# What makes a sentence say something about Medicare that could be right or wrong.
_ASSERTIVE = re.compile(
    r"\$\s?\d|\d\s?%|\b\d+\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|"
    r"\b(?:must|have to|has to|need to|needs to|required|requires?|mandatory|automatic(?:ally)?|only|never|"
    r"always|cannot|can't|won't|doesn't|don't|isn't|aren't|not|no|none|every|all|deadline|penalt\w*|"
    r"within|before|after|covers?|covered|pays?|paid|includes?|qualif\w*|eligible|limit\w*|cap\w*|"
    r"maximum|premium|deductible|copay\w*|coinsurance|network|enroll\w*|sign up)\b",
    re.I,
)


# A figure or a date ("$185", "20%", "8 months", "Oct 15"), which both readings below count.
_FIGURE_OR_DATE = (
    r"\$\s?\d|\d\s?%|\b\d+[- ](?:day|month|year)s?\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|"
)
# A rule, a figure, a date or a negation: what can make an otherwise right answer wrong.
_STRONG = re.compile(
    _FIGURE_OR_DATE
    + r"\b(?:must|have to|has to|required|requires?|mandatory|automatic(?:ally)?|only|never|always|cannot|"
    r"can't|won't|doesn't|don't|isn't|aren't|not|no|none|all|every|any ?time|deadline|penalt\w*)\b",
    re.I,
)
# A heading or a table's header row: a label, not a statement; a short clause with one of these
# verbs says something ("Most HMOs include drug coverage").
_VERB = re.compile(
    r"\b(?:is|are|isn't|aren't|was|were|include|includes|cover|covers|pay|pays|has|have|must|can|cannot|can't|"
    r"need|needs|require|requires|charge|charges|offer|offers|work|works|lets?|allows?)\b",
    re.I,
)
# A heading or a table's header row: a label, not a statement.
_LABEL = re.compile(r"^[^.!?]{0,60}[:]?$")


_RESOURCE_WORDS = 14
_RESOURCE = re.compile(
    r"medicare\.gov|1-800|plan finder|\bship\b|state health insurance|social security|oshiip|counsel|"
    r"department of insurance|\bssa\b|summary of benefits|evidence of coverage|provider directory|"
    r"member services|customer service",
    re.I,
)
_ANSWER_OPENING = re.compile(r"\W*(?:yes|no|yeah|nope)\b", re.I)

_PRIORITY: tuple[SentenceKind, ...] = ("refusal", "dont_know", "referral", "depends", "question", "filler")


def sentence_kind(sentence: Piece) -> SentenceKind:
    """How a sentence moves the conversation: substance when a clause says something (a referral
    or an "it depends" beside it does not take that away), else its strongest non-answer move.
    A refusal or "I don't know" sets the tone of its sentence unless another clause asserts a rule,
    a figure or a negation, or follows as a contrast ("I'm not sure, but you must enroll at 65"
    says something)."""
    parts = clauses(sentence)
    kinds = [clause_kind(c.text) for c in parts] or [clause_kind(sentence.text)]
    declined = next((k for k in kinds if k in ("refusal", "dont_know")), None)
    if declined is not None:
        # "I'm not sure, but ..." or "I can't see the formulary; the generic is almost always
        # covered" still says something; "I can't say - it's up to your state" does not.
        said = any(
            k == "substance" and (c.role == "contrast" or asserts_rule(c.text))
            for c, k in zip(parts, kinds, strict=False)
        )
        return "substance" if said else declined
    if "substance" in kinds:
        return "substance"
    return next(k for k in _PRIORITY if k in kinds)


def clause_kind(text: str) -> SentenceKind:
    """How one clause or sentence moves the conversation."""
    if _REFUSAL.search(text):
        return "refusal"
    if _DONT_KNOW.search(text):
        return "dont_know"
    if (_REFERRAL_NEEDS.search(text) or _REFERRAL_LEAD.match(text)) and _REFERRAL.search(text):
        return "referral"
    if _DEPENDS.search(text) or _GENERAL.search(text):
        return "depends"
    # A short entry naming where to look ("Medicare.gov - the Plan Finder tool", "OSHIIP, Ohio's
    # free SHIP"), as in a list of resources, with no rule or figure of its own.
    short = len(text.split()) <= _RESOURCE_WORDS and not re.search(r"\$\s?\d|\d\s?%", text)
    if short and _RESOURCE.search(text) and not _STRONG.search(text) and not _ANSWER_OPENING.match(text):
        return "referral"
    if _QUESTION.search(text):
        return "question"
    if _FILLER.search(text) and not _ASSERTIVE.search(text):
        return "filler"
    if (
        _LABEL.match(text)
        and len(text.split()) <= 8
        and not re.search(r"\d", text)
        and not _VERB.search(text)
    ):
        return "filler"
    return "substance"


# A rule or a figure, as opposed to a general explanation ("networks change often", "not everyone
# follows the same schedule", "ads don't always tell the whole story"): a negation or a negated
# hedge alone is no rule.
_RULE = re.compile(
    _FIGURE_OR_DATE
    + r"\b(?:must|have to|has to|required|requires?|mandatory|automatic(?:ally)?|only|never|cannot|can't|"
    r"won't|penalt\w*|deadline|within|covers?|covered|pays?|paid|qualif\w*|eligible)\b",
    re.I,
)


def declines(text: str) -> bool:
    """A refusal, an "I don't know" or an unelaborated "it depends": not a general point worded as
    a hedge ("prices vary from one insurer to the next" says something)."""
    return bool(_REFUSAL.search(text) or _DONT_KNOW.search(text) or _DEPENDS.search(text))


def states_rule(text: str) -> bool:
    return _RULE.search(text) is not None


def asserts_something(text: str) -> bool:
    return _ASSERTIVE.search(text) is not None


def asserts_rule(text: str) -> bool:
    return _STRONG.search(text) is not None


def non_answer_kind(kinds: list[SentenceKind]) -> NonAnswer | None:
    """The non-answer an answer is when none of its sentences is substance, else None."""
    if not kinds or "substance" in kinds:
        return None
    present = set(kinds)
    if "refusal" in present:
        return "refusal"
    if "dont_know" in present:
        return "dont_know"
    if "referral" in present:
        return "referral_only"
    if "depends" in present:
        return "depends_only"
    # Only a clarifying question and pleasantries: nothing that answers.
    return "dont_know" if "question" in present else "off_topic"


def names_resource(text: str) -> bool:
    """Whether the text names a place to look (Medicare.gov, Plan Finder, the plan's Summary of
    Benefits or provider directory, the SHIP, 1-800-MEDICARE) or refers the reader to one ("check
    the plan's own documents or call the plan")."""
    return _RESOURCE.search(text) is not None or bool(_REFERRAL_NEEDS.search(text) and _REFERRAL.search(text))
