#!/usr/bin/python3
"""BROKEN on purpose (mqlab check must find it: stuck): a database error is logged and nothing else: the delivery is neither acked nor nacked."""
from consumer import CORRECT, run

run({**CORRECT, 'db_error': 'swallow'})
