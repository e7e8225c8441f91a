"""Adapters: one `ModelAPI` per provider on its official SDK (OpenAI, Anthropic, Gemini, xAI), the model
catalog, API keys and retry policy. Imports records, schemas and errors only; never calls, agents or
the engine."""
