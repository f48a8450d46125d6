"""Counterexample traces: the trace graph, its renderers, and the rendered known bugs.

Renderers see only a trace (states and action labels) and the spec's
description of its variables; they know nothing of Kafka.
"""
