#!/usr/bin/python3
"""A consumer that passes `mqlab check` (docs/check.md), in Python with pika and psycopg2
(Debian: apt-get install python3-pika python3-psycopg2).

Per message: one transaction -- a dedupe row keyed by the message id, then the business effect --
committed, and only then the ack. A body it cannot parse is parked: basic_reject(requeue=False),
which the work queue dead-letters into MQLAB_DLQ. It exits when the broker cancels it or closes its
channel or connection, and on a database error (without acking): whoever runs it (mqlab, systemd,
Kubernetes) starts it again, and the broker redelivers what it had not acked.

    mqlab check --consumer "/usr/bin/python3 examples/consumers/python/consumer.py" \\
      --effects "SELECT message_id FROM check_example_effects"

The broken variants beside it (broken_*.py) run this same code with one step changed.
"""
import json
import os
import sys
import time

import pika
import psycopg2

CORRECT = {
    'ack': 'after-commit',  # or 'before-commit'
    'dedupe': True,  # claim the message id in the dedupe table, in the effect's transaction
    'poison': 'park',  # or 'requeue', or 'record-and-park' (a row under a placeholder id, then park)
    'cancelled': 'exit',  # the broker cancels us or closes the channel/connection: or 'ignore'
    'db_error': 'exit',  # or 'swallow': log it, neither ack nor nack
}


def log(line):
    print(f'[consumer] {line}', flush=True)


def run(steps=CORRECT):
    queue = os.environ['MQLAB_QUEUE']
    ns = os.environ.get('MQLAB_NAMESPACE')
    prefix = f'{ns}_' if ns else ''
    effects, processed = f'{prefix}check_example_effects', f'{prefix}check_example_processed'
    db = psycopg2.connect(os.environ['MQLAB_PG_URL'], connect_timeout=5)
    with db, db.cursor() as cur:
        cur.execute(f'CREATE TABLE IF NOT EXISTS {effects} (message_id text NOT NULL, at timestamptz NOT NULL DEFAULT now())')
        cur.execute(f'CREATE TABLE IF NOT EXISTS {processed} (message_id text PRIMARY KEY)')

    connection = pika.BlockingConnection(pika.URLParameters(os.environ['MQLAB_AMQP_URL']))
    channel = connection.channel()
    channel.basic_qos(prefetch_count=1)

    def handle(ch, method, props, body):
        message_id = props.message_id
        try:
            json.loads(body)
        except ValueError:
            if steps['poison'] == 'requeue':
                ch.basic_nack(method.delivery_tag, requeue=True)
                return
            if steps['poison'] == 'record-and-park':
                with db, db.cursor() as cur:
                    cur.execute(f'INSERT INTO {effects} (message_id) VALUES (%s)', ('unknown',))
            log(f'status=parked messageId={message_id}')
            ch.basic_reject(method.delivery_tag, requeue=False)
            return
        if steps['ack'] == 'before-commit':
            ch.basic_ack(method.delivery_tag)
        try:
            with db:  # one transaction: committed when the block ends, rolled back on an exception
                with db.cursor() as cur:
                    applied = True
                    if steps['dedupe']:
                        cur.execute(
                            f'INSERT INTO {processed} (message_id) VALUES (%s) ON CONFLICT DO NOTHING RETURNING 1',
                            (message_id,),
                        )
                        applied = cur.fetchone() is not None
                    if applied:
                        cur.execute(f'INSERT INTO {effects} (message_id) VALUES (%s)', (message_id,))
        except psycopg2.Error as e:
            log(f'status=db_error messageId={message_id} error="{str(e).strip()}"')
            if steps['db_error'] == 'exit':
                sys.exit(1)
            return  # swallowed: neither ack nor nack
        log(f'status={"business_committed" if applied else "duplicate_skipped"} messageId={message_id}')
        if steps['ack'] == 'after-commit':
            ch.basic_ack(method.delivery_tag)

    channel.basic_consume(queue, handle)
    log(f'status=consuming queue={queue}')
    try:
        channel.start_consuming()  # returns when the broker cancels the consumer
        why = 'the broker cancelled the consumer'
    except pika.exceptions.AMQPError as e:
        why = f'{type(e).__name__}: {e}'
    if steps['cancelled'] == 'ignore':
        log(f'status=ignored why="{why}"')
        while True:
            time.sleep(3600)
    log(f'status=exiting why="{why}"')
    sys.exit(0)


if __name__ == '__main__':
    run()
