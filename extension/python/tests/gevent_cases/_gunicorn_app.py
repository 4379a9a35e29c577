"""A WSGI application that gunicorn serves with gevent workers (``gunicorn -k gevent``),
each request in a greenlet of its own: test_gevent_cases.py's gunicorn test."""

import os

import gevent

# A worker loads the application once it handles gunicorn's signals: the test stops the
# server only then (a worker still starting would take the arbiter's handler for its own).
print("serving in", os.getpid(), flush=True)


def app(environ, start_response):
    gevent.sleep(0)  # Another greenlet's turn: the worker runs on gevent.
    body = b"hello from a greenlet"  # @view
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
