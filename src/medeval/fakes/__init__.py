"""Fakes: offline stand-ins for providers, for the demo and the tests: canned chatbots (accurate,
incomplete, outdated...) and judges backed by the rules coder. Imports agents, adapters and below."""
