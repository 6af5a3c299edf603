#!/usr/bin/python3
"""BROKEN on purpose (mqlab check must find it: stuck): the broker's cancel and a closed channel or connection are ignored: alive, consuming nothing."""
from consumer import CORRECT, run

run({**CORRECT, 'cancelled': 'ignore'})
