"""The optional ahead-of-time build: spec and engine modules compiled with Cython, loaded only while current."""
