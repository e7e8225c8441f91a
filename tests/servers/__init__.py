"""Loopback fakes of provider wire formats (HTTP dialects and the xAI gRPC service) for tests."""
