"""The rules coder's parts: text (markdown, sentences, clauses), reading (negation, comparison,
stale figures), figures (figures against the key's quantities), keyed (the key's patterns against
the text), nonanswer, and coder (one question group's codes). `medeval.agents.rules` is their
public face."""
