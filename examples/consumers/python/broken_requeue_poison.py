#!/usr/bin/python3
"""BROKEN on purpose (mqlab check must find it: poison-not-parked): a body it cannot parse is nacked with requeue: it comes back for ever."""
from consumer import CORRECT, run

run({**CORRECT, 'poison': 'requeue'})
