#!/usr/bin/python3
"""BROKEN on purpose (mqlab check must find it: duplicated): no dedupe row: a redelivery or a second publish applies the effect again."""
from consumer import CORRECT, run

run({**CORRECT, 'dedupe': False})
