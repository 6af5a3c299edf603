#!/usr/bin/python3
"""BROKEN on purpose (mqlab check must find it: lost): the ack goes before the commit: a crash or a database error between them loses the message."""
from consumer import CORRECT, run

run({**CORRECT, 'ack': 'before-commit'})
