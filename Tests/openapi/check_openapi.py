"""Schemathesis (the property-based OpenAPI tester from PyPI) against a real `paypanel serve`.

Starts `paypanel serve --port 0 --test-root` in a temporary directory (its own SQLite files, the
in-process mock processor, a processor webhook secret so that route is served), reads the port
and the API key it prints, and runs `st run` on the server's own /openapi.json with every check
on: a request the schema allows must be accepted, one it forbids refused, every response must
match its schema, and no request may answer 5xx. What a schema cannot say is in
paypanel_hooks.py and schemathesis.toml, each with the reason. The seed is fixed so a failure
repeats; the time is bounded. The server is stopped by its pid and the directory removed.

    python Tests/openapi/check_openapi.py --binary .build/debug/paypanel --st /path/to/st

Exits with `st`'s status (0 when every generated case passed).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WAIT = 60  # seconds; bounds a hang only


def start_serve(binary, directory):
    stdout = open(os.path.join(directory, "serve.out"), "w+")
    stderr = open(os.path.join(directory, "serve.err"), "w+")
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--test-root",
         "--db", os.path.join(directory, "paypanel.sqlite"),
         "--processor-db", os.path.join(directory, "processor.sqlite"),
         "--processor-webhook-secret", "whsec_schemathesis_0123456789abcdef"],
        stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, cwd=directory)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and process.poll() is None:
        stdout.seek(0)
        stderr.seek(0)
        listening = re.search(r"listening on http://127\.0\.0\.1:(\d+)", stdout.read())
        key = re.search(r"\b(sk_[A-Za-z0-9_]+)", stderr.read())
        if listening and key:
            return process, int(listening.group(1)), key.group(1)
        time.sleep(0.05)
    stderr.seek(0)
    error = stderr.read()
    stop(process)
    raise RuntimeError("paypanel serve printed no listening line and key: " + error[-1500:])


def stop(process):
    """SIGTERM, then SIGKILL after WAIT seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=".build/debug/paypanel")
    parser.add_argument("--st", default="st", help="the schemathesis command")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--max-time", default="120", help="seconds st may spend generating")
    options = parser.parse_args()

    binary = os.path.abspath(options.binary)
    directory = tempfile.mkdtemp(prefix="paypanel-openapi-")
    process = None
    try:
        process, port, key = start_serve(binary, directory)
        environment = dict(os.environ, PYTHONPATH=HERE)
        command = [
            options.st, "--config-file", os.path.join(HERE, "schemathesis.toml"),
            "run", f"http://127.0.0.1:{port}/openapi.json",
            "-H", f"Authorization: Bearer {key}",
            "--checks", "all", "--seed", options.seed, "--max-time", options.max_time,
            "--workers", "1", "--no-color",
        ]
        print("schemathesis against paypanel serve on port", port, flush=True)
        return subprocess.run(command, env=environment, cwd=directory, timeout=int(options.max_time) + 600).returncode
    finally:
        if process is not None:
            stop(process)
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
