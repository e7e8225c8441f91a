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

from medeval.schemas import NonAnswer

SentenceKind = Literal["refusal", "dont_know", "referral", "depends", "question", "filler", "substance"]

_REFUSAL = re.compile(
    r"\b(?:I|we)\s+(?:can(?:no|')t|am not able to|'m not able to|am unable to|'m unable to|"
    r"(?:do not|don't|won't|will not) (?:be able to )?)\s*"
    r"(?:help|provide|give|offer|answer|advise|recommend|determine|assess|make|"
    r"tell you (?:what|whether|which|if)|speak to|comment|weigh in|predict)|"
    r"\b(?:outside|beyond) (?:my|the) scope\b|"
    r"\bnot (?:able|in a position) to (?:advise|give|provide|recommend)",
    re.I,
)
_DONT_KNOW = re.compile(
    r"\b(?:I|we)\s*(?:do not|don't|honestly don't|really don't) (?:know|have (?:access|information|details|"
    r"(?:any |the |real-time |current |specific |up-to-date )?(?:information|data|details|way|ability|"
    r"access)|your (?:location|zip)))|"
    r"\b(?:I'm|I am) (?:not sure|honestly not sure|uncertain|not certain|not familiar)|"
    r"\b(?:I|we) (?:can(?:no|')t|am unable to|'m unable to|am not able to|'m not able to) "
    r"(?:look (?:it |that |this )?up|check|see|access|verify|confirm|browse|search|know)|"
    r"\bno way (?:for me )?to (?:know|tell|check)|\bhard (?:for me )?to say\b|\bI (?:wouldn't|would not) "
    r"want to guess\b|\bdon't want to (?:give|guess|speculate)",
    re.I,
)
_REFERRAL_TARGET = (
    r"medicare\.gov|1-800-medicare|1-800-633-4227|plan finder|\bship\b|state health insurance|"
    r"social security|\bssa\b|medicaid (?:office|agency|caseworker|program|worker)|caseworker|case worker|"
    r"counselou?r|insurance agent|\bbroker\b|benefits (?:office|department|administrator)|\bhr\b|"
    r"human resources|member services|customer service|the (?:plan|insurer|insurance company)\b|"
    r"the plan's|harborview|your (?:state|local|county)|elder[- ]law|attorney|\bagent\b|the doctor's office|"
    r"(?:your|the) (?:doctor|pharmacist|pharmacy)"
)
_REFERRAL = re.compile(
    rf"(?:\b(?:call|contact|check|visit|ask|reach out|talk|speak|consult|confirm|verify|look (?:it )?up|"
    rf"go to|recommend|suggest|best (?:bet|option|source|place|resource|thing)|help you|can tell|can walk|"
    rf"can confirm|can explain|can look|can go over|can review|can help|will know|would know|"
    rf"is (?:free|available)|offers? free)\b.*(?:{_REFERRAL_TARGET})|"
    rf"(?:{_REFERRAL_TARGET}).*\b(?:can|could|will|would) (?:help|tell|explain|confirm|walk|look|answer|"
    rf"go (?:over|through)|review|check|advise|give)\b|"
    rf"^(?:they|them|someone there|a counselor|those folks)\b.*\b(?:can|could|will|would)\b)",
    re.I,
)
_DEPENDS = re.compile(
    r"\b(?:it|that|this|the answer|which (?:one|option)(?: is (?:better|best|right))?|everything|a lot|"
    r"coverage|costs?|benefits|it all|the best choice|the right choice|the choice)\s+"
    r"(?:really |all |largely |mostly |entirely |truly |)?(?:depends|varies|will depend|can vary|vary)\b|"
    r"\bdepends (?:entirely |largely |really )?on (?:the|your|which|what|where|how)\b|\bvaries (?:by|from)\b|"
    r"\bevery(?:one's| person's|body's) situation is (?:different|unique)|"
    r"\b(?:very )?(?:individual|personal) decision\b|\bno one-size-fits-all\b|\bcase[- ]by[- ]case\b|"
    r"\b(?:advantages|pros) and (?:disadvantages|cons)\b",
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


def sentence_kind(text: str) -> SentenceKind:
    """How a sentence that the key neither credits nor contradicts moves the conversation."""
    if _REFUSAL.search(text):
        return "refusal"
    if _DONT_KNOW.search(text):
        return "dont_know"
    if _REFERRAL.search(text):
        return "referral"
    if _DEPENDS.search(text):
        return "depends"
    if _QUESTION.search(text):
        return "question"
    if _FILLER.search(text) and not _ASSERTIVE.search(text):
        return "filler"
    return "substance"


def asserts_something(text: str) -> bool:
    return _ASSERTIVE.search(text) is not None


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
