#!/usr/bin/python3
"""BROKEN on purpose (mqlab check must find it: unexpected): a body it cannot parse gets a row under the id 'unknown' before it is parked."""
from consumer import CORRECT, run

run({**CORRECT, 'poison': 'record-and-park'})
