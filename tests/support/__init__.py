"""Helpers shared by the tests (tests/README.md): plain functions, classes and constants, never
fixtures (those stay in conftest.py files, which import from here). Nothing here imports a
conftest.py or a test module."""
